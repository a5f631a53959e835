# GOAL -> binary -> GOAL -> analysis gives the same answer
t=$(mktemp -d) && $LLAMP convert $DATA/examples/paper_example.goal $t/p.llg && $LLAMP convert $t/p.llg $t/p.goal && $LLAMP analyze $t/p.goal --o 0 --G 5ns --L 0.5us --format csv; s=$?; rm -rf $t; exit $s
