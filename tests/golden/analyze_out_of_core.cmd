# out of core (docs/graph.md): the same T and lambdas as the in-memory engine
# (the first six lines of each report), in one pass with a window; a window
# shorter than the longest in-edge, other analyses and other models refused
$LLAMP generate halo3d px=3 py=3 pz=2 iters=6 bytes=2KiB compute=20us -o h.llg >/dev/null && $LLAMP analyze h.llg --L 2us --o 1us --tolerance none | head -6 && $LLAMP analyze h.llg --L 2us --o 1us --out-of-core --window 4096 && $LLAMP analyze h.llg --out-of-core --window 16; $LLAMP analyze h.llg --out-of-core --range 1us:2us; $LLAMP analyze h.llg --out-of-core --nic; $LLAMP analyze h.llg --window 8
