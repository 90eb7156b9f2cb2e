#!/usr/bin/env bash
# Builds the static GPU test binaries and the gomatvis command into .devbin/
# (git-ignored) for scripts/gpu-device-run.sh and scripts/gpu-profile-run.sh,
# which run them on a machine with a GPU (that machine needs no Go
# toolchain). Copies the reference specs it checks
# against into .devdata/. Usage: scripts/gpu-build.sh
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .devbin .devdata
export CGO_ENABLED=0 GOFLAGS=-buildvcs=false
for pkg in ./cuda ./cuda/gram ./matvis/gpu; do
	[ -d "$pkg" ] || continue
	name=$(echo "${pkg#./}" | tr / _)
	go test -c -o ".devbin/$name.test" "$pkg"
done
go build -o .devbin/gomatvis ./cmd/gomatvis
if [ -d ../shared/reference ]; then
	rm -rf .devdata/reference .devdata/beams
	cp -r ../shared/reference .devdata/reference
	[ -d ../shared/beams ] && cp -r ../shared/beams .devdata/beams
fi
ls -la .devbin
