#!/usr/bin/env bash
# Runs the GPU tests and benchmarks on a machine with a GPU, from the
# binaries scripts/gpu-build.sh made, and prints a short table last.
# Full logs go to $OUT (or ./out) as gpu-*.log. Usage (repo root):
#   [GEMM=0] scripts/gpu-device-run.sh [quick]
# quick skips the benchmarks; GEMM=0 skips the cuBLAS strategy benchmark.
# The benchmarks (TestBenchCanonical: dev with the cuBLAS product, dev and
# prodslice with the defaults; TestPrecisionGate) run first, in their
# own log, gpu-bench.log, with the timing report in gpu-bench.md; then the
# tests.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
mkdir -p "$OUT"
summary=()
note() { summary+=("$1"); }

echo "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total,clocks.sm,clocks.max.sm --format=csv 2>&1 | tee "$OUT/gpu-smi.log"
for d in /usr/local/cuda*/lib64 /usr/local/nvidia/lib64 /opt/*/.venv/lib/python3*/site-packages/nvidia/*/lib; do
	ls "$d" 2>/dev/null | grep -E '^lib(cuda|cublas|cublasLt|nvrtc)\.so' | sed "s|^|$d/|"
done 2>&1 | tee "$OUT/gpu-libs.log" | head -20

run() { # name binary args...
	local name=$1 bin=$2
	shift 2
	[ -x "$bin" ] || { note "$name: binary missing"; return; }
	local t0=$SECONDS
	"$bin" "$@" >"$OUT/gpu-$name.log" 2>&1
	local rc=$?
	local dt=$((SECONDS - t0))
	local pass=$(grep -c -- '^--- PASS' "$OUT/gpu-$name.log")
	local fail=$(grep -c -- '^--- FAIL' "$OUT/gpu-$name.log")
	local skip=$(grep -c -- '^--- SKIP' "$OUT/gpu-$name.log")
	note "$(printf '%-14s rc=%d pass=%d fail=%d skip=%d %ds' "$name" "$rc" "$pass" "$fail" "$skip" "$dt")"
	grep -E -- '^(--- FAIL|--- SKIP|panic|FAIL)' "$OUT/gpu-$name.log" | head -20
}

echo "== cuda tests"
run cuda .devbin/cuda.test -test.v -test.count=1
grep -E 'device "|NVRTC|cuBLAS|error / peak|reported' "$OUT/gpu-cuda.log" | head -20
echo "== gram tests"
run gram .devbin/cuda_gram.test -test.v -test.count=1 -test.run 'Strategies|Choose|TensorCore'
grep -E 'error/peak|ms err|chosen|not available' "$OUT/gpu-gram.log"
if [ "${GEMM:-1}" = 1 ] && [ "${1:-}" != quick ]; then
	echo "== GEMM strategies"
	run gemmbench .devbin/cuda_gram.test -test.v -test.count=1 -test.run 'GemmStrategies|MMARates|TensorCoreSubsets' -gemm-bench -gemm-bench-out "$OUT/gemm-bench.md"
	cat "$OUT/gemm-bench.md" 2>/dev/null
fi
if [ -x .devbin/matvis_gpu.test ]; then
	echo "== matvis/gpu tests"
	bench=(-gpu-bench -gpu-bench-out "$OUT/gpu-bench.md")
	if [ "${1:-}" != quick ]; then
		run bench .devbin/matvis_gpu.test -test.v -test.count=1 -test.timeout=5m -test.run 'BenchCanonical|PrecisionGate' "${bench[@]}"
		grep -E 'precision gate|GPU time|Error|error|panic' "$OUT/gpu-bench.log" | head -30
		cat "$OUT/gpu-bench.md" 2>/dev/null
	fi
	run gpu .devbin/matvis_gpu.test -test.v -test.count=1 -test.timeout=6m
	grep -E 'parity|plain loop|vs matvis|Error|error|panic' "$OUT/gpu-gpu.log" | head -100
fi
echo
echo "== summary"
printf '%s\n' "${summary[@]}"
grep -h -E 'parity|precision gate' "$OUT/gpu-gpu.log" "$OUT/gpu-bench.log" 2>/dev/null | sed 's/^ *//' | cut -c1-150
grep -h '^SUMMARY' "$OUT/gpu-bench.md" 2>/dev/null
