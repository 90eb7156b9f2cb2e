"""Compare a Measurement Set written by gomatvis with pyuvdata's, table by
table and row by row, with python-casacore. Usage: compare.py OURS REF.
Prints one line per check and 'ok' at the end; exits non-zero on the first
difference beyond its bound."""
import sys
import numpy as np
import casacore.tables as pt

ours_path, ref_path = sys.argv[1], sys.argv[2]
# INTERVAL_TOL (seconds) bounds EXPOSURE and INTERVAL instead of equality,
# for an MS that `gomatvis simulate obsparam.yaml -o run.ms` wrote: it
# takes the obsparam's integration_time (600.0 s) where pyuvsim 1.2.6
# wrote the JD spacing (600.0000044703 s) that pyuvdata's MS carries (the
# INTTIM gap of docs/uvfits.md).
interval_tol = float(sys.argv[3]) if len(sys.argv) > 3 else None
SUBTABLES = ['ANTENNA', 'DATA_DESCRIPTION', 'FEED', 'FIELD', 'FLAG_CMD', 'HISTORY', 'OBSERVATION',
             'POINTING', 'POLARIZATION', 'PROCESSOR', 'SOURCE', 'SPECTRAL_WINDOW', 'STATE']
# Columns pyuvdata writes that gomatvis leaves out (optional in MS v2).
OPTIONAL = {'': {'WEIGHT_SPECTRUM'},
            'SOURCE': {'POSITION', 'REST_FREQUENCY', 'SOURCE_MODEL', 'SYSVEL', 'TRANSITION'}}
# Values that differ by design: the writing program and its clock, and
# pyuvdata's CORR_PRODUCT (in its data order, not CASA's; checked below
# against CORR_TYPE instead).
# pyuvdata's POINTING DIRECTION and TARGET cells have casacore shape
# [1, 2] where MS v2 defines [2, NUM_POLY + 1]; gomatvis writes the
# defined shape with pyuvdata's values (checked below).
SKIP = {'HISTORY': {'APPLICATION', 'ORIGIN', 'TIME', 'MESSAGE'}, 'POLARIZATION': {'CORR_PRODUCT'},
        'POINTING': {'DIRECTION', 'TARGET'}}
# Bounds other than equality, with the reason.
DATA_REL = 2.0 ** -22   # both sides round phased float64 values to complex64
UVW_ABS = 1e-9          # metres; matvis/phase agrees with pyuvdata to ~1e-11 m
# Absolute ITRF positions (metres): pyuvdata took the array centre from the
# telescope config's latitude, longitude and altitude, gomatvis from the
# UVH5's, which round-trip to ~1e-8 m (PHASING.md).
CLOSE = {('ANTENNA', 'POSITION'): 1e-7, ('OBSERVATION', 'TELESCOPE_LOCATION'): 1e-7}
# The zenith's ICRS position (radians): matvis/phase's ERFA path against
# astropy's differs by a few ulps.
for col in ['DELAY_DIR', 'PHASE_DIR', 'REFERENCE_DIR']:
    CLOSE[('FIELD', col)] = 1e-14
CLOSE[('SOURCE', 'DIRECTION')] = 1e-14
if interval_tol is not None:
    for key in [('MAIN', 'EXPOSURE'), ('MAIN', 'INTERVAL'), ('POINTING', 'INTERVAL')]:
        CLOSE[key] = interval_tol


def fail(msg):
    print('FAIL', msg)
    sys.exit(1)


def compare_table(sub):
    o = pt.table(ours_path + ('/' + sub if sub else ''), ack=False)
    r = pt.table(ref_path + ('/' + sub if sub else ''), ack=False)
    name = sub or 'MAIN'
    if o.nrows() != r.nrows():
        fail('%s: %d rows, pyuvdata %d' % (name, o.nrows(), r.nrows()))
    missing = set(r.colnames()) - set(o.colnames()) - OPTIONAL.get(sub, set())
    if missing:
        fail('%s: columns missing: %s' % (name, sorted(missing)))
    extra = set(o.colnames()) - set(r.colnames())
    if extra:
        fail('%s: columns pyuvdata has not: %s' % (name, sorted(extra)))
    for c in o.colnames():
        ok_, rk = o.getcolkeywords(c), r.getcolkeywords(c)
        if str(ok_) != str(rk):
            fail('%s.%s keywords %s, pyuvdata %s' % (name, c, ok_, rk))
        if c in SKIP.get(sub, set()):
            continue
        worst = 0.0
        for row in range(o.nrows()):
            if not r.iscelldefined(c, row):
                continue
            a, b = o.getcell(c, row), r.getcell(c, row)
            if isinstance(b, str) or isinstance(b, dict):
                if a != b:
                    fail('%s.%s row %d: %r, pyuvdata %r' % (name, c, row, a, b))
                continue
            a, b = np.asarray(a), np.asarray(b)
            if a.shape != b.shape or a.dtype != b.dtype:
                fail('%s.%s row %d: shape %s %s, pyuvdata %s %s' % (name, c, row, a.shape, a.dtype, b.shape, b.dtype))
            if name == 'MAIN' and c == 'DATA':
                worst = max(worst, float(np.max(np.abs(a - b), initial=0)))
                continue
            if name == 'MAIN' and c == 'UVW':
                worst = max(worst, float(np.max(np.abs(a - b))))
                continue
            bound = CLOSE.get((name, c))
            if bound is not None:
                d = float(np.max(np.abs(a - b)))
                worst = max(worst, d)
                if d > bound:
                    fail('%s.%s row %d: %r, pyuvdata %r: differ by %.3g > %.3g' % (name, c, row, a, b, d, bound))
                continue
            if not np.array_equal(a, b):
                fail('%s.%s row %d: %r, pyuvdata %r (diff %r)' % (name, c, row, a, b, a - b if a.dtype.kind in 'fc' else ''))
        if name == 'MAIN' and c == 'DATA':
            peak = float(np.max(np.abs(r.getcol('DATA'))))
            print('MAIN.DATA max|d - pyuvdata| / max|pyuvdata| = %.3g (bound %.3g)' % (worst / peak, DATA_REL))
            if worst > DATA_REL * peak:
                fail('DATA')
        if name == 'MAIN' and c == 'UVW':
            print('MAIN.UVW max|d - pyuvdata| = %.3g m (bound %.3g)' % (worst, UVW_ABS))
            if worst > UVW_ABS:
                fail('UVW')
        if (name, c) in CLOSE:
            print('%s.%s max|d - pyuvdata| = %.3g (bound %.3g)' % (name, c, worst, CLOSE[(name, c)]))
    ok_, rk = o.getkeywords(), r.getkeywords()
    if set(ok_) != set(rk) or any(not str(rk[k]).startswith('Table:') and ok_[k] != rk[k] for k in rk):
        fail('%s keywords %s, pyuvdata %s' % (name, ok_, rk))
    if o.info()['type'] != r.info()['type']:
        fail('%s info %s, pyuvdata %s' % (name, o.info(), r.info()))
    print('%s: %d rows, %d columns equal' % (name, o.nrows(), len(o.colnames())))


for sub in [''] + SUBTABLES:
    compare_table(sub)

# CORR_PRODUCT from first principles: each correlation's receptor pair,
# with receptors named by FEED's POLARIZATION_TYPE.
pol = pt.table(ours_path + '/POLARIZATION', ack=False)
feed = pt.table(ours_path + '/FEED', ack=False)
rec = list(feed.getcell('POLARIZATION_TYPE', 0))
names = {5: 'RR', 6: 'RL', 7: 'LR', 8: 'LL', 9: 'XX', 10: 'XY', 11: 'YX', 12: 'YY'}
for t, p in zip(pol.getcell('CORR_TYPE', 0), pol.getcell('CORR_PRODUCT', 0)):
    want = [rec.index(names[t][0]), rec.index(names[t][1])]
    if list(p) != want:
        fail('CORR_PRODUCT %s for %s, want %s' % (list(p), names[t], want))
print('POLARIZATION.CORR_PRODUCT matches CORR_TYPE and FEED receptors')

point = pt.table(ours_path + '/POINTING', ack=False)
for c in ['DIRECTION', 'TARGET']:
    v = point.getcol(c)
    if v.shape[1:] != (1, 2) or not (v[:, 0, 0] == 0).all() or not (v[:, 0, 1] == np.pi / 2).all():
        fail('POINTING.%s: shape %s, want RA 0, Dec pi/2 in cells of python shape (1, 2)' % (c, v.shape))
print('POINTING.DIRECTION and TARGET: RA 0, Dec 90 deg, as pyuvdata writes them')

# casacore's MeasurementSet class checks the required columns and keywords.
ms = pt.table(ours_path, ack=False)
print('ok')
