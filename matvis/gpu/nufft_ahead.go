package gpu

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/gomatvis/gomatvis/matvis/nufftgpu"
)

// targetsAhead makes the transform's targets of the channels after the
// one in use on the host, in goroutines, while the device works: a
// channel's plan costs the host tens of milliseconds (2026-12-02, H200
// machine: 8 channels of one time took 21 ms of wall time an integration
// against 2.5 ms of GPU time when each channel was planned in turn), so a
// run of few times a channel would otherwise wait for the host at every
// channel change. Channels are asked for in order (the pipeline walks
// them channel by channel); one not made ahead is made when asked for.
type targetsAhead struct {
	make   func(fi int) (*nufftgpu.Targets, error)
	nfreq  int
	depth  int           // channels made ahead of the one asked for
	sem    chan struct{} // bounds the goroutines planning at once
	mu     sync.Mutex
	jobs   map[int]*targetsJob
	wg     sync.WaitGroup
	closed atomic.Bool
}

// targetsJob is one channel's targets, done once done is closed.
type targetsJob struct {
	done chan struct{}
	tg   *nufftgpu.Targets
	err  error
}

// aheadWorkers is how many channels are planned at once: the cores less
// one for the pipeline's own host work.
func aheadWorkers() int { return max(1, min(8, runtime.GOMAXPROCS(0)-1)) }

// newTargetsAhead starts making channels first … first+depth−1 with mk,
// but for those already made (made, which may be nil).
func newTargetsAhead(mk func(fi int) (*nufftgpu.Targets, error), nfreq, first int, made map[int]*nufftgpu.Targets) *targetsAhead {
	w := aheadWorkers()
	a := &targetsAhead{make: mk, nfreq: nfreq, depth: w + 1, sem: make(chan struct{}, w), jobs: map[int]*targetsJob{}}
	for fi, tg := range made {
		j := &targetsJob{done: make(chan struct{}), tg: tg}
		close(j.done)
		a.jobs[fi] = j
	}
	for fi := first; fi < first+a.depth; fi++ {
		a.start(fi)
	}
	return a
}

// get returns channel fi's targets (waiting for them when they are being
// made, making them when they are not) and starts the channels after it.
func (a *targetsAhead) get(fi int) (*nufftgpu.Targets, error) {
	a.mu.Lock()
	j := a.jobs[fi]
	delete(a.jobs, fi)
	a.mu.Unlock()
	var tg *nufftgpu.Targets
	var err error
	if j != nil {
		<-j.done
		tg, err = j.tg, j.err
	}
	if tg == nil && err == nil { // not made ahead: made now, as one of the workers
		a.sem <- struct{}{}
		tg, err = a.make(fi)
		<-a.sem
	}
	for k := fi + 1; k <= fi+a.depth; k++ {
		a.start(k)
	}
	return tg, err
}

// start makes channel fi's targets in a goroutine, unless they are
// being made, fi is past the last channel or a is closed.
func (a *targetsAhead) start(fi int) {
	if fi >= a.nfreq || a.closed.Load() {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.jobs[fi]; ok {
		return
	}
	j := &targetsJob{done: make(chan struct{})}
	a.jobs[fi] = j
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		defer close(j.done)
		a.sem <- struct{}{}
		defer func() { <-a.sem }()
		if a.closed.Load() {
			return
		}
		j.tg, j.err = a.make(fi)
	}()
}

// close starts nothing more and waits for the goroutines (at most one
// plan each); nil is ignored.
func (a *targetsAhead) close() {
	if a == nil {
		return
	}
	a.closed.Store(true)
	a.wg.Wait()
}
