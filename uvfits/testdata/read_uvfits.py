"""Read a UVFITS file with astropy.io.fits and print, as JSON, what
pyuvdata's read_uvfits takes from it: the primary header's cards, the
random-group parameters (par() sums duplicated names and applies PSCAL and
PZERO, as pyuvdata relies on), the data and the AIPS AN and SU tables."""
import json
import sys

import numpy as np
from astropy.io import fits


def cards(hdr):
    out = {}
    for k, v in hdr.items():
        if k in ("HISTORY", "COMMENT", ""):
            continue
        out[k] = v if isinstance(v, (bool, int, float, str)) else str(v)
    return out


def table(hdu):
    cols = {}
    for c in hdu.columns:
        v = hdu.data[c.name]
        if v.dtype.kind in "SU":
            cols[c.name] = [s.decode() if isinstance(s, bytes) else str(s) for s in v]
        else:
            cols[c.name] = np.asarray(v, dtype=np.float64).tolist()
    return {"header": cards(hdu.header), "columns": cols, "formats": [c.format for c in hdu.columns]}


with fits.open(sys.argv[1], memmap=False) as hl:
    hl.verify("exception")
    vis = hl[0]
    d = vis.data
    names = sorted(set(n.upper() for n in d.parnames))
    par = {n: np.asarray(d.par(n), dtype=np.float64).tolist() for n in names}
    arr = np.asarray(d.data, dtype=np.float64)
    ext = {h.header.get("EXTNAME", ""): i for i, h in enumerate(hl)}
    out = {
        "groups": bool(vis.header.get("GROUPS")),
        "is_groups_hdu": isinstance(vis, fits.GroupsHDU),
        "header": cards(vis.header),
        "history": [str(h) for h in vis.header.get("HISTORY", [])],
        "parnames": [n.upper() for n in d.parnames],
        "par": par,
        "shape": list(arr.shape),
        "data": arr.reshape(-1).tolist(),
        "extensions": list(ext),
        "AN": table(hl[ext["AIPS AN"]]),
        "SU": table(hl[ext["AIPS SU"]]),
    }
json.dump(out, sys.stdout)
