#!/usr/bin/env bash
# Runs the whole GPU suite in one device call (issue 42, item 1), from the
# binaries scripts/gpu-build.sh made (no Go on the device): every test of
# cuda, cuda/gram, matvis/nufftgpu (these three at once) and matvis/gpu
# once, then the
# benchmarks — TestBenchCanonical and TestPrecisionGate (-gpu-bench),
# TestNUFFTSideBySide (-gpu-nufft-bench), and the many-channel wall/GPU
# cases through scripts/resident-run.sh. Each step runs under a timeout
# capped by what is left of DEADLINE seconds (default 540, inside the
# device's 600-second command limit), so a hung step costs its own time,
# not the later steps'. The logs are tarred into $OUT/logs.tgz after
# every step, so they come back even if the call is killed; a table of
# counts and headline numbers comes last. Usage (repo root, or with the
# script copied into .devbin/):
#   [DEADLINE=540] [ONCE=1] [CASES="prodslice:64:16 ..."] scripts/gpu-suite-run.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
B=.devbin
W=$(mktemp -d /tmp/gpusuite.XXXX)
mkdir -p "$OUT"
start=$SECONDS
deadline=${DEADLINE:-540}
note() { echo "$1" >>"$W/summary.txt"; }

pack() { tar czf "$W.$BASHPID.tgz" -C "$W" . 2>/dev/null && mv "$W.$BASHPID.tgz" "$OUT/logs.tgz"; }

# step NAME CAP BINARY ARGS...: runs a test binary for at most CAP seconds
# (less if the deadline is nearer), with Go's own -test.timeout 10 s
# earlier so that a hung test prints its goroutines before the kill.
step() {
	local name=$1 cap=$2 bin=$3
	shift 3
	local left=$((deadline - (SECONDS - start)))
	((cap > left)) && cap=$left
	if ((cap < 20)); then
		note "$(printf '%-10s not run: %d s left of the deadline' "$name" "$left")"
		return
	fi
	[ -x "$bin" ] || { note "$name: $bin missing (scripts/gpu-build.sh)"; return; }
	echo "== $name (at most $cap s)"
	local t0=$SECONDS
	timeout -k 5 "$cap" "$bin" -test.v -test.count=1 -test.timeout="$((cap - 10))s" "$@" >"$W/$name.log" 2>&1
	local rc=$?
	note "$(printf '%-10s rc=%-3d pass=%-3d fail=%-2d skip=%-2d subtests pass=%-3d fail=%-2d %4d s' "$name" "$rc" \
		"$(grep -c -- '^--- PASS' "$W/$name.log")" "$(grep -c -- '^--- FAIL' "$W/$name.log")" \
		"$(grep -c -- '^--- SKIP' "$W/$name.log")" "$(grep -c -- '^ \+--- PASS' "$W/$name.log")" \
		"$(grep -c -- '^ \+--- FAIL' "$W/$name.log")" $((SECONDS - t0)))"
	grep -E -- '--- FAIL|^panic|^FAIL|timed out' "$W/$name.log" | head -20
	pack
}

echo "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total,clocks.sm,clocks.max.sm --format=csv 2>&1 | tee "$W/smi.log"
uname -r >>"$W/smi.log"
nproc >>"$W/smi.log"

# The three smaller suites share the card (no timing asserts among them;
# nufftgpu's TestTimings then skips unless NUFFTGPU_TIMINGS=1 is given);
# matvis/gpu's suite, whose choosers time their candidates, and the
# benchmarks run alone.
step cuda 60 $B/cuda.test &
step gram 120 $B/cuda_gram.test &
step nufftgpu 180 $B/matvis_nufftgpu.test &
# ONCE=1 (a short lease): matvis/gpu's suite beside them too.
if [ "${ONCE:-0}" = 1 ]; then
	step gpu 300 $B/matvis_gpu.test &
	wait
else
	wait
	step gpu 300 $B/matvis_gpu.test
fi
step bench 150 $B/matvis_gpu.test -test.run 'BenchCanonical|PrecisionGate' -gpu-bench -gpu-bench-out "$W/gpu-bench.md"
step sbs 150 $B/matvis_gpu.test -test.run TestNUFFTSideBySide -gpu-nufft-bench

left=$((deadline - (SECONDS - start)))
if ((left >= 40)); then
	echo "== many channels (at most $left s)"
	OUT=$W/res TESTS=0 BINS=gomatvis CASES="${CASES:-prodslice:64:16 prodslice:32:2 dev:1:64 dev:8:8 dev:64:1}" \
		timeout -k 5 "$left" scripts/resident-run.sh >"$W/channels.log" 2>&1
	note "$(printf '%-10s rc=%d' channels $?)"
	pack
else
	note "channels   not run: $left s left of the deadline"
fi

echo
echo "== summary ($((SECONDS - start)) s)"
cat "$W/summary.txt"
grep -h '^SUMMARY' "$W/gpu-bench.md" 2>/dev/null
grep -h 'precision gate' "$W/bench.log" 2>/dev/null | sed 's/^ *//' | cut -c1-140
grep -h 'NUFFTSBS' "$W/sbs.log" 2>/dev/null | sed 's/^ *//' | cut -c1-200
grep -h 'run_wall/int' "$W/channels.log" 2>/dev/null
pack
