$LLAMP classify $DATA/examples/paper_example.goal --at ib
