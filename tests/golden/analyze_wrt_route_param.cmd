# critical values along a route parameter (--wrt l_wire) of an irregular graph, where the
# parametric pass prunes: each lane of its backward pass needs its own route latencies
# (they were all the last lane's, and the report said "0" without an error)
$LLAMP generate random ranks=4 ops=2000 seed=3 -o r.llg >/dev/null && $LLAMP analyze r.llg --routes $DATA/examples/ring4.routes --o 0 --wrt l_wire --range 0:2us --tolerance none | grep '^critical l_wire'; s=$?; rm -f r.llg; exit $s
