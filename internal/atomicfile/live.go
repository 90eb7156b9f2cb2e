package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"sync"
)

// liveSet is the temporaries this process has made (CreateTemp, Write's
// and keepOld's) and not yet renamed into place or removed.
type liveSet struct {
	mu     sync.Mutex
	names  map[string]struct{}
	closed bool // RemoveLive ran: no new temporary may appear
}

// live is process-wide on purpose: a second interrupt exits the process
// at once from its signal handler, which must reach the temporary of
// every writer, wherever it was started (RemoveLive); each writer passing
// a registry down instead would have to thread it through every output
// path of the program.
var live = liveSet{names: map[string]struct{}{}}

// errExiting is the error of a temporary asked for after RemoveLive.
var errExiting = errors.New("the process is exiting: no new temporaries")

// add runs make, which creates the temporary name, and records it; it
// refuses once RemoveLive ran, so that none appears between the cleanup
// and the exit.
func (l *liveSet) add(name string, make func() error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return errExiting
	}
	if err := make(); err != nil {
		return err
	}
	l.names[name] = struct{}{}
	return nil
}

// forget drops a temporary that was renamed or removed.
func (l *liveSet) forget(name string) {
	l.mu.Lock()
	delete(l.names, name)
	l.mu.Unlock()
}

// removeTemp removes a temporary and forgets it.
func removeTemp(name string) error {
	err := os.Remove(name)
	live.forget(name)
	return err
}

// renameTemp renames a temporary to dest; once renamed it is no longer
// a temporary.
func renameTemp(name, dest string) error {
	if err := os.Rename(name, dest); err != nil {
		return err
	}
	live.forget(name)
	return nil
}

// RemoveLive removes every temporary this process made and has not yet
// renamed or removed, and refuses new ones from then on. It is for a
// program about to exit at once (a second interrupt), so that no
// temporary is left behind; it returns the names it removed and the
// removals that failed.
func RemoveLive() ([]string, error) {
	live.mu.Lock()
	defer live.mu.Unlock()
	live.closed = true
	var removed []string
	var errs []error
	for name := range live.names {
		err := os.Remove(name)
		switch {
		case err == nil:
			removed = append(removed, name)
		case !errors.Is(err, fs.ErrNotExist):
			errs = append(errs, fmt.Errorf("removing the temporary %s: %w", name, err))
		}
		delete(live.names, name)
	}
	sort.Strings(removed)
	return removed, errors.Join(errs...)
}
