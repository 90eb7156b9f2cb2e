#!/usr/bin/env bash
# The end-to-end benchmark: gomatvis simulate run as a user runs it, on
# generated inputs (bench/e2e/gen), timed as a whole process (wall, CPU time
# and peak RSS from /usr/bin/time) beside the engine's own share (the compute phase of
# the run's phase line; before that line existed, the summary line's "s in
# all", which includes the writing for UVH5 and UVFITS, and for every
# output since the streamed writer). Prints a markdown
# table, one row per case and output, with the load average at the start of
# each case's runs.
#
# Usage: bench/e2e.sh [options]
#   --quick            only 2·10⁵ sources and 1 channel (every form and output)
#   --forms LIST       inline text skyh5 obsparam (default: all)
#   --sources LIST     200000 2000000 (default)
#   --channels LIST    1 64 (default)
#   --outputs LIST     npy uvh5 uvfits (default)
#   --backend B        gomatvis's --backend (default auto: nufftcpu on a
#                      CPU, the GPU on the device); e.g. cpu, gpu
#   --runs N           runs of each case (default 3): medians, [min–max] wall
#                      (CPU time, less disturbed by a loaded machine than
#                      the wall, is printed beside it)
#   --huge             also the inline spec at 2·10⁶ sources × 64 channels
#                      (a ~2.5 GB JSON file; skipped otherwise)
#   --tmp DIR          where inputs and outputs go (default bench/tmp/e2e)
#   --gomatvis PATH    time this binary instead of building ./cmd/gomatvis
#   --flags 'ARGS'     extra arguments to gomatvis simulate
# Inputs are generated once per shape and kept under --tmp (git-ignored);
# outputs are deleted after each run. Lists are space- or comma-separated.
set -euo pipefail

cd "$(dirname "$0")/.."
forms="inline text skyh5 obsparam" sources="200000 2000000" channels="1 64" outputs="npy uvh5 uvfits"
backend=auto runs=3 huge=0 tmp=bench/tmp/e2e bin="" extra=""
while (($#)); do
	case $1 in
	--quick) sources=200000 channels=1 ;;
	--forms) forms=${2//,/ }; shift ;;
	--sources) sources=${2//,/ }; shift ;;
	--channels) channels=${2//,/ }; shift ;;
	--outputs) outputs=${2//,/ }; shift ;;
	--backend) backend=$2; shift ;;
	--runs) runs=$2; shift ;;
	--huge) huge=1 ;;
	--tmp) tmp=$2; shift ;;
	--gomatvis) bin=$2; shift ;;
	--flags) extra=$2; shift ;;
	-h | --help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench/e2e.sh: unknown option $1 (--help lists them)" >&2; exit 2 ;;
	esac
	shift
done
[[ -x /usr/bin/time ]] || { echo "bench/e2e.sh: needs GNU time at /usr/bin/time (apt-get install time)" >&2; exit 2; }
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "bench/e2e.sh: --runs $runs: want a positive integer" >&2; exit 2; }
for n in $sources $channels; do
	[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "bench/e2e.sh: --sources/--channels $n: want positive integers" >&2; exit 2; }
done
for f in $forms; do
	[[ $f =~ ^(inline|text|skyh5|obsparam)$ ]] || { echo "bench/e2e.sh: --forms $f: want inline, text, skyh5 or obsparam" >&2; exit 2; }
done
for f in $outputs; do
	[[ $f =~ ^(npy|uvh5|uvfits)$ ]] || { echo "bench/e2e.sh: --outputs $f: want npy, uvh5 or uvfits" >&2; exit 2; }
done

mkdir -p "$tmp"
gen=$tmp/gen
go build -o "$gen" ./bench/e2e/gen
if [[ -z $bin ]]; then
	bin=$tmp/gomatvis
	go build -o "$bin" ./cmd/gomatvis
fi

# input DIR FORM NSRC NFREQ: generates the inputs once (a stamp records the
# generator's flags and binary, so a changed generator writes them again)
# and prints the path to give simulate.
input() {
	local dir=$1 form=$2 nsrc=$3 nfreq=$4
	local stamp="$form $nsrc $nfreq $(sha256sum "$gen" | cut -c1-16)"
	if [[ ! -f $dir/stamp || $(cat "$dir/stamp") != "$stamp" ]]; then
		rm -rf "$dir"
		echo "generating $dir ..." >&2
		"$gen" -form "$form" -nsrc "$nsrc" -nfreq "$nfreq" -o "$dir"
		echo "$stamp" >"$dir/stamp"
	fi
	if [[ $form == obsparam ]]; then echo "$dir/obsparam.yaml"; else echo "$dir/spec.json"; fi
}

# f3 X: X to the millisecond ("—" stays)
f3() { awk -v x="$1" 'BEGIN {if (x == "—" || x == "") print "—"; else printf "%.3f", x}'; }

# median of the numbers on stdin ("—" for none)
median() { sort -g | awk '{v[NR]=$1} END {if (!NR) print "—"; else if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

# phase NAME FILE: a phase's seconds from the run's phase line
# ("wall W s: start S, input I, set-up U, compute C, write O, close X").
phase() { sed -n "s/^wall [0-9.e+-]* s: .*\b$1 \([0-9.e+-]*\).*/\1/p" "$2" | head -1; }

echo "gomatvis e2e: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), backend $backend, $runs run(s) each, $(date -u '+%F %H:%M UTC')"
echo
echo "| case | output | wall s (median [min–max]) | CPU s | phases s | compute s | input s | write s | peak RSS MB | wall/compute | load |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for nsrc in $sources; do
	for nfreq in $channels; do
		for form in $forms; do
			if [[ $form == inline && $nsrc -ge 2000000 && $nfreq -gt 1 && $huge == 0 ]]; then
				continue
			fi
			dir=$tmp/$form-$nsrc-$nfreq
			in=$(input "$dir" "$form" "$nsrc" "$nfreq")
			for fmt in $outputs; do
				load=$(cut -d' ' -f1 /proc/loadavg)
				walls=() cpus=() rss=() tot=() comp=() inp=() wr=()
				for ((r = 0; r < runs; r++)); do
					out=$dir/out.$fmt log=$dir/run.log tm=$dir/time.txt
					rm -f "$out" "${out%.npy}.meta.json"
					# shellcheck disable=SC2086 # extra is a list of flags
					if ! /usr/bin/time -f '%e %M %U %S' -o "$tm" "$bin" simulate -q --backend "$backend" $extra -o "$out" "$in" >"$log" 2>&1; then
						echo "bench/e2e.sh: $form $nsrc × $nfreq → $fmt failed:" >&2
						tail -5 "$log" >&2
						exit 1
					fi
					read -r w m u s <"$tm"
					walls+=("$w") rss+=("$m") cpus+=("$(awk -v u="$u" -v s="$s" 'BEGIN {print u + s}')")
					tot+=("$(sed -n 's/^wall \([0-9.e+-]*\) s: .*/\1/p' "$log" | head -1)")
					c=$(phase compute "$log")
					if [[ -z $c ]]; then # before the phase line: the summary's "s in all"
						c=$(sed -n 's/.*: \([0-9.e+-]*\) s in all → .*/\1/p' "$log" | head -1)
					fi
					comp+=("$c") inp+=("$(phase input "$log")") wr+=("$(phase write "$log")")
					rm -f "$out" "${out%.npy}.meta.json"
				done
				mw=$(printf '%s\n' "${walls[@]}" | median)
				lo=$(printf '%s\n' "${walls[@]}" | sort -g | head -1)
				hi=$(printf '%s\n' "${walls[@]}" | sort -g | tail -1)
				mc=$(printf '%s\n' "${comp[@]}" | grep . | median || true)
				mu=$(printf '%s\n' "${cpus[@]}" | median)
				mt=$(printf '%s\n' "${tot[@]}" | grep . | median || true)
				mi=$(printf '%s\n' "${inp[@]}" | grep . | median || true)
				mo=$(printf '%s\n' "${wr[@]}" | grep . | median || true)
				mr=$(printf '%s\n' "${rss[@]}" | median)
				mc=$(f3 "$mc") mu=$(f3 "$mu") mt=$(f3 "$mt") mi=$(f3 "$mi") mo=$(f3 "$mo")
				ratio=$(awk -v w="$mw" -v c="$mc" 'BEGIN {if (c > 0) printf "%.2f", w / c; else print "—"}')
				printf '| %s %s × %s ch | %s | %s [%s–%s] | %s | %s | %s | %s | %s | %.0f | %s | %s |\n' \
					"$form" "$nsrc" "$nfreq" "$fmt" "$mw" "$lo" "$hi" "$mu" "${mt:-—}" "$mc" "${mi:-—}" "${mo:-—}" \
					"$(awk -v k="$mr" 'BEGIN {print k / 1024}')" "$ratio" "$load"
			done
		done
	done
done
echo
echo "wall, CPU (user + system) and peak RSS: /usr/bin/time of the whole process; phases: the wall of the run's phase line (process start to close); compute: the run's phase line (\"wall W s: start …, compute C, …\") or, from a gomatvis without it, the summary line's \"s in all\" (the backend's set-up, the compute and, for UVH5 and UVFITS, or any output since the streamed writer, the writing); load: the 1-minute load average before the case's runs."
