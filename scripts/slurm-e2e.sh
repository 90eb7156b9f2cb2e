#!/usr/bin/env bash
# End-to-end test of the sharded route on a real single-node Slurm
# cluster: munged, slurmctld and slurmd run privately (own key, socket,
# ports, spool and slurm.conf under $E2E_DIR; nothing in /etc is changed),
# `gomatvis slurm ... --submit` submits an array of shards and the merge
# that waits for it, and the merged files must equal unsharded runs byte
# for byte:
#   - the pyuvsim obsparam reference → UVH5, 4 tasks on a 3 freq × 3 time
#     grid (more tasks than times: channel blocks too);
#   - the example spec → npy, 4 tasks on 9 freqs × 6 times (4 does not
#     divide 6);
#   - the same with a work directory and an output named with quotes,
#     $(), backticks, ';', '#', '%', globs and blanks: nothing runs from
#     the names, the logs land in that directory.
# Then the array is resubmitted and every task must find its part complete;
# then one part is truncated and one deleted, array and merge are
# resubmitted as they are, and only those two tasks compute.
# Last, a kill: on a bigger generated spec (40 000 sources, 80 antennas,
# 4 freqs × 48 times: a few seconds per task, long enough to catch one
# running — no test hook in gomatvis), array task 1 is scancel'ed while it
# runs; it leaves no part, the other three finish, the merge stays pending
# (DependencyNeverSatisfied) and is cancelled; array and merge are
# resubmitted as they are, only task 1 computes, and the merged npy must
# equal the single-process run byte for byte (header included).
#
# Needs root and Debian's slurmctld slurmd slurm-client munge (installed
# with apt-get when missing and root). Idempotent: daemons left by an
# earlier run of this script (their pid files in $E2E_DIR) are stopped
# first, and the daemons it starts are stopped on exit. Concurrent runs
# are serialised by a lock file beside $E2E_DIR (left in place, empty).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
E2E_DIR=${E2E_DIR:-${TMPDIR:-/tmp}/gomatvis-slurm-e2e}
PORT_CTLD=${E2E_PORT_CTLD:-16817}
PORT_SLURMD=${E2E_PORT_SLURMD:-16818}

say() { echo "== slurm-e2e: $*"; }
fail() { echo "FAIL slurm-e2e: $*" >&2; exit 1; }

if [ "$(id -u)" != 0 ]; then
  echo "SKIP slurm-e2e: needs root (the Slurm daemons run as root here)"; exit 0
fi
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
  command -v apt-get >/dev/null || { echo "SKIP slurm-e2e: no Slurm and no apt-get"; exit 0; }
  say "installing slurmctld slurmd slurm-client munge"
  apt-get -o DPkg::Lock::Timeout=600 update -qq && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq slurmctld slurmd slurm-client munge >/dev/null
fi

# One run at a time per $E2E_DIR (same ports and directory): a second
# waits for the first.
mkdir -p "$(dirname "$E2E_DIR")"
exec 9>"$E2E_DIR.lock"
flock -w 300 9 || fail "another slurm-e2e run holds $E2E_DIR.lock"
t_start=$(date +%s)

# Stop what an earlier run left (only pids recorded in our own directory).
stop_daemons() {
  for name in slurmd slurmctld munged; do
    f="$E2E_DIR/run/$name.pid"
    [ -f "$f" ] || continue
    pid=$(cat "$f" 2>/dev/null || true)
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$f"
  done
}
cleanup() {
  rc=$?
  stop_daemons
  if [ $rc -ne 0 ] && [ -d "$E2E_DIR/log" ]; then
    echo "--- logs (last lines) ---" >&2
    tail -n 15 "$E2E_DIR"/log/*.log "$E2E_DIR"/work-*/logs/*.out 2>/dev/null >&2 || true
  fi
  if [ $rc -eq 0 ] && [ -z "${E2E_KEEP:-}" ]; then rm -rf "$E2E_DIR"; fi
  exit $rc
}
stop_daemons
rm -rf "$E2E_DIR"
mkdir -p "$E2E_DIR"/{run,log,spool/ctld,spool/d,munge}
trap cleanup EXIT

say "building the static binary"
CGO_ENABLED=0 go build -o "$E2E_DIR/gomatvis" ./cmd/gomatvis
bin="$E2E_DIR/gomatvis"

# munge: a private key and socket.
dd if=/dev/urandom of="$E2E_DIR/munge/munge.key" bs=1024 count=1 status=none
chmod 0400 "$E2E_DIR/munge/munge.key"
chmod 0700 "$E2E_DIR/munge"
sock="$E2E_DIR/munge/munge.socket"
munged --force --socket="$sock" --key-file="$E2E_DIR/munge/munge.key" \
  --pid-file="$E2E_DIR/run/munged.pid" --log-file="$E2E_DIR/log/munged.log" \
  --seed-file="$E2E_DIR/munge/munged.seed" 2>"$E2E_DIR/log/munged.err" || fail "munged did not start: $(cat "$E2E_DIR/log/munged.err")"

host=$(hostname -s)
cpus=$(nproc)
export SLURM_CONF="$E2E_DIR/slurm.conf"
cat >"$SLURM_CONF" <<CONF
ClusterName=gomatvis-e2e
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$PORT_CTLD
SlurmdPort=$PORT_SLURMD
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$E2E_DIR/spool/ctld
SlurmdSpoolDir=$E2E_DIR/spool/d
SlurmctldPidFile=$E2E_DIR/run/slurmctld.pid
SlurmdPidFile=$E2E_DIR/run/slurmd.pid
SlurmctldLogFile=$E2E_DIR/log/slurmctld.log
SlurmdLogFile=$E2E_DIR/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=1
ReturnToService=2
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1000 State=UNKNOWN
PartitionName=e2e Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF

say "starting slurmctld and slurmd"
slurmctld -c -f "$SLURM_CONF" 2>"$E2E_DIR/log/slurmctld.err" || fail "slurmctld did not start: $(cat "$E2E_DIR/log/slurmctld.err")"
slurmd -f "$SLURM_CONF" 2>"$E2E_DIR/log/slurmd.err" || fail "slurmd did not start: $(cat "$E2E_DIR/log/slurmd.err")"
for i in $(seq 100); do
  state=$(sinfo -h -N -o %t 2>/dev/null | head -1 || true)
  [ "$state" = idle ] && break
  sleep 0.2
done
[ "$state" = idle ] || fail "the node did not become idle (state '$state')"
say "cluster up after $(( $(date +%s) - t_start )) s"

obs="$repo/testdata/reference/pyuvsim-stokesI-gaussian/obsparam.yaml"
say "unsharded runs"
"$bin" simulate "$obs" -o "$E2E_DIR/whole.uvh5" --backend cpu -q >"$E2E_DIR/log/whole.log" 2>&1
"$bin" simulate example -o "$E2E_DIR/whole.npy" --backend cpu -q >>"$E2E_DIR/log/whole.log" 2>&1

submit() { # CONFIG OUT WORKDIR: prints the merge job id
  "$bin" slurm "$1" --tasks 4 -o "$2" --workdir "$3" --backend cpu --time 5 --submit >"$3.submit" \
    || fail "gomatvis slurm $1"
  cat "$3.submit" >&2
  sed -n 's/.*merge job \([0-9]*\).*/\1/p' "$3.submit"
}
job_state() { scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -1; }
wait_job() { # JOBID: waits until it has ended; fails unless COMPLETED
  [ -n "$1" ] || fail "no job id to wait for"
  for _ in $(seq 600); do
    s=$(job_state "$1")
    case "$s" in
      COMPLETED) return 0 ;;
      FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE) fail "job $1 ended $s" ;;
    esac
    sleep 0.2
  done
  fail "job $1 did not end in 120 s (state $s)"
}

say "gomatvis slurm --submit (uvh5 and npy)"
t_sub=$(date +%s)
m1=$(submit "$obs" "$E2E_DIR/merged.uvh5" "$E2E_DIR/work-uvh5")
m2=$(submit example "$E2E_DIR/merged.npy" "$E2E_DIR/work-npy")
[ -n "$m1" ] && [ -n "$m2" ] || fail "gomatvis slurm --submit printed no merge job id"
wait_job "$m1"
wait_job "$m2"
say "both arrays and merges done in $(( $(date +%s) - t_sub )) s"
cmp "$E2E_DIR/whole.uvh5" "$E2E_DIR/merged.uvh5" || fail "merged UVH5 differs from the unsharded run"
cmp "$E2E_DIR/whole.npy" "$E2E_DIR/merged.npy" || fail "merged npy differs from the unsharded run"
say "merged files equal the unsharded runs byte for byte"

# A work directory and an output whose names hold what a shell or sbatch
# would read as code or options: quotes, $(), backticks, ';', '#', '%'
# (Slurm's replacement symbols), glob characters, blanks and a leading '-'.
say "hostile paths: the scripts must carry them unchanged and run nothing from them"
hw="$E2E_DIR/work "'$(touch pwned) `touch pwned` ; touch pwned '"'q' \"dq\" #%a%j *?[a] -x"
ho="$E2E_DIR/out "'$(touch pwned);`touch pwned`'" 'q' #%a.npy"
mh=$(submit example "$ho" "$hw")
wait_job "$mh"
cmp "$E2E_DIR/whole.npy" "$ho" || fail "merged npy at the hostile path differs from the unsharded run"
for f in shard-0.out shard-3.out merge.out; do
  [ -f "$hw/logs/$f" ] || fail "no log $f in the hostile work directory"
done
[ -z "$(find "$E2E_DIR" "$repo" -maxdepth 2 -name pwned -print -quit)" ] || fail "a path in the scripts ran as shell code"
say "hostile paths carried unchanged; nothing ran from them"

say "resubmitting a complete array: every task must do nothing"
id=$(sbatch --parsable "$E2E_DIR/work-npy/array.sbatch")
id=${id%%;*}
wait_job "$id"
n=$(grep -l "nothing to do" "$E2E_DIR"/work-npy/logs/shard-*.out | wc -l)
[ "$n" = 4 ] || fail "$n of 4 resubmitted tasks found their part complete"
cmp "$E2E_DIR/whole.npy" "$E2E_DIR/merged.npy" || fail "merged npy changed"

say "after a failure (part 1 truncated, part 2 lost): resubmit array and merge as they are"
p1="$E2E_DIR/work-npy/part-00001.gmvpart"
truncate -s 100 "$p1"
rm "$E2E_DIR/work-npy/part-00002.gmvpart" "$E2E_DIR/merged.npy"
id=$(sbatch --parsable "$E2E_DIR/work-npy/array.sbatch")
id=${id%%;*}
mid=$(sbatch --parsable --dependency=afterok:"$id" "$E2E_DIR/work-npy/merge.sbatch")
wait_job "${mid%%;*}"
n=$(grep -l "nothing to do" "$E2E_DIR"/work-npy/logs/shard-*.out | wc -l)
[ "$n" = 2 ] || fail "$n of 4 tasks did nothing after 2 parts were damaged; want 2"
grep -q "truncated or damaged" "$E2E_DIR/work-npy/logs/shard-1.out" || fail "task 1 did not report its truncated part"
cmp "$E2E_DIR/whole.npy" "$E2E_DIR/merged.npy" || fail "merged npy after the resubmission differs"
say "kill and resubmit: a bigger spec, one array task cancelled while it runs"
kspec="$E2E_DIR/kill-spec.json"
scripts/random-spec.py "$kspec" slurm-kill 40000 80 4 48 2
t_kill=$(date +%s)
"$bin" simulate "$kspec" -o "$E2E_DIR/kill-whole.npy" --backend cpu -q >"$E2E_DIR/log/kill-whole.log" 2>&1 \
  || fail "single-process run of $kspec: $(tail -3 "$E2E_DIR/log/kill-whole.log")"
say "single-process run: $(( $(date +%s) - t_kill )) s"
kw="$E2E_DIR/work-kill"
km=$(submit "$kspec" "$E2E_DIR/kill-merged.npy" "$kw")
ka=$(sed -n 's/.*array job \([0-9]*\).*/\1/p' "$kw.submit")
[ -n "$ka" ] && [ -n "$km" ] || fail "gomatvis slurm --submit printed no job ids"
task_state() { squeue -h -j "$1" -o %T 2>/dev/null | head -1; }
for _ in $(seq 600); do
  s1=$(task_state "${ka}_1")
  [ "$s1" = RUNNING ] && break
  [ -z "$s1" ] && [ "$(job_state "${ka}_1")" = COMPLETED ] && fail "task ${ka}_1 finished before it could be cancelled: enlarge the kill spec"
  sleep 0.05
done
[ "$s1" = RUNNING ] || fail "task ${ka}_1 never ran (state '$s1')"
sleep "${E2E_KILL_AFTER:-1.5}" # past its start-up, into its integrations
[ "$(task_state "${ka}_1")" = RUNNING ] || fail "task ${ka}_1 finished before it could be cancelled: enlarge the kill spec or lower E2E_KILL_AFTER"
scancel "${ka}_1"
for _ in $(seq 600); do [ -z "$(squeue -h -j "$ka" -o %i 2>/dev/null)" ] && break; sleep 0.2; done
[ -z "$(squeue -h -j "$ka" -o %i 2>/dev/null)" ] || fail "array $ka did not end"
[ "$(job_state "${ka}_1")" = CANCELLED ] || fail "task ${ka}_1 ended $(job_state "${ka}_1"), not CANCELLED"
[ ! -e "$kw/part-00001.gmvpart" ] || fail "the cancelled task left a part"
grep -q "CANCELLED" "$kw/logs/shard-1.out" || fail "task 1's log does not say it was cancelled"
say "task ${ka}_1 cancelled while running: $(grep -o 'cancelled after [0-9]* of [0-9]* integrations' "$kw/logs/shard-1.out" || echo 'before its first integration')"
for i in 0 2 3; do
  [ "$(job_state "${ka}_$i")" = COMPLETED ] || fail "task ${ka}_$i ended $(job_state "${ka}_$i")"
done
for _ in $(seq 50); do # the scheduler re-evaluates the dependency at its next pass
  reason=$(squeue -h -j "$km" -o %r 2>/dev/null || true)
  [ "$reason" = DependencyNeverSatisfied ] && break
  sleep 0.2
done
[ "$reason" = DependencyNeverSatisfied ] || fail "merge job $km: reason '$reason', want DependencyNeverSatisfied"
[ ! -e "$E2E_DIR/kill-merged.npy" ] || fail "a merge ran after the cancelled task"
scancel "$km"
say "resubmitting array and merge as they are"
id=$(sbatch --parsable "$kw/array.sbatch")
id=${id%%;*}
mid=$(sbatch --parsable --dependency=afterok:"$id" "$kw/merge.sbatch")
wait_job "${mid%%;*}"
n=$(grep -l "nothing to do" "$kw"/logs/shard-*.out | wc -l)
[ "$n" = 3 ] || fail "$n of 4 tasks did nothing after one was cancelled; want 3"
grep -q "shard 1/4" "$kw/logs/shard-1.out" || fail "task 1 did not compute its shard on resubmission"
cmp "$E2E_DIR/kill-whole.npy" "$E2E_DIR/kill-merged.npy" || fail "merged npy after the kill and resubmission differs from the single-process run"
say "kill and resubmit: merged npy equals the single-process run byte for byte ($(( $(date +%s) - t_kill )) s)"
say "PASS in $(( $(date +%s) - t_start )) s"
