$LLAMP generate halo2d px=2 py=2 iters=2 -o small.goal && $LLAMP analyze small.goal --format csv; s=$?; rm -f small.goal; exit $s
