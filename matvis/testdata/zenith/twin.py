#!/usr/bin/python3
"""An independent twin of pyradiosky 0.3.1's coherency rotation (the one
pyuvsim 1.2.6 applies) for polarized sources passing through the zenith.

Written from pyradiosky's SkyModel._calc_average_rotation_matrix,
_calc_rotation_matrix, _calc_coherency_rotation and coherency_calc and its
spherical_coords_transforms (r_hat, theta_hat, phi_hat, vecs2rot,
spherical_basis_vector_rotation_matrix), read, not copied: astropy AltAz
for the sources (az from North through East); the ICRS x, y, z axes taken
to AltAz and made orthogonal by scipy's orthogonal_procrustes (R_avg); per
source the smallest rotation taking R_avg·r_icrs onto the AltAz direction
(Rodrigues), composed with R_avg (R_exact); cos X = θ̂_altaz·(R_exact·θ̂_icrs),
sin X = θ̂_altaz·(R_exact·φ̂_icrs), where θ̂, φ̂ are the unit vectors of
(colatitude, longitude) in each frame; C_loc = Rᵀ·C·R with
R = [[cos X, sin X], [−sin X, cos X]] and C = ½[[I+Q, U−iV], [U+iV, I−Q]].

Run: /usr/bin/python3 matvis/testdata/zenith/twin.py > matvis/testdata/zenith/twin.json
(astropy 5.2.1 offline: its bundled IERS-B; the JSON lists the Earth
orientation astropy used at each time, for gomatvis to use the same).
"""
import json

import numpy as np
from astropy import units as u
from astropy.coordinates import AltAz, EarthLocation, SkyCoord
from astropy.time import Time
from astropy.utils import iers
from scipy.linalg import orthogonal_procrustes

iers.conf.auto_download = False

LAT, LON, ALT = -30.72152612068957, 21.428303826863015, 1051.69  # pyuvsim-fullstokes-airy's site
SITE = EarthLocation.from_geodetic(LON * u.deg, LAT * u.deg, ALT * u.m)
T0 = 2459845.25  # UTC JD: the zenith source is at the zenith now
OFFSETS = [-600, -120, -30, -5, -1, -0.1, 0, 0.1, 1, 5, 30, 120, 600]  # seconds
STOKES = (6.0, 3.0, -2.5, 2.0)


def unit(theta, phi):
    """r̂, θ̂, φ̂ at colatitude theta, longitude phi (pyradiosky's r_hat, theta_hat, phi_hat)."""
    st, ct, sp, cp = np.sin(theta), np.cos(theta), np.sin(phi), np.cos(phi)
    return np.array([cp * st, sp * st, ct]), np.array([cp * ct, sp * ct, -st]), np.array([-sp, cp, 0.0])


def smallest_rotation(r1, r2):
    """The rotation about r1 × r2 taking r1 onto r2 (vecs2rot)."""
    n = np.cross(r1, r2)
    s = np.sqrt(n @ n)
    k = n / s
    psi = np.arctan2(s, r1 @ r2)
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(psi) * K + (1 - np.cos(psi)) * (K @ K)


def average_rotation(t):
    axes = SkyCoord(x=[1.0, 0, 0], y=[0, 1.0, 0], z=[0, 0, 1.0], frame="icrs",
                    representation_type="cartesian", obstime=t, location=SITE)
    a = axes.transform_to(AltAz(obstime=t, location=SITE))
    a.representation_type = "cartesian"
    r, _ = orthogonal_procrustes(np.asarray(a.cartesian.xyz), np.eye(3))
    return np.asarray(r).T


def main():
    t0 = Time(T0, format="jd", scale="utc")
    z = SkyCoord(alt=90 * u.deg, az=0 * u.deg, frame=AltAz(obstime=t0, location=SITE)).icrs
    sources = [
        ("zenith at T0", z.ra.rad, z.dec.rad),
        ("dec = latitude", z.ra.rad, np.deg2rad(LAT)),
    ]
    I, Q, U, V = STOKES
    C = 0.5 * np.array([[I + Q, U - 1j * V], [U + 1j * V, I - Q]])
    out = {"site": {"lat_deg": LAT, "lon_deg": LON, "height_m": ALT}, "stokes": STOKES,
           "sources": [{"name": n, "ra": ra, "dec": dec} for n, ra, dec in sources], "times": []}
    eop = iers.earth_orientation_table.get()
    for off in OFFSETS:
        t = Time(T0 + off / 86400, format="jd", scale="utc")
        xp, yp = eop.pm_xy(t)
        rec = {"offset_s": off, "jd_utc": t.jd, "ut1_utc_s": float(eop.ut1_utc(t).to_value(u.s)),
               "xp_arcsec": float(xp.to_value(u.arcsec)), "yp_arcsec": float(yp.to_value(u.arcsec)), "sources": []}
        r_avg = average_rotation(t)
        for _, ra, dec in sources:
            aa = SkyCoord(ra * u.rad, dec * u.rad, frame="icrs").transform_to(AltAz(obstime=t, location=SITE))
            alt, az = aa.alt.rad, aa.az.rad
            r_icrs, th_icrs, ph_icrs = unit(np.pi / 2 - dec, ra)
            r_aa, th_aa, _ = unit(np.pi / 2 - alt, az)
            r_exact = smallest_rotation(r_avg @ r_icrs, r_aa) @ r_avg
            c, s = th_aa @ (r_exact @ th_icrs), th_aa @ (r_exact @ ph_icrs)
            R = np.array([[c, s], [-s, c]])
            cl = R.T @ C @ R
            rec["sources"].append({"alt": alt, "az": az, "za": np.pi / 2 - alt, "cos_x": c, "sin_x": s,
                                   "c_loc": [[[z.real, z.imag] for z in row] for row in cl]})
        out["times"].append(rec)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
