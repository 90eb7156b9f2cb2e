#!/usr/bin/env bash
# Soak: hunt flaky tests. Every test that draws random inputs
# (sharedtest.RNG or sharedtest.Seed: it logs "random seed N") runs under
# many seeds, and every timing- or signal-dependent test runs many times
# beside a CPU hog. Test binaries are built once (go test -c) and looped.
# A summary at the end: test, runs, failures, failing seeds; the exit
# status is 1 when anything failed.
#
#   scripts/soak.sh [-n SEEDS] [-b FIRST] [-l COUNT] [-H LOOPS] [-p PKGS]
#                   [-r REGEX] [-s] [-S] [-L] [-o DIR]
#
#   -n SEEDS  seeds per random test (default 200): FIRST … FIRST+SEEDS−1
#   -b FIRST  first seed (default 1); GOMATVIS_TEST_SEED is the knob
#   -l COUNT  runs of each timing/signal test under load (default 50)
#   -H LOOPS  busy loops of the CPU hog (default 4)
#   -p PKGS   only these packages (space-separated, e.g. "./matvis/nufft")
#   -r REGEX  only the top-level tests whose name matches REGEX (grep -E)
#   -s        go test -short (skips the long cases; runs that skip are
#             counted as skipped, not passed)
#   -S        the random tests only; -L the load tests only
#   -o DIR    keep the binaries and the failing runs' output here
#             (default: a temporary directory, removed unless a run failed)
#
# A failing random test is replayed with
#   GOMATVIS_TEST_SEED=SEED go test -run '^TEST$' PKG
# This machine is shared: soak with a reduced -n where a full run is too
# long, and say so beside its result.
set -euo pipefail
cd "$(dirname "$0")/.."

seeds=200 first=1 loadcount=50 hogs=4 pkgs="" regex="" short="" outdir=""
do_seeds=1 do_load=1
while getopts "n:b:l:H:p:r:sSLo:h" opt; do
	case $opt in
	n) seeds=$OPTARG ;;
	b) first=$OPTARG ;;
	l) loadcount=$OPTARG ;;
	H) hogs=$OPTARG ;;
	p) pkgs=$OPTARG ;;
	r) regex=$OPTARG ;;
	s) short=-test.short ;;
	S) do_load=0 ;;
	L) do_seeds=0 ;;
	o) outdir=$OPTARG ;;
	h) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
	*) echo "soak.sh: unknown option (see scripts/soak.sh -h)" >&2; exit 2 ;;
	esac
done
for v in "$seeds" "$first" "$loadcount" "$hogs"; do
	[[ $v =~ ^[0-9]+$ ]] || { echo "soak.sh: -n, -b, -l and -H take a whole number, got '$v'" >&2; exit 2; }
done

# The packages whose tests draw random inputs: those whose test files use
# the seeded generators (sharedtest.RNG or Seed, backendtest.NewRNG),
# found anew on each run so that a new package is soaked too (the tests
# themselves are found by their log line below); and the tests that depend
# on timing or signals, as "package regex".
random_pkgs=$(grep -rl --include='*_test.go' -e 'sharedtest\.RNG' -e 'sharedtest\.Seed' -e 'NewRNG(t' . |
	xargs -n1 dirname | sort -u | sed 's|^\./||; s|^|./|; s|^\./\.$|.|' | tr '\n' ' ')
load_tests=(
	"./cmd/gomatvis ^(TestSimulatePhases|TestSignalAfterStopDoesNotKill|TestSecondInterruptExits|TestSignalsDuringRun|TestWatchSignalsAfterStop|TestWatchSignalsBeforeStop|TestUntilCancelled|TestInterruptDuringCatalogRead|TestProfileRefusesSizes|TestInputsRefuseFIFO|TestWriteOutputsExclusive)$"
	"./matvis ^TestLateResultBoundsHeld$"
	"./matvis/output ^TestOpenAsyncFailure$"
	"./matvis/nufft ^TestExecuteContext$"
	"./matvis/nufftcpu ^(TestCancelWithinIntegration|TestCancelInEachStage)$"
	"./matvis/cpu ^(TestCancelInsideChunk|TestCancelInEachStage)$"
	"./matvis/multi ^TestMultiErrorCancelsOthers$"
	"./internal/h5read ^TestVarLenForgedSkyH5$"
	"./internal/atomicfile ^TestLockSerializes$"
	"./internal/inputfile ^TestOpenRefusesNonRegular$"
)

keep=1
if [ -z "$outdir" ]; then
	outdir=$(mktemp -d)
	keep=0
fi
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
summary="$outdir/summary.tsv"
: >"$summary"
failed=0

wanted() { # package: whether -p lets it run
	[ -z "$pkgs" ] && return 0
	local p
	for p in $pkgs; do [ "$p" = "$1" ] && return 0; done
	return 1
}

# binary PKG: build PKG's test binary once into $outdir, print its path.
binary() {
	local bin="$outdir/bin/$(echo "$1" | tr '/.' '__').test"
	if [ ! -x "$bin" ]; then
		mkdir -p "$outdir/bin"
		CGO_ENABLED=0 go test -c -o "$bin" "$1" >&2
	fi
	echo "$bin"
}

# discover BIN: the top-level tests of BIN that log a random seed and do
# not skip here (a GPU test without a device), one name a line.
discover() {
	GOMATVIS_TEST_SEED=$first "$1" -test.v -test.count=1 $short 2>&1 | awk '
		/^=== (RUN|CONT|NAME|PAUSE) / { cur = $3; sub(/\/.*/, "", cur) }
		/random seed [0-9]+/ && cur != "" { rnd[cur] = 1 }
		/^--- SKIP: / { skip[$3] = 1 }
		END { for (t in rnd) if (!(t in skip)) print t }' | sort
}

# record TEST RUNS FAILS SKIPS SEEDS
record() {
	printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "${5:--}" >>"$summary"
	[ "$3" = 0 ] || failed=1
}

# run BIN DIR TEST [GOMATVIS_TEST_SEED]: one run of TEST in DIR (the
# package's directory, as go test runs it); its output kept on failure.
# A run that skipped adds to skips: a skip is not a pass.
run() {
	local out="$outdir/run.out"
	if (cd "$2" && env ${4:+GOMATVIS_TEST_SEED=$4} "$1" -test.v -test.run "^$3\$" -test.count=1 $short >"$out" 2>&1); then
		if grep -q "^--- SKIP: $3 " "$out"; then
			skips=$((skips + 1))
		fi
		return 0
	fi
	cp "$out" "$outdir/fail-$(basename "$1")-$3-${4:-load}-$RANDOM.out"
	return 1
}

start=$(date +%s)
echo "== soak: $seeds seeds from $first per random test, $loadcount runs of each load test beside $hogs busy loops; $(uptime)"

if [ "$do_seeds" = 1 ]; then
	for pkg in $random_pkgs; do
		wanted "$pkg" || continue
		bin=$(binary "$pkg")
		for test in $(discover "$bin"); do
			[ -z "$regex" ] || echo "$test" | grep -Eq "$regex" || continue
			t0=$(date +%s) fails=0 skips=0 bad=""
			for ((s = first; s < first + seeds; s++)); do
				if ! run "$bin" "$pkg" "$test" "$s"; then
					fails=$((fails + 1)) bad="$bad $s"
				fi
			done
			record "$pkg $test" "$seeds" "$fails" "$skips" "${bad# }"
			echo "$pkg $test: $fails of $seeds seeds failed${bad:+ (seeds$bad)}, $skips skipped, $(($(date +%s) - t0)) s"
		done
	done
fi

hog_pids=()
stop_hog() {
	local p
	for p in "${hog_pids[@]}"; do kill "$p" 2>/dev/null || true; done
	hog_pids=()
}
trap stop_hog EXIT INT TERM

if [ "$do_load" = 1 ]; then
	# The binaries are built and the tests listed first: the hog runs only
	# beside the tests.
	load_runs=()
	for entry in "${load_tests[@]}"; do
		pkg=${entry%% *} re=${entry#* }
		wanted "$pkg" || continue
		bin=$(binary "$pkg")
		tests=$("$bin" -test.list "$re")
		[ -n "$tests" ] || echo "soak.sh: no test of $pkg matches $re (renamed? edit load_tests)" >&2
		for test in $tests; do
			[ -z "$regex" ] || echo "$test" | grep -Eq "$regex" || continue
			load_runs+=("$pkg $bin $test")
		done
	done
	for ((i = 0; i < hogs; i++)); do
		(while :; do :; done) &
		hog_pids+=($!)
	done
	for entry in "${load_runs[@]}"; do
		read -r pkg bin test <<<"$entry"
		t0=$(date +%s) fails=0 skips=0
		for ((k = 0; k < loadcount; k++)); do
			run "$bin" "$pkg" "$test" || fails=$((fails + 1))
		done
		record "$pkg $test (load)" "$loadcount" "$fails" "$skips"
		echo "$pkg $test under load: $fails of $loadcount failed, $skips skipped, $(($(date +%s) - t0)) s; $(uptime)"
	done
	stop_hog
fi

echo
echo "== soak summary ($(($(date +%s) - start)) s; $(uptime))"
printf '%-70s %6s %9s %8s  %s\n' TEST RUNS FAILURES SKIPPED "FAILING SEEDS"
while IFS=$'\t' read -r name runs fails skips bad; do
	printf '%-70s %6s %9s %8s  %s\n' "$name" "$runs" "$fails" "$skips" "$bad"
done <"$summary"
if [ "$failed" = 1 ]; then
	echo "FAILED: the failing runs' output is in $outdir (fail-*.out)"
	exit 1
fi
[ "$keep" = 1 ] || rm -rf "$outdir"
echo "clean"
