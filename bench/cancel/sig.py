# sig.py BIN AT SIGNAL OUT: in a directory holding spec.json, start
# `BIN simulate spec.json -o OUT -q`, send SIGNAL (SIGINT, SIGTERM) AT seconds
# after the start, or AT = run+S: S seconds after the "using the … backend"
# line (the run begins); print the seconds from the signal to the exit (the
# process a zombie) and to its reaping (what a shell or `timeout` sees), the
# exit status, the files OUT* and *tmp* left behind, and stderr with times
# relative to the signal. Run with /usr/bin/python3. Removes OUT* and *tmp*.
import glob
import os
import signal
import subprocess
import sys
import threading
import time

binp, at, sig, out = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
# AT is seconds after the start, or "run+S": S seconds after the line
# "using the … backend" (the run, past input reading and set-up, begins).
after_run = at.startswith("run+")
at = float(at[4:] if after_run else at)
for f in glob.glob(out + "*") + glob.glob(".*tmp*") + glob.glob("*.tmp*"):
    os.remove(f)
t0 = time.time()
p = subprocess.Popen([binp, "simulate", "spec.json", "-o", out, "-q"], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
lines = []
def reader():
    for ln in p.stderr:
        lines.append((time.time(), ln.decode(errors="replace").rstrip()))
th = threading.Thread(target=reader, daemon=True); th.start()
base = t0
if after_run:
    while p.poll() is None and not any("using the" in l for _, l in lines):
        time.sleep(0.01)
    base = next((t for t, l in lines if "using the" in l), time.time())
try:
    p.wait(timeout=max(0, base + at - time.time()))
    print(f"{os.path.basename(binp)} ended by itself after {time.time()-t0:.2f} s, rc {p.returncode}")
    for f in glob.glob(out + "*"):
        os.remove(f)
    sys.exit(0)
except subprocess.TimeoutExpired:
    pass
ts = time.time()
p.send_signal(getattr(signal, sig))
te = None
while time.time() - ts < 60:
    # /proc/PID/stat's state Z: the process has exited (memory freed);
    # reaped just after.
    try:
        st = open(f"/proc/{p.pid}/stat").read().rsplit(")", 1)[1].split()[0]
    except OSError:
        st = "gone"
    if st in ("Z", "X", "gone"):
        te = time.time()
        break
    time.sleep(0.005)
if te is None:
    p.kill()
    print("NO EXIT within 60 s: killed")
    te = time.time()
p.wait()
tr = time.time()
th.join(5)
err = [f"[{t-ts:+.2f}] {l}" for t, l in lines if l]
left = sorted(set(glob.glob("*tmp*") + glob.glob(".*tmp*") + glob.glob(out + "*")))
print(f"{os.path.basename(binp)} {sig} at {'run+' if after_run else ''}{at:.1f} s ({ts-t0:.1f} s from the start): exit {te-ts:.3f} s after the signal (reaped {tr-ts:.3f} s), rc {p.returncode}, files {left}, stderr: {' | '.join(err[-3:])}")
for f in left:
    os.remove(f)
