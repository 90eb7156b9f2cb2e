#!/usr/bin/env bash
# [resident]'s measurements on a machine with a GPU, from binaries made
# here (no Go there): .devbin/gomatvis (this tree), .devbin/gomatvis-base
# (the landed tree to compare with, optional) and .devbin/matvis_gpu.test.
# Usage (repo root): [TESTS=0] [CASES="prodslice:32:2 dev:1:64"] scripts/resident-run.sh
# Each case is preset:channels:times[:stokes]; both binaries run it one
# after the other (base first) and a table of summary.json's derived
# figures is printed last. Logs and summaries go to $OUT (or ./out).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
mkdir -p "$OUT"
B=.devbin
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader
if [ "${TESTS:-1}" = 1 ] && [ -x $B/matvis_gpu.test ]; then
	t0=$SECONDS
	$B/matvis_gpu.test -test.v -test.count=1 -test.timeout=5m -test.run "${TESTRUN:-DevicePrep|Parity|Fused|DeviceMemoryModel|HugeArray|PrecisionGate|Stokes}" ${TESTFLAGS:-} >"$OUT/tests.log" 2>&1
	echo "tests rc=$? $((SECONDS - t0)) s: $(grep -c -- '^--- PASS' "$OUT/tests.log") pass, $(grep -c -- '--- FAIL' "$OUT/tests.log") fail, $(grep -c -- '--- SKIP' "$OUT/tests.log") skip"
	grep -E -- '--- FAIL|^panic|worst|parity|precision gate|Error' "$OUT/tests.log" | head -60
fi
mkdir -p "$OUT/sum"
for c in ${CASES:-prodslice:32:2 dev:1:64 dev:8:8 dev:64:1}; do
	IFS=: read -r preset nf nt stokes <<<"$c"
	for bin in ${BINS:-gomatvis-base gomatvis}; do
		[ -x "$B/$bin" ] || continue
		name="$bin-$preset-${nf}x$nt${stokes:+-stokes}"
		t0=$(date +%s.%N)
		$B/$bin profile --preset "$preset" --backend gpu --no-scaling --no-roofline --nfreq "$nf" --ntimes "$nt" ${stokes:+--stokes} -o "/tmp/$name" >"$OUT/sum/$name.log" 2>&1
		rc=$?
		t1=$(date +%s.%N)
		cp "/tmp/$name/summary.json" "$OUT/sum/$name.json" 2>/dev/null
		echo "$name rc=$rc process wall $(python3 -c "print(f'{$t1-$t0:.2f}')") s"
		[ $rc = 0 ] || tail -5 "$OUT/sum/$name.log"
	done
done
python3 - "$OUT/sum" <<'EOF'
import json, sys, glob, os
rows = []
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    s = json.load(open(f))
    d = s["derived"]
    st = s.get("stats", {}) or {}
    g = d.get("gpu_time_per_integration") or 0
    rw = d.get("run_wall_per_integration") or 0
    ct = d.get("chunk_time_per_integration") or 0
    mem = s.get("memory", {})
    heap = mem.get("measured_peak_heap_bytes", 0)
    n = len(s.get("per_integration", []))
    print(f"{os.path.basename(f)[:-5]:38s} n={n:5d} run_wall/int {rw*1e3:8.3f} ms  gpu/int(median) {g*1e3:7.3f} ms  chunk/int {ct*1e3:7.3f} ms  ratio {rw/g if g else 0:5.2f}  busy {d.get('gpu_busy_fraction') or 0:5.2f}  setup {s.get('timing',{}).get('setup_s',0):.3f} s  heap {heap/1e9:.2f} GB")
EOF
grep -H "channel preparation" "$OUT"/sum/*.log | cut -c1-220
python3 - "$OUT/sum" <<'PY'
import json, sys, glob, os
for f in sorted(glob.glob(sys.argv[1] + "/gomatvis-*.json")):
    if "base" in f: continue
    s = json.load(open(f))
    st = s["timing"].get("setup_steps", [])
    print(os.path.basename(f)[:-5], "setup:", ", ".join(f"{x['name']} {x['s']*1e3:.1f}" for x in st), "ms")
PY
