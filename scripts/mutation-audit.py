#!/usr/bin/env python3
"""A mutation audit: applies each mutation below alone to the working tree,
runs the packages named with go test, restores the file, and prints whether
a test caught it. Run it in a scratch worktree (git worktree add), from its
root: scripts/mutation-audit.py [NAME ...]. bench/RESULTS.md has its
results ("Mutation audit of this session's and last session's code")."""
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
 ('gpu-nufft-eps', 'matvis/gpu/nufft.go', 'nu.prec, nu.eps = nufftgpu.Single, r.tune.nufftEps[0]', 'nu.prec, nu.eps = nufftgpu.Single, r.tune.nufftEps[1]', './matvis/gpu'),
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
only=sys.argv[1:] 
for name,f,a,b,pk in muts:
    if only and name not in only: continue
    p=os.path.join(root,f); s=open(p).read()
    if a not in s: print(name,'NOT FOUND'); continue
    open(p,'w').write(s.replace(a,b,1))
    r=subprocess.run('cd %s && CGO_ENABLED=0 go test -count=1 %s 2>&1 | grep -E "^(--- FAIL|FAIL|ok)" | head -8'%(root,pk),shell=True,capture_output=True,text=True)
    open(p,'w').write(s)
    fails=[l for l in r.stdout.splitlines() if l.startswith('--- FAIL') or l.startswith('FAIL')]
    print(('CAUGHT ' if fails else 'SURVIVED ')+name+': '+'; '.join(fails[:4]), flush=True)
