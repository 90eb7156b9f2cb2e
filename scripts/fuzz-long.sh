#!/usr/bin/env bash
# Every parser's fuzz target, one after the other, printing a Markdown
# table row per target (executions, seconds, result); exits 1 if any found
# a failure. By default each runs until 10⁶ executions or 10 minutes,
# whichever comes first: the long runs behind bench/RESULTS.md. With
# FUZZTIME set (a duration such as 6s, or a count such as 20000x, which
# scripts/test.sh uses for CI) each runs that long.
# FUZZ_ONLY=REGEXP picks targets; FUZZ_LIMIT_S and FUZZ_EXECS change the
# defaults. Usage: scripts/fuzz-long.sh
set -uo pipefail
cd "$(dirname "$0")/.."
limit=${FUZZ_LIMIT_S:-600}
execs=${FUZZ_EXECS:-1000000}
targets=(
  "./matvis/simspec/ FuzzDecode" "./npy/ FuzzReadNpy" "./matvis/beam/beamfits/ FuzzBeamFITS"
  "./matvis/astro/ FuzzFinals2000A" "./cmd/gomatvis/ FuzzSpecSimulate"
  "./matvis/obsparam/ FuzzObsParam" "./matvis/obsparam/ FuzzLayoutCSV"
  "./matvis/obsparam/ FuzzTelescopeConfig" "./matvis/obsparam/ FuzzAxis"
  "./matvis/skymodel/ FuzzReadText" "./matvis/skymodel/ FuzzReadVOTable"
  "./matvis/skymodel/ FuzzReadStokesTSV" "./matvis/skymodel/ FuzzReadSkyH5"
  "./uvh5/ FuzzReadUVH5" "./matvis/part/ FuzzReadPart"
  "./matvis/simspec/ FuzzParseTwin" "./matvis/skymodel/ FuzzReadTextTwin"
  "./internal/fastfloat/ FuzzParseFloat" "./internal/fastfloat/ FuzzParsePrefix"
  "./internal/casatable/ FuzzRead" "./matvis/astro/ FuzzC04"
  "./internal/h5read/ FuzzAttributes" "./internal/h5read/ FuzzGlobalHeap"
  "./cmd/gomatvis/ FuzzParseByteSize" "./uvfits/ FuzzStringCards"
)
failed=0
echo "| target | executions | seconds | result |"
echo "| --- | --- | --- | --- |"
for t in "${targets[@]}"; do
  set -- $t
  [[ -n "${1:-}" && "$2" =~ ${FUZZ_ONLY:-.} ]] || continue
  log=$(mktemp)
  t0=$SECONDS
  note=""
  for attempt in 1 2; do
    # -fuzztime Nx stops at N executions; timeout stops it at the time limit
    # (its last progress line still says how far it got).
    if [ -n "${FUZZTIME:-}" ]; then
      CGO_ENABLED=0 go test -run '^$' -fuzz "^$2\$" -fuzztime "$FUZZTIME" -fuzzminimizetime 100x "$1" >"$log" 2>&1
    else
      timeout --signal=INT "$limit" env CGO_ENABLED=0 go test -run '^$' -fuzz "^$2\$" -fuzztime "${execs}x" -fuzzminimizetime 100x "$1" >"$log" 2>&1
    fi
    rc=$?
    # The fuzzing engine itself sometimes misses its shutdown deadline on a
    # loaded machine ("context deadline exceeded", no failing input
    # written): not a finding, so the target runs once more.
    if [ $rc -ne 0 ] && grep -q 'context deadline exceeded' "$log" && ! grep -q 'Failing input written' "$log"; then
      note=" (retried after the engine's shutdown timeout)"
      continue
    fi
    break
  done
  n=$(grep -o 'execs: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*')
  case $rc in
    0) result="no failure$note" ;;
    124|130) result="no failure (time limit)" ;;
    *) result="FAILED (rc $rc): $(grep -m1 -E 'panic|FAIL|failure' "$log")"; failed=1; tail -40 "$log" >&2 ;;
  esac
  echo "| $2 | ${n:-?} | $((SECONDS - t0)) | $result |"
  rm -f "$log"
done
exit $failed
