# per-pair costs in the LP (docs/lp.md): the routes of a 2-level fat tree
# (llamp-platform -t fattree:2,2 --wire 0.5us --switch 0.1us; llamp-routes -n 4);
# the runtime LP, then the largest d_switch for a 40 us budget
$LLAMP export-lp $DATA/examples/ring4.goal -o a.lp --o 1us --routes $DATA/examples/ring4.routes && cat a.lp && $LLAMP export-lp $DATA/examples/ring4.goal -o b.lp --o 1us --routes $DATA/examples/ring4.routes --set l_wire=0.6us --objective latency --budget 40us --wrt d_switch && sed -n '/objective/p;/^Maximize/,/^ obj/p;/^Bounds/,$p' b.lp; s=$?; rm -f a.lp b.lp; exit $s
