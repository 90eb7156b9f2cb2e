#!/usr/bin/python3
"""Writes the SkyH5 test files in skyh5/ and their expected values.

The files follow the layout of pyradiosky's SkyModel.write_skyh5 (current:
Header/hpx_frame group; older: Header/frame string, lon/lat with "angtype"),
written with h5py directly (pyradiosky is not needed). expected.json holds,
per good file and frequency, the ICRS RA/Dec (radians) and Stokes I,Q,U,V in
Jy that pyuvsim would simulate: pixel centres from healpy, frame rotation
by astropy, spectra evaluated first (pyradiosky at_frequencies; subband by
scipy interp1d cubic, its default), then K -> Jy at the evaluated frequency
(healpix_to_point; full maps at their own frequencies) by astropy's
brightness_temperature equivalency, as pyradiosky.utils.jy_to_ksr.
Run from this directory: /usr/bin/python3 gen_skyh5.py
"""
import json
import os

import astropy.units as u
import h5py
import healpy as hp
import numpy as np
import scipy.interpolate
from astropy.coordinates import SkyCoord

rng = np.random.default_rng(7)
out = "skyh5"
os.makedirs(out, exist_ok=True)


def s(x):
    return np.bytes_(x)


def header(f, ctype, ncomp, nfreq, spec):
    h = f.create_group("Header")
    h["component_type"] = s(ctype)
    h["Ncomponents"] = np.int64(ncomp)
    h["Nfreqs"] = np.int64(nfreq)
    h["spectral_type"] = s(spec)
    h["history"] = s("gomatvis test file")
    return h


def stokes(f, arr, unit):
    d = f.create_group("Data")
    d.create_dataset("stokes", data=arr, chunks=True)
    d["stokes"].attrs["unit"] = unit


def radec(lon, lat, frame):
    c = SkyCoord(lon * u.rad, lat * u.rad, frame=frame).icrs
    return c.ra.rad, c.dec.rad


def jy_per(freqs, unit, nside=None):
    freqs = np.atleast_1d(freqs) * u.Hz
    fac = np.ones(freqs.size)
    if unit in ("K", "K sr"):
        eq = u.brightness_temperature(freqs, beam_area=1 * u.sr)
        fac = (1 * u.K).to(u.Jy, equivalencies=eq).value
    if nside is not None:
        fac = fac * hp.nside2pixarea(nside)
    return fac


expected = {}


def hpx_file(name, nside, nest, frame, spec, unit, freqs, eval_freqs, old_frame=False):
    npix = 12 * nside * nside
    inds = np.sort(rng.choice(npix, size=min(npix, 25), replace=False))
    n = inds.size
    nf = 1 if spec in ("flat", "spectral_index") else len(freqs)
    st = np.zeros((4, nf, n))
    st[0] = rng.uniform(1, 10, (nf, n))
    st[1:] = rng.uniform(-0.5, 0.5, (3, nf, n))
    with h5py.File(os.path.join(out, name), "w") as f:
        h = header(f, "healpix", n, nf, spec)
        h["nside"] = np.int64(nside)
        h["hpx_order"] = s("nested" if nest else "ring")
        h["hpx_inds"] = inds.astype(np.int64)
        if old_frame:
            h["frame"] = s(frame)
        else:
            g = h.create_group("hpx_frame")
            g["frame"] = s(frame)
        ref = idx = None
        if spec == "spectral_index":
            ref = np.full(n, freqs[0])
            idx = rng.uniform(-1.5, 0.5, n)
            h["reference_frequency"] = ref
            h["reference_frequency"].attrs["unit"] = "Hz"
            h["spectral_index"] = idx
        elif spec != "flat":
            h["freq_array"] = np.asarray(freqs, dtype=float)
            h["freq_array"].attrs["unit"] = "Hz"
            if spec == "subband":
                df = freqs[1] - freqs[0]
                h["freq_edge_array"] = np.array([np.array(freqs) - df / 2, np.array(freqs) + df / 2])
                h["freq_edge_array"].attrs["unit"] = "Hz"
        stokes(f, st, unit)
    th, ph = hp.pix2ang(nside, inds, nest=nest)
    ra, dec = radec(ph, np.pi / 2 - th, frame)
    ev = {}
    for fq in eval_freqs:
        # pyuvsim: at_frequencies first (in K), then healpix_to_point converts
        # to Jy at the simulation frequency (full: at the catalog's own).
        if spec == "spectral_index":
            val = st[:, 0, :] * (fq / ref) ** idx * jy_per(fq, unit, nside)
        elif spec == "flat":  # pyuvsim: at_frequencies, then K -> Jy per channel
            val = st[:, 0, :] * jy_per(fq, unit, nside)
        elif spec == "subband":
            val = scipy.interpolate.interp1d(freqs, st, axis=1, kind="cubic")(fq) * jy_per(fq, unit, nside)
        else:
            k = int(np.argmin(np.abs(np.asarray(freqs) - fq)))
            val = st[:, k, :] * jy_per(freqs[k], unit, nside)
        ev[repr(float(fq))] = val.tolist()
    expected[name] = {"ra": ra.tolist(), "dec": dec.tolist(), "stokes": ev}


hpx_file("hpx_ring_K_full.skyh5", 4, False, "icrs", "full", "K",
         [100e6, 125e6, 150e6], [100e6, 125e6, 150e6])
hpx_file("hpx_nested_galactic_subband.skyh5", 8, True, "galactic", "subband", "Jy / sr",
         [100e6, 110e6, 120e6, 130e6, 140e6], [100e6, 105e6, 123.4e6, 140e6])
hpx_file("hpx_ring_subband_K.skyh5", 2, False, "icrs", "subband", "K",
         [100e6, 112e6, 120e6, 135e6, 150e6, 160e6], [100e6, 118.5e6, 151e6, 160e6])
hpx_file("hpx_nested_flat_K_nofreq.skyh5", 4, True, "icrs", "flat", "K",
         [], [100e6, 150e6])
hpx_file("hpx_ring_oldframe_specidx_K.skyh5", 2, False, "galactic", "spectral_index", "K",
         [150e6], [100e6, 150e6, 200e6], old_frame=True)

# An old-style point file: lon/lat/frame with "angtype", FK5 J2000.
n = 6
lon = rng.uniform(0, 2 * np.pi, n)
lat = rng.uniform(-1.2, 1.2, n)
st = np.zeros((4, 1, n))
st[0, 0] = rng.uniform(1, 5, n)
with h5py.File(os.path.join(out, "point_old_lonlat_fk5.skyh5"), "w") as f:
    h = header(f, "point", n, 1, "flat")
    h["name"] = np.array([f"p{i}" for i in range(n)], dtype="S")
    h["lon"] = lon
    h["lon"].attrs["unit"] = "rad"
    h["lon"].attrs["angtype"] = "longitude"
    h["lat"] = lat
    h["lat"].attrs["unit"] = "rad"
    h["lat"].attrs["angtype"] = "latitude"
    h["frame"] = s("fk5")
    stokes(f, st, "Jy")
ra, dec = radec(lon, lat, "fk5")
expected["point_old_lonlat_fk5.skyh5"] = {
    "ra": ra.tolist(), "dec": dec.tolist(), "stokes": {repr(150e6): st[:, 0, :].tolist()}}

with open("skyh5_expected.json", "w") as fo:
    json.dump(expected, fo, indent=0)


# Bad files, each with one defect the reader must name.
def point_file(name, mutate):
    n = 3
    with h5py.File(os.path.join(out, name), "w") as f:
        h = header(f, "point", n, 1, "spectral_index")
        h["name"] = np.array([b"a", b"b", b"c"])
        g = h.create_group("skycoord")
        g["ra"] = np.array([10.0, 20.0, 30.0])
        g["ra"].attrs["unit"] = "deg"
        g["dec"] = np.array([-10.0, -20.0, -30.0])
        g["dec"].attrs["unit"] = "deg"
        g["frame"] = s("icrs")
        g["representation_type"] = s("spherical")
        h["reference_frequency"] = np.full(n, 1e8)
        h["reference_frequency"].attrs["unit"] = "Hz"
        h["spectral_index"] = np.array([-0.8, -0.7, -0.6])
        st = np.zeros((4, 1, n))
        st[0, 0] = [1.0, 2.0, 3.0]
        stokes(f, st, "Jy")
        mutate(f)


def set_(path, value):
    def m(f):
        attrs = dict(f[path].attrs)
        del f[path]
        f[path] = value
        for k, v in attrs.items():
            f[path].attrs[k] = v
    return m


point_file("good_point.skyh5", lambda f: None)
point_file("bad_ncomponents.skyh5", set_("Header/Ncomponents", np.int64(1000000000)))
point_file("bad_ncomponents_string.skyh5", set_("Header/Ncomponents", s("three")))
point_file("bad_reffreq_negative.skyh5", set_("Header/reference_frequency", np.array([1e8, -1e8, 1e8])))
st_nan = np.zeros((4, 1, 3))
st_nan[0, 0] = [1.0, np.nan, 3.0]
point_file("bad_stokes_nan.skyh5", set_("Data/stokes", st_nan))
point_file("bad_unit.skyh5", lambda f: f["Data/stokes"].attrs.__setitem__("unit", "Jy / beam"))
point_file("bad_spectral_type.skyh5", set_("Header/spectral_type", s("powerlaw")))
point_file("bad_frame.skyh5", set_("Header/skycoord/frame", s("fk4")))
with h5py.File(os.path.join(out, "bad_no_header.skyh5"), "w") as f:
    f["x"] = np.arange(3)
data = open(os.path.join(out, "good_point.skyh5"), "rb").read()
open(os.path.join(out, "bad_truncated.skyh5"), "wb").write(data[: len(data) // 2])
