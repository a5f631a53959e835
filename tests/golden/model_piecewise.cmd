# the synthetic piecewise model (SMPI's semantics: tests/data/models/piecewise.cfg),
# its costs per size, and the paper example under it: +1 us of L adds 1 us
$LLAMP model $DATA/models/piecewise.cfg && $LLAMP analyze $DATA/examples/paper_example.goal --model $DATA/models/piecewise.cfg && $LLAMP analyze $DATA/examples/paper_example.goal --model $DATA/models/piecewise.cfg --L 3us | grep runtime
