#!/usr/bin/env bash
# Runs every notebooks/*.ipynb in headless Chromium on a classic Jupyter
# Notebook server (notebooks/browsertest, on go-rod): all cells, then every
# widget moved, with the figure checked for the values the widgets show.
# nbconvert (scripts/test-notebooks.sh) never runs a widget; this is the
# user's check. Called by scripts/test.sh after the nbconvert run.
#
# Installs chromium and the classic notebook (Debian packages) when root
# and missing; without them and unable to install, it says SKIP and exits
# 77 (scripts/test.sh reports the browser test as not run).
#
# Environment:
#   NOTEBOOKS_BROWSER_OUT      where screenshots, executed notebooks and logs
#                              go (default: out/notebooks-browser, emptied
#                              first; out/ is ignored by git)
#   NOTEBOOKS_ONLY=GLOB        run only notebooks/GLOB (e.g. '02-*')
#   NOTEBOOK_BROWSER_TIMEOUT   the most one notebook may take (default 15m)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
t_all=$SECONDS
say() { echo "test-notebooks-browser: $*"; }

# --- chromium and the classic notebook UI -----------------------------------
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v jupyter-notebook >/dev/null 2>&1 || need+=(jupyter-notebook)
# The font the figures name: without it the screenshots use a fallback.
fonts=()
if command -v dpkg >/dev/null && ! dpkg -s fonts-liberation >/dev/null 2>&1; then fonts=(fonts-liberation); fi
if [ ${#need[@]} -gt 0 ] || [ ${#fonts[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "installing ${need[*]} ${fonts[*]} (Debian packages, no recommends)"
    t0=$SECONDS
    log=$(mktemp)
    if ! { apt-get -o DPkg::Lock::Timeout=600 update -qq &&
      DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
        --no-install-recommends "${need[@]}" "${fonts[@]}"; } >"$log" 2>&1; then
      tail -n 30 "$log"
      rm -f "$log"
      say "apt-get failed"
      exit 1
    fi
    rm -f "$log"
    say "installed in $((SECONDS - t0)) s"
  elif [ ${#need[@]} -gt 0 ]; then
    say "SKIP: ${need[*]} missing and I cannot apt-get them (not root or no apt-get); install them and run me again"
    exit 77
  else
    say "fonts-liberation is not installed: the screenshots' figures use a fallback font"
  fi
fi
# The driver speaks to the classic UI (the Jupyter.notebook object);
# Notebook 7 and JupyterLab have none.
ver=$(jupyter-notebook --version 2>/dev/null | tail -1)
case $ver in
6.*) ;;
*)
  say "jupyter-notebook is version '$ver': the browser test needs the classic Notebook 6 UI (Debian's jupyter-notebook)"
  exit 1
  ;;
esac

# --- the GoNB kernel (as for nbconvert) -------------------------------------
scripts/setup-notebooks.sh >/dev/null
bin=${GOMATVIS_TOOLS_BIN:-$(go env GOPATH)/bin}
export PATH="$bin:$(go env GOROOT)/bin:$PATH"
export GOMATVIS_REPO="$repo"
unset GOMATVIS_HEADLESS # the widgets must run

if [ -n "${NOTEBOOKS_BROWSER_OUT:-}" ]; then
  out=$NOTEBOOKS_BROWSER_OUT
else
  out=$repo/out/notebooks-browser
  rm -rf "$out" # the last run's screenshots, so that every file is this run's
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)

driver=$(mktemp -d "${TMPDIR:-/tmp}/gomatvis-browsertest-bin.XXXXXX")
trap 'rm -rf "$driver"' EXIT
CGO_ENABLED=0 go build -o "$driver/browsertest" ./notebooks/browsertest
say "chromium $(chromium --version 2>/dev/null | awk '{print $2}'), jupyter-notebook $ver; output in $out"
status=0
"$driver/browsertest" -out "$out" -only "${NOTEBOOKS_ONLY:-*}" -timeout "${NOTEBOOK_BROWSER_TIMEOUT:-15m}" || status=$?
say "screenshots and executed notebooks in $out; the browser test took $((SECONDS - t_all)) s"
exit $status
