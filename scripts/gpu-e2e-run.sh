#!/usr/bin/env bash
# The end-to-end GPU case of issue 40's bar on a machine with a GPU and no
# Go: gomatvis simulate run as a user runs it, from the binaries in .devbin/
# (scripts/gpu-build.sh makes gomatvis; `go build -o .devbin/gen
# ./bench/e2e/gen` the input generator). Generates 350 antennas × NSRC
# sources × NFREQ channels × NTIME times (fp32, one shared Gaussian beam)
# with its sky in a SkyH5 (FORM), then runs simulate to UVH5 with the
# GPU's default path (auto) and the direct path (--gpu-nufft off), each
# under /usr/bin/time when present, and prints the run's phase line
# (input, set-up, compute, write, close, peak RSS) beside the process
# wall. Logs go to $OUT (or ./out). Usage (repo root):
#   [NSRC=1000000] [NFREQ=64] [NTIME=8] [FORM=skyh5] [MODES="auto off"] [CAP=240] scripts/gpu-e2e-run.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
B=.devbin
T=${TMPDIR:-/tmp}/gomatvis-e2e
mkdir -p "$OUT" "$T"
start=$SECONDS
cap=${CAP:-240}
left() { echo $((cap - (SECONDS - start))); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "disk of $T: $(df -h "$T" | tail -1)"
t0=$(date +%s.%N)
timeout "$(left)" $B/gen -form "${FORM:-skyh5}" -nsrc "${NSRC:-1000000}" -nfreq "${NFREQ:-64}" -ntime "${NTIME:-8}" -precision 1 -o "$T/in" || { echo "gen failed"; exit 1; }
echo "inputs generated in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}') s:"
ls -la "$T/in"
in=$T/in/spec.json
[[ ${FORM:-skyh5} == obsparam ]] && in=$T/in/obsparam.yaml
timer=()
[[ -x /usr/bin/time ]] && timer=(/usr/bin/time -f 'process: wall %e s, peak RSS %M kB, user %U s, sys %S s')
for mode in ${MODES:-auto off}; do
	((($(left)) > 20)) || { echo "== $mode: not run, $(left) s left"; continue; }
	echo "== simulate --backend gpu --gpu-nufft $mode"
	out=$T/out-$mode.uvh5
	t0=$(date +%s.%N)
	timeout "$(left)" "${timer[@]}" $B/gomatvis simulate "$in" -o "$out" --backend gpu --gpu-nufft "$mode" -q >"$OUT/e2e-$mode.log" 2>&1
	rc=$?
	echo "rc=$rc, wall $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.3f", b - a}') s (date)"
	cat "$OUT/e2e-$mode.log"
	ls -la "$out" 2>/dev/null
	rm -f "$out"
done
