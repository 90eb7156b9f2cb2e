#!/usr/bin/env python3
"""A mutation audit: applies each mutation below alone to the working tree,
runs the packages named with go test, restores the file, and prints whether
a test caught it. Run it in a scratch worktree (git worktree add), from its
root: scripts/mutation-audit.py [--old|--new|--s3|--s4|--s5|--s6|--s7|--s8|--s9|--all|--check] [NAME-PATTERN ...]
(--old, the default, is the first list; --new the session 2026-12-07 list;
--s3 the session 2026-12-07 b list, of the code landed since e0a3f9c;
--s4 the session 2026-12-07 c list; --s5 the session 2026-12-07 d list;
--s6 the session 2026-12-07 e list; --s7 the session 2026-12-07 f list;
--s8 the session 2026-12-07 g list; --s9 the session 2026-12-07 h list;
--check only says whether each original text is found). Each package list
runs with go test -short -count=1. A mutation that does not compile is
reported BUILD, neither caught nor survived. bench/RESULTS.md has its
results ("Mutation audit of this session's and last session's code",
"Mutation audit (session 2026-12-07)")."""
import subprocess, sys, os
root=os.getcwd()
muts=[
 ('eop-leap', 'matvis/astro/c04.go', '	du -= math.RoundToEven(du) // numpy\'s round is half to even\n', '', './matvis/astro ./matvis/input'),
 ('eop-dayfrac', 'matvis/astro/c04.go', 'f := (mjd - t.MJD[i-1] + utc) /', 'f := (mjd - t.MJD[i-1] + 0*utc) /', './matvis/astro ./matvis/input'),
 ('uvfits-baseline', 'uvfits/writer.go', 'float64(256*h.Ant1[r] + h.Ant2[r])', 'float64(256*h.Ant2[r] + h.Ant1[r])', './uvfits ./cmd/gomatvis'),
 ('beam-same', 'matvis/beam/same.go', '	return a == b\n}', '	return true\n}', './matvis/beam ./matvis/cpu'),
 ('done-index', 'matvis/tally.go', 't.res.Done[f*t.sim.NTime()+ti] = true', 't.res.Done[f+ti] = true', './matvis ./matvis/cpu'),
 ('spectral-index', 'matvis/skymodel/eval.go', 'math.Exp(idx[i]*(lnf-lnRef[i]))', 'math.Exp(idx[i]*(lnRef[i]-lnf))', './matvis/skymodel ./matvis/input'),
 ('pole-sign', 'matvis/beam/gridresp.go', '		sign = -1 // an E-field', '		sign = 1 // an E-field', './matvis/beam ./matvis'),
 ('horizon', 'matvis/cpu/cpu.go', '			if v[2][s] > 0 {', '			if v[2][s] > -0.02 {', './matvis/cpu'),
 ('nufft-beta', 'matvis/nufft/kernel.go', 'beta: 2.30 * float64(w)', 'beta: 2.0 * float64(w)', './matvis/nufft ./matvis/nufftcpu'),
 ('desc-geom', 'matvis/gpu/beams.go', 't.desc[b] = beamDesc{Off: t.ncoef, Kind: kindNone, Geom: int32(gi)}', 't.desc[b] = beamDesc{Off: t.ncoef, Kind: kindNone, Geom: 0}', './matvis/gpu'),
 ('uvh5-lst', 'matvis/uvdata/uvdata.go', 'h.LSTs = append(h.LSTs, lst)', 'h.LSTs = append(h.LSTs, lst+1e-6)', './matvis/uvdata ./uvh5 ./cmd/gomatvis'),
 ('kernels-dup', 'kernels/kernels.go', '		if _, dup := headers[name]; dup {', '		if _, dup := headers[name]; dup && false {', './kernels'),
 ('signal-stop', 'cmd/gomatvis/main.go', '	return func() { close(done) }', '	return func() { signal.Stop(ch); close(done) }', './cmd/gomatvis'),
 ('nufft-mingrid', 'matvis/nufft/plan.go', 'need := max(2*sigma*bx*bs/math.Pi+float64(w)+2, float64(minGrid))', 'need := 2*sigma*bx*bs/math.Pi + float64(w) + 2 + 0*float64(minGrid)', './matvis/nufft ./matvis/gpu'),
 ('nufft-pointshift', 'matvis/nufft/layout.go', 'l.PointShift[d] = float64(a.nf/2) - a.xc*l.PointScale[d]', 'l.PointShift[d] = float64(a.nf/2) + a.xc*l.PointScale[d]', './matvis/nufft'),
 ('trial-cache', 'matvis/nufftcpu/trialcache.go', 'c, ok := choicecache.Get[cachedTrial](b.TrialCache, b.trialKey(s))', 'c, ok := choicecache.Get[cachedTrial](b.TrialCache, "")', './matvis/nufftcpu'),
 ('roof-real-fft', 'matvis/profile/roofline.go', '		fft /= 2', '		fft /= 1', './matvis/profile'),
 ('gpu-nufft-target', 'matvis/gpu/nufft.go', 's[d][k] = omega * (sim.Antennas[p[1]][d] - sim.Antennas[p[0]][d])', 's[d][k] = omega * (sim.Antennas[p[0]][d] - sim.Antennas[p[1]][d])', './matvis/gpu'),
 ('gpu-nufft-beams', 'matvis/gpu/nufft.go', 'if reps, _ := beam.Groups(sim.Beams, sim.BeamOf); len(reps) > 1 {', 'if reps, _ := beam.Groups(sim.Beams, sim.BeamOf); len(reps) > 99 {', './matvis/gpu'),
 ('gpu-nufft-eps', 'matvis/gpu/nufft_keep.go', 'k.prec, k.eps = nufftgpu.Single, r.tune.nufftEps[0]', 'k.prec, k.eps = nufftgpu.Single, r.tune.nufftEps[1]', './matvis/gpu'),
 ('nufft-stop', 'matvis/nufft/plan.go', 'func (pl *Plan) stopped() bool { return pl.ctx != nil && pl.ctx.Err() != nil }', 'func (pl *Plan) stopped() bool { return false }', './matvis/nufft ./matvis/nufftcpu'),
 ('gpu-strength-im', 'matvis/gpu/vis_nufft.cuh', 'im += qr * pi - qi * pr;', 'im += qi * pr - qr * pi;', './matvis/gpu'),
 ('nufftgpu-place-margin', 'matvis/nufftgpu/coords.go', 'const placeMargin = 0.5', 'const placeMargin = 0', './matvis/nufftgpu'),
 ('nufftgpu-interp-stride', 'matvis/nufftgpu/exec.go', '		return 1, nv', '		return nv, 1', './matvis/nufftgpu'),
 ('nufftgpu-targets-post', 'matvis/nufftgpu/targets.go', 'b = appendReals(b, []float64{real(z), imag(z)}, prec)', 'b = appendReals(b, []float64{imag(z), real(z)}, prec)', './matvis/nufftgpu'),
 ('ahead-channel', 'matvis/gpu/nufft_ahead.go', '		j.tg, j.err = a.make(fi)', '		j.tg, j.err = a.make(fi + 1)', './matvis/gpu'),
 ('ahead-none', 'matvis/gpu/nufft_ahead.go', '	for k := fi + 1; k <= fi+a.depth; k++ {', '	for k := fi + 1; k <= fi; k++ {', './matvis/gpu'),
 ('ahead-unbounded', 'matvis/gpu/nufft_ahead.go', '		a.sem <- struct{}{}\n		defer func() { <-a.sem }()', '		defer func() {}()', './matvis/gpu'),
 ('channel-bound', 'matvis/gpu/nufft.go', '	return max(nuMs, prep/float64(aheadWorkers()*r.sim.NTime())), prep, nil', '	return nuMs, prep, nil', './matvis/gpu'),
 ('auto-nufftcpu', 'matvis/backends/backends.go', '		b, nerr := openNUFFTCPU()', '		b, nerr := matvis.Backend(nil), error(nil); b = cpu.New()', './matvis/backends'),
]

# Session 2026-12-07 (issue 39 item 2): one-line mutations of the newest
# code, written from reading its contracts; run with --new. Packages are
# the mutated one and its direct consumers whose tests exercise the line.
NUFFTCPU='./matvis/nufftcpu'
new=[
 ('cc-oversize-json', 'internal/choicecache/choicecache.go', 'inputfile.ReadAll(path, maxBytes)', 'inputfile.ReadAll(path, 1<<40)', './internal/choicecache'),
 ('cc-put-drops', 'internal/choicecache/choicecache.go', '	m, ok := read[T](path)\n	if !ok {\n		m = map[string]T{}', '	m, ok := map[string]T(nil), false\n	if !ok {\n		m = map[string]T{}', './internal/choicecache'),
 ('cc-get-anykey', 'internal/choicecache/choicecache.go', '	v, ok := m[key]\n', '	v, ok := m[key], len(m) > 0\n', './internal/choicecache'),
 ('cc-path-folder', 'internal/choicecache/choicecache.go', 'filepath.Join(d, "gomatvis", name)', 'filepath.Join(d, name)', './internal/choicecache ./matvis/nufftcpu'),
 ('key-nsrc', 'matvis/nufftcpu/trialcache.go', 's.nant, s.nsrc, s.npairs, s.nfeed', 's.nant, s.nant, s.npairs, s.nfeed', NUFFTCPU),
 ('key-workers', 'matvis/nufftcpu/trialcache.go', 'runtime.NumCPU(), b.workers,', 'runtime.NumCPU(), 0,', NUFFTCPU),
 ('key-freq', 'matvis/nufftcpu/trialcache.go', 's.jobs, s.freq)', 's.jobs, 0.0)', NUFFTCPU),
 ('key-precision', 'matvis/nufftcpu/trialcache.go', 's.nfeed, s.precision, s.dim', 's.nfeed, 2, s.dim', NUFFTCPU),
 ('disk-nonpositive', 'matvis/nufftcpu/trialcache.go', 'if !ok || !(c.NUFFT > 0) || !(c.Direct > 0) {', 'if !ok {', NUFFTCPU),
 ('disk-cached-flag', 'matvis/nufftcpu/choose.go', '	m.cached = true\n', '	m.cached = false\n', NUFFTCPU),
 ('disk-not-kept', 'matvis/nufftcpu/choose.go', '	b.keep(s, m)\n	b.keepTrial(s, m)', '	b.keep(s, m)', NUFFTCPU),
 ('margin-direct', 'matvis/nufftcpu/choose.go', 'case e.direct > clearMargin*e.nufft:', 'case e.direct > 2*e.nufft:', NUFFTCPU),
 ('margin-nufft', 'matvis/nufftcpu/choose.go', 'case e.nufft > clearMargin*e.direct:', 'case e.nufft > 4*e.direct:', NUFFTCPU),
 ('margin-swap', 'matvis/nufftcpu/choose.go', '		return true, "chooser: cost model, " + model, false', '		return false, "chooser: cost model, " + model, false', NUFFTCPU),
 ('short-run-higher', 'matvis/nufftcpu/choose.go', 'return e.nufft < e.direct, fmt.Sprintf(', 'return e.nufft > e.direct, fmt.Sprintf(', NUFFTCPU),
 ('measured-swap', 'matvis/nufftcpu/choose.go', '	return m.nufft <= m.direct, why, false', '	return m.nufft >= m.direct, why, false', NUFFTCPU),
 ('lb-pair-halving', 'matvis/nufftcpu/choose.go', '		targets /= 2 // at best', '		targets /= 1 // at best', NUFFTCPU),
 ('lb-fp32-eps', 'matvis/nufftcpu/choose.go', '		eps = max(eps, fp32Eps)', '		eps = min(eps, fp32Eps)', NUFFTCPU),
 ('lb-top-channel', 'matvis/simulation.go', '		if f > s.Freqs[top] {', '		if f < s.Freqs[top] {', './matvis ' + NUFFTCPU),
 ('fp32-positions', 'matvis/nufftcpu/nufftcpu.go', '				v[d][s] = float64(float32(x))', '				v[d][s] = x', NUFFTCPU),
 ('fp32-positions-cpu', 'matvis/cpu/cpu.go', '				v[k][s] = float64(float32(x))', '				v[k][s] = x', './matvis/cpu'),
 ('nufft-interp-stop', 'matvis/nufft/interp.go', 'if lo >= pl.m || pl.stopped() {', 'if lo >= pl.m {', './matvis/nufft'),
 ('nufft-spread-stop', 'matvis/nufft/spread.go', '			if i&stopCheck == 0 && pl.stopped() {\n				return\n			}\n			sp.point(', '			if i&stopCheck == -1 && pl.stopped() {\n				return\n			}\n			sp.point(', './matvis/nufft'),
 ('nufft-spreadreal-stop', 'matvis/nufft/spread.go', '			if i&stopCheck == 0 && pl.stopped() {\n				return\n			}\n			sp.pointReal(', '			if i&stopCheck == -1 && pl.stopped() {\n				return\n			}\n			sp.pointReal(', './matvis/nufft'),
 ('nufftcpu-stop-between', 'matvis/nufftcpu/nufftcpu.go', '			if err := ctx.Err(); err != nil {\n				return r.tally.Cancelled(err)', '			if err := error(nil); err != nil {\n				return r.tally.Cancelled(err)', NUFFTCPU),
 ('c04-search-ge', 'matvis/astro/c04.go', 'return t.MJD[k] > mjd })', 'return t.MJD[k] >= mjd })', './matvis/astro ./matvis/input'),
 ('c04-end', 'matvis/astro/c04.go', 'if i == 0 || i == n {', 'if i == 0 || i == n+1 {', './matvis/astro ./matvis/input'),
 ('c04-pm-default', 'matvis/astro/c04.go', 'XpArcsec: AstropyDefaultPolarMotion[0], YpArcsec: AstropyDefaultPolarMotion[1]}', 'XpArcsec: AstropyDefaultPolarMotion[1], YpArcsec: AstropyDefaultPolarMotion[0]}', './matvis/astro ./matvis/input'),
 ('c04-ut1-col', 'matvis/astro/c04.go', '{42, 53, "UT1-UTC (columns 42-53)"}', '{42, 52, "UT1-UTC (columns 42-53)"}', './matvis/astro ./matvis/input'),
 ('c04-xp-interp', 'matvis/astro/c04.go', 'XpArcsec:       t.XpArcsec[i-1] + f*(t.XpArcsec[i]-t.XpArcsec[i-1]),', 'XpArcsec:       t.XpArcsec[i-1],', './matvis/astro ./matvis/input'),
 ('eop-at-leap', 'matvis/astro/eop.go', '	du -= math.Round(du)\n', '', './matvis/astro ./matvis/input'),
 ('eop-at-predicted', 'matvis/astro/eop.go', 'predicted = t.Predicted[i-1] || t.Predicted[i]', 'predicted = t.Predicted[i]', './matvis/astro ./matvis/input'),
 ('eop-at-first', 'matvis/astro/eop.go', 'if mjd < t.MJD[0] || mjd > t.MJD[n-1] {', 'if mjd <= t.MJD[0] || mjd > t.MJD[n-1] {', './matvis/astro ./matvis/input'),
 ('eop-dup-mjd', 'matvis/astro/eop.go', 'mjd <= t.MJD[n-1] {', 'mjd < t.MJD[n-1] {', './matvis/astro ./matvis/input'),
 ('eop-ut1-range', 'matvis/astro/eop.go', 'if math.Abs(u) > eopMaxUT1UTCs {', 'if math.Abs(u) > 2*eopMaxUT1UTCs {', './matvis/astro ./matvis/input'),
 ('eopjson-tol', 'matvis/input/eopfile.go', 'const tol = 1e-3 / 86400 // days', 'const tol = 1e-1 / 86400 // days', './matvis/input'),
 ('eopjson-onesided', 'matvis/input/eopfile.go', 'if math.Abs(*e.JD-jd) <= tol {', 'if math.Abs(*e.JD-jd) <= tol || *e.JD < jd {', './matvis/input'),
 ('eopjson-required', 'matvis/input/eopfile.go', 'if e.JD == nil || e.DUT1 == nil {', 'if e.JD == nil {', './matvis/input'),
 ('eopc04-outside', 'matvis/input/eopfile.go', 'if err == nil && !ok {', 'if err == nil && !ok && false {', './matvis/input'),
 ('eop-builtin-warn', 'matvis/input/eopfile.go', 'if outside > 0 && warn != nil {', 'if outside > 1 && warn != nil {', './matvis/input'),
 ('pole-asked', 'matvis/input/beaminterp.go', '	case asked != "":\n		return asked', '	case asked == "x":\n		return asked', './matvis/input ./matvis'),
 ('pole-unpolarized', 'matvis/input/beaminterp.go', 'case polarizedSky && matvis.EffectiveRotation(rot) == matvis.RotationIAU:', 'case matvis.EffectiveRotation(rot) == matvis.RotationIAU:', './matvis/input ./matvis'),
 ('pole-any-rotation', 'matvis/input/beaminterp.go', 'case polarizedSky && matvis.EffectiveRotation(rot) == matvis.RotationIAU:', 'case polarizedSky:', './matvis/input ./matvis'),
 ('interp-diag-wrapper', 'matvis/input/beaminterp.go', '		g.Beam = inner\n', '		_ = inner\n', './matvis/input ./matvis'),
 ('interp-kinds-diag', 'matvis/input/beaminterp.go', '		if d, ok := b.(beam.DiagonalJones); ok {\n			b = d.Beam', '		if d, ok := b.(beam.DiagonalJones); ok && false {\n			b = d.Beam', './matvis/input ./matvis'),
 ('pole-diag-wrapper', 'matvis/input/beaminterp.go', '		inner, err := withPole(g.Beam, kind)\n		if err != nil {\n			return nil, err\n		}\n		g.Beam = inner', '		inner, err := withPole(g.Beam, kind)\n		if err != nil {\n			return nil, err\n		}\n		_ = inner', './matvis/input ./matvis'),
 ('gridded-pole-diag', 'matvis/input/beaminterp.go', '			b = d.Beam\n		}\n		g, ok := b.(*beam.Gridded)\n		if !ok {\n			continue', '			_ = d\n		}\n		g, ok := b.(*beam.Gridded)\n		if !ok {\n			continue', './matvis/input ./matvis'),
 ('azza-za4', 'matvis/beam/azzasimple.go', 'if len(za) < 4 {', 'if len(za) < 3 {', './matvis/beam'),
 ('azza-az4-wrap', 'matvis/beam/azzasimple.go', 'if !g.Wraps() && len(az) < 4 {', 'if len(az) < 4 {', './matvis/beam'),
 ('azza-even-tol', 'matvis/beam/azzasimple.go', 'math.Abs(s-d) > azZaUniformTol*d', 'math.Abs(s-d) > 1e-3*d', './matvis/beam'),
 ('azza-basis', 'matvis/beam/azzasimple.go', 'func(x float64) bool { return x > 0 })', 'func(x float64) bool { return x > 1 })', './matvis/beam'),
 ('azza-wrap-start', 'matvis/beam/azzasimple.go', 'if g.Wraps() && math.Abs(az[0]) > azZaUniformTol*(az[1]-az[0]) {', 'if false && math.Abs(az[0]) > azZaUniformTol*(az[1]-az[0]) {', './matvis/beam'),
 ('azza-nodedist-lo', 'matvis/beam/azzasimple.go', '		return float64(lo) - c\n', '		return 0\n', './matvis/beam'),
 ('azza-nodedist-hi', 'matvis/beam/azzasimple.go', '		return c - float64(hi)\n', '		return 0\n', './matvis/beam'),
 ('azza-clamp', 'matvis/beam/azzasimple.go', 'c = max(float64(e), min(c, float64(n-1-e)))', 'c = max(0, min(c, float64(n-1)))', './matvis/beam'),
 ('azza-cover', 'matvis/beam/gridresp.go', 'pg.CoverRad = 2 * max(az[1]-az[0], za[1]-za[0])', 'pg.CoverRad = 3 * max(az[1]-az[0], za[1]-za[0])', './matvis/beam'),
 ('azza-cover-min', 'matvis/beam/gridresp.go', 'pg.CoverRad = 2 * max(az[1]-az[0], za[1]-za[0])', 'pg.CoverRad = 2 * min(az[1]-az[0], za[1]-za[0])', './matvis/beam'),
 ('wraps-inclusive', 'matvis/beam/gridded.go', 'return math.Abs(length-2*math.Pi) <= d+1e-5*2*math.Pi', 'return math.Abs(length-2*math.Pi) <= 1e-5*2*math.Pi', './matvis/beam'),
 ('azza-notaknot', 'matvis/beam/azzasimple.go', 'c1[k] = (8*y1[k] - y0[k] - y2[k]) / 6', 'c1[k] = (8*y1[k] - y0[k] - y2[k]) / 4', './matvis/beam'),
 ('uvfits-bl-255', 'uvfits/writer.go', 'if h.Ant1[i] >= 255 || h.Ant2[i] >= 255 {', 'if h.Ant1[i] > 255 || h.Ant2[i] > 255 {', './uvfits'),
 ('uvfits-bl-ant2', 'uvfits/writer.go', 'if h.Ant1[i] >= 255 || h.Ant2[i] >= 255 {', 'if h.Ant1[i] >= 255 {', './uvfits'),
 ('uvfits-bl-offset', 'uvfits/writer.go', 'float64(256*h.Ant1[r] + h.Ant2[r])', 'float64(256*h.Ant1[r] + h.Ant2[r] + 1)', './uvfits ./matvis/uvdata'),
 ('uvfits-split-lo', 'uvfits/writer.go', '	return a, float64(float32(x - a))', '	return a, 0', './uvfits ./matvis/uvdata'),
 ('uvfits-jdmid', 'uvfits/writer.go', 'w.jdMid = math.Floor(h.Times[0]-0.5) + 0.5', 'w.jdMid = math.Floor(h.Times[0])', './uvfits ./matvis/uvdata'),
 ('uvfits-su-name', 'uvfits/writer.go', 'if len(pc.Name) > 20 {', 'if len(pc.Name) > 21 {', './uvfits'),
 ('uvfits-su-epoch', 'uvfits/writer.go', '		epoch = 2000\n', '		epoch = 1950\n', './uvfits ./matvis/uvdata'),
 ('uvfits-su-restfreq', 'uvfits/writer.go', '	mean /= float64(len(h.Freqs))\n', '', './uvfits ./matvis/uvdata'),
 ('uvfits-su-raepo', 'uvfits/writer.go', 'one(pc.RADeg)', 'one(pc.AppRADeg)', './uvfits ./matvis/uvdata'),
 ('uvdata-su-appra', 'matvis/uvdata/uvfits.go', 'AppRADeg: lst, AppDecDeg: l.Site.LatDeg}', 'AppRADeg: ra * 180 / math.Pi + 0*lst, AppDecDeg: l.Site.LatDeg}', './matvis/uvdata'),
 ('uvdata-su-appdec', 'matvis/uvdata/uvfits.go', 'AppRADeg: lst, AppDecDeg: l.Site.LatDeg}', 'AppRADeg: lst, AppDecDeg: dec * 180 / math.Pi}', './matvis/uvdata'),
 ('uvdata-zenith-wrap', 'matvis/uvdata/uvfits.go', 'return math.Mod(ra+2*math.Pi, 2*math.Pi), dec, nil', 'return ra, dec, nil', './matvis/uvdata'),
 ('late-bound', 'matvis/lateresult.go', 'if len(l.held) >= l.maxHeld {', 'if len(l.held) > l.maxHeld {', './matvis'),
 ('late-maxheld', 'matvis/lateresult.go', 'min(sim.OutputBytes()/4, 512<<20)', 'min(sim.OutputBytes(), 512<<20)', './matvis'),
 ('late-offset', 'matvis/lateresult.go', 'return (f*l.res.Shape[1] + t) * l.perIntegration', 'return (t*l.res.Shape[0] + f) * l.perIntegration', './matvis'),
 ('late-freq-bound', 'matvis/lateresult.go', 'f < 0 || f >= r.Shape[0]', 'f < 0 || f > r.Shape[0]', './matvis'),
 ('late-nonfinite', 'matvis/lateresult.go', 'if bad := firstNonFinite(v); bad >= 0 {', 'if bad := firstNonFinite(v); bad >= 1<<30 {', './matvis'),
 ('late-out-storage', 'matvis/lateresult.go', 'if !background || sim.out != nil {', 'if !background {', './matvis'),
 ('late-flush-none', 'matvis/lateresult.go', '	l.flush(-1)\n	l.held = nil', '	l.flush(1)\n	l.held = nil', './matvis'),
]
s3=[
 # session 2026-12-07 b: this session's newest code (git log e0a3f9c..), written for --s3
 # internal/membudget
 ('mb-budget-max', 'internal/membudget/membudget.go', 'if !ok || l.Bytes < b.Bytes {', 'if !ok || l.Bytes > b.Bytes {', './internal/membudget'),
 ('mb-memavail-kb', 'internal/membudget/membudget.go', '	return kb * 1024, nil\n', '	return kb * 1000, nil\n', './internal/membudget'),
 ('mb-rlimit-inf', 'internal/membudget/membudget.go', 'if err != nil || lim >= math.MaxInt64 {', 'if err != nil || lim >= math.MaxInt64 && false {', './internal/membudget'),
 ('mb-vmsize-add', 'internal/membudget/membudget.go', '			left -= kb * 1024', '			left += kb * 1024', './internal/membudget'),
 ('mb-vmsize-key', 'internal/membudget/membudget.go', '"VmSize:"', '"VmRSS:"', './internal/membudget'),
 ('mb-cg-nested-max', 'internal/membudget/membudget.go', 'if has && (!ok || a < avail) {', 'if has && (!ok || a > avail) {', './internal/membudget'),
 ('mb-cg-max-unlimited', 'internal/membudget/membudget.go', 'if err != nil || limit <= 0 || limit >= 1<<60 {', 'if err != nil || limit <= 0 {', './internal/membudget'),
 ('mb-cg-inactive', 'internal/membudget/membudget.go', '	used -= statValue(filepath.Join(dir, "memory.stat"), inactiveKey)\n', '', './internal/membudget'),
 ('mb-cg-v1-key', 'internal/membudget/membudget.go', '"memory.usage_in_bytes", "total_inactive_file"', '"memory.usage_in_bytes", "inactive_file"', './internal/membudget'),
 ('mb-cg-v2-line', 'internal/membudget/membudget.go', 'case parts[0] == "0" && parts[1] == "":', 'case parts[1] == "":', './internal/membudget'),
 ('mb-ancestors-self', 'internal/membudget/membudget.go', '		dirs = append(dirs, filepath.Join(root, rel))\n		if rel == "/" {', '		if rel == "/" {', './internal/membudget'),
 ('mb-check-le', 'internal/membudget/check.go', '	if need <= b.Bytes {', '	if need < b.Bytes {', './internal/membudget'),
 ('mb-mul-zero', 'internal/membudget/check.go', '		if x <= 0 {\n			return 0', '		if x <= 0 {\n			continue', './internal/membudget'),
 ('mb-add-sat', 'internal/membudget/check.go', '		if s > math.MaxInt64-x {', '		if s > math.MaxInt64-x-1<<62 {', './internal/membudget'),
 ('mb-advice-as', 'internal/membudget/check.go', '} else if b.From == FromAddressSpace {', '} else if b.From == FromCgroup {', './internal/membudget'),
 ('mb-format-gb', 'internal/membudget/check.go', '		return fmt.Sprintf("%.3g GB", v/1e9)', '		return fmt.Sprintf("%.3g GB", v/(1<<30))', './internal/membudget'),
 # internal/choicecache lock
 ('cc-lock-wait-ok', 'internal/choicecache/lock.go', '			f.Close()\n			return noop, false', '			f.Close()\n			return noop, true', './internal/choicecache'),
 ('cc-lock-key-hash', 'internal/choicecache/lock.go', '	h.Write([]byte(key))\n', '	h.Write([]byte(path))\n', './internal/choicecache'),
 ('cc-lock-busy-taken', 'internal/choicecache/lock_unix.go', '			return lockBusy', '			return lockTaken', './internal/choicecache'),
 # internal/inputfile, atomicfile
 ('if-check-regular', 'internal/inputfile/inputfile.go', '	return checkRegular(path, fi)\n}', '	return func(error) error { return nil }(checkRegular(path, fi))\n}', './internal/inputfile'),
 ('af-synctree-skipdirs', 'internal/atomicfile/synctree.go', '		if !d.IsDir() && !d.Type().IsRegular() {', '		if !d.Type().IsRegular() {', './internal/atomicfile'),
 ('af-synctree-err', 'internal/atomicfile/synctree.go', '		if err != nil {\n			return err\n		}\n		if !d.IsDir()', '		if err != nil {\n			return nil\n		}\n		if !d.IsDir()', './internal/atomicfile'),
 # matvis/astro
 ('site-lat-90', 'matvis/astro/site.go', 'math.Abs(s.LatDeg) > 90:', 'math.Abs(s.LatDeg) > 91:', './matvis/astro'),
 ('site-lon-360', 'matvis/astro/site.go', 'math.Abs(s.LonDeg) > 360:', 'math.Abs(s.LonDeg) > 720:', './matvis/astro'),
 ('site-height-finite', 'matvis/astro/site.go', '	case !finite(s.HeightM):', '	case false:', './matvis/astro'),
 ('site-rmin', 'matvis/astro/site.go', 'MinSiteRadiusM = 6.35e6', 'MinSiteRadiusM = 6.30e6', './matvis/astro'),
 ('site-range-swap', 'matvis/astro/site.go', '			if radius(m) < target {', '			if radius(m) > target {', './matvis/astro'),
 ('site-range-ceil', 'matvis/astro/site.go', 'lo, hi = math.Ceil(solve(MinSiteRadiusM)), math.Floor(solve(MaxSiteRadiusM))', 'lo, hi = math.Floor(solve(MinSiteRadiusM)), math.Floor(solve(MaxSiteRadiusM))', './matvis/astro'),
 ('site-range-lo1', 'matvis/astro/site.go', 'lo, hi = math.Ceil(solve(MinSiteRadiusM)), math.Floor(solve(MaxSiteRadiusM))', 'lo, hi = math.Ceil(solve(MinSiteRadiusM))+1, math.Floor(solve(MaxSiteRadiusM))', './matvis/astro'),
 ('eop-cut-ge', 'matvis/astro/eop.go', 'if len(line) >= f.a && len(line) < f.b && field(line, f.a, f.b) != "" {', 'if len(line) > f.a && len(line) < f.b && field(line, f.a, f.b) != "" {', './matvis/astro'),
 ('eop-cut-ut1b', 'matvis/astro/eop.go', '{155, 165, "Bulletin B UT1-UTC"}', '{155, 164, "Bulletin B UT1-UTC"}', './matvis/astro'),
 ('eop-dup-same-y', 'matvis/astro/eop.go', 'if x == t.XpArcsec[n-1] && y == t.YpArcsec[n-1] && u == t.UT1MinusUTC[n-1] {', 'if x == t.XpArcsec[n-1] && u == t.UT1MinusUTC[n-1] {', './matvis/astro'),
 ('eop-dup-lastline', 'matvis/astro/eop.go', '	r.lastLine = lineNo\n', '', './matvis/astro'),
 # uvfits strings
 ('uvf-print-127', 'uvfits/strings.go', 'if b := v[i]; b >= 32 && b <= 126 {', 'if b := v[i]; b >= 32 && b <= 127 {', './uvfits'),
 ('uvf-print-byteidx', 'uvfits/strings.go', 'at byte %d is not printable ASCII, and FITS headers and character columns hold only ASCII 32–126: write it in ASCII", desc, i+1)', 'at byte %d is not printable ASCII, and FITS headers and character columns hold only ASCII 32–126: write it in ASCII", desc, i)', './uvfits'),
 ('uvf-quote-count', 'uvfits/strings.go', 'q := strings.ReplaceAll(v, "\'", "\'\'")', 'q := v', './uvfits'),
 ('uvf-cont-amp-room', 'uvfits/strings.go', 'n := min(len(q), maxCardString-1)', 'n := min(len(q), maxCardString)', './uvfits'),
 ('uvf-cont-trailing-amp', 'uvfits/strings.go', 'if q == "" && amp != "" {', 'if q == "" && amp == "" {', './uvfits'),
 ('uvf-astropy-slash', 'uvfits/strings.go', '		if j < len(v) && v[j] == \'/\' {', '		if j < len(v) && v[j] == \'/\' && j == i+1 {', './uvfits'),
 ('uvf-keyword-len', 'uvfits/writer.go', 'if len(k) == 0 || len(k) > 8 {', 'if len(k) == 0 || len(k) > 9 {', './uvfits'),
 ('uvf-keyword-lower', 'uvfits/writer.go', "if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {", "if !(r >= 'A' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {", './uvfits'),
 ('uvf-bunit-long', 'uvfits/writer.go', 'sc.add("BUNIT", "the visibility units", h.VisUnits, false)', 'sc.add("BUNIT", "the visibility units", h.VisUnits, true)', './uvfits'),
 ('uvf-anname-check', 'uvfits/writer.go', '		if err := checkPrintable("ANNAME", fmt.Sprintf("antenna %d\'s name", h.AntennaNumbers[i]), h.AntennaNames[i]); err != nil {\n			return nil, err', '		if err := checkPrintable("ANNAME", fmt.Sprintf("antenna %d\'s name", h.AntennaNumbers[i]), h.AntennaNames[i]); err != nil && false {\n			return nil, err', './uvfits'),
 ('uvf-history-escape-note', 'uvfits/fits.go', '		escaped = escaped || e != line', '		escaped = escaped && e != line', './uvfits'),
 ('uvf-escape-byte', 'uvfits/fits.go', '			fmt.Fprintf(&b, "\\\\x%02x", s[i])', '			fmt.Fprintf(&b, "\\\\x%02X", s[i])', './uvfits'),
 # uvh5
 # matvis/phase
 ('ph-reseed-15', 'matvis/phase/phase.go', 'const reseed = 16', 'const reseed = 1 << 30', './matvis/phase'),
 ('ph-step-df', 'matvis/phase/phase.go', '	step := WTerm(w, df)\n', '	step := WTerm(w, -df)\n', './matvis/phase'),
 ('ph-seed-offby1', 'matvis/phase/phase.go', '		for c := s + 1; c < min(len(freqs), s+reseed); c++ {', '		for c := s + 1; c < min(len(freqs), s+reseed+1); c++ {', './matvis/phase'),
 ('ph-spacing-3', 'matvis/phase/phase.go', '	if len(freqs) < 3 {\n		return 0', '	if len(freqs) < 2 {\n		return 0', './matvis/phase'),
 ('ph-spacing-tol', 'matvis/phase/phase.go', 'if math.Abs(f-(freqs[s]+float64(c-s)*df)) > 4*ulp(f) {', 'if math.Abs(f-(freqs[s]+float64(c-s)*df)) > 4e-3*f {', './matvis/phase'),
 ('ph-mulrow-npol', 'matvis/phase/phase.go', '			row[c*npol+p] *= f', '			row[c+p*len(ph)] *= f', './matvis/phase'),
 ('ph-mulrowto-npol1', 'matvis/phase/phase.go', '			dst[c] = complex64(row[c] * f)', '			dst[c] = complex64(row[c] / f)', './matvis/phase'),
 ('ph-applyto-len', 'matvis/phase/phase.go', '	if len(dst) != len(vis) {', '	if len(dst) < len(vis) && false {', './matvis/phase'),
 # internal/casatable
 ('ct-complex-swap', 'internal/casatable/table.go', 'uint64(re)<<32|uint64(im)', 'uint64(im)<<32|uint64(re)', './internal/casatable ./ms'),
 ('ct-bool-lsb', 'internal/casatable/table.go', '				x |= 1 << j', '				x |= 0x80 >> j', './internal/casatable ./ms'),
 ('ct-bool-cell-room', 'internal/casatable/table.go', '(cell != 0 && cell-s.cellBits < 8)', '(cell != 0 && cell-s.cellBits < 7)', './internal/casatable ./ms'),
 ('ct-bool-endcell', 'internal/casatable/table.go', '		if s.nbits == 8 || endCell {', '		if s.nbits == 8 {', './internal/casatable ./ms'),
 # matvis/skymodel
 ('sky-mjy', 'matvis/skymodel/text.go', '{"mJy", 1e-3}', '{"mJy", 1e3}', './matvis/skymodel'),
 ('sky-khz', 'matvis/skymodel/text.go', '{"kHz", 1e3}', '{"kHz", 1e-3}', './matvis/skymodel'),
 ('sky-ujy', 'matvis/skymodel/text.go', '{"uJy", 1e-6}', '{"uJy", 1e-3}', './matvis/skymodel'),
 ('sky-coord-cols', 'matvis/skymodel/text.go', '		case k <= 2:', '		case k <= 1:', './matvis/skymodel'),
 ('sky-flux-units-differ', 'matvis/skymodel/text.go', 'if fluxUnitCol >= 0 && scale != lay.flux.scale {', 'if fluxUnitCol > 0 && scale != lay.flux.scale {', './matvis/skymodel'),
 ('sky-reffreq-scale', 'matvis/skymodel/text.go', '		ref[i] *= lay.refScale', '		ref[i] /= lay.refScale', './matvis/skymodel'),
 ('sky-two-units', 'matvis/skymodel/text.go', '		case units[len(units)-1] != "":', '		case false:', './matvis/skymodel'),
 ('sky-hpx-dup-bit', 'matvis/skymodel/skyh5.go', 'w, b := int64(p)/64, uint64(1)<<(int64(p)%64)', 'w, b := int64(p)/64, uint64(1)<<(int64(p)%63)', './matvis/skymodel'),
 ('sky-hpx-dup-sorted', 'matvis/skymodel/skyh5.go', '		sorted = inds[k] > inds[k-1]', '		sorted = inds[k] >= inds[k-1]', './matvis/skymodel'),
 ('sky-hpx-dup-j', 'matvis/skymodel/skyh5.go', '	j = i + 1 + slices.Index(inds[i+1:], dup)', '	j = i + slices.Index(inds[i+1:], dup)', './matvis/skymodel'),
 ('sky-hpx-dup-sortpath', 'matvis/skymodel/skyh5.go', '			if c[k] == c[k-1] {', '			if c[k] == c[k-1] && k > 1 {', './matvis/skymodel'),
 ('sky-dec-range', 'matvis/skymodel/skyh5.go', 'if !finite(c.Dec[i]) || math.Abs(c.Dec[i]) > math.Pi/2 {', 'if !finite(c.Dec[i]) || math.Abs(c.Dec[i]) > math.Pi {', './matvis/skymodel'),
 ('sky-size-stokes4', 'matvis/skymodel/skysize.go', 'Bytes: membudget.Mul(4, nf, n, 8)}', 'Bytes: membudget.Mul(nf, n, 8)}', './matvis/skymodel'),
 ('sky-size-reading', 'matvis/skymodel/skysize.go', 'Size: "the stored bytes and the collector\'s headroom: as much again", Bytes: arrays}', 'Size: "the stored bytes and the collector\'s headroom: as much again", Bytes: arrays / 2}', './matvis/skymodel'),
 ('sky-size-names16', 'matvis/skymodel/skysize.go', 'Bytes: membudget.Mul(n, 16+nameBytes)}', 'Bytes: membudget.Mul(n, nameBytes)}', './matvis/skymodel'),
 ('sky-logs-reuse', 'matvis/skymodel/sky.go', '		if i > 0 && v == f[i-1] {', '		if i > 0 {', './matvis/skymodel'),
 # matvis/obsparam
 ('op-repeat-eq', 'matvis/obsparam/axis.go', '		case v[i] == v[i-1]:', '		case v[i] == v[i-1] && i > 1:', './matvis/obsparam'),
 ('op-decreasing', 'matvis/obsparam/axis.go', '		case !(v[i] > v[i-1]):', '		case v[i] < v[i-1] && i > 1:', './matvis/obsparam'),
 ('op-tofine-days', 'matvis/obsparam/axis.go', '			shown, unit = tol*86400, "s"', '			shown, unit = tol*3600, "s"', './matvis/obsparam'),
 ('op-empty-select', 'matvis/obsparam/selectord.go', '	if err == nil && len(items) == 0 {', '	if err == nil && len(items) < 0 {', './matvis/obsparam'),
 ('op-autos', 'matvis/obsparam/selectord.go', '		for j := i; j < len(ants); j++ {\n			fn([2]int{ants[i].Number, ants[j].Number})', '		for j := i + 1; j < len(ants); j++ {\n			fn([2]int{ants[i].Number, ants[j].Number})', './matvis/obsparam'),
 ('op-count-kept', 'matvis/obsparam/selectord.go', '		candidates++\n		if keep(p) {', '		candidates++\n		if keep(p) || p[0] == p[1] {', './matvis/obsparam'),
 ('op-abs-outfile', 'matvis/obsparam/filing.go', '	if filepath.IsAbs(f.baseName()) {', '	if !filepath.IsAbs(f.baseName()) && false {', './matvis/obsparam'),
 ('op-bom', 'matvis/obsparam/layout.go', '	data = bytes.TrimPrefix(data, []byte("\\ufeff"))\n', '	data = bytes.TrimPrefix(data, []byte("\\ufffe"))\n', './matvis/obsparam'),
 ('op-utf8-bytepos', 'matvis/obsparam/layout.go', 'not UTF-8: save the file as UTF-8 (%s)", l[k], k+1, why)}', 'not UTF-8: save the file as UTF-8 (%s)", l[k], k, why)}', './matvis/obsparam'),
 ('op-enu-bound', 'matvis/obsparam/layout.go', '		if math.Abs(row.ENU[k]) >= simspec.MaxAntennaOffsetM {', '		if row.ENU[k] >= simspec.MaxAntennaOffsetM {', './matvis/obsparam'),
 # matvis/simspec
 ('ss-dec-19', 'internal/fastfloat/decimal.go', '	for n < 19 && i < len(d) && d[i]-\'0\' < 10 {', '	for n < 20 && i < len(d) && d[i]-\'0\' < 10 {', './internal/fastfloat ./matvis/simspec'),
 ('ss-dec-exact', 'internal/fastfloat/decimal.go', '	if i < len(d) && d[i]-\'0\' < 10 {\n		x.Exact = false', '	if i < len(d)-1 && d[i]-\'0\' < 10 {\n		x.Exact = false', './internal/fastfloat ./matvis/simspec'),
 ('ss-dec-exp', 'internal/fastfloat/decimal.go', '		x.Exp10 -= taken', '		x.Exp10 -= taken / 2', './internal/fastfloat ./matvis/simspec'),
 # matvis/beam/beamfits
 ('bf-size-pixels', 'matvis/beam/beamfits/size.go', 'pixels := data / max(bitpix, -bitpix) * 8', 'pixels := data / max(bitpix, -bitpix)', './matvis/beam/beamfits'),
 ('bf-card-127', 'matvis/beam/beamfits/fitsbounds.go', '		if b < 32 || b > 126 {', '		if b < 32 || b > 127 {', './matvis/beam/beamfits'),
 ('bf-second-header', 'matvis/beam/beamfits/fitsbounds.go', 'if ok && h.kind != "" && (name == "SIMPLE" || name == "XTENSION") {', 'if ok && h.kind != "" && name == "SIMPLE" {', './matvis/beam/beamfits'),
 # ms (WriteRows streaming, pieces), internal/casatable via ms
 ('ms-piece-per', 'ms/uvh5.go', '	per := max(1, d.piece/nv)', '	per := max(1, d.piece/nv+1)', './ms'),
 ('ms-row-advance', 'ms/uvh5.go', '	d.row += n\n', '	d.row += n - 1\n', './ms'),
 ('ms-row-next', 'ms/uvh5.go', 'case k0 != d.row || k0+n > nb || len(b.Ant2) != n:', 'case k0+n > nb || len(b.Ant2) != n:', './ms'),
 ('ms-piece-rowindex', 'ms/uvh5.go', '	return w.WriteRows(d.next*w.h.Baselines+k0, out)', '	return w.WriteRows(d.next*w.h.Baselines, out)', './ms'),
 ('ms-flagrow', 'ms/writer.go', 'sc.flagRow[k] = !slices.Contains(flags[k*nf*np:(k+1)*nf*np], false)', 'sc.flagRow[k] = slices.Contains(flags[k*nf*np:(k+1)*nf*np], true)', './ms'),
 ('ms-order-flags', 'ms/writer.go', '				sc.flags[i+j] = b.Flags != nil && b.Flags[i+p]', '				sc.flags[i+j] = b.Flags != nil && b.Flags[i+j]', './ms'),
 # matvis/simspec parallel reads
 ('ss-par-rowlen', 'matvis/simspec/parallel.go', '		if !good[k] || lens[k] != lens[0] {', '		if !good[k] {', './matvis/simspec'),
 ('ss-par-comma', 'matvis/simspec/parallel.go', '		offs[k+1] = offs[k] + bytes.Count(piece, []byte{\',\'}) + 1', '		offs[k+1] = offs[k] + bytes.Count(piece, []byte{\',\'})', './matvis/simspec'),
 ('ss-par-nested', 'matvis/simspec/parallel.go', 'if !a.nested || bytes.HasSuffix(bytes.TrimRight(a.text[:c], " \\t\\r\\n"), []byte("]")) {', 'if true {', './matvis/simspec'),
 # plots.SkyImage, notebooks/skyview
 ('plots-sky-increase', 'plots/sky.go', '			if !(a[i] > a[i-1]) {', '			if a[i] < a[i-1] {', './plots'),
 ('plots-sky-mark-extent', 'plots/sky.go', 'hx, hy := (d.X[1]-d.X[0])/2, (d.Y[1]-d.Y[0])/2\n	var pts', 'hx, hy := (d.X[1]-d.X[0])/2, (d.X[1]-d.X[0])/2\n	var pts', './plots'),
 ('plots-sky-flat', 'plots/sky.go', '		pal.SetMin(lo - 1)', '		pal.SetMin(lo)', './plots'),
 ('skyview-nant', 'notebooks/skyview/skyview.go', '		if ij[0] < nant && ij[1] < nant {', '		if ij[0] < nant || ij[1] < nant {', './notebooks/skyview'),
 ('skyview-times-mid', 'notebooks/skyview/skyview.go', '			off = spanMin * (float64(i)/float64(n-1) - 0.5)', '			off = spanMin * float64(i) / float64(n-1)', './notebooks/skyview'),
 ('skyview-check-nant', 'notebooks/skyview/skyview.go', '	case s.NAnt < 2 || s.NAnt > e.scene.MaxAnt:', '	case s.NAnt < 1 || s.NAnt > e.scene.MaxAnt:', './notebooks/skyview'),
 ('skyview-nocache', 'notebooks/skyview/skyview.go', '	if p == nil || e.NoCache {', '	if p == nil {', './notebooks/skyview'),
 ('uvh5-utf8-antnames', 'uvh5/header.go', '		if !utf8.ValidString(n) {', '		if !utf8.ValidString(n) && i > 0 {', './uvh5'),
]

# Session 2026-12-07 c: the code landed this session (the flux pass, the
# block sizer, the output opened while computing, simspec's UTF-8, h5read's
# unsupported forms, SkyH5 links); run with --s4.
s4=[
 ('flux-max-assign', 'matvis/spectrum.go', '		m = max(m, pm)\n', '		m = pm\n', './matvis'),
 ('flux-bad-order', 'matvis/spectrum.go', 'if pbad >= 0 && (bad < 0 || pbad < bad) {', 'if pbad >= 0 && (bad < 0 || pbad > bad) {', './matvis'),
 ('flux-negative', 'matvis/spectrum.go', 'if s.Sky != nil && (!finite(v) || v < 0) {', 'if s.Sky != nil && !finite(v) {', './matvis'),
 ('flux-table-gather', 'matvis/spectrum.go', '				dst[src] = s.Flux[src*nfreq+fi] // New checked the table', '				dst[src] = s.Flux[src*nfreq] // New checked the table', './matvis'),
 ('sizer-max', 'matvis/output/plan.go', '		limit = max(limit, bs.BlockBytes())', '		limit = bs.BlockBytes()', './matvis/output'),
 ('sizer-cap', 'matvis/output/plan.go', '	return max(min(usable/3, limit), 1)', '	return max(min(usable/3, DefaultBlockBytes), 1)', './matvis/output ./cmd/gomatvis'),
 ('async-partial-err', 'matvis/output/opening.go', '	if err != nil {\n		return Kept{}, nil\n	}', '	if err != nil {\n		return Kept{}, err\n	}', './matvis/output'),
 ('async-abort-err', 'matvis/output/opening.go', '	if err != nil {\n		return nil\n	}\n	return w.Abort()', '	if err != nil {\n		return err\n	}\n	return w.Abort()', './matvis/output'),
 ('async-summarize', 'matvis/output/opening.go', '			sw.Summarize(s)', '			_ = sw', './matvis/output ./cmd/gomatvis'),
 ('async-write-swallow', 'matvis/output/opening.go', '	w, err := o.opened()\n	if err != nil {\n		return err\n	}\n	return w.WriteBlock(b, res)', '	w, _ := o.opened()\n	if w == nil {\n		return nil\n	}\n	return w.WriteBlock(b, res)', './matvis/output'),
 ('utf8-runelen', 'matvis/simspec/parse.go', 'if r == utf8.RuneError && n == 1 {', 'if r == utf8.RuneError && n == 3 {', './matvis/simspec'),
 ('utf8-explain', 'matvis/simspec/simspec.go', '	if pe.notUTF8 {', '	if false && pe.notUTF8 {', './matvis/simspec'),
 ('utf8-offset', 'matvis/simspec/parse.go', '				off := start + 1 + bad', '				off := start + bad', './matvis/simspec'),
 ('h5-unsupported-dense', 'internal/h5read/group.go', "written with h5py's libver='latest'): %w\", ErrUnsupported)", "written with h5py's libver='latest'): %v\", ErrUnsupported)", './internal/h5read ./matvis/skymodel'),
 ('skyh5-unsupported-branch', 'matvis/skymodel/h5util.go', '	case errors.Is(err, h5read.ErrUnsupported):', '	case false:', './matvis/skymodel'),
 ('skyh5-link-group', 'matvis/skymodel/skyh5.go', '			if desc, ok := h.f.Link(p); ok {', '			if desc, ok := h.f.Link(p); ok && p != "/Header/skycoord" {', './matvis/skymodel'),
]
# Session 2026-12-07 d: the code landed this session that runs without a
# device (simspec's eight-digit reads, the writer's time and bytes,
# --block, the coordinates made ahead); run with --s5. The kept transform
# (matvis/gpu/nufft_keep.go) is tested on a device only, by
# TestKeptTransformAcrossBlocks.
s5=[
 ('eight-check', 'internal/fastfloat/decimal.go', '== 0x3333333333333333', '== 0x3333333333333330', './internal/fastfloat ./matvis/simspec'),
 ('eight-pairs', 'internal/fastfloat/decimal.go', '	v = v*10 + v>>8 // pairs', '	v = v*10 + v>>4 // pairs', './internal/fastfloat ./matvis/simspec'),
 ('eight-fours', 'internal/fastfloat/decimal.go', '(100+1000000<<32)', '(100+100000<<32)', './internal/fastfloat ./matvis/simspec'),
 ('run-limit', 'internal/fastfloat/decimal.go', '	for n <= 19-8 && i+8 <= len(d) {', '	for n <= 19-7 && i+8 <= len(d) {', './internal/fastfloat ./matvis/simspec'),
 ('run-taken', 'internal/fastfloat/decimal.go', '	taken := i - s\n', '	taken := i - s - 1\n', './internal/fastfloat ./matvis/simspec'),
 ('run-inexact', 'internal/fastfloat/decimal.go', '		x.Exact = false\n		for i < len(d)', '		for i < len(d)', './internal/fastfloat ./matvis/simspec'),
 ('run-zeros', 'internal/fastfloat/decimal.go', '	if x.Man == 0 {\n		for i < len(d) && d[i] == \'0\' {', '	if x.Man == 1 {\n		for i < len(d) && d[i] == \'0\' {', './internal/fastfloat ./matvis/simspec'),
 ('written-bytes', 'matvis/output/run.go', '			r.sum.Written += int64(j.b.Size()) * per', '			r.sum.Written += per', './matvis/output'),
 ('block-flag', 'cmd/gomatvis/simulate.go', '	if asked > 0 {', '	if asked > 1 {', './cmd/gomatvis'),
 ('block-flag-shard', 'cmd/gomatvis/shardrun.go', 'blockBudget(sub, be, j.block)', 'blockBudget(sub, be, 0)', './cmd/gomatvis'),
 ('ahead-bytes', 'matvis/output/run.go', '	if int64(next.NTime())*int64(r.sim.NSrc())*24 > maxAheadBytes {', '	if int64(next.NTime())*int64(r.sim.NSrc())*24 < maxAheadBytes {', './matvis/output'),
 ('ahead-current', 'matvis/output/run.go', '			if t < b.T0 || t >= b.T1 {', '			if true {', './matvis/output'),
 ('ahead-once', 'matvis/output/run.go', '				ahead()\n				ahead = nil', '				ahead()', './matvis/output'),
 ('ahead-window', 'matvis/subset.go', '		PrefetchENU(ctx, w.c, w.t0+ti)', '		PrefetchENU(ctx, w.c, ti)', './matvis'),
 ('astro-take-copy', 'matvis/astro/ahead.go', '		copy(up[lo:hi], j.u[lo:hi])', '		copy(up[lo:hi], j.n[lo:hi])', './matvis/astro'),
 ('astro-take-delete', 'matvis/astro/ahead.go', '	delete(a.jobs, ti)\n', '', './matvis/astro'),
 ('astro-take-stopped', 'matvis/astro/ahead.go', '	if j.err != nil {\n		return false, nil\n	}', '	if j.err != nil {\n		return true, nil\n	}', './matvis/astro'),
 ('astro-prefetch-range', 'matvis/astro/rotation.go', '	if ti < 0 || ti >= len(r.epochs) {\n		return\n	}\n	r.ahead.start', '	if ti < 0 {\n		return\n	}\n	r.ahead.start', './matvis/astro'),
]
# Session 2026-12-07 e: the power-law sky's device table — its host
# parts (skymodel's PowerLawI, the GPU's eligibility, the kernel through
# its host emulation) — and the phase test's near-Sun bar; run with --s6.
# The launch (fillPowerLaw) runs on a device only (TestPowerLawSkyOnDevice).
s6=[
 ('pl-kelvin', 'matvis/skymodel/sky.go', 'if s.c.Spectral != SpectralIndex || s.kelvin || s.zero[I] {', 'if s.c.Spectral != SpectralIndex || s.zero[I] {', './matvis/skymodel'),
 ('pl-zero', 'matvis/skymodel/sky.go', 'if s.c.Spectral != SpectralIndex || s.kelvin || s.zero[I] {', 'if s.c.Spectral != SpectralIndex || s.kelvin {', './matvis/skymodel'),
 ('pl-stokes', 'matvis/skymodel/sky.go', '	return s.c.Stokes[I], s.c.Index, s.lnRef, true', '	return s.c.Stokes[I], s.c.Index, logs(s.c.Index), true', './matvis/skymodel'),
 ('kern-sign', 'matvis/gpu/beamprep_flux.cuh', '(lnf[f] - lnref[s])', '(lnf[f] + lnref[s])', './matvis/gpu'),
 ('kern-source', 'matvis/gpu/beamprep_flux.cuh', '  long long s = e / nfreq;', '  long long s = e / (nfreq + 1);', './matvis/gpu'),
 ('kern-channel', 'matvis/gpu/beamprep_flux.cuh', '  int f = (int)(e - s * nfreq);', '  int f = 0;', './matvis/gpu'),
 ('kern-flag', 'matvis/gpu/beamprep_flux.cuh', '  if (!isfinite(v)) *bad = 1;', '  if (isnan(v)) *bad = 1;', './matvis/gpu'),
 ('kern-bound', 'matvis/gpu/beamprep_flux.cuh', '  if (e >= nsrc * nfreq) return;', '  if (e > nsrc * nfreq) return;', './matvis/gpu'),
 ('elig-negative', 'matvis/gpu/coords.go', 'if !(s >= 0) || math.IsInf(s, 1)', 'if math.IsNaN(s) || math.IsInf(s, 1)', './matvis/gpu'),
 ('elig-index', 'matvis/gpu/coords.go', '|| math.IsNaN(index[i]) || math.IsInf(index[i], 0) ||', '|| math.IsNaN(index[i]) ||', './matvis/gpu'),
 ('elig-lnref', 'matvis/gpu/coords.go', '|| math.IsNaN(lnRef[i]) || math.IsInf(lnRef[i], 0) {', '|| math.IsNaN(lnRef[i]) {', './matvis/gpu'),
 ('elig-count', 'matvis/gpu/coords.go', 'if !ok || len(sref) != nsrc ||', 'if !ok ||', './matvis/gpu'),
 ('keep-identity', 'matvis/gpu/flux_keep.go', '	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])', '	return len(a) == len(b)', './matvis/gpu'),
 ('keep-freqs', 'matvis/gpu/flux_keep.go', 'sameArray(k.law.lnRef, law.lnRef) && slices.Equal(k.freqs, freqs)', 'sameArray(k.law.lnRef, law.lnRef) && slices.Equal(k.freqs, k.freqs)', './matvis/gpu'),
 ('keep-index', 'matvis/gpu/flux_keep.go', 'sameArray(k.law.index, law.index) &&', 'true &&', './matvis/gpu'),
 ('framepa-arc', 'matvis/phase/phase.go', '	const offset = math.Pi / 360', '	const offset = math.Pi / 180', './matvis/phase'),
 ('framepa-sign', 'matvis/phase/phase.go', '	return -positionAngle(ra1, dec1, ra2, dec2)', '	return positionAngle(ra1, dec1, ra2, dec2)', './matvis/phase'),
]
# Session 2026-12-07 f: a text catalog's names made after its parse, the
# exact path tried before the table, and the UVFITS/UVH5 rows laid out,
# phased and encoded on several goroutines; run with --s7.
s7=[
 ('names-slot', 'matvis/skymodel/text.go', '		slot += len(cn.ends)', '		slot += len(cn.ends) - 1', './matvis/skymodel'),
 ('names-start', 'matvis/skymodel/text.go', '				names[i], start = cn.all[start:e], e', '				names[i] = cn.all[start:e]', './matvis/skymodel'),
 ('names-chunk', 'matvis/skymodel/text.go', '	c.chunkNames[k] = chunkNames{all: names.String(), ends: nameEnd}', '	c.chunkNames[0] = chunkNames{all: names.String(), ends: nameEnd}', './matvis/skymodel'),
 ('prefix-exp', 'internal/fastfloat/fastfloat.go', '	f, ok = Convert(x.Man, x.Exp10, neg, nil)', '	f, ok = Convert(x.Man, x.Exp10+1, neg, nil)', './internal/fastfloat ./matvis/skymodel'),
 ('convert-nil', 'internal/fastfloat/decimal.go', '	if pow == nil {\n		pow = PowersOfTen()\n	}', '	if pow == nil {\n		pow = Powers{}\n	}', './internal/fastfloat ./matvis/skymodel'),
 ('enc-slot', 'uvfits/writer.go', '			put(buf[r*w.groupLen:(r+1)*w.groupLen], r)', '			put(buf[r*w.groupLen:(r+1)*w.groupLen], r-lo)', './uvfits'),
 ('enc-put32', 'uvfits/writer.go', '		return dst[4:]', '		return dst[3:]', './uvfits'),
 ('enc-params', 'uvfits/writer.go', '			dst = w.putParams(dst, bltStart+r0+r)', '			dst = w.putParams(dst, bltStart+r)', './uvfits ./matvis/uvdata'),
 ('fill-tile', 'matvis/uvdata/uvdata.go', 'fillTiles(buf, res, ti, k0, k0+lo*tile, min(k1, k0+hi*tile), f0, f1, pols, tile)', 'fillTiles(buf, res, ti, k0+lo*tile, k0+lo*tile, min(k1, k0+hi*tile), f0, f1, pols, tile)', './matvis/uvdata'),
 ('fill-end', 'matvis/uvdata/uvdata.go', 'fillTiles(buf, res, ti, k0, k0+lo*tile, min(k1, k0+hi*tile), f0, f1, pols, tile)', 'fillTiles(buf, res, ti, k0, k0+lo*tile, min(k1, k0+hi*tile-1), f0, f1, pols, tile)', './matvis/uvdata'),
 ('phase-row', 'matvis/uvdata/uvfits.go', '			p.applyRow(bltStart+r, f0, f1, vis[r*per:(r+1)*per])', '			p.applyRow(bltStart+r-lo, f0, f1, vis[r*per:(r+1)*per])', './matvis/uvdata'),
 ('phase-count', 'matvis/uvdata/uvfits.go', '	n := min(len(vis)/per, max(0, len(p.w)-bltStart))', '	n := min(len(vis)/per, max(0, len(p.w)-bltStart)) - 1', './matvis/uvdata'),
]
# Session 2026-12-07 g: the last block's write counted as the writer's
# wait, a block's simulation sharing its run's pairs and checks, the npy
# sidecar's pairs encoded by hand, a spec's plain numbers in one pass;
# run with --s8.
s8=[
 ('writewait-last', 'matvis/output/run.go', '	<-r.wdone\n	r.sum.WriteWait += time.Since(t)\n', '	<-r.wdone\n', './matvis/output'),
 ('subset-pairs', 'matvis/simulation.go', '		s.Pairs = from.Pairs\n', '		s.Pairs = allPairs(nant, o.AntPairs)\n', './matvis'),
 ('subset-from', 'matvis/subset.go', '	return newSimulation(c, s)', '	return newSimulation(c, nil)', './matvis'),
 ('new-checked', 'matvis/simulation.go', '	if err := checkConfig(&c, from != nil); err != nil {', '	if err := checkConfig(&c, true); err != nil {', './matvis'),
 ('flux-skip', 'matvis/simulation.go', '	if !sourcesChecked {\n		if err := checkFluxes(c.Flux, nfreq); err != nil {', '	if sourcesChecked {\n		if err := checkFluxes(c.Flux, nfreq); err != nil {', './matvis'),
 ('ranges-skip', 'matvis/limits.go', '	if sourcesChecked {\n		return nil\n	}', '	if !sourcesChecked {\n		return nil\n	}', './matvis'),
 ('pairs-digit', 'cmd/gomatvis/meta.go', '	if v >= 100 {', '	if v > 100 {', './cmd/gomatvis'),
 ('pairs-null', 'cmd/gomatvis/meta.go', '		return append(b, "null"...)', '		return append(b, "[]"...)', './cmd/gomatvis'),
 ('pairs-tail', 'cmd/gomatvis/meta.go', 'b[:len(b)-len(nullTail)]', 'b[:len(b)-len(nullTail)+1]', './cmd/gomatvis'),
 ('plain-int19', 'matvis/simspec/float.go', '		for ; i < len(d) && d[i]-\'0\' < 10; i++ {\n			if nd == 19 {', '		for ; i < len(d) && d[i]-\'0\' < 10; i++ {\n			if nd == 20 {', './matvis/simspec'),
 ('plain-swar', 'matvis/simspec/float.go', '		for nd <= 19-8 {', '		for nd <= 19-7 {', './matvis/simspec'),
 ('plain-exp', 'matvis/simspec/float.go', "	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {\n		return 0, -1, false\n	}\n	v, ok = fastfloat", "	v, ok = fastfloat", './matvis/simspec'),
 ('plain-emptyfrac', 'matvis/simspec/float.go', '		if i == s {\n			return 0, -1, false\n		}\n		exp10 = s - i', '		exp10 = s - i', './matvis/simspec'),
 ('eight-bound', 'internal/fastfloat/decimal.go', '	if i+8 > len(b) {\n		return 0, false', '	if i+9 > len(b) {\n		return 0, false', './internal/fastfloat ./matvis/simspec'),
]
# Session 2026-12-07 h: the block buffers cleared by the writer, the
# prefetched vectors copied out in parallel, the UVH5 writer's pieces on
# several goroutines; run with --s9.
s9=[
 ('buf-clearused', 'matvis/output/run.go', '		clearUsed(j.buf, j.res)\n		r.free <- j.buf', '		r.free <- j.buf', './matvis/output'),
 ('buf-touch', 'matvis/output/run.go', '		buf.Vis64[i] = 0', '		buf.Vis64[i] = 1', './matvis/output'),
 ('buf-clear-half', 'matvis/output/run.go', 'clear(buf.Vis64[:len(res.Vis64)])', 'clear(buf.Vis64[:len(res.Vis64)/2])', './matvis/output'),
 ('buf-zeroed', 'matvis/output/run.go', 'sub, err := r.sim.SubsetZeroed(b, buf)', 'sub, err := r.sim.Subset(b)', './matvis/output'),
 ('subset-zeroed-clears', 'matvis/subset.go', '		v.vis64 = buf.Vis64[:n:n]\n', '		v.vis64 = buf.Vis64[:n:n]\n		clear(v.vis64)\n', './matvis'),
 ('ahead-copy', 'matvis/astro/ahead.go', '		copy(north[lo:hi], j.n[lo:hi])', '		copy(north[lo:hi], j.n[lo:hi-1])', './matvis/astro'),
 ('pieces-short', 'uvh5/writer.go', 'put(s, p*pieceLen, min((p+1)*pieceLen, n))', 'put(s, p*pieceLen, min((p+1)*pieceLen-1, n))', './uvh5'),
 ('pieces-skip', 'uvh5/writer.go', 'for p := lo; p < hi && !failed(); p++ {', 'for p := lo; p < hi-1 && !failed(); p++ {', './uvh5'),
 ('pieces-error', 'uvh5/writer.go', '				if first == nil {\n					first = err\n				}', '				if first == nil {\n					first = nil\n				}', './uvh5'),
 ('pieces-nsamples', 'uvh5/writer.go', '			return s.write(w.nsamples, off+int64(i), nsamples[i:j])', '			return s.write(w.nsamples, off+int64(i), w.ones[:j-i])', './uvh5'),
]
args=sys.argv[1:]
which=muts
check=bool(args) and args[0]=='--check'
if check: args[0]='--all'
if args and args[0] in ('--new','--old','--s3','--s4','--s5','--s6','--s7','--s8','--s9','--all'):
    which={'--new':new,'--old':muts,'--s3':s3,'--s4':s4,'--s5':s5,'--s6':s6,'--s7':s7,'--s8':s8,'--s9':s9,'--all':muts+new+s3+s4+s5+s6+s7+s8+s9}[args.pop(0)]
import fnmatch
only=args
for name,f,a,b,pk in which:
    if only and not any(fnmatch.fnmatch(name,o) for o in only): continue
    p=os.path.join(root,f); s=open(p).read()
    if a not in s: print(name,'NOT FOUND', flush=True); continue
    line=s[:s.index(a)].count('\n')+1
    if check: print('found', name, '%s:%d'%(f,line)); continue
    open(p,'w').write(s.replace(a,b,1))
    try:
        r=subprocess.run('cd %s && CGO_ENABLED=0 go test -short -count=1 -timeout 600s %s 2>&1 | grep -E "^(--- FAIL|FAIL|ok|# )" | head -8'%(root,pk),shell=True,capture_output=True,text=True)
    finally:
        open(p,'w').write(s)
    out=r.stdout.splitlines()
    fails=[l for l in out if l.startswith('--- FAIL') or l.startswith('FAIL')]
    verdict='CAUGHT ' if fails else 'SURVIVED '
    if any(l.startswith('# ') or 'build failed' in l for l in out): verdict='BUILD '
    print(verdict+name+' (%s:%d): '%(f,line)+'; '.join(fails[:4]), flush=True)
