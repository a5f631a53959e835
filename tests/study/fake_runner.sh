#!/bin/sh
# A stand-in for smpi_llamp-run in the study tests: writes a report.json whose
# numbers follow from the seed, so the study's bookkeeping (pool, resume,
# merge, statistics) is tested without SimGrid.  Environment:
#   FAKE_COUNT  file that gets one line per run
#   FAKE_FAIL   seed whose run fails (exit 3)
#   FAKE_KILL   seed whose run kills the study (its parent) first
#   FAKE_HANG   seed whose run waits (for a scancel) instead of reporting
seed= out=
while [ $# -gt 0 ]; do
  case "$1" in
    -llamp-seed) seed=$2; shift 2 ;;
    -llamp-out) out=$2; shift 2 ;;
    *) shift ;;
  esac
done
[ -n "$seed" ] && [ -n "$out" ] || { echo "fake_runner: missing -llamp-seed/-llamp-out" >&2; exit 2; }
[ -n "${FAKE_COUNT:-}" ] && echo "$seed" >> "$FAKE_COUNT"
[ "$seed" = "${FAKE_KILL:-none}" ] && kill -TERM "$PPID" && sleep 1 && exit 9
[ "$seed" = "${FAKE_HANG:-none}" ] && { echo "fake_runner: waiting to be killed" >&2; sleep 600; exit 9; }
[ "$seed" = "${FAKE_FAIL:-none}" ] && { echo "fake_runner: failing on purpose" >&2; exit 3; }
mkdir -p "$out"
awk -v s="$seed" 'BEGIN {
  T = 1e-3 * (1 + (s % 7) / 100); lam = 100 + s % 5; L = 2e-6
  printf "{\"params\": {\"L\": %.12g}, \"runtime\": %.12g, \"lambda_L\": %d, \"rho_L\": %.12g,\n", L, T, lam, lam * L / T
  printf " \"tolerance\": [{\"percent\": 1, \"L\": %.12g, \"delta_L\": %.12g},", L + 0.01 * T / lam, 0.01 * T / lam
  if (s % 4 == 0) printf " {\"percent\": 2, \"L\": null, \"delta_L\": null},"
  else printf " {\"percent\": 2, \"L\": %.12g, \"delta_L\": %.12g},", L + 0.02 * T / lam, 0.02 * T / lam
  printf " {\"percent\": 5, \"L\": %.12g, \"delta_L\": %.12g}],\n", L + 0.05 * T / lam, 0.05 * T / lam
  # the critical path: rank (s % 3) carries half of it, the rest shared by ranks 0..3
  printf " \"critical_path\": {\"by_rank\": ["
  for (r = 0; r < 4; r++) printf "%s%.12g", r ? ", " : "", T * ((r == s % 3 ? 0.5 : 0) + 0.125)
  printf "]},\n"
  printf " \"capture\": {\"simulated_time\": %.12g}}\n", T * 1.001
}' > "$out/report.json"
