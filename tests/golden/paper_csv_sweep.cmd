$LLAMP analyze $DATA/examples/paper_example.goal --o 0 --G 5ns --sweep 0.2us:0.5us:0.05us --format csv
