#!/usr/bin/env bash
# Runs the notebooks as plain Go programs, so that their GPU branches
# execute on a machine with a GPU and no Jupyter or Go toolchain.
#
#   scripts/notebooks-gpu.sh build   # here: generate (go run ./notebooks/mknb
#                                    # -go) and build them statically
#                                    # (CGO_ENABLED=0) into .devbin/notebooks/
#   scripts/notebooks-gpu.sh run     # there: run each in order; what a notebook
#                                    # displays goes to $OUT/notebooks/NAME/
#                                    # (or out/notebooks/NAME), its output to
#                                    # NAME.log beside it; fails when one fails
#                                    # or writes no figure
#
# .devbin/ is git-ignored: carry it to the GPU machine with the working tree
# (the device tool's carry: [".devbin/notebooks"], about 30 MB). NOTEBOOKS_ONLY=GLOB runs only the
# notebooks matching GLOB (e.g. '02-*'). Notebook 03 rewrites docs/figures/
# in the working tree it runs in, as under Jupyter.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.devbin/notebooks
glob=${NOTEBOOKS_ONLY:-*}

build() {
	local src=notebooks/_go
	rm -rf "$src" && mkdir -p "$bin"
	CGO_ENABLED=0 go run ./notebooks/mknb -go "$src"
	for d in "$src"/$glob/; do
		name=$(basename "$d")
		CGO_ENABLED=0 GOFLAGS=-buildvcs=false go build -ldflags="-s -w" -o "$bin/$name" "./$d"
		echo "built $bin/$name"
	done
}

run() {
	local out=${OUT:-out}/notebooks fail=0
	export GOMATVIS_REPO=$PWD
	for exe in "$bin"/$glob; do
		[ -x "$exe" ] || { echo "no notebook programs in $bin: run '$0 build' first"; exit 1; }
		name=$(basename "$exe")
		dir=$out/$name
		rm -rf "$dir" && mkdir -p "$dir"
		t0=$SECONDS
		if NOTEBOOK_OUT=$dir "$exe" >"$dir.log" 2>&1; then
			figs=$(find "$dir" -name '*.png' | wc -l)
			echo "$name: ok in $((SECONDS - t0)) s, $figs figure(s) in $dir"
			if [ "$figs" -eq 0 ]; then
				echo "$name: no figure written"
				fail=1
			fi
		else
			echo "$name: FAILED after $((SECONDS - t0)) s; the end of $dir.log:"
			tail -20 "$dir.log"
			fail=1
		fi
		grep -i "gpu\|backend" "$dir.log" | head -5 | sed "s/^/  $name: /" || true
	done
	exit $fail
}

case ${1:-} in
build) build ;;
run) run ;;
*)
	echo "usage: $0 build|run" >&2
	exit 2
	;;
esac
