#!/usr/bin/env bash
# Runs the GPU profiles on a machine with a GPU, from the binaries
# scripts/gpu-build.sh made: the matvis/gpu tests (parity, reference specs,
# device memory vs the model), `gomatvis profile` at dev and prodslice on
# the GPU, and `gomatvis roofline` (dev, and re-measured at the prodslice
# profile's shape). Everything goes to one archive, $OUT/gpu-profile.tar.gz
# (summary.json files, roofline.json, the PNG figures, logs), and a short
# table is printed last. Usage (repo root): scripts/gpu-profile-run.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
W=$(mktemp -d)
mkdir -p "$OUT" "$W/logs"
summary=()
note() { summary+=("$1"); }
step() { # name command...: runs, logs to $W/logs/name.log, notes rc and time
	local name=$1
	shift
	local t0=$SECONDS
	"$@" >"$W/logs/$name.log" 2>&1
	local rc=$?
	note "$(printf '%-22s rc=%d %4ds' "$name" "$rc" $((SECONDS - t0)))"
	return $rc
}

nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total,clocks.sm,clocks.max.sm --format=csv | tee "$W/logs/smi.log"
step gpu-tests .devbin/matvis_gpu.test -test.v -test.count=1 -test.timeout=5m
grep -E -- '^(--- |ok|FAIL|PASS)|device memory|allocated|parity reference' "$W/logs/gpu-tests.log" | cut -c1-220
step profile-dev .devbin/gomatvis profile --preset dev --backend gpu -o "$W/gpu-dev"
cut -c1-220 "$W/logs/profile-dev.log"
step profile-prodslice .devbin/gomatvis profile --preset prodslice --backend gpu --ntimes 4 --scaling=false -o "$W/gpu-prodslice"
cut -c1-220 "$W/logs/profile-prodslice.log"
step roofline-dev .devbin/gomatvis roofline --preset dev --backend gpu -o "$W/roofline-dev"
tail -12 "$W/logs/roofline-dev.log"
step roofline-prodslice .devbin/gomatvis roofline --from "$W/gpu-prodslice/summary.json" -o "$W/roofline-prodslice"
tail -12 "$W/logs/roofline-prodslice.log"
find "$W" -name '*.svg' -delete
tar czf "$OUT/gpu-profile.tar.gz" -C "$W" .
ls -la "$OUT"
echo "== summary"
printf '%s\n' "${summary[@]}"
grep -h -E '^(steady|gpu:|device memory|GPU time)' "$W"/logs/profile-*.log | cut -c1-220
