#!/usr/bin/env bash
# Builds docker/Dockerfile with podman and runs it: `gomatvis version`,
# `gomatvis simulate example`, every notebook through nbconvert inside the
# container, and the browser test (notebooks/browsertest, headless Chromium
# on the host) against the container's Jupyter on 127.0.0.1.
#
# Built here as on a machine without a registry: the base is Debian
# bookworm made by `mmdebstrap --variant=minbase` and `podman import`
# (cached as localhost/gomatvis-base:bookworm), Go comes from the module
# proxy in `go env GOPROXY` (checked against `go env GOSUMDB`), Jupyter is
# Debian's classic notebook (what the browser test drives), and the host's
# CA bundle is mounted read-only for HTTPS through a local CA. Build and
# containers use the host's network (no port publishing or network
# back-end needed). Needs root; without it, or without podman and no way
# to install it, it says SKIP and exits 77.
#
# Environment:
#   IMAGE_TEST_OUT   where logs and screenshots go (default out/image-test)
#   KEEP_IMAGE=1     keep the built image (localhost/gomatvis:test)
#   IMAGE_BROWSER_ONLY=GLOB  the notebooks the browser test runs in the
#                    container (default '02-*', the one with widgets)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
t_all=$SECONDS
say() { echo "test-image: $*"; }

if [ "$(id -u)" != 0 ]; then
  say "SKIP: building and running the image with podman here needs root"
  exit 77
fi
need=()
for c in podman mmdebstrap runc; do command -v $c >/dev/null || need+=($c); done
if [ ${#need[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null; then
    say "SKIP: ${need[*]} missing and no apt-get"
    exit 77
  fi
  say "installing ${need[*]} (Debian packages, no recommends)"
  apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

out=${IMAGE_TEST_OUT:-$repo/out/image-test}
rm -rf "$out"
mkdir -p "$out"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gomatvis-image-test.XXXXXX")
cid=""
rmimage=""
# The container and (unless KEEP_IMAGE=1) the image go before $tmp, which
# holds podman's configuration.
cleanup() {
  if [ -n "$cid" ]; then podman stop -t 10 "$cid" >/dev/null 2>&1 || true; podman rm -f "$cid" >/dev/null 2>&1 || true; fi
  if [ -n "$rmimage" ]; then podman rmi -f "$rmimage" >/dev/null 2>&1 || say "could not remove the image $rmimage"; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

# podman's defaults fail here on RLIMIT_NOFILE/NPROC and on the hybrid
# cgroup layout; journald may be absent.
cat >"$tmp/containers.conf" <<'EOF'
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
runtime = "runc"
EOF
export CONTAINERS_CONF=$tmp/containers.conf

base=localhost/gomatvis-base:bookworm
if podman image exists "$base"; then
  say "base $base (cached)"
else
  t0=$SECONDS
  mmdebstrap --quiet --variant=minbase bookworm "$tmp/base.tar"
  podman import -q "$tmp/base.tar" "$base" >/dev/null
  rm -f "$tmp/base.tar"
  say "base $base made by mmdebstrap in $((SECONDS - t0)) s"
fi

certs=/etc/ssl/certs
img=localhost/gomatvis:test
t0=$SECONDS
say "building $img (log: $out/build.log)"
if ! podman build --network=host -v "$certs:/run/host-certs:ro" \
  --ignorefile docker/Dockerfile.dockerignore -f docker/Dockerfile -t "$img" \
  --build-arg BASE_IMAGE="$base" --build-arg GO_TOOLCHAIN=proxy --build-arg JUPYTER=debian \
  --build-arg GOPROXY="$(go env GOPROXY)" --build-arg GOSUMDB="$(go env GOSUMDB)" \
  --build-arg CA_BUNDLE=/run/host-certs/ca-certificates.crt \
  . >"$out/build.log" 2>&1; then
  tail -n 40 "$out/build.log"
  say "FAIL: the build failed"
  exit 1
fi
size=$(podman image inspect --format '{{.Size}}' "$img")
say "built in $((SECONDS - t0)) s: $((size / 1000000)) MB"
[ "${KEEP_IMAGE:-0}" = 1 ] || rmimage=$img

# The container sees the module proxy and the CA bundle as the build did,
# for the notebooks' first cell (go get of gonbui).
run=(podman run --rm --network=host -v "$certs:/run/host-certs:ro"
  -e SSL_CERT_FILE=/run/host-certs/ca-certificates.crt
  -e GOPROXY="$(go env GOPROXY)" -e GOSUMDB="$(go env GOSUMDB)")

say "gomatvis version"
"${run[@]}" "$img" gomatvis version | tee "$out/version.txt"
say "gomatvis simulate example"
"${run[@]}" "$img" sh -c 'gomatvis simulate example -o /tmp/v.npy --backend cpu -q && ls -l /tmp/v.npy' | tee "$out/simulate.txt"

# One container for both notebook runs: Jupyter serves the browser test,
# and nbconvert runs in it first, so the browser's kernels find the
# library already compiled (the image carries no build cache).
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
token=$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')
cid=$("${run[@]/--rm/-d}" -e JUPYTER_TOKEN="$token" "$img" \
  jupyter notebook --ip=127.0.0.1 --port="$port" --port-retries=0 --no-browser --allow-root \
  --notebook-dir=/opt/gomatvis/notebooks)
say "container ${cid:0:12}: jupyter on 127.0.0.1:$port"

say "every notebook through nbconvert, inside the container"
t0=$SECONDS
if ! podman exec -e NOTEBOOKS_OUT=/tmp/nb "$cid" scripts/test-notebooks.sh >"$out/notebooks.log" 2>&1; then
  tail -n 40 "$out/notebooks.log"
  say "FAIL: the notebooks failed inside the container"
  exit 1
fi
grep -E '^(ok|FAIL) ' "$out/notebooks.log" || true
say "nbconvert inside the container took $((SECONDS - t0)) s"

# The widgets are in notebook 02; the host's browser test ran all three.
only=${IMAGE_BROWSER_ONLY:-02-*}
say "the browser test against the container's Jupyter (notebooks $only)"
CGO_ENABLED=0 go build -o "$tmp/browsertest" ./notebooks/browsertest
status=0
JUPYTER_TOKEN=$token "$tmp/browsertest" -server "http://127.0.0.1:$port" -only "$only" -out "$out/browser" || status=$?
podman logs "$cid" >"$out/container-jupyter.log" 2>&1 || true
say "image $img: $((size / 1000000)) MB; output in $out; the image test took $((SECONDS - t_all)) s"
exit $status
