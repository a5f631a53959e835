# shellcheck shell=sh
# Helpers the bench scripts share (sourced, not run): statistics of a
# space-separated list of times.
# The smallest of the list.
best() { echo "$1" | tr ' ' '\n' | grep . | sort -n | head -1; }
# Its median (of an even count, the mean of the two middle ones): printed
# beside the best, since this VM's noise can put one variant's best below
# another's.
median() { echo "$1" | tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

# The known causes a capture named (report.json's known_causes, one per
# line in FILE) as letters: L lat-factor, B bw-factor, E eager/rendezvous
# thresholds, C contention, H shared hosts, R route latencies/bandwidths, P
# calls not modelled / MPI_Test polling, O CPU overheads, K back-to-back
# sends, ? another; "-" for none (bench_platforms.sh, bench_mpich.sh).
# The known causes' patterns (the rest is tagged ?).
cause_known='latency factors|bandwidth factors|async-small-thresh|send-is-detached|contention|share a host|route latencies between|route bandwidths|route latency is|MPI_Test/MPI_Iprobe|does not model|CPU overhead|property|back-to-back'
cause_tags() {
  f=$1 t=""
  [ -s "$f" ] || { echo "-"; return; }
  grep -Eq 'latency factors scale|size-dependent latency factors' "$f" && t="${t}L"
  grep -q 'bandwidth factors' "$f" && t="${t}B"
  grep -Eq 'async-small-thresh|send-is-detached-thresh' "$f" && t="${t}E"
  grep -q 'contention' "$f" && t="${t}C"
  grep -q 'share a host' "$f" && t="${t}H"
  grep -Eq 'route latencies between|route bandwidths range|route latency is' "$f" && t="${t}R"
  grep -Eq 'MPI_Test/MPI_Iprobe|does not model' "$f" && t="${t}P"
  grep -Eq 'CPU overhead|own .* property' "$f" && t="${t}O"
  grep -q 'back-to-back' "$f" && t="${t}K"
  grep -Evq "$cause_known" "$f" && t="${t}?"
  echo "${t:--}"
}
