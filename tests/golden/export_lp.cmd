$LLAMP export-lp $DATA/examples/paper_example.goal -o paper.lp --o 0 --G 5ns --L 0.5us && cat paper.lp; s=$?; rm -f paper.lp; exit $s
