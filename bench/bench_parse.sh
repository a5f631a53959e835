#!/bin/sh
# GOAL parsing speed and peak memory per event.
#   bench/bench_parse.sh [BUILD_DIR] [GRAPH.goal]
# Default graph: a generated 3-D halo of 8.65 M events (~600 MB).
# Prints MB/s of `llamp convert` (read + match + topological freeze) and the
# peak RSS per event of the whole process (targets: >= 100 MB/s, <= 48 B/event).
set -eu
build=${1:-build}
llamp="$build/bin/llamp"
work=${TMPDIR:-/tmp}/llamp-bench-parse
mkdir -p "$work"
goal=${2:-$work/halo3d-8.6M.goal}
[ -f "$goal" ] || "$llamp" generate halo3d px=8 py=8 pz=8 iters=1300 bytes=8KiB compute=10us -o "$goal"
bytes=$(stat -c %s "$goal")
/usr/bin/time -f "%M" -o "$work/rss" "$llamp" convert "$goal" "$work/g.llg" --timing 2>"$work/timing"
read_s=$(sed -n 's/.*reading .* \([0-9.]*\) s$/\1/p' "$work/timing")
rss_kb=$(tail -1 "$work/rss")
events=$("$llamp" analyze "$work/g.llg" --format json --tolerance 1 | sed -n 's/.*"events": \([0-9]*\).*/\1/p')
echo "graph: $goal, $(echo "$bytes / 1000000" | bc) MB, $events events"
printf "GOAL read (parse + match + freeze): %.2f s = %.0f MB/s (target >= 100)\n" "$read_s" "$(echo "$bytes / 1000000 / $read_s" | bc -l)"
printf "peak RSS: %d MB = %.1f bytes/event (target <= 48)\n" "$((rss_kb / 1024))" "$(echo "$rss_kb * 1024 / $events" | bc -l)"
rm -f "$work/g.llg"
