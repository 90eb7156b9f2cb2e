#!/usr/bin/env bash
# The project's test command: installs what the tests need, checks
# formatting and vet, runs every Go test (GPU tests skip without a device
# and say so), a short fuzz of the spec reader, every notebook (nbconvert,
# then headless Chromium with every widget) and the Docker image (built
# with podman, then the CLI and the notebooks run in it).
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
ldconfig -p 2>/dev/null | grep -q libopenblas.so.0 || need_apt+=(libopenblas0-pthread)
# Real HDF5 readers judge every file we write (UVH5); healpy judges our HEALPix geometry.
/usr/bin/python3 -c 'import h5py' 2>/dev/null || need_apt+=(python3-h5py)
command -v h5dump >/dev/null || need_apt+=(hdf5-tools)
# The race detector needs cgo.
command -v gcc >/dev/null || need_apt+=(gcc)
/usr/bin/python3 -c 'import healpy' 2>/dev/null || need_apt+=(python3-healpy)
# astropy judges our UVFITS (phased as pyuvsim writes it) and our apparent coordinates.
/usr/bin/python3 -c 'import astropy' 2>/dev/null || need_apt+=(python3-astropy)
# casacore judges every Measurement Set we write: python-casacore reads each
# table and column, showtableinfo, msselect and taql open it (package ms).
/usr/bin/python3 -c 'import casacore.tables' 2>/dev/null || need_apt+=(python3-casacore)
command -v msselect >/dev/null || need_apt+=(casacore-tools)
# WSClean images an MS we write: a point source's dirty peak, place and flux.
command -v wsclean >/dev/null || need_apt+=(wsclean)
if [ ${#need_apt[@]} -gt 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "== installing ${need_apt[*]}"
  apt-get -o DPkg::Lock::Timeout=600 update -qq && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${need_apt[@]}" >/dev/null
fi
# The notebooks' browser test: headless Chromium, the classic notebook UI
# and the font the figures name. Without recommends: they would add Mesa,
# a printer dialog and more, which headless use never needs.
need_browser=()
command -v chromium >/dev/null || need_browser+=(chromium)
command -v jupyter-notebook >/dev/null || need_browser+=(jupyter-notebook)
dpkg -s fonts-liberation >/dev/null 2>&1 || need_browser+=(fonts-liberation)
if [ ${#need_browser[@]} -gt 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "== installing ${need_browser[*]} (no recommends)"
  apt-get -o DPkg::Lock::Timeout=600 update -qq && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${need_browser[@]}" >/dev/null
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
# go test -json, counted by scripts/testsummary: every test and subtest by
# its outcome, skipped ones with their reason, a test cut short by a panic
# or timeout as failed. The plain -v output is kept in $log.
log=$(mktemp)
summary=$(mktemp)
go build -o "$summary.bin" ./scripts/testsummary
set +e
CGO_ENABLED=0 go test -count=1 -json ./... 2>&1 | "$summary.bin" -log "$log" >"$summary"
rcs=("${PIPESTATUS[@]}")
set -e
cat "$summary"
if [ "${rcs[1]}" != 0 ] || [ "${rcs[0]}" != 0 ]; then
  echo "go test failed (go test exit ${rcs[0]}, summary exit ${rcs[1]}; plain output: $log)"
  exit 1
fi
counts=$(tail -1 "$summary")
echo "== race detector on the parallel CPU code"
race="race detector: NOT run"
if command -v gcc >/dev/null; then
  CGO_ENABLED=1 go test -race -count=1 ./matvis/cpu ./matvis/beam ./matvis/astro
  race="race detector: ran on matvis/cpu, matvis/beam, matvis/astro"
else
  echo "SKIP: the race detector needs cgo and gcc, which this machine lacks"
fi
echo "== fuzz every parser briefly (the long runs: scripts/fuzz-long.sh, bench/RESULTS.md)"
# An execution count, not a duration: Go 1.26's fuzzing coordinator can
# report a bare "context deadline exceeded" when a duration runs out on a
# loaded machine (golang/go#75804, fixed in Go 1.27); a count sets no
# deadline. 20 000 executions take 1–12 s per target here.
FUZZTIME=${FUZZTIME:-20000x} scripts/fuzz-long.sh
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
browser="browser test: NOT run"
if [ -x scripts/test-notebooks-browser.sh ]; then
  echo "== notebooks in headless Chromium: every cell, every widget (scripts/test-notebooks-browser.sh)"
  set +e
  scripts/test-notebooks-browser.sh
  rc=$?
  set -e
  case $rc in
  0) browser="browser test: ran every notebook and widget" ;;
  77) ;; # it said SKIP and why
  *) exit $rc ;;
  esac
fi
image="image test: NOT run"
if [ -x scripts/test-image.sh ]; then
  echo "== the Docker image built with podman and run: CLI, notebooks, browser (scripts/test-image.sh)"
  set +e
  scripts/test-image.sh
  rc=$?
  set -e
  case $rc in
  0) image="image test: built docker/Dockerfile and ran the CLI and every notebook in it" ;;
  77) ;; # it said SKIP and why
  *) exit $rc ;;
  esac
fi
echo "== summary"
echo "$counts"
echo "$race"
echo "$browser"
echo "$image"
if [[ $race == *"NOT run"* || $browser == *"NOT run"* || $image == *"NOT run"* ]]; then
  [[ $race == *"NOT run"* ]] && echo "== the race detector did NOT run (install gcc)"
  [[ $browser == *"NOT run"* ]] && echo "== the browser test did NOT run (it said why above)"
  [[ $image == *"NOT run"* ]] && echo "== the image test did NOT run (it said why above)"
  echo "== the checks that ran passed"
  [[ $race == *"NOT run"* && ${REQUIRE_RACE:-0} = 1 ]] && exit 1
  exit 0
else
  echo "== all checks passed"
fi
