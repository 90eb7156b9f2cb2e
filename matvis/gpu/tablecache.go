// Sharing the host-side preparation of beam tables between the runs of
// several devices of one process.

package gpu

import (
	"reflect"
	"slices"
	"sync"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// TableCache shares prepared beam tables — the host-side spline
// preparation of every beam at a channel, the largest part of a channel's
// set-up (about a second for 350 gridded beams of 360×181 on a 16-core
// host) — between the runs of several devices in one process: the first
// run that asks for a channel builds its tables while the others wait,
// then all use the same read-only tables. Without it each device builds
// its own copy at the same time, competing for the same cores. It keeps
// the tables of the last tableCacheSize channels (host memory: about
// 0.75 GB a channel at prodslice). Safe for concurrent use.
type TableCache struct {
	mu      sync.Mutex
	entries []*tableEntry // least recently used first
}

// NewTableCache makes an empty cache for the backends of one process
// (Options.Tables).
func NewTableCache() *TableCache { return &TableCache{} }

// tableCacheSize is how many channels' tables a cache keeps: the devices
// of a run work on the same channel (time blocks) or on neighbouring ones.
const tableCacheSize = 2

// tableKey names one channel's tables: the frequency, the precision of
// the planes and the polarization mode; the entry also holds the beams
// they were built from.
type tableKey struct {
	freqHz float64
	p1     bool
	mode   beam.Mode
}

type tableEntry struct {
	key   tableKey
	beams []beam.Beam   // a copy of the simulation's beams when built
	done  chan struct{} // closed once t, err are set
	t     *beamTables
	err   error
}

// matches reports whether e holds the tables of key for beams: the same
// beam values (the same beam objects for pointer beams), so a simulation
// whose beams were replaced never gets another's tables.
func (e *tableEntry) matches(key tableKey, beams []beam.Beam) bool {
	if e.key != key || len(e.beams) != len(beams) {
		return false
	}
	for i, b := range beams {
		if !sameBeam(e.beams[i], b) {
			return false
		}
	}
	return true
}

func sameBeam(a, b beam.Beam) bool {
	ta := reflect.TypeOf(a)
	if ta != reflect.TypeOf(b) {
		return false
	}
	// The values', not the type's, comparability: == panics on a
	// comparable struct holding an interface whose value is not.
	if ta == nil || reflect.ValueOf(a).Comparable() && reflect.ValueOf(b).Comparable() {
		return a == b
	}
	return reflect.DeepEqual(a, b)
}

// get returns the tables of sim's beams at freqHz, building them with
// build unless another caller built or is building them.
func (c *TableCache) get(sim *matvis.Simulation, freqHz float64, p1 bool,
	build func() (*beamTables, error)) (*beamTables, error) {
	if c == nil {
		return build()
	}
	key := tableKey{freqHz, p1, sim.Mode}
	c.mu.Lock()
	for i, e := range c.entries {
		if e.matches(key, sim.Beams) {
			c.entries = append(append(c.entries[:i:i], c.entries[i+1:]...), e)
			c.mu.Unlock()
			<-e.done
			return e.t, e.err
		}
	}
	e := &tableEntry{key: key, beams: slices.Clone(sim.Beams), done: make(chan struct{})}
	c.entries = append(c.entries, e)
	if len(c.entries) > tableCacheSize {
		c.entries = c.entries[1:]
	}
	c.mu.Unlock()
	e.t, e.err = build()
	close(e.done)
	if e.err != nil {
		c.forget(e)
	}
	return e.t, e.err
}

// forget drops a failed entry so that a later call tries again.
func (c *TableCache) forget(e *tableEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, x := range c.entries {
		if x == e {
			c.entries = append(c.entries[:i:i], c.entries[i+1:]...)
			return
		}
	}
}
