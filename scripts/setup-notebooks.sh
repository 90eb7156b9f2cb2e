#!/usr/bin/env bash
# Installs what the notebooks in notebooks/ need and registers the GoNB
# Jupyter kernel. Used by scripts/test-notebooks.sh (so by CI) and by
# docker/Dockerfile; safe to run again (each step is skipped or cached).
#
#   1. Jupyter + nbconvert from Debian packages (apt-get, as root), unless a
#      `jupyter` with nbconvert is already on PATH (e.g. JupyterLab from pip
#      in the Docker image, or your own environment).
#   2. GoNB, goimports and gopls at the versions pinned as tool
#      dependencies in notebooks/tools/go.mod (`go get -tool`), built with
#      `go install tool` into $GOMATVIS_TOOLS_BIN (default: `go env GOPATH`/bin).
#   3. `gonb --install` (kernel "gonb" in Jupyter's data dir), with PATH
#      recorded in the kernelspec so the kernel finds go, goimports and gopls
#      however Jupyter is started.
#
# Environment:
#   GOMATVIS_TOOLS_BIN   where to put gonb, goimports, gopls
#   GOMATVIS_NO_APT=1    never call apt-get (fail if Jupyter is missing)
#   JUPYTER_DATA_DIR     where Jupyter kernelspecs live (GoNB honours it)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

say() { echo "setup-notebooks: $*"; }

# --- 1. Jupyter -------------------------------------------------------------
have_jupyter() {
  command -v jupyter >/dev/null 2>&1 &&
    jupyter nbconvert --version >/dev/null 2>&1 &&
    jupyter kernelspec --version >/dev/null 2>&1
}
if have_jupyter; then
  say "jupyter $(jupyter nbconvert --version 2>/dev/null | head -1) (nbconvert) already installed"
else
  pkgs=(jupyter-core jupyter-client jupyter-nbconvert jupyter-notebook)
  if [ "${GOMATVIS_NO_APT:-0}" != 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "installing ${pkgs[*]} (Debian packages)"
    log=$(mktemp)
    if ! { apt-get -o DPkg::Lock::Timeout=600 update -qq &&
      DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
        --no-install-recommends "${pkgs[@]}"; } >"$log" 2>&1; then
      tail -n 30 "$log"
      say "apt-get failed"
      exit 1
    fi
    rm -f "$log"
  else
    say "Jupyter with nbconvert is not installed and I cannot apt-get it (not root, no apt-get, or GOMATVIS_NO_APT=1)."
    say "Install it yourself, e.g. 'sudo apt-get install ${pkgs[*]}' or 'pip install jupyterlab nbconvert', then run me again."
    exit 1
  fi
  have_jupyter || { say "jupyter nbconvert still not usable after the install"; exit 1; }
fi

# --- 2. GoNB, goimports, gopls (pinned in notebooks/tools/go.mod) ------------
bin=${GOMATVIS_TOOLS_BIN:-$(go env GOPATH)/bin}
mkdir -p "$bin"
bin=$(cd "$bin" && pwd)
say "building gonb, goimports, gopls (notebooks/tools/go.mod) into $bin"
GOBIN="$bin" GOFLAGS=-mod=mod go -C notebooks/tools install tool
export PATH="$bin:$(go env GOROOT)/bin:$PATH"
say "gonb $(go -C notebooks/tools list -m -f '{{.Version}}' github.com/janpfeifer/gonb), $("$bin/gopls" version 2>/dev/null | head -1), goimports from golang.org/x/tools $(go -C notebooks/tools list -m -f '{{.Version}}' golang.org/x/tools)"

# --- 3. Register the kernel -------------------------------------------------
# GoNB writes <JUPYTER_DATA_DIR or ~/.local/share/jupyter>/kernels/gonb/kernel.json.
log=$(mktemp)
if ! "$bin/gonb" --install >"$log" 2>&1; then
  cat "$log"
  say "gonb --install failed"
  exit 1
fi
rm -f "$log"
datadir=${JUPYTER_DATA_DIR:-$HOME/.local/share/jupyter}
spec="$datadir/kernels/gonb/kernel.json"
[ -f "$spec" ] || { say "gonb --install wrote no $spec"; exit 1; }
# Record PATH in the kernelspec: Jupyter started from a desktop menu or a
# service does not have GOBIN on its PATH, and GoNB runs go, goimports and
# gopls from PATH.
python3 - "$spec" "$PATH" <<'EOF'
import json, sys
path, p = sys.argv[1], sys.argv[2]
with open(path) as f:
    spec = json.load(f)
spec.setdefault("env", {})["PATH"] = p
with open(path, "w") as f:
    json.dump(spec, f, indent=1)
EOF
specs=$(jupyter kernelspec list 2>/dev/null || true) # not piped into grep -q: SIGPIPE under pipefail
grep -q '^ *gonb ' <<<"$specs" || { say "kernel gonb is not listed by 'jupyter kernelspec list'"; exit 1; }
say "kernel 'gonb' registered: $spec"
say "notebooks import github.com/gomatvis/gomatvis from this working tree ($repo) through a go.work set up in their first cell"
