#!/usr/bin/python3
"""Expected pyuvsim 1.2.6 visibilities of one polarized source through the
zenith, from twin.py's rotation (an independent twin of pyradiosky 0.3.1's),
for gomatvis's CLI test (cmd/gomatvis TestZenithPolarizedCLI).

The source is astropy's ICRS position of the zenith at twin.T0, in degrees
as a skyh5 holds it; Stokes (6, 3, −2.5, 2) Jy, flat spectrum; three
antennas with pyuvsim's analytic uniform beam (Jones diag(1, 1), feed x on
ẑâ: J[feed, c] with c = (ẑâ, φ̂)); pyuvsim's baselines ant1 ≥ ant2 (autos
too), uvw = ENU(ant2) − ENU(ant1), V = J·C_loc·Jᴴ·exp(+2πi·uvw·s·f/c) with
s = (sin az cos alt, cos az cos alt, sin alt) from astropy's AltAz, pols
xx, yy, xy, yx.

  cli_twin.py > cli.json           the expectation (committed)
  cli_twin.py skyh5 OUT cli.json   writes the sky file (pyradiosky 0.3.1's
                                   skyh5 layout) the test runs
"""
import json
import sys

import numpy as np
from astropy import units as u
from astropy.coordinates import AltAz, SkyCoord
from astropy.time import Time

sys.dont_write_bytecode = True  # no __pycache__ beside the test data
import twin  # noqa: E402

LAYOUT = [("HH0", 0, (0.0, 0.0, 0.0)), ("HH1", 1, (14.6, 0.0, 0.3)), ("HH2", 2, (7.3, 12.644, -0.5))]
FREQS = [100e6, 150e6]
C_LIGHT = 299792458.0


def expectation():
    t0 = Time(twin.T0, format="jd", scale="utc")
    zen = SkyCoord(alt=90 * u.deg, az=0 * u.deg, frame=AltAz(obstime=t0, location=twin.SITE)).icrs
    ra_deg, dec_deg = float(zen.ra.deg), float(zen.dec.deg)
    src = SkyCoord(ra_deg * u.deg, dec_deg * u.deg, frame="icrs")
    ra, dec = src.ra.rad, src.dec.rad
    I, Q, U, V = twin.STOKES
    C = 0.5 * np.array([[I + Q, U - 1j * V], [U + 1j * V, I - Q]])
    eop = twin.iers.earth_orientation_table.get()
    out = {"ra_deg": ra_deg, "dec_deg": dec_deg, "stokes": twin.STOKES, "freqs_hz": FREQS,
           "layout": [{"name": n, "number": k, "enu": list(e)} for n, k, e in LAYOUT],
           "pols": [-5, -6, -7, -8], "times": []}
    for off in twin.OFFSETS:
        t = Time(twin.T0 + off / 86400, format="jd", scale="utc")
        xp, yp = eop.pm_xy(t)
        aa = src.transform_to(AltAz(obstime=t, location=twin.SITE))
        alt, az = aa.alt.rad, aa.az.rad
        r_avg = twin.average_rotation(t)
        r_icrs, th_icrs, ph_icrs = twin.unit(np.pi / 2 - dec, ra)
        r_aa, th_aa, _ = twin.unit(np.pi / 2 - alt, az)
        r_exact = twin.smallest_rotation(r_avg @ r_icrs, r_aa) @ r_avg
        c, s = th_aa @ (r_exact @ th_icrs), th_aa @ (r_exact @ ph_icrs)
        R = np.array([[c, s], [-s, c]])
        cl = R.T @ C @ R  # (ẑâ, φ̂): feed x, feed y
        sv = np.array([np.sin(az) * np.cos(alt), np.cos(az) * np.cos(alt), np.sin(alt)])
        rows = []
        for _, a1, e1 in LAYOUT:
            for _, a2, e2 in LAYOUT:
                if a1 < a2:
                    continue
                uvw = np.array(e2) - np.array(e1)
                vis = []
                for f in FREQS:
                    fr = np.exp(2j * np.pi * (uvw @ sv) * f / C_LIGHT)
                    v = [cl[0, 0] * fr, cl[1, 1] * fr, cl[0, 1] * fr, cl[1, 0] * fr]
                    vis.append([[z.real, z.imag] for z in v])
                rows.append({"ant1": a1, "ant2": a2, "vis": vis})
        out["times"].append({"offset_s": off, "jd_utc": t.jd, "ut1_utc_s": float(eop.ut1_utc(t).to_value(u.s)),
                             "xp_arcsec": float(xp.to_value(u.arcsec)), "yp_arcsec": float(yp.to_value(u.arcsec)),
                             "za": np.pi / 2 - alt, "az": az, "rows": rows})
    return out


def write_skyh5(path, cli):
    import h5py
    with h5py.File(path, "w") as f:
        f.create_dataset("Data/stokes", data=np.array(cli["stokes"], dtype=float).reshape(4, 1, 1)).attrs["unit"] = "Jy"
        h = f.create_group("Header")
        h["Ncomponents"], h["Nfreqs"] = 1, 1
        h["component_type"], h["spectral_type"] = np.bytes_("point"), np.bytes_("spectral_index")
        h["history"] = np.bytes_("cli_twin.py: one polarized source through the zenith.")
        h["name"] = np.array([b"zenith"])
        h.create_dataset("reference_frequency", data=np.array([FREQS[0]])).attrs["unit"] = "Hz"
        h["spectral_index"] = np.array([0.0])
        sc = h.create_group("skycoord")
        ra = sc.create_dataset("ra", data=np.array([cli["ra_deg"]]))
        ra.attrs["object_type"], ra.attrs["unit"] = "longitude", "deg"
        dec = sc.create_dataset("dec", data=np.array([cli["dec_deg"]]))
        dec.attrs["object_type"], dec.attrs["unit"] = "latitude", "deg"
        sc["frame"], sc["representation_type"] = np.bytes_("icrs"), np.bytes_("spherical")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "skyh5":
        with open(sys.argv[3]) as fh:
            write_skyh5(sys.argv[2], json.load(fh))
    else:
        print(json.dumps(expectation()))
