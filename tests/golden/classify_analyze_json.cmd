$LLAMP analyze $DATA/examples/paper_example.goal --o 0 --G 5ns --L 0.3us --tolerance none --classify qdr --format json
