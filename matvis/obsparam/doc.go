// Package obsparam reads pyuvsim's simulation configuration, so that a
// configuration written for pyuvsim runs unchanged in gomatvis: the obsparam
// YAML, the telescope config YAML it names (telescope_config_name) and the
// array layout file (array_layout).
//
//	cfg, err := obsparam.Read("obsparam.yaml")
//
// Read returns a *Config with the channel centres and widths (Hz), the
// integration centres (JD) and lengths (s), the site, antennas and beams
// (as simspec.Beam values), the baseline selection, the ordering, the
// polarizations and the output file. It does not read the sky catalog or the
// beam files; it resolves and checks their paths. Every error is an *Error
// naming the file, the line or key, and the value. Keys that are accepted
// but have no effect, and defaults the user should know about, are listed
// in Config.Warnings with file and line. Read never panics, and refuses
// files over MaxFileBytes and files that are not regular files.
//
// # Versions of pyuvsim
//
// The rules follow pyuvsim 1.4 (simsetup.py: parse_frequency_params,
// parse_time_params, parse_telescope_params, initialize_uvdata_from_params)
// and accept the older forms of pyuvsim 1.2 (bare beam-type strings, the
// global diameter/sigma of the telescope config). Where the versions differ
// in meaning, Read refuses the input rather than guess: a freq or time
// section whose extra keys disagree with the derived axis (pyuvsim 1.4 warns
// and uses the derived values; pyuvsim 1.2 built a different grid).
//
// # Paths
//
// As in pyuvsim, a relative telescope_config_name, array_layout or
// sources.catalog is looked for first in the working directory, then in the
// obsparam file's directory (the layout too is relative to the obsparam,
// not to the telescope config). When both exist and differ, the working
// directory's wins and a warning names both. A beam file is looked for in
// the working directory (where pyuvsim looks, besides its own data folder),
// then beside the telescope config, then beside the obsparam, with a
// warning when it is not in the working directory. filing.outdir is, as in
// pyuvsim, relative to the working directory of the run. URLs (which
// pyuvsim fetches through its download cache) are refused.
//
// # Frequencies and times
//
// freq accepts every combination pyuvsim does: freq_array (with
// channel_width when uneven or of length one, scalar or one per channel),
// or one of start_freq/end_freq with enough of Nfreqs, channel_width and
// bandwidth (bandwidth = Nfreqs * channel_width = end - start +
// channel_width). The centres are numpy.linspace(start, end, Nfreqs), and
// Nfreqs must come out whole (to pyuvsim's 1e-5 relative tolerance).
// Extra keys must agree with the result to 1 mHz. Frequencies, widths,
// Nfreqs and bandwidth must be positive; at most MaxSamples channels.
//
// time works the same way with time_array, integration_time (s),
// start_time, end_time (JD), Ntimes and duration_hours or duration_days
// (duration_days wins when both are given, with a warning); time_offset is
// added to start_time, end_time and time_array unless they already exceed
// it. start_time is the centre of the first integration. The centres are
// those pyuvsim 1.2.6 (which made the reference files) computes, bit for
// bit: numpy.linspace(start, end + integration_time, Ntimes,
// endpoint=False), with the missing keys filled in its order; only start,
// end and Ntimes alone, which pyuvsim 1.2.6 refuses, are sampled as pyuvsim
// 1.4 does, linspace(start, end, Ntimes). A time_array is used as given.
// Extra keys must agree to 1 ms. Absolute times outside JD 2.4e6..2.6e6 are refused with
// the likely unit named (MJD, year, Unix seconds).
//
// # Keys
//
// obsparam, top level:
//
//	freq, time, telescope, sources   required sections
//	filing, select, ordering         optional sections (below)
//	polarization_array               list of -5..-8 or xx, yy, xy, yx (hh, vv, hv, vh);
//	                                 default: every polarization of the first beam's
//	                                 feeds (xx, yy, xy, yx for x and y); circular,
//	                                 Stokes and e/n names refused
//	cat_name, object_name            warning: only name pyuvsim's phase centre
//	config_path, obs_param_file      warning: pyuvsim overwrites them
//	anything else                    warning: unknown key
//
// filing: outdir (default "."), outfile_name, outfile_prefix (default ""),
// outfile_suffix (default "results"; the name is prefix_suffix when
// outfile_name is absent or empty), output_format (uvh5, uvfits, ms or
// npy; miriad refused; when absent the name's extension decides, else
// uvh5 with a warning), clobber (default false). See Config.OutputPath.
// Unknown filing keys: warning.
//
// telescope (obsparam): telescope_config_name and array_layout (a layout
// file; a mapping of positions is refused) are required. select (beam-read
// selection, deprecated here by pyuvsim) is handled as in the telescope
// config. telescope_name, telescope_location, world, ellipsoid: warning
// (the telescope config's are used, as in pyuvsim). antenna_diameters,
// x_orientation, feed_angle, feed_array, mount_type, instrument,
// antenna_numbers, antenna_names: warning (output metadata only). Others:
// warning.
//
// telescope config: telescope_name, telescope_location ("(lat, lon, alt)"
// in degrees, degrees, metres, or a list) and beam_paths are required.
// world: earth only (moon refused). ellipsoid, lunar_ellipsoid,
// interpolation_function: warning. spline_interp_opts: kx and ky equal, 1
// or 3 (default 3), s 0; others refused. freq_interp_kind: one of scipy's
// interp1d kinds (default cubic), applied to the beamfits beams as
// pyuvdata's UVBeam.interp applies it (beam.Gridded.WithFreqInterp). select: freq_buffer and
// freq_range are ignored with a warning (gomatvis reads whole beam files);
// other selections are refused while a beam file is used, and ignored with a
// warning otherwise. diameter, sigma: pyuvsim 1.2's global shape for
// gaussian and airy beams without their own, used with a warning. Others:
// warning.
//
// beam_paths maps integer beam ids to beams; only the ids the layout uses
// are read (the others are listed in a warning). A beam is one of:
//
//	uniform | gaussian | airy | short_dipole      a bare type name (pyuvsim 1.2)
//	path.beamfits                                a bare beam file name (pyuvsim 1.2)
//	{type: T, sigma: S} / {type: T, diameter: D}  an analytic beam (other fields refused)
//	{filename: F, ...} / !UVBeam {filename: F, ...}
//	                                             a beamfits file; path_variable (a
//	                                             directory), file_type: beamfits and
//	                                             mount_type: fixed are
//	                                             supported, run_check, check_extra,
//	                                             run_check_acceptability ignored with a
//	                                             warning, other read options refused
//	!AnalyticBeam {class: C, ...}                C is AiryBeam (diameter), GaussianBeam
//	                                             (sigma or diameter; sigma_type efield or
//	                                             power; spectral_index 0 only;
//	                                             reference_frequency), UniformBeam,
//	                                             ShortDipoleBeam, optionally as
//	                                             pyuvdata.C; common fields feed_array
//	                                             ([x, y], [x] or [y]), and at their
//	                                             defaults only feed_angle, mount_type
//	                                             (fixed), x_orientation (east);
//	                                             include_cross_pols ignored with a warning
//
// Sigma and diameter must be positive; a gaussian takes exactly one. All
// beams must have the same feeds.
//
// layout file: a header line naming Name, Number, BeamID, E, N, U (any
// order and case; other columns ignored with a warning), then one
// whitespace-separated row per antenna; blank lines and '#' comments are
// skipped. Numbers and BeamIDs are whole numbers 0..2^31-1, positions finite
// metres; numbers and names must be unique; every BeamID must be a key of
// beam_paths. At most MaxAntennas rows.
//
// sources: catalog (a file; pyuvsim's mock catalogs refused) is required.
// filetype (skyh5, gleam, vot, text, fhd), spectral_type (flat, subband,
// spectral_index, full), min_flux, max_flux, non_negative, non_nan (any,
// all) are returned; table_name, id_column, ra_column, dec_column,
// lon_column, lat_column, frame, flux_columns, reference_frequency,
// freq_array, spectral_index_column are returned in ReadOptions.
// horizon_buffer: warning (only pyuvsim's coarse pre-cut). Mock-catalog keys,
// and run_check, check_extra, run_check_acceptability, at_frequencies,
// freq_interp_kind, atol, nan_handling (which pyuvsim does not pass on):
// warning. Others: warning.
//
// select: antenna_nums, antenna_names (both antennas of a baseline must be
// listed), bls ("[(1, 2), (3, 4)]" as pyuvsim writes it, or a YAML list of
// pairs; only these pairs are made), ant_str (cross, auto, all, or pairs
// "1_2,3_4"; other forms refused), no_autos. redundant_threshold,
// frequencies, freq_chans, times, blt_inds: refused. polarizations and
// unknown keys: warning (pyuvsim ignores them). See Config.AntPairs.
//
// ordering: conjugation_convention (ant1<ant2, ant2<ant1, u<0, u>0, v<0,
// v>0; default ant1<ant2 as pyuvsim >= 1.3.1, with a warning that pyuvsim
// 1.2, which made the reference files, stored ant2<ant1) and blt_order
// (order and minor order as pyuvdata's reorder_blts accepts; default
// [time, baseline]). Unknown keys: warning.
//
// Freq and time sections refuse unknown keys (pyuvsim stops with a
// KeyError); Nspws is ignored with a warning.
package obsparam
