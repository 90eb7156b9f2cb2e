#!/usr/bin/env bash
# Runs the GPU transform path's device checks (issue 29) from the binaries
# scripts/gpu-build.sh made, on a machine with a GPU: the device transform's
# tests (matvis/nufftgpu), the transform path's tests in matvis/gpu
# (parity, the forced contract suite, the chooser), then the bar's
# side-by-side benchmark (350 antennas × 10⁶ sources, one shared gridded
# beam, polarized fp32: GPU ms and wall per integration, the 0.5 × line,
# auto's choice, the precision gate). Logs go to $OUT (or ./out) as
# nufft-*.log; a short table comes last. Usage (repo root):
#   scripts/nufft-gpu-run.sh [quick]     # quick: no side-by-side benchmark
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
mkdir -p "$OUT"
summary=()
run() { # name binary args...
	local name=$1 bin=$2
	shift 2
	[ -x "$bin" ] || { summary+=("$name: binary missing (scripts/gpu-build.sh)"); return; }
	local t0=$SECONDS
	"$bin" "$@" >"$OUT/nufft-$name.log" 2>&1
	local rc=$?
	summary+=("$(printf '%-10s rc=%d pass=%d fail=%d skip=%d %ds' "$name" "$rc" \
		"$(grep -c -- '^--- PASS' "$OUT/nufft-$name.log")" "$(grep -c -- '^--- FAIL' "$OUT/nufft-$name.log")" \
		"$(grep -c -- '^--- SKIP' "$OUT/nufft-$name.log")" $((SECONDS - t0)))")
	grep -E -- '^(--- FAIL|panic|FAIL)|Error' "$OUT/nufft-$name.log" | head -20
}
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv 2>&1 | tee "$OUT/nufft-smi.log"
echo "== matvis/nufftgpu"
run nufftgpu .devbin/matvis_nufftgpu.test -test.v -test.count=1 -test.timeout=5m
grep -E 'vs direct|vs CPU' "$OUT/nufft-nufftgpu.log" | head -40
echo "== matvis/gpu transform path"
run gpu .devbin/matvis_gpu.test -test.v -test.count=1 -test.timeout=8m -test.run 'TestNUFFT'
grep -E 'vs plain loop|measured|transform not used|Error' "$OUT/nufft-gpu.log" | head -40
if [ "${1:-}" != quick ]; then
	echo "== side by side (the bar)"
	run sbs .devbin/matvis_gpu.test -test.v -test.count=1 -test.timeout=9m -test.run TestNUFFTSideBySide -gpu-nufft-bench
	grep -E 'NUFFTSBS' "$OUT/nufft-sbs.log"
fi
echo "== summary"
printf '%s\n' "${summary[@]}"
