"""Compare, row by row, an MS and a UVH5 that gomatvis wrote of the same
simulation, with the real readers: python-casacore for the MS, h5py for the
UVH5. Usage: ms_rows_vs_uvh5.py RUN.ms RUN.uvh5; prints one JSON object.

The UVH5 is unprojected (drift), the MS phased, so each row is checked
against what pyuvdata 2.4.2's phase() makes of the UVH5's row
(UVData._apply_w_proj with old w = 0 for unprojected data):
  DATA[corr, chan] = V_uvh5[chan, pol] * exp(-2 pi i w_ms f_chan / c),
with CASA's correlation order (CORR_TYPE 9, 10, 11, 12 = XX, XY, YX, YY;
AIPS -5, -7, -8, -6) and no conjugation. Also per row: ANTENNA1/2 equal
the UVH5's ant_1/2_array, TIME = (jd - 2400000.5) * 86400, |UVW| = |uvw|
(phasing rotates the baseline), and UVW equals the one recomputed with
astropy from the MS's own ANTENNA positions and FIELD phase centre
(uvw_from_antpos.expected_uvw), within aberration.
"""
import json
import sys

import casacore.tables as pt
import h5py
import numpy as np

from uvw_from_antpos import expected_uvw

C = 299792458.0
AIPS = {9: -5, 10: -7, 11: -8, 12: -6}


def uvh5_vis(h):
    v = h['Data/visdata'][()]
    if v.dtype.names:
        v = v['r'] + 1j * v['i']
    return v.reshape(v.shape[0], -1, v.shape[-1])  # (Nblts, Nfreqs, Npols)


def main(ms_path, uvh5_path):
    ms = pt.table(ms_path, ack=False)
    a1, a2 = ms.getcol('ANTENNA1'), ms.getcol('ANTENNA2')
    tm, uvw, data = ms.getcol('TIME'), ms.getcol('UVW'), ms.getcol('DATA')  # data (rows, chan, corr)
    corr = pt.table(ms_path + '/POLARIZATION', ack=False).getcell('CORR_TYPE', 0)
    freqs = pt.table(ms_path + '/SPECTRAL_WINDOW', ack=False).getcell('CHAN_FREQ', 0)
    pos = pt.table(ms_path + '/ANTENNA', ack=False).getcol('POSITION')
    ra, dec = pt.table(ms_path + '/FIELD', ack=False).getcell('PHASE_DIR', 0)[0]
    with h5py.File(uvh5_path, 'r') as h:
        hd = h['Header']
        u1, u2 = hd['ant_1_array'][()], hd['ant_2_array'][()]
        jd, uvw0 = hd['time_array'][()], hd['uvw_array'][()]
        pols, f0 = list(hd['polarization_array'][()]), hd['freq_array'][()].ravel()
        vis = uvh5_vis(h)
    out = {'rows': int(len(a1)), 'uvh5_rows': int(len(u1))}
    if len(a1) != len(u1):
        raise SystemExit('MS %d rows, UVH5 %d' % (len(a1), len(u1)))
    out['antennas_equal'] = bool(np.array_equal(a1, u1) and np.array_equal(a2, u2))
    out['time_equal'] = bool(np.array_equal(tm, (jd - 2400000.5) * 86400))
    out['freqs_equal'] = bool(np.array_equal(freqs, f0))
    out['max_baseline_length_diff_m'] = float(np.max(np.abs(np.linalg.norm(uvw, axis=1) - np.linalg.norm(uvw0, axis=1))))
    order = [pols.index(AIPS[c]) for c in corr]
    want = vis[:, :, order] * np.exp(-2j * np.pi * uvw[:, 2:3] * freqs[None, :] / C)[:, :, None]
    peak = float(np.max(np.abs(want)))
    out['max_data_diff_over_peak'] = float(np.max(np.abs(data - want))) / peak
    out['peak'] = peak
    # The other sign of the w-term, to show the comparison can tell.
    other = vis[:, :, order] * np.exp(2j * np.pi * uvw[:, 2:3] * freqs[None, :] / C)[:, :, None]
    out['max_data_diff_other_sign_over_peak'] = float(np.max(np.abs(data - other))) / peak
    geo = expected_uvw(pos, a1, a2, jd, ra, dec)
    out['max_uvw_vs_antpos_m'] = float(np.max(np.abs(geo - uvw)))
    out['max_uvw_m'] = float(np.max(np.abs(uvw)))
    print(json.dumps(out))


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
