$LLAMP classify $DATA/examples/paper_example.goal --o 0 --G 5ns --L 0.3us
