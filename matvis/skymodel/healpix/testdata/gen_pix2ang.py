#!/usr/bin/python3
"""Writes pix2ang.txt: healpy's pixel centres, the judge for healpix.Pix2Ang.

Columns: nside nest(0/1) ipix theta phi (radians, %.17g). Pixels: all of
nside 1 and 2, and for larger nsides the first/last pixels, both sides of
the polar-cap/belt boundaries, face corners, and seeded random pixels.
Run: /usr/bin/python3 gen_pix2ang.py > pix2ang.txt
"""
import healpy as hp
import numpy as np

rng = np.random.default_rng(20261130)
print(f"# healpy {hp.__version__}; nside nest ipix theta phi")
for nside in [1, 2, 16, 1024, 8192]:
    npix = 12 * nside * nside
    ncap = 2 * nside * (nside - 1)
    if nside <= 2:
        pix = np.arange(npix)
    else:
        edges = [0, 1, 2, 3, 4, ncap - 1, ncap, ncap + 1, npix - ncap - 1,
                 npix - ncap, npix // 2, npix // 2 - 1, npix - 5, npix - 1]
        faces = [f * nside * nside + d for f in range(12) for d in (0, nside * nside - 1)]
        pix = np.unique(np.concatenate([edges, faces, rng.integers(0, npix, 120)]))
    for nest in (False, True):
        th, ph = hp.pix2ang(nside, pix, nest=nest)
        for p, t, f in zip(pix, th, ph):
            print(f"{nside} {int(nest)} {p} {t:.17g} {f:.17g}")
