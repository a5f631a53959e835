$LLAMP analyze $DATA/examples/paper_example.goal --L 3parsecs
