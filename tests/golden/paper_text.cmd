# The paper's running example: T(0.5us)=1.615us, lambda_L=1, critical latency 0.385us, 2us budget -> 0.885us
$LLAMP analyze $DATA/examples/paper_example.goal --o 0 --G 5ns --L 0.5us --range 0.2us:0.5us --budget 2us --critical-path
