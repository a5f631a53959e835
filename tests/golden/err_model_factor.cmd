# a model file's errors name file:line, the key and what was expected
$LLAMP analyze $DATA/examples/paper_example.goal --model $DATA/models/bad_factor.cfg
