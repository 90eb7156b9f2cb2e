#!/usr/bin/env python3
"""Writes a simspec-v1 JSON of a random sky for the scripts' end-to-end
runs (multigpu-run.sh, slurm-e2e.sh): NSRC point sources (seeded, so the
file is the same on every machine), NANT antennas on a 14.6 m × 12.6 m
grid, NFREQ channels 1 MHz apart from 100 MHz, NTIME times 10.7 s apart,
one Gaussian beam, ERFA coordinates.

Usage: random-spec.py OUT NAME NSRC NANT NFREQ NTIME PRECISION
"""
import json
import math
import random
import sys

path, name = sys.argv[1], sys.argv[2]
nsrc, nant, nf, nt, precision = map(int, sys.argv[3:8])
r = random.Random(1)
side = math.ceil(math.sqrt(nant))
json.dump({
    "name": name, "telescope": {"lat_deg": -30.72, "lon_deg": 21.43, "height_m": 1073.0},
    "antennas_enu_m": [[14.6 * (a % side), 12.6 * (a // side), 0.0] for a in range(nant)],
    "freqs_hz": [100e6 + 1e6 * f for f in range(nf)],
    "times_jd": [2459845.0 + t * 10.7 / 86400 for t in range(nt)],
    "sources": {"ra_rad": [r.uniform(0, 2 * math.pi) for _ in range(nsrc)],
                "dec_rad": [r.uniform(-1.2, 0.2) for _ in range(nsrc)],
                "flux_jy": [[r.uniform(0.1, 10)] * nf for _ in range(nsrc)]},
    "beams": [{"type": "gaussian", "sigma_rad": 0.2}], "beam_idx": None, "antpairs": None,
    "polarized": False, "precision": precision, "coord_method": "CoordinateRotationERFA",
}, open(path, "w"))
