#!/usr/bin/env bash
# The project's test command: installs what the tests need, checks
# formatting and vet, runs every Go test (GPU tests skip without a device
# and say so), a short fuzz of the spec reader, and every notebook.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
ldconfig -p 2>/dev/null | grep -q libopenblas.so.0 || need_apt+=(libopenblas0-pthread)
# Real HDF5 readers judge every file we write (UVH5); healpy judges our HEALPix geometry.
/usr/bin/python3 -c 'import h5py' 2>/dev/null || need_apt+=(python3-h5py)
command -v h5dump >/dev/null || need_apt+=(hdf5-tools)
/usr/bin/python3 -c 'import healpy' 2>/dev/null || need_apt+=(python3-healpy)
if [ ${#need_apt[@]} -gt 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "== installing ${need_apt[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

echo "== gofmt"
bad=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$bad" ]; then echo "gofmt would change:"; echo "$bad"; exit 1; fi
echo "== go vet"
CGO_ENABLED=0 go vet ./...
echo "== go.mod and go.sum tidy"; go mod tidy -diff
echo "== build (static, no cgo)"
CGO_ENABLED=0 go build ./...
echo "== go test"
log=$(mktemp)
CGO_ENABLED=0 go test -count=1 -v ./... >"$log" 2>&1 || { grep -E -- '^(--- FAIL|FAIL|panic)|_test.go' "$log" | tail -60; exit 1; }
grep -E '^(ok|FAIL|\?) ' "$log"
passed=$(grep -c -- '^--- PASS' "$log" || true)
skipped=$(grep -c -- '^--- SKIP' "$log" || true)
echo "== skipped tests (not counted as passed):"
grep -B1 -- '^--- SKIP' "$log" | grep -v -- '^--$' | sed 's/^ */   /' | head -40
echo "== race detector on the parallel CPU code"
if command -v gcc >/dev/null; then
  CGO_ENABLED=1 go test -race -count=1 ./matvis/cpu ./matvis/beam ./matvis/astro
else
  echo "SKIP: the race detector needs cgo and gcc, which this machine lacks"
fi
echo "== fuzz every parser briefly (the long runs: scripts/fuzz-long.sh, bench/RESULTS.md)"
FUZZTIME=${FUZZTIME:-6s} scripts/fuzz-long.sh
echo "== a real single-node Slurm cluster: shard, submit, merge (scripts/slurm-e2e.sh)"
if [ "$(id -u)" = 0 ]; then
  scripts/slurm-e2e.sh
else
  echo "SKIP: the Slurm end-to-end test starts munged, slurmctld and slurmd, which needs root"
fi
if [ -x scripts/test-notebooks.sh ]; then
  echo "== notebooks"
  scripts/test-notebooks.sh
fi
echo "== all checks passed"
echo "tests: $passed passed, 0 failed, $skipped skipped"
