#!/usr/bin/env bash
# Checks and times the multi-GPU path on a machine with ≥ 2 GPUs, from
# binaries built elsewhere (the machine needs no Go toolchain):
#   CGO_ENABLED=0 go test -c -o .devbin/matvis_backends.test ./matvis/backends
#   CGO_ENABLED=0 go build -o .devbin/gomatvis ./cmd/gomatvis
# Usage (repo root): [DEVICES=all] [BACKEND=gpu] [NSRC=20000 NANT=128 NFREQ=16 NTIME=32] scripts/multigpu-run.sh
# 1. TestMultiGPU (multi-GPU result vs GPU 0 alone);
# 2. a generated spec run on one GPU, on DEVICES (--devices), and as 3
#    shards merged: wall times, and cmp of the outputs with the one-GPU run.
# Logs and outputs go to $OUT (or ./out). BACKEND=cpu DEVICES=0,1 runs the
# same steps on CPU backends (a check of the script itself).
#
# MODE=profile runs instead the multi-GPU speed-up measurement (the [scale]
# bar: ≥ 64 prodslice integrations ≥ 1.85× faster in wall time on two GPUs
# than on one): a warm-up profile on DEVICES (compiles every device's
# kernels and fills the strategy caches on disk), then
#   gomatvis profile --preset $PRESET --ntimes $NTIMES --backend $BACKEND
# once on one device and once with --devices $DEVICES, and prints both
# measured-run walls (summary.json timing.run_s) and their ratio, which it
# checks against MIN_SPEEDUP (default 1.85; exit 1 below). BLOCKS=N passes
# --blocks N to the multi-device run (default 1 block per device; each
# block pays the per-channel set-up on its device). E.g. on CPUs:
#   MODE=profile BACKEND=cpu DEVICES=0,1 PRESET=custom NTIMES=8 \
#     PROFILE_ARGS="--nsrc 2000 --nant 8" MIN_SPEEDUP=0 scripts/multigpu-run.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
DEVICES=${DEVICES:-all}
BACKEND=${BACKEND:-gpu}
MODE=${MODE:-simulate}
mkdir -p "$OUT"
bin=.devbin/gomatvis
rc=0

if [ "$MODE" = profile ]; then
  PRESET=${PRESET:-prodslice}
  NTIMES=${NTIMES:-64}
  MIN_SPEEDUP=${MIN_SPEEDUP:-1.85}
  read -r -a extra <<<"${PROFILE_ARGS:-}"
  prof() { # name args...: one profile into $OUT/mgprof-NAME, echoes its measured wall
    local name=$1; shift
    local dir="$OUT/mgprof-$name"
    rm -rf "$dir"
    if ! "$bin" profile --preset "$PRESET" --backend "$BACKEND" --roofline=false --scaling=false \
        "${extra[@]}" -o "$dir" "$@" >"$dir.log" 2>&1; then
      echo "profile $name: FAILED (see $dir.log)" >&2; tail -5 "$dir.log" >&2; return 1
    fi
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["timing"]["run_s"])' "$dir/summary.json"
  }
  echo "== profile: warm-up on devices $DEVICES"
  prof warm --ntimes "${WARM_NTIMES:-4}" --devices "$DEVICES" >/dev/null || exit 1
  echo "== profile --preset $PRESET --ntimes $NTIMES --backend $BACKEND ${extra[*]}"
  one=$(prof one --ntimes "$NTIMES") || exit 1
  multi=$(prof multi --ntimes "$NTIMES" --devices "$DEVICES" ${BLOCKS:+--blocks "$BLOCKS"}) || exit 1
  grep -h -E '^(measured run:|  )' "$OUT/mgprof-one.log" "$OUT/mgprof-multi.log"
  awk -v a="$one" -v b="$multi" -v d="$DEVICES" -v m="$MIN_SPEEDUP" 'BEGIN {
    printf "one device:      %10.3f s\ndevices %-8s %10.3f s\nspeed-up:        %10.3f× (bar %s×)\n", a, d, b, a / b, m
    exit !(a / b >= m) }' || { echo "speed-up below $MIN_SPEEDUP"; exit 1; }
  exit 0
fi

echo "== TestMultiGPU"
if [ -x .devbin/matvis_backends.test ]; then
  .devbin/matvis_backends.test -test.run 'TestMultiGPU|TestOpenDevices' -test.v 2>&1 | tee "$OUT/multigpu-test.log" | grep -E '^(---|===|ok|FAIL|PASS)|devices|max \|Δ\||SKIP'
  grep -q -- '--- FAIL' "$OUT/multigpu-test.log" && rc=1
else
  echo "missing .devbin/matvis_backends.test"; rc=1
fi

echo "== spec: ${NSRC:=20000} sources, ${NANT:=128} antennas, ${NFREQ:=16} freqs × ${NTIME:=32} times"
spec="$OUT/multigpu-spec.json"
scripts/random-spec.py "$spec" multigpu "$NSRC" "$NANT" "$NFREQ" "$NTIME" 1

timed() { # name args...: runs gomatvis, prints its wall time
  local name=$1; shift
  local log="$OUT/multigpu-${name//[^A-Za-z0-9_-]/_}.log"
  local t0=$EPOCHREALTIME
  "$bin" "$@" >"$log" 2>&1 || { echo "$name: FAILED (see $log)"; tail -5 "$log"; rc=1; return; }
  printf '%-28s %8.2f s\n' "$name" "$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')"
}
# The first run measures the Gram strategies and compiles the kernels
# (both cached on disk): a warm-up, so the timed runs compare like with like.
timed warm-up "simulate" "$spec" -o "$OUT/mg-warm.npy" --backend "$BACKEND" --devices "$DEVICES" -q
timed one "simulate" "$spec" -o "$OUT/mg-one.npy" --backend "$BACKEND" -q
timed "devices $DEVICES" "simulate" "$spec" -o "$OUT/mg-multi.npy" --backend "$BACKEND" --devices "$DEVICES" -q
grep -h 'backend' "$OUT"/multigpu-one.log "$OUT"/multigpu-devices_*.log | cut -c1-300
for i in 0 1 2; do
  timed "shard $i/3" simulate "$spec" --shard "$i/3" -o "$OUT/mg-part-$i.gmvpart" --backend "$BACKEND" -q
done
timed merge merge "$OUT"/mg-part-{0,1,2}.gmvpart -o "$OUT/mg-merged.npy"
for f in mg-multi.npy mg-merged.npy; do
  if cmp -s "$OUT/mg-one.npy" "$OUT/$f"; then echo "$f: identical to the one-device run"; else echo "$f: DIFFERS from the one-device run (bits; see docs/scale.md on strategies and chunk plans)"; fi
done
exit $rc
