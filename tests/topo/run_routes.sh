#!/bin/sh
# topo_routes: hop counts, latencies, bandwidths and link classes that
# llamp-routes reads from hand-written and generated platforms, against
# values worked out by hand (the *.expected files say how).
# usage: run_routes.sh BUILD_DIR SOURCE_DIR
B=$1; S=$2; T=$S/tests/topo
R=$B/bin/llamp-routes
[ -x "$R" ] || { echo "llamp-routes not built"; exit 77; }
W=$(mktemp -d) || exit 1
trap 'rm -rf "$W"' EXIT
fail=0
check() { # name expected-file actual-file: every expected row (comments and the header skipped) in actual
  grep -v '^#' "$2" | while read -r line; do
    grep -qx "$line" "$3" || { echo "$1: missing row '$line'"; echo FAIL > "$W/failed"; }
  done
}
printf 'a\nb\nc\nd\n' > "$W/h4"
$R "$T/hand4.xml" -f "$W/h4" --table > "$W/hand4" || fail=1
check hand4 "$T/hand4.expected" "$W/hand4"
head -1 "$W/hand4" | grep -qx '# src dst links switches latency bandwidth limiter loopback level0 level1' ||
  { echo "hand4: classes"; fail=1; }
cat > "$W/ft.xml" <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1"><cluster id="c" prefix="n" suffix="" speed="1Gf" bw="10GBps" lat="0.5us"
 sharing_policy="SPLITDUPLEX" topology="FAT_TREE" topo_parameters="2;4,4;1,2;1,2" radical="0-15"/></platform>
XML
$R "$W/ft.xml" -f "$T/ft16.hosts" --table > "$W/ft" || fail=1
check ft16 "$T/ft16.expected" "$W/ft"
python3 "$S/tools/llamp-platform" -t fattree:2,3 --wire 0.5us --switch 0.1us -o "$W/gft.xml" || fail=1
$R "$W/gft.xml" -f "$T/gen_ft.hosts" --table > "$W/gft" || fail=1
python3 "$S/tools/llamp-platform" -t dragonfly:3,2,2 --wire 0.5us --switch 0.1us -o "$W/gdf.xml" || fail=1
$R "$W/gdf.xml" -f "$T/gen_df.hosts" --table > "$W/gdf" || fail=1
sed -n '1,/^# dragonfly/p' "$T/gen.expected" > "$W/e1"
sed -n '/^# dragonfly/,$p' "$T/gen.expected" > "$W/e2"
check gen_fattree "$W/e1" "$W/gft"
check gen_dragonfly "$W/e2" "$W/gdf"
# the routes file round trip: written, read back (--like), the same table
$R "$W/gdf.xml" -f "$T/gen_df.hosts" -o "$W/r.txt" || fail=1
$R "$W/gdf.xml" --like "$W/r.txt" --table > "$W/gdf2" || fail=1
cmp -s "$W/gdf" "$W/gdf2" || { echo "routes file round trip differs"; fail=1; }
# errors: one line naming the file and line
printf 'llamp-routes 1\nlink 0 1e-6 -5 1 0 x\n' > "$W/bad.txt"
$R "$W/gdf.xml" --like "$W/bad.txt" > /dev/null 2> "$W/err" && { echo "bad routes file accepted"; fail=1; }
grep -q "bad.txt:2: expected 'link 0" "$W/err" || { echo "error message: $(cat "$W/err")"; fail=1; }
$R "$W/gdf.xml" -n 1000 > /dev/null 2> "$W/err" && fail=1
grep -q "only 12 hosts" "$W/err" || { echo "error message: $(cat "$W/err")"; fail=1; }
[ -f "$W/failed" ] && fail=1
[ $fail = 0 ] && echo "topo_routes: ok"
exit $fail
