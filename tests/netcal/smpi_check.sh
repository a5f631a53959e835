#!/bin/sh
# The smpi group reproduces the fitted one-way curve under SimGrid: a
# synthetic noise-free raw file (known piecewise curves, eager limit 16383 B,
# a falling one-way segment that needs the quarter-octave pieces) through
# calib_netfit, then a ping-pong under smpirun on a 2-host platform with the
# reference link and the --cfg strings of the file: within 1 % at every size.
# The link is full duplex (SPLITDUPLEX, as the links of a <cluster>): on a
# SHARED link SimGrid's cross-traffic (the 5 % reverse flow of
# network/crosstraffic) slows every transfer by 5 %.
# Usage: smpi_check.sh BIN_DIR CHECK_NETMODEL SRC_DIR.  Exit 77 without SimGrid.
bin=$1 check=$2 src=$3
command -v smpicc >/dev/null && command -v smpirun >/dev/null || exit 77
w=$(mktemp -d) || exit 1
trap 'rm -rf "$w"' EXIT
set -e
# truth: one_way = 3us + 0.2 ns s (s <= 16383), 12us + 0.1 ns s (16384 .. 1 MiB-1),
#        a falling bump 300 us - 0.05 ns s (1 MiB .. 2 MiB-1), 20 us + 0.1 ns s above;
#        send 1us + 0.05 ns s, recv 0.8 us + 0.04 ns s, isend 0.5 us; late eager <= 16383
awk 'function ow(s) { return s <= 16383 ? 3e-6 + 2e-10*s : s < 1048576 ? 12e-6 + 1e-10*s : s < 2097152 ? 300e-6 - 5e-11*s : 20e-6 + 1e-10*s }
BEGIN { print "# host synthetic <-> synthetic (inter)"; print "kind,scope,size,duration,load"
  n = 0
  for (i = 0; i <= 520; i++) sz[n++] = int(2^(i * 26 / 520))
  sz[n++] = 16383; sz[n++] = 16384; sz[n++] = 1048575; sz[n++] = 1048576; sz[n++] = 2097151; sz[n++] = 2097152
  for (i = 0; i < n; i++) { s = sz[i]
    printf "pingpong,inter,%d,%.12g,0\n", s, ow(s)
    printf "send,inter,%d,%.12g,0\n", s, 1e-6 + 5e-11*s
    printf "recv,inter,%d,%.12g,0\n", s, 0.8e-6 + 4e-11*s
    printf "isend,inter,%d,%.12g,0\n", s, 0.5e-6
    if (s <= 4194304) printf "late,inter,%d,%.12g,0\n", s, s <= 16383 ? 1e-6 : 50e-6 + 2e-9*s + 1e-6
  } }' > "$w/raw.csv"
"$bin/calib_netfit" -o "$w/m.cfg" "$w/raw.csv" 2> "$w/fit.log" || { cat "$w/fit.log"; exit 1; }
"$check" "$w/m.cfg"
set -- $("$check" "$w/m.cfg" smpi.reference_latency smpi.reference_bandwidth smpi.send_is_detached_thresh network.eager_max)
lat=$1 bw=$2 thr=$3 S=$4
[ "$S" = 16383 ] || { echo "eager_max $S, expected 16383"; exit 1; }
[ "$thr" = 16384 ] || { echo "send_is_detached_thresh $thr, expected 16384"; exit 1; }
os=$("$check" "$w/m.cfg" smpi.os) or=$("$check" "$w/m.cfg" smpi.or) ois=$("$check" "$w/m.cfg" smpi.ois)
lf=$("$check" "$w/m.cfg" smpi.lat_factor) bf=$("$check" "$w/m.cfg" smpi.bw_factor)
cat > "$w/plat.xml" <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="z" routing="Full">
    <host id="h0" speed="1Gf"/>
    <host id="h1" speed="1Gf"/>
    <link id="l" bandwidth="${bw}Bps" latency="${lat}s" sharing_policy="SPLITDUPLEX"/>
    <route src="h0" dst="h1" symmetrical="NO"><link_ctn id="l" direction="UP"/></route>
    <route src="h1" dst="h0" symmetrical="NO"><link_ctn id="l" direction="DOWN"/></route>
  </zone>
</platform>
XML
printf 'h0\nh1\n' > "$w/hosts"
smpicc -O1 -o "$w/pp" "$src/tests/netcal/pp.c"
sizes="0 1 8 100 1000 4000 10000 16383 16384 20000 100000 1000000 1048576 1500000 2097152 5000000 30000000"
smpirun -np 2 -platform "$w/plat.xml" -hostfile "$w/hosts" \
  --cfg=smpi/simulate-computation:no --cfg=smpi/wtime:0 \
  "--cfg=smpi/os:$os" "--cfg=smpi/or:$or" "--cfg=smpi/ois:$ois" \
  "--cfg=smpi/lat-factor:$lf" "--cfg=smpi/bw-factor:$bf" \
  "--cfg=smpi/send-is-detached-thresh:$thr" --log=root.thres:warning \
  "$w/pp" $sizes > "$w/pp.out"
awk 'function ow(s) { return s <= 16383 ? 3e-6 + 2e-10*s : s < 1048576 ? 12e-6 + 1e-10*s : s < 2097152 ? 300e-6 - 5e-11*s : 20e-6 + 1e-10*s }
  { e = ow($1); r = ($2 - e) / e; if (r < 0) r = -r
    printf "%9d  simgrid %.6g  fitted %.6g  %+.3f %%\n", $1, $2, e, 100 * ($2 - e) / e
    if (r > 0.01) bad++; n++ }
  END { if (n != 17) { print "expected 17 sizes, got " n; exit 1 } if (bad) { print bad " size(s) off by more than 1 %"; exit 1 } }' "$w/pp.out"
