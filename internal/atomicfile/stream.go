package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"sync"
)

// ErrFinished is returned by Stream.Commit once the stream was committed
// or aborted.
var ErrFinished = errors.New("already committed or aborted")

// Stream is an output that its writer fills in place — at offsets, in any
// order, as the UVH5 and UVFITS writers fill rows — in a temporary beside
// its path, and that ends exactly once: Commit renames it into place,
// Abort removes it. Until then nothing appears at the path, and an
// existing file there is untouched; a kill leaves only the temporary,
// which RemoveLive and RemoveStale clear. A Stream is not safe for
// concurrent use.
type Stream struct {
	path string
	f    *os.File
	done bool
}

// NewStream creates the temporary of a streamed output for path (see
// CreateTemp for its name and permissions).
func NewStream(path string) (*Stream, error) {
	f, err := CreateTemp(path)
	if err != nil {
		return nil, err
	}
	return &Stream{path: path, f: f}, nil
}

// File is the temporary to write to. Its writer must not close, rename or
// remove it: Commit and Abort do.
func (s *Stream) File() *os.File { return s.f }

// Path is the path the output is for.
func (s *Stream) Path() string { return s.path }

// StartWriteback starts writing what was written so far to the disk and
// returns at once (Linux; elsewhere it does nothing), so that the sync in
// Commit finds little left to write: a writer that fills its output
// block by block, on a goroutine of its own while the next block
// computes, calls it after each block. (The UVH5 of 350 antennas × 64
// channels × 8 times, 456 MB, spent 0.19 s in its close's sync on an
// H100's host, after the last block: bench/RESULTS.md.) An error is only
// advice: Commit's sync is what makes the file durable.
func (s *Stream) StartWriteback() error {
	if s.done {
		return ErrFinished
	}
	return startWriteback(s.f)
}

// StartWriteback is Stream.StartWriteback for a file of an output written
// otherwise (the files of a Measurement Set's table directory).
func StartWriteback(f *os.File) error { return startWriteback(f) }

// Finished reports whether Commit or Abort was called.
func (s *Stream) Finished() bool { return s.done }

// Commit syncs and closes the temporary and renames it to dest, which
// must be in path's directory for the rename to be atomic (a writer may
// commit a partial output under another name). On failure the temporary
// is removed, so that nothing is left at either name. Either way the
// stream is finished; a second Commit returns ErrFinished.
func (s *Stream) Commit(dest string) error {
	if s.done {
		return ErrFinished
	}
	s.done = true
	return commit(s.f, dest)
}

// Abort closes and removes the temporary, leaving the path as it was. It
// does nothing once the stream is finished, so it is safe to defer and to
// call after Commit or more than once.
func (s *Stream) Abort() error {
	if s.done {
		return nil
	}
	s.done = true
	if err := Discard(s.f); err != nil {
		return fmt.Errorf("removing %s: %w", s.f.Name(), err)
	}
	return nil
}

// CommitWith is Commit with companions written as WriteGroup writes
// them (an array streamed in place and its metadata, known only at the
// end): every file complete and synced before any is renamed, the
// stream's to dest first, so that they appear together or not at all.
// The companions are written and synced while the stream syncs: in
// series the syncs were most of a small run's close (an npy and its
// sidecar: 4–5 ms of a 0.18 s run).
func (s *Stream) CommitWith(dest string, companions ...File) error {
	if s.done {
		return ErrFinished
	}
	s.done = true
	names := make([]string, len(companions))
	errs := make([]error, len(companions))
	var wg sync.WaitGroup
	for i, f := range companions {
		wg.Go(func() { names[i], errs[i] = prepare(f) })
	}
	err := s.f.Sync()
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	wg.Wait()
	tmps := []string{s.f.Name()}
	for _, n := range names {
		if n != "" { // a failed prepare removed its own
			tmps = append(tmps, n)
		}
	}
	defer func() {
		for _, t := range tmps {
			removeTemp(t) // renamed ones are gone already
		}
	}()
	if err != nil {
		return fmt.Errorf("syncing %s: %w", dest, err)
	}
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return install(append([]File{{Path: dest}}, companions...), tmps)
}
