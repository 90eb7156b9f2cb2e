"""Recompute a UVFITS file's uvws from its own antenna table and phase
centre, independently of gomatvis, and compare them with the file's UU, VV,
WW as pyuvdata 2.4.2's UVData.check() does (run_check_acceptability).

pyuvdata reads the file (uvfits.py) as:
  - uvw_array = -(UU, VV, WW) * c (FITS's uvw direction is opposite its own);
  - antenna numbers from the ANTENNA1/ANTENNA2 parameters and NOSTA;
  - antenna positions = ECEF_from_rotECEF(STABXYZ, longitude of ARRAYX/Y/Z)
    (AIPS memo 117: relative to the array centre, x through the meridian);
  - the phase centre from the SU table's RAEPO/DECEPO, frame RADESYS;
and check() warns "The uvw_array does not match the expected values given
the antenna positions" unless np.allclose(expected, uvw_array, atol=1)
(rtol 1e-5), the expected values being set_uvws_from_antenna_positions():
the baselines pos(ant2) - pos(ant1) projected on the phase centre.

Here the expected values come from astropy instead of pyuvdata's ERFA
calls: each antenna's GCRS position at the row's time
(EarthLocation.get_gcrs_posvel: precession, nutation, Earth rotation, polar
motion from astropy's bundled IERS-B), the baseline ant2 - ant1 projected
on the ICRS (u east, v north, w toward the source) basis of the centre.
pyuvdata's apparent-position route differs from this by aberration (~1e-4
rad of the baseline, millimetres here), far inside its 1 m tolerance.

Usage: uvw_from_antpos.py FILE.uvfits; prints one JSON object.
"""
import json
import sys
import warnings

import numpy as np
from astropy import units as u
from astropy.coordinates import EarthLocation
from astropy.io import fits
from astropy.time import Time
from astropy.utils import iers

iers.conf.auto_download = False  # offline: astropy's bundled IERS-B
warnings.simplefilter('ignore', iers.IERSStaleWarning)  # the leap-second file's age
C = 299792458.0


def ecef_from_rotecef(xyz, lon):
    """pyuvdata's ECEF_from_rotECEF: rotate by +lon about z."""
    c, s = np.cos(lon), np.sin(lon)
    rot = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    return xyz @ rot.T


def expected_uvw(pos, i1, i2, jd, ra, dec):
    """The uvw (m) of each row from absolute ITRF positions pos (n, 3): the
    GCRS baseline pos[i2] - pos[i1] at the row's UTC Julian date on the
    ICRS basis (u east, v north, w toward) of the centre (ra, dec), rad."""
    eu = np.array([-np.sin(ra), np.cos(ra), 0.0])
    ev = np.array([-np.sin(dec) * np.cos(ra), -np.sin(dec) * np.sin(ra), np.cos(dec)])
    ew = np.array([np.cos(dec) * np.cos(ra), np.cos(dec) * np.sin(ra), np.sin(dec)])
    basis = np.stack([eu, ev, ew])
    want = np.zeros((len(jd), 3))
    sites = EarthLocation.from_geocentric(pos[:, 0], pos[:, 1], pos[:, 2], unit=u.m)
    for t in np.unique(jd):
        gcrs = sites.get_gcrs_posvel(Time(t, format='jd', scale='utc'))[0].xyz.to_value(u.m).T
        k = jd == t
        want[k] = (gcrs[i2[k]] - gcrs[i1[k]]) @ basis.T
    return want


def main(path):
    with fits.open(path) as hdus:
        g = hdus[0].data
        hdr = hdus[0].header
        an, su = hdus['AIPS AN'], hdus['AIPS SU']
        uvw = -np.stack([g.par('UU'), g.par('VV'), g.par('WW')], axis=1).astype(np.float64) * C
        jd = np.asarray(g.par('DATE'), dtype=np.float64)  # astropy sums the DATE parameters
        a1 = np.asarray(g.par('ANTENNA1'), dtype=np.int64)
        a2 = np.asarray(g.par('ANTENNA2'), dtype=np.int64)
        centre = np.array([an.header['ARRAYX'], an.header['ARRAYY'], an.header['ARRAYZ']])
        rot = np.asarray(an.data['STABXYZ'], dtype=np.float64)
        nosta = list(an.data['NOSTA'])
        if len(su.data) != 1:
            raise SystemExit('%s: %d SU rows; this check handles one phase centre' % (path, len(su.data)))
        ra, dec = np.radians(su.data['RAEPO'][0]), np.radians(su.data['DECEPO'][0])
        frame = hdr.get('RADESYS', '').strip().lower()
    if frame != 'icrs':
        raise SystemExit('%s: RADESYS %r; this check handles icrs' % (path, frame))
    lon = EarthLocation.from_geocentric(*centre, unit=u.m).lon.rad
    pos = centre + ecef_from_rotecef(rot, lon)
    row = {n: i for i, n in enumerate(nosta)}
    i1 = np.array([row[a] for a in a1])
    i2 = np.array([row[a] for a in a2])
    want = expected_uvw(pos, i1, i2, jd, ra, dec)
    diff = np.abs(want - uvw)
    print(json.dumps({
        'rows': int(len(uvw)),
        'max_diff_m': float(diff.max()),
        'max_uvw_m': float(np.abs(want).max()),
        'pyuvdata_allclose': bool(np.allclose(want, uvw, atol=1)),
        'phase_centre_deg': [float(np.degrees(ra)), float(np.degrees(dec))],
    }))


if __name__ == '__main__':
    main(sys.argv[1])
