# per-pair latency sensitivities: top pairs in the text report, the CSV matrix
$LLAMP analyze $DATA/examples/ring4.goal --o 1us --L 2us --G 0 --tolerance none --pairs 3 --pairs-csv m.csv && cat m.csv
