$LLAMP analyze $DATA/examples/paper_example.goal --o 0 --G 5ns --L 0.3us --range 0.2:0.5 --tolerance 1,5 --tolerance-of L,G --budget 2us --sweep 0:1us:0.25us --format json
