#!/usr/bin/env bash
# Builds the static GPU test binaries and the gomatvis command into .devbin/
# (git-ignored) for scripts/gpu-device-run.sh and scripts/gpu-profile-run.sh,
# which run them on a machine with a GPU (that machine needs no Go
# toolchain). The reference specs they check against are the repository's
# testdata/, which travels with the working tree. The binaries are built
# without symbol tables (-s -w; Go's stack traces still name functions and
# lines): they travel beside the working tree under the device's 64 MiB
# limit, which unstripped binaries (55 MB) and the tree (11 MB) overrun.
# Usage: scripts/gpu-build.sh
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .devbin
export CGO_ENABLED=0 GOFLAGS=-buildvcs=false
for pkg in ./cuda ./cuda/gram ./matvis/gpu ./matvis/nufftgpu; do
	[ -d "$pkg" ] || continue
	name=$(echo "${pkg#./}" | tr / _)
	go test -c -ldflags="-s -w" -o ".devbin/$name.test" "$pkg"
done
go build -ldflags="-s -w" -o .devbin/gomatvis ./cmd/gomatvis
# The end-to-end benchmark's input generator (scripts/gpu-e2e-run.sh).
go build -ldflags="-s -w" -o .devbin/gen ./bench/e2e/gen
cp scripts/gpu-suite-run.sh scripts/gpu-e2e-run.sh scripts/resident-run.sh .devbin/
ls -la .devbin
