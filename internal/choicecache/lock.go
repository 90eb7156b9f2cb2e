package choicecache

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Lock takes the lock of key in the cache file at path, for the time from
// a miss to the Put of the value measured: processes started together on
// an empty cache would otherwise each measure, and where two paths are
// about as fast take different ones (issue 41: three first runs differed
// by 5e-13 of the peak). The second process waits for the first's Put
// and then reads its value back with Get.
//
// The wait is bounded: past wait (a holder stuck, or measuring for
// longer), ok is false and the caller decides without measuring, by a
// rule that does not depend on time (a cost model), and stores nothing.
// Without a cache (path "") or where the lock cannot be taken (no
// directory, no flock), ok is true and nothing is held: there is nothing
// to share. unlock may be called more than once. A killed holder's lock
// is released with its process.
func Lock(path, key string, wait time.Duration) (unlock func(), ok bool) {
	noop := func() {}
	if path == "" {
		return noop, true
	}
	dir := path + ".locks"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return noop, true
	}
	h := fnv.New64a()
	h.Write([]byte(key))
	f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("%016x", h.Sum64())), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return noop, true
	}
	deadline := time.Now().Add(wait)
	for {
		switch tryLock(f) {
		case lockTaken:
			return sync.OnceFunc(func() { f.Close() }), true
		case lockUnsupported:
			f.Close()
			return noop, true
		}
		if !time.Now().Before(deadline) {
			f.Close()
			return noop, false
		}
		time.Sleep(min(pollInterval, time.Until(deadline)+time.Millisecond))
	}
}

// pollInterval is how often a waiting Lock tries again: short beside a
// measurement (a second or more), long beside a try (a system call).
const pollInterval = 20 * time.Millisecond

// lockResult is what one try to take a lock gave.
type lockResult int

const (
	lockTaken lockResult = iota
	lockBusy
	lockUnsupported
)
