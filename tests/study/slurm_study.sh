#!/bin/bash
# Studies and what-if sweeps on the private Slurm of slurm_cluster.sh (the
# ctest fixture `slurm`).  usage: slurm_study.sh CASE BUILD_BIN SOURCE_DIR SLURM_DIR
#   study    8 real samples as a job array: study.json equal to a local -j 2 run
#   killed   a task killed with scancel: the merge names it, a resubmission
#            runs only it, and the study ends equal to a local one
#   failing  a failing sample named with its log (task log, merge log, --status);
#            a runner missing on the node stops the task before any sample
#   whatif   a what-if sweep as a job array: its table equal to the local run's
# Exit 77 (skipped) when the cluster could not be set up, with the reason.
set -u
what=$1 bin=$2 src=$3 sdir=$4
[ -f "$sdir/skip" ] && { echo "skip: $(cat "$sdir/skip")"; exit 77; }
[ -f "$sdir/slurm.conf" ] || { echo "skip: no private Slurm in $sdir (set up by the test slurm_cluster_start)"; exit 77; }
export SLURM_CONF=$sdir/slurm.conf
PATH=$PATH:/usr/sbin
die() { echo "slurm_study $what: $*" >&2; exit 1; }
st=$bin/smpi_llamp-study
fake=$src/tests/study/fake_runner.sh
# Until none of these jobs is queued: a guard against a hang, not a timing check.
wait_jobs() {
  local ids
  ids=$(IFS=,; echo "$*")
  for _ in $(seq 600); do
    [ -z "$(squeue -h -j "$ids" -o %i 2> /dev/null)" ] && return 0
    sleep 0.5
  done
  squeue
  die "jobs $ids still queued after 300 s (see $sdir/slurmctld.log)"
}
# The last submission's job ids, as the job script records them.
jobs_of() { tail -1 "$1/slurm.jobs"; }
stencil() {
  command -v smpirun > /dev/null || { echo "skip: smpirun not found"; exit 77; }
  "$bin/smpi_llamp-cc" -O2 -std=gnu11 -DLLAMP_SMPI=1 -I"$src/apps/common" -I"$src/smpi_llamp/include" \
    -I"$src/apps/stencil3d" "$src"/apps/stencil3d/*.c "$src/apps/common/llamp_app.c" \
    "$src/apps/common/llamp_kernel.c" -lm -o sl_stencil3d > sl_cc.log 2>&1 || { cat sl_cc.log; die "smpi_llamp-cc"; }
}

case $what in
study)
  stencil
  rm -rf sl_local sl_slurm
  app=(-np 4 -llamp-compute none -llamp-kernels "$src/models/kernels_stencil3d.cfg" ./sl_stencil3d --weak 4 --iters 5)
  "$st" -n 8 -j 2 --seed 41 --out sl_local "${app[@]}" > sl_local.txt 2>&1 || { cat sl_local.txt; die "local study"; }
  "$st" -n 8 --seed 41 --out sl_slurm --submit "${app[@]}" > sl_submit.txt 2>&1 || { cat sl_submit.txt; die "--submit"; }
  cat sl_submit.txt
  grep -q "array job [0-9]*: samples 0-7 of 0-7" sl_submit.txt || die "--submit did not print the array job"
  grep -q "merge job [0-9]* (after every task)" sl_submit.txt || die "--submit did not print the merge job"
  read -r arr merge < <(jobs_of sl_slurm)
  wait_jobs "$arr" "$merge"
  python3 "$src/tests/study/check_study.py" sl_slurm 8 || die "study files"
  cmp sl_local/study.json sl_slurm/study.json || die "the Slurm study.json differs from the local -j 2 one"
  python3 - <<'PY' || die "samples"
import json
a, b = (json.load(open(d + "/study.json"))["samples"] for d in ("sl_local", "sl_slurm"))
assert len(a) == len(b) == 8 and a == b, (a, b)
assert len({s["runtime"] for s in a}) == 8, "the seeds do not vary the samples"
print("8 samples equal, sample for sample")
PY
  "$st" --status sl_slurm > sl_status.txt || die "--status"
  grep -q "done 8, running 0, failed 0, pending 0" sl_status.txt || { cat sl_status.txt; die "--status after the study"; }
  ;;
killed)
  rm -rf sl_kill sl_kill_local sl_kill_cnt
  FAKE_HANG=302 "$st" -n 6 --seed 300 --out sl_kill --runner "$fake" --submit ./app > sl_kill_submit.txt 2>&1 ||
    { cat sl_kill_submit.txt; die "--submit"; }
  read -r arr merge < <(jobs_of sl_kill)
  # task 2 hangs: kill it with scancel once it runs
  for _ in $(seq 600); do
    [ "$(squeue -h -j "${arr}_2" -o %T 2> /dev/null)" = RUNNING ] && [ -f sl_kill/sample-0002/run.log ] && break
    sleep 0.5
  done
  "$st" --status sl_kill > sl_kill_status1.txt
  grep -q "running [1-9]" sl_kill_status1.txt || { cat sl_kill_status1.txt; die "--status while task 2 runs"; }
  scancel "${arr}_2" || die "scancel"
  wait_jobs "$arr" "$merge"
  # killed with its runner (the task sees the runner's SIGTERM) or before it
  grep -Eq "missing sample 2 \(seed 302\): (failed: signal 15|started, not finished)" "sl_kill/slurm-merge-$merge.log" ||
    { cat "sl_kill/slurm-merge-$merge.log"; die "the merge did not name the killed sample"; }
  "$st" --status sl_kill > sl_kill_status2.txt
  grep -q "done 5, running 0, failed 1, pending 0" sl_kill_status2.txt || { cat sl_kill_status2.txt; die "--status after scancel"; }
  # the resubmission runs sample 2 only
  FAKE_COUNT=$PWD/sl_kill_cnt bash sl_kill/job.sh submit > sl_kill_resubmit.txt || die "resubmit"
  grep -q "samples 2 of 0-5" sl_kill_resubmit.txt || { cat sl_kill_resubmit.txt; die "the resubmission is not sample 2 only"; }
  read -r arr2 merge2 < <(jobs_of sl_kill)
  [ "$arr2" != "$arr" ] || die "sl_kill/slurm.jobs: no new submission"
  wait_jobs "$arr2" "$merge2"
  [ "$(cat sl_kill_cnt)" = 302 ] || die "the resubmission ran seeds $(tr '\n' ' ' < sl_kill_cnt), not 302 only"
  python3 "$src/tests/study/check_study.py" sl_kill 6 --fake || die "study files"
  "$st" -n 6 --seed 300 --out sl_kill_local --runner "$fake" ./app > /dev/null || die "local study"
  cmp sl_kill/study.json sl_kill_local/study.json || die "the resumed study differs from a local one"
  ;;
failing)
  rm -rf sl_fail sl_notool sl_fake_copy.sh
  FAKE_FAIL=403 "$st" -n 5 --seed 400 --out sl_fail --runner "$fake" --submit ./app > /dev/null 2>&1 || die "--submit"
  read -r arr merge < <(jobs_of sl_fail)
  wait_jobs "$arr" "$merge"
  grep -q "sample 3 (seed 403) failed (exit 3): see $PWD/sl_fail/sample-0003/run.log" "sl_fail/slurm-${arr}_3.log" ||
    { cat "sl_fail/slurm-${arr}_3.log"; die "the task log does not name the failed sample"; }
  grep -q "fake_runner: failing on purpose" sl_fail/sample-0003/run.log || die "the sample's run.log"
  grep -q "missing sample 3 (seed 403): failed: exit 3; see $PWD/sl_fail/sample-0003/run.log" "sl_fail/slurm-merge-$merge.log" ||
    { cat "sl_fail/slurm-merge-$merge.log"; die "the merge does not name the failed sample"; }
  "$st" --status sl_fail > sl_fail_status.txt
  grep -q "done 4, running 0, failed 1, pending 0" sl_fail_status.txt &&
    grep -q "sample 3 (seed 403) failed: exit 3" sl_fail_status.txt || { cat sl_fail_status.txt; die "--status"; }
  python3 -c 'import json, sys; s = json.load(open("sl_fail/study.json")); sys.exit(s["samples_done"] != 4)' ||
    die "the merge's study.json does not cover the 4 samples done"
  # a runner that is not on the node: the task stops before any sample, and
  # says so (submitting refuses it too: the task is submitted by hand here)
  cp "$fake" sl_fake_copy.sh
  "$st" -n 2 --seed 500 --out sl_notool --runner ./sl_fake_copy.sh --slurm sl_notool.sh ./app 2> /dev/null || die "--slurm"
  rm sl_fake_copy.sh
  bash sl_notool.sh submit > sl_notool_submit.txt 2>&1 && die "submitted with its runner missing"
  grep -q "$PWD/sl_fake_copy.sh: not found or not executable" sl_notool_submit.txt || { cat sl_notool_submit.txt; die "submit: message"; }
  arr=$(sbatch --parsable sl_notool.sh) || die "sbatch"
  wait_jobs "${arr%%;*}"
  grep -q "$PWD/sl_fake_copy.sh: not found or not executable" "sl_notool/slurm-${arr%%;*}_0.log" ||
    { cat "sl_notool/slurm-${arr%%;*}_0.log"; die "the task log does not name the missing runner"; }
  [ ! -e sl_notool/sample-0000 ] || die "a sample ran without its runner"
  ;;
whatif)
  stencil
  rm -rf sl_wi_local sl_wi_slurm
  wi=(--seed 9 --variant fattree:4,2 --wire 0.5us,1us --variant 'torus:2,4'
      -np 4 -llamp-compute none -llamp-kernels "$src/models/kernels_stencil3d.cfg" ./sl_stencil3d --weak 4 --iters 3)
  "$bin/smpi_llamp-whatif" --out sl_wi_local "${wi[@]}" > sl_wi_local.txt 2>&1 || { cat sl_wi_local.txt; die "local what-if"; }
  "$bin/smpi_llamp-whatif" --out sl_wi_slurm --submit "${wi[@]}" > sl_wi_submit.txt 2>&1 ||
    { cat sl_wi_submit.txt; die "what-if --submit"; }
  grep -q "array job [0-9]*: variants 0-3" sl_wi_submit.txt || { cat sl_wi_submit.txt; die "what-if --submit output"; }
  read -r arr merge < <(jobs_of sl_wi_slurm)
  wait_jobs "$arr" "$merge"
  for f in whatif.csv whatif.json whatif.txt; do
    cmp "sl_wi_local/$f" "sl_wi_slurm/$f" || { diff "sl_wi_local/$f" "sl_wi_slurm/$f" | head; die "$f differs from the local run's"; }
  done
  [ "$(grep -c . sl_wi_slurm/whatif.csv)" -eq 5 ] || die "whatif.csv: expected a header and 4 variants"
  ;;
*) die "unknown case (expected study, killed, failing or whatif)" ;;
esac
echo "slurm $what OK"
