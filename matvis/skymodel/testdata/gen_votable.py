#!/usr/bin/python3
"""Writes GLEAM-style VOTables and their expected values.

gleam_small.vot: a TABLEDATA VOTable with the GLEAM EGC (VizieR VIII/100)
columns pyradiosky's read_gleam_catalog uses (GLEAM, RAJ2000, DEJ2000,
Fintwide, Fint076..Fint227, alpha, Fintfit200, plus VizieR's computed
_RAJ2000/_DEJ2000), random values, a few empty (NaN) subband cells.
gleam_small_binary.vot: the same table BINARY-serialized (must be refused).
votable_expected.json: ICRS RA/Dec (astropy FK5 J2000 -> ICRS) and Stokes I
(Jy) per spectral type and frequency (subband: scipy interp1d cubic, the
pyradiosky at_frequencies default, over the non-NaN subbands).
Run from this directory: /usr/bin/python3 gen_votable.py
"""
import json

import astropy.units as u
import numpy as np
import scipy.interpolate
from astropy.coordinates import SkyCoord
from astropy.io.votable.tree import Field, Resource, Table, VOTableFile

rng = np.random.default_rng(11)
n = 12
mhz = [76, 84, 92, 99, 107, 115, 122, 130, 143, 151, 158, 166, 174, 181, 189, 197, 204, 212, 220, 227]
ra = rng.uniform(0, 360, n)
dec = rng.uniform(-89, 30, n)
alpha = rng.uniform(-1.2, 0.2, n)
f200 = rng.uniform(0.1, 20, n)
fint = f200[:, None] * (np.array(mhz)[None, :] / 200.0) ** alpha[:, None] * rng.uniform(0.9, 1.1, (n, len(mhz)))
fint[2, 0] = np.nan  # lowest subband missing
fint[5, 7] = np.nan  # a middle one
fint[5, -1] = np.nan  # and the highest
fwide = rng.uniform(0.1, 20, n)

vot = VOTableFile()
res = Resource(type="results")
vot.resources.append(res)
tab = Table(vot, ID="VIII_100_gleamegc", name="VIII/100/gleamegc")
res.tables.append(tab)
fields = [Field(vot, ID="_RAJ2000", name="_RAJ2000", datatype="double", unit="deg"),
          Field(vot, ID="_DEJ2000", name="_DEJ2000", datatype="double", unit="deg"),
          Field(vot, ID="GLEAM", name="GLEAM", datatype="char", arraysize="14"),
          Field(vot, ID="RAJ2000", name="RAJ2000", datatype="double", unit="deg"),
          Field(vot, ID="DEJ2000", name="DEJ2000", datatype="double", unit="deg"),
          Field(vot, ID="Fintwide", name="Fintwide", datatype="double", unit="Jy"),
          Field(vot, ID="e_Fintwide", name="e_Fintwide", datatype="double", unit="Jy")]
for m in mhz:
    fields.append(Field(vot, ID=f"Fint{m:03d}", name=f"Fint{m:03d}", datatype="double", unit="Jy"))
    fields.append(Field(vot, ID=f"e_Fint{m:03d}", name=f"e_Fint{m:03d}", datatype="double", unit="Jy"))
fields += [Field(vot, ID="alpha", name="alpha", datatype="double"),
           Field(vot, ID="Fintfit200", name="Fintfit200", datatype="double", unit="Jy")]
tab.fields.extend(fields)
tab.create_arrays(n)
for i in range(n):
    row = [ra[i] + 1e-3, dec[i], f"J{i:013d}", ra[i], dec[i], fwide[i], 0.01]
    for k in range(len(mhz)):
        row += [fint[i, k], 0.01]
    row += [alpha[i], f200[i]]
    tab.array[i] = tuple(row)
for k in range(len(mhz)):
    tab.array[f"Fint{mhz[k]:03d}"].mask = np.isnan(fint[:, k])
vot.to_xml("gleam_small.vot")
tab.format = "binary"
vot.to_xml("gleam_small_binary.vot")

c = SkyCoord(ra * u.deg, dec * u.deg, frame="fk5").icrs
freqs = np.array(mhz) * 1e6
exp = {"ra": c.ra.rad.tolist(), "dec": c.dec.rad.tolist(), "flat": {}, "spectral_index": {}, "subband": {}}
for f in [76e6, 100e6, 150e6, 200e6]:
    exp["flat"][repr(f)] = fwide.tolist()
    exp["spectral_index"][repr(f)] = (f200 * (f / 200e6) ** alpha).tolist()
for f in [76e6, 100e6, 150e6, 226.5e6]:
    vals = []
    for i in range(n):
        ok = ~np.isnan(fint[i])
        x, y = freqs[ok], fint[i, ok]
        vals.append(float(np.clip(f, x[0], x[-1]) if False else
                          (y[0] if f < x[0] else y[-1] if f > x[-1] else
                           scipy.interpolate.interp1d(x, y, kind="cubic")(f))))
    exp["subband"][repr(f)] = vals
json.dump(exp, open("votable_expected.json", "w"), indent=0)
