#!/bin/sh
# Installs the Go toolchain GO_VERSION into DEST (default /usr/local/go);
# docker/Dockerfile runs it. GO_TOOLCHAIN says where from:
#   download  the Go download site's release archive;
#   proxy     the Go module proxy in $GOPROXY (its first entry): the toolchain
#             as the module golang.org/toolchain (what `go` itself fetches to
#             switch versions), its h1: hash checked against the checksum
#             database $GOSUMDB as the proxy serves it.
# CA_BUNDLE, if set, is the CA file curl trusts (a network with a local CA).
set -eu
: "${GO_VERSION:?}" "${GO_TOOLCHAIN:=download}"
dest=${DEST:-/usr/local/go}
arch=$(dpkg --print-architecture)
set -- -fsSL
[ -n "${CA_BUNDLE:-}" ] && set -- "$@" --cacert "$CA_BUNDLE"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

case $GO_TOOLCHAIN in
download)
  mkdir -p "$dest"
  curl "$@" "https://go.dev/dl/go${GO_VERSION}.linux-${arch}.tar.gz" | tar -C "$dest" --strip-components=1 -xz
  ;;
proxy)
  proxy=${GOPROXY:-}
  proxy=${proxy%%,*}
  proxy=${proxy%%|*}
  case $proxy in
  "" | direct | off) echo "fetch-go: GO_TOOLCHAIN=proxy needs a proxy URL in GOPROXY (got '${GOPROXY:-}')" >&2; exit 1 ;;
  esac
  sumdb=${GOSUMDB:-}
  sumdb=${sumdb%% *}
  sumdb=${sumdb%%+*}
  case $sumdb in
  "" | off) echo "fetch-go: GO_TOOLCHAIN=proxy needs GOSUMDB (go env GOSUMDB) to check the toolchain" >&2; exit 1 ;;
  esac
  mod=golang.org/toolchain
  ver=v0.0.1-go${GO_VERSION}.linux-${arch}
  curl "$@" -o "$tmp/go.zip" "$proxy/$mod/@v/$ver.zip"
  curl "$@" -o "$tmp/lookup" "$proxy/sumdb/$sumdb/lookup/$mod@$ver"
  want=$(awk -v m="$mod" -v v="$ver" '$1 == m && $2 == v { print $3 }' "$tmp/lookup")
  # The module's h1: hash (Go's dirhash.Hash1): SHA-256 over the sorted
  # lines "sha256(file)  name" of every file in the zip, in base64.
  got=$(python3 - "$tmp/go.zip" <<'EOF'
import base64, hashlib, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
lines = "".join("%s  %s\n" % (hashlib.sha256(z.read(n)).hexdigest(), n)
                for n in sorted(i.filename for i in z.infolist() if not i.is_dir()))
print("h1:" + base64.b64encode(hashlib.sha256(lines.encode()).digest()).decode())
EOF
  )
  if [ -z "$want" ] || [ "$want" != "$got" ]; then
    echo "fetch-go: $mod@$ver hashes to $got, the checksum database ($sumdb) says '$want'" >&2
    exit 1
  fi
  echo "fetch-go: $mod@$ver $got, as the checksum database $sumdb records it"
  unzip -q "$tmp/go.zip" -d "$tmp/x"
  mkdir -p "$(dirname "$dest")"
  rm -rf "$dest"
  mv "$tmp/x/$mod@$ver" "$dest"
  # Module zips keep no file modes: the go command makes these executable
  # when it unpacks a toolchain, and so do we.
  chmod -R a+rX "$dest"
  find "$dest/bin" "$dest/pkg/tool" -type f -exec chmod a+x {} +
  ;;
*)
  echo "fetch-go: GO_TOOLCHAIN is 'download' or 'proxy', not '$GO_TOOLCHAIN'" >&2
  exit 1
  ;;
esac
"$dest/bin/go" version
