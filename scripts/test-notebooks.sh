#!/usr/bin/env bash
# Executes every notebooks/*.ipynb headlessly with the GoNB kernel
# (jupyter nbconvert --execute) and fails on any cell error, on a notebook
# without a figure, or on a notebook that is out of date with its source in
# notebooks/src. Called by scripts/test.sh (so by CI); installs what it needs
# through scripts/setup-notebooks.sh.
#
# Executed copies go to $NOTEBOOKS_OUT (default: a fresh temporary folder,
# printed at the end); they are never written into notebooks/.
#
# Environment:
#   NOTEBOOKS_OUT          where executed notebooks are written
#   NOTEBOOK_CELL_TIMEOUT  seconds one cell may run (default 1200)
#   NOTEBOOKS_HTML=1       also render each executed notebook to HTML there
#   NOTEBOOKS_ONLY=GLOB    run only notebooks/GLOB (e.g. '01-*')
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
t_all=$SECONDS

echo "== notebooks: sources (notebooks/src) and .ipynb agree"
CGO_ENABLED=0 go run ./notebooks/mknb -check

# The gonbui version the notebooks pin must be the kernel's.
pin=$(go -C notebooks/tools list -m -f '{{.Version}}' github.com/janpfeifer/gonb)
if grep -l 'github.com/janpfeifer/gonb@' notebooks/src/*.txt | xargs grep -L "github.com/janpfeifer/gonb@$pin" | grep .; then
  echo "the notebooks above pin a gonb version other than notebooks/tools/go.mod's $pin"
  exit 1
fi

echo "== notebooks: setup (scripts/setup-notebooks.sh)"
t0=$SECONDS
scripts/setup-notebooks.sh
echo "setup took $((SECONDS - t0)) s"
bin=${GOMATVIS_TOOLS_BIN:-$(go env GOPATH)/bin}
export PATH="$bin:$(go env GOROOT)/bin:$PATH"
export GOMATVIS_REPO="$repo"
# No browser here: cells with GoNB widgets (sliders) skip their interaction.
export GOMATVIS_HEADLESS=1

out=${NOTEBOOKS_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/gomatvis-notebooks.XXXXXX")}
mkdir -p "$out"
out=$(cd "$out" && pwd)

status=0
for nb in notebooks/${NOTEBOOKS_ONLY:-*}.ipynb; do
  name=$(basename "$nb")
  echo "== notebooks: executing $name"
  t0=$SECONDS
  # --allow-errors: run every cell and keep the outputs (GoNB reports
  # compile errors as HTML), then judge the executed notebook below.
  if ! jupyter nbconvert --to notebook --execute --allow-errors \
    --ExecutePreprocessor.kernel_name=gonb \
    --ExecutePreprocessor.timeout="${NOTEBOOK_CELL_TIMEOUT:-1200}" \
    --ExecutePreprocessor.startup_timeout=300 \
    --output-dir "$out" "$nb" >"$out/$name.log" 2>&1; then
    tail -n 60 "$out/$name.log"
    echo "FAIL $name: nbconvert failed (log: $out/$name.log)"
    status=1
    continue
  fi
  # Fail on error outputs (printing the cell and its output as text), Go
  # panics and cells that never ran; require at least one figure.
  if ! python3 - "$out/$name" <<'EOF'; then
import html, json, re, sys
path = sys.argv[1]

def text_of(outputs):
    """The cell's outputs as plain text (HTML tags and styles removed)."""
    parts = []
    for o in outputs:
        if o["output_type"] == "stream":
            parts.append("".join(o["text"]))
        elif o["output_type"] == "error":
            parts.append(f"{o.get('ename')}: {o.get('evalue')}")
        else:
            h = "".join(o.get("data", {}).get("text/html", ""))
            h = re.sub(r"(?s)<style.*?</style>", "", h)
            parts.append(html.unescape(re.sub(r"<[^>]+>", "", h)))
    return re.sub(r"\n\s*\n+", "\n", "\n".join(parts)).strip()

nb = json.load(open(path))
problems, images, cells = [], 0, 0
for i, c in enumerate(nb["cells"]):
    if c["cell_type"] != "code":
        continue
    cells += 1
    src = "".join(c["source"]).strip()
    if any(o["output_type"] == "error" for o in c.get("outputs", [])):
        problems.append(f"cell {i} failed:\n{src[:600]}\n--- output ---\n{text_of(c['outputs'])[-3000:]}\n---")
    elif c.get("execution_count") is None:
        problems.append(f"cell {i} did not run")
    for o in c.get("outputs", []):
        text = "".join(o.get("text", "")) if o["output_type"] == "stream" else ""
        if "panic:" in text or "goroutine 1 [running]" in text:
            problems.append(f"cell {i}: Go panic in output:\n{text[:2000]}")
        data = o.get("data", {})
        if "image/png" in data or "image/svg+xml" in data:
            images += 1
        h = "".join(data.get("text/html", ""))
        if "<img" in h and ("data:image/png" in h or "data:image/svg" in h):
            images += 1
if images == 0:
    problems.append("no figure (image/png or image/svg+xml) in any output")
for p in problems:
    print(f"{path}: {p}")
print(f"{path}: {cells} code cells, {images} figures")
sys.exit(1 if problems else 0)
EOF
    echo "FAIL $name: see above"
    status=1
    continue
  fi
  if [ "${NOTEBOOKS_HTML:-0}" = 1 ]; then
    jupyter nbconvert --to html --output-dir "$out" "$out/$name" >/dev/null 2>&1 || true
  fi
  echo "ok   $name ($((SECONDS - t0)) s)"
done

# 03-docs-figures rewrites docs/figures: what it made must be what is committed.
if [ -e notebooks/03-docs-figures.ipynb ] && [[ 03-docs-figures == ${NOTEBOOKS_ONLY:-*} ]] &&
  git rev-parse --git-dir >/dev/null 2>&1; then
  echo "== notebooks: docs/figures reproduced"
  changed=$(git status --porcelain --untracked-files=all -- docs/figures)
  if [ -n "$changed" ]; then
    echo "$changed"
    echo "FAIL docs/figures differ from what notebooks/03-docs-figures.ipynb makes from the committed code and"
    echo "     profile summaries: run scripts/test-notebooks.sh (or that notebook) and commit docs/figures"
    status=1
  else
    echo "ok   docs/figures ($(git ls-files docs/figures | wc -l) files) are exactly what the notebook makes"
  fi
fi

echo "== notebooks: executed copies in $out; all notebook steps took $((SECONDS - t_all)) s"
exit $status
