#!/usr/bin/env python3
"""Validate a UVH5 file with h5py: required fields, dtypes, shapes, values.

usage: check_uvh5.py FILE [EXPECTED.json]

Checks that every field pyuvdata 3.x writes (and needs to read) is present
in FILE with the dtype and shape in the table below, and that the data
datasets have the current (Nblts, Nfreqs, Npols) or old
(Nblts, 1, Nfreqs, Npols) shape. With EXPECTED.json (a dict of dataset
path -> value as nested lists; complex values as [re, im] pairs; strings as
str) every listed value must be equal exactly. Prints "OK" and exits 0, or
prints one line per problem and exits 1.
"""
import json
import sys

import h5py
import numpy as np

# (path under /Header, dtype kinds allowed, shape as names of N* scalars;
#  () is a scalar). Kinds: i signed int, u unsigned int, f float,
#  S fixed bytes, b numpy bool (h5py's enum), c complex compound.
REQUIRED = [
    ("version", "S", ()),
    ("telescope_frame", "S", ()),
    ("latitude", "f", ()),
    ("longitude", "f", ()),
    ("altitude", "f", ()),
    ("telescope_name", "S", ()),
    ("instrument", "S", ()),
    ("Nants_telescope", "i", ()),
    ("antenna_numbers", "iu", ("Nants_telescope",)),
    ("antenna_positions", "f", ("Nants_telescope", 3)),
    ("antenna_names", "S", ("Nants_telescope",)),
    ("Nants_data", "i", ()),
    ("Nbls", "i", ()),
    ("Nblts", "i", ()),
    ("Nfreqs", "i", ()),
    ("Npols", "i", ()),
    ("Nspws", "i", ()),
    ("Ntimes", "i", ()),
    ("Nphase", "i", ()),
    ("uvw_array", "f", ("Nblts", 3)),
    ("vis_units", "S", ()),
    ("channel_width", "f", ("Nfreqs",)),
    ("time_array", "f", ("Nblts",)),
    ("freq_array", "f", ("Nfreqs",)),
    ("integration_time", "f", ("Nblts",)),
    ("lst_array", "f", ("Nblts",)),
    ("polarization_array", "i", ("Npols",)),
    ("spw_array", "i", ("Nspws",)),
    ("flex_spw_id_array", "i", ("Nfreqs",)),
    ("ant_1_array", "iu", ("Nblts",)),
    ("ant_2_array", "iu", ("Nblts",)),
    ("phase_center_id_array", "i", ("Nblts",)),
    ("phase_center_app_ra", "f", ("Nblts",)),
    ("phase_center_app_dec", "f", ("Nblts",)),
    ("phase_center_frame_pa", "f", ("Nblts",)),
    ("history", "S", ()),
]

# One phase_center_catalog entry: name, kind, shape (None: null dataspace).
CATALOG = [
    ("cat_name", "S", ()),
    ("cat_type", "S", ()),
    ("cat_lon", "f", ()),
    ("cat_lat", "f", ()),
    ("cat_frame", "S", ()),
    ("info_source", "S", ()),
    ("cat_epoch", "f", None),
    ("cat_times", "f", None),
    ("cat_pm_ra", "f", None),
    ("cat_pm_dec", "f", None),
    ("cat_dist", "f", None),
    ("cat_vrad", "f", None),
]

DATA = [("visdata", "c"), ("flags", "b"), ("nsamples", "f")]


def kind_ok(ds, kinds):
    k = ds.dtype.kind
    if ds.dtype.names is not None:  # compound not mapped to complex
        k = "V"
    return k in kinds


def check(path, expected):
    errs = []
    with h5py.File(path, "r") as f:
        h = f["Header"]
        n = {}
        for name in ("Nants_telescope", "Nblts", "Nfreqs", "Npols", "Nspws"):
            if name in h:
                n[name] = int(h[name][()])
        for name, kinds, shape in REQUIRED:
            if name not in h:
                errs.append(f"Header/{name}: missing")
                continue
            ds = h[name]
            if not kind_ok(ds, kinds):
                errs.append(f"Header/{name}: dtype {ds.dtype} not of kind {kinds}")
            want = tuple(n.get(s, s) if isinstance(s, str) else s for s in shape)
            if ds.shape != want:
                errs.append(f"Header/{name}: shape {ds.shape}, want {want}")
        if "phase_center_catalog" not in h or len(h["phase_center_catalog"]) < 1:
            errs.append("Header/phase_center_catalog: missing or empty")
        else:
            for cid, grp in h["phase_center_catalog"].items():
                for name, kinds, shape in CATALOG:
                    p = f"Header/phase_center_catalog/{cid}/{name}"
                    if name not in grp:
                        errs.append(f"{p}: missing")
                        continue
                    ds = grp[name]
                    if not kind_ok(ds, kinds) or ds.shape != shape:
                        errs.append(f"{p}: dtype {ds.dtype} shape {ds.shape}, want {kinds} {shape}")
        cur = (n.get("Nblts"), n.get("Nfreqs"), n.get("Npols"))
        old = (n.get("Nblts"), 1, n.get("Nfreqs"), n.get("Npols"))
        for name, kinds in DATA:
            p = "Data/" + name
            if p not in f:
                errs.append(f"{p}: missing")
                continue
            ds = f[p]
            if not kind_ok(ds, kinds) or ds.shape not in (cur, old):
                errs.append(f"{p}: dtype {ds.dtype} shape {ds.shape}, want {kinds} {cur}")
        if "Data/visdata" in f:
            names = f["Data/visdata"].dtype.names
            raw = f["Data/visdata"].id.get_type()
            if not isinstance(raw, h5py.h5t.TypeCompoundID) or [raw.get_member_name(i) for i in range(raw.get_nmembers())] != [b"r", b"i"]:
                errs.append(f"Data/visdata: not a compound of r, i ({names})")
        for p, want in (expected or {}).items():
            if p not in f:
                errs.append(f"{p}: missing (expected a value)")
                continue
            got = f[p][()]
            if isinstance(got, h5py.Empty):
                if want is not None:
                    errs.append(f"{p}: empty, want {want!r}")
                continue
            got = np.asarray(got)
            if got.dtype.kind == "S":
                got = np.char.decode(got, "ascii")
                want_a = np.asarray(want, dtype=str)
            elif got.dtype.kind == "c":
                w = np.asarray(want, dtype=float)
                want_a = w[..., 0] + 1j * w[..., 1]
            else:
                want_a = np.asarray(want, dtype=got.dtype)
            if got.shape != want_a.shape or not np.array_equal(got, want_a):
                errs.append(f"{p}: values differ from what was written")
    return errs


def main():
    expected = None
    if len(sys.argv) > 2:
        with open(sys.argv[2]) as fh:
            expected = json.load(fh)
    errs = check(sys.argv[1], expected)
    for e in errs:
        print(e)
    if errs:
        sys.exit(1)
    print("OK")


if __name__ == "__main__":
    main()
