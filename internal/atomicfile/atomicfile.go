// Package atomicfile writes files that appear complete or not at all: the
// content goes to a temporary file in the target's directory, which is
// renamed into place only after it was written and synced. A failed or
// cancelled write leaves nothing behind; a killed one leaves a temporary
// named after its process, which RemoveStale clears once that process is
// gone.
//
// Lock serialises the writers of one directory, so that a program writing
// several files that belong together (an array and its metadata) writes
// them as one step with respect to another instance of itself.
package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// tmpPrefix is the name of path's temporaries up to the writer's process
// id: ".NAME.tmp-PID-RANDOM".
func tmpPrefix(path string) string {
	return "." + filepath.Base(path) + ".tmp-"
}

// IsTempOf says whether name (a base name) has the pattern of path's
// temporaries, which RemoveStale may delete when it sits beside path:
// callers keep their inputs out of that pattern.
func IsTempOf(path, name string) bool {
	return strings.HasPrefix(name, tmpPrefix(path))
}

// Write creates path with the bytes fill writes. The file keeps the
// permission bits of the file it replaces; a new file gets 0666 less the
// umask, as files created by os.Create do.
func Write(path string, fill func(w io.Writer) error) error {
	return WriteGroup(File{path, fill})
}

// File is one file of a WriteGroup: its path and what fills it.
type File struct {
	Path string
	Fill func(w io.Writer) error
}

// WriteGroup writes files that belong together as Write does, all of them
// complete before any is renamed into place, so that they appear together:
// a failure leaves none of them changed — also one of the renames (a
// directory in a companion's place): the files renamed before it get
// their old content back, or are removed when they are new — and a kill
// leaves a mixture only if it falls between the renames, microseconds
// apart.
func WriteGroup(files ...File) (err error) {
	tmps := make([]string, 0, len(files))
	defer func() {
		for _, t := range tmps {
			removeTemp(t) // renamed ones are gone already
		}
	}()
	for _, f := range files {
		tmp, err := prepare(f)
		if err != nil {
			return err
		}
		tmps = append(tmps, tmp)
	}
	return install(files, tmps)
}

// install renames each temporary onto its file. Before the first rename,
// every file a later failure would have to restore is kept under a hard
// link (keepOld); a failed rename puts the files renamed before it back.
func install(files []File, tmps []string) error {
	olds := make([]string, len(files))
	defer func() {
		for _, o := range olds {
			if o != "" {
				removeTemp(o)
			}
		}
	}()
	// The last file's rename is the last step: nothing after it can fail.
	for i := range len(files) - 1 {
		var err error
		if olds[i], err = keepOld(files[i].Path); err != nil {
			return err
		}
	}
	for i, f := range files {
		if err := renameTemp(tmps[i], f.Path); err != nil {
			err = fmt.Errorf("renaming into %s: %w", f.Path, err)
			if rerr := restore(files[:i], olds[:i]); rerr != nil {
				return fmt.Errorf("%w; and restoring the files written before it failed: %w", err, rerr)
			}
			return err
		}
	}
	return nil
}

// keepOld makes a hard link to the file at path, named as a temporary of
// path (so that RemoveStale clears it after a kill), and returns its name;
// "" when there is no file there. A file system without hard links gives
// "" too: the file is then removed, not restored, by a failed group
// (the group still does not appear in part).
func keepOld(path string) (string, error) {
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return "", nil
	} else if err != nil {
		return "", fmt.Errorf("keeping %s until its group is written: %w", path, err)
	}
	for range 100 {
		name, err := tempName(path)
		if err != nil {
			return "", err
		}
		err = live.add(name, func() error { return os.Link(path, name) })
		switch {
		case errors.Is(err, errExiting):
			return "", err
		case err == nil:
			return name, nil
		case errors.Is(err, fs.ErrExist):
			continue
		case errors.Is(err, fs.ErrNotExist):
			return "", nil // removed meanwhile
		}
		return "", nil // no hard links here: see the doc comment
	}
	return "", fmt.Errorf("no unused temporary name for %s", path)
}

// restore undoes the renames of a group that failed: each file gets back
// the content kept in olds (its name from keepOld), or is removed when it
// had none.
func restore(files []File, olds []string) error {
	var errs []error
	for i, f := range files {
		var err error
		if olds[i] != "" {
			err = renameTemp(olds[i], f.Path)
		} else {
			err = os.Remove(f.Path)
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// prepare writes f's content to a synced and closed temporary beside it,
// with the permissions f.Path will have, and returns its name.
func prepare(f File) (name string, err error) {
	tmp, err := CreateTemp(f.Path)
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			removeTemp(tmp.Name())
		}
	}()
	if err = f.Fill(tmp); err != nil {
		return "", err
	}
	if err = tmp.Sync(); err != nil {
		return "", fmt.Errorf("syncing %s: %w", f.Path, err)
	}
	if err = tmp.Close(); err != nil {
		return "", fmt.Errorf("closing %s: %w", f.Path, err)
	}
	return tmp.Name(), nil
}

// CreateTemp creates the temporary that will be renamed to path, beside
// it and named so that RemoveStale can clear it if its writer is killed
// (".NAME.tmp-PID-RANDOM"), with the permissions path will have: those of
// the file it replaces, else 0666 less the umask (os.CreateTemp's 0600
// would end up on the output). Writers that fill their file in place use
// it through Stream.
func CreateTemp(path string) (*os.File, error) {
	tmp, err := createTemp(path)
	if err != nil {
		return nil, fmt.Errorf("creating output in %s: %w", filepath.Dir(path), err)
	}
	if st, serr := os.Stat(path); serr == nil && st.Mode().IsRegular() {
		if err := tmp.Chmod(st.Mode().Perm()); err != nil {
			tmp.Close()
			removeTemp(tmp.Name())
			return nil, fmt.Errorf("keeping the permissions of %s: %w", path, err)
		}
	}
	return tmp, nil
}

// commit finishes a temporary from CreateTemp that its caller wrote
// itself (Stream): it syncs and closes tmp and renames it to dest, in the
// same directory; on failure it removes the temporary, so that nothing is
// left at either name.
func commit(tmp *os.File, dest string) error {
	err := tmp.Sync()
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = renameTemp(tmp.Name(), dest)
	}
	if err != nil {
		removeTemp(tmp.Name())
	}
	return err
}

// Discard closes and removes a temporary from CreateTemp; one already
// removed is not an error.
func Discard(tmp *os.File) error {
	tmp.Close()
	if err := removeTemp(tmp.Name()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// createTemp creates a new temporary for path with mode 0666 less the
// umask.
func createTemp(path string) (*os.File, error) {
	for range 100 {
		name, err := tempName(path)
		if err != nil {
			return nil, err
		}
		var f *os.File
		err = live.add(name, func() (err error) {
			f, err = os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
			return err
		})
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("no unused temporary name for %s", path)
}

// tempName is a fresh name of path's temporaries: ".NAME.tmp-PID-RANDOM"
// beside it.
func tempName(path string) (string, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	prefix := tmpPrefix(path) + strconv.Itoa(os.Getpid()) + "-"
	return filepath.Join(filepath.Dir(path), prefix+hex.EncodeToString(b[:])), nil
}

// WriteBytes creates path with content b.
func WriteBytes(path string, b []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// RemoveStale removes the temporaries that Write left for path in a
// process that no longer runs (killed while writing). It touches only
// names of Write's pattern whose process id is not a live process, and
// returns the names it removed.
func RemoveStale(path string) ([]string, error) {
	dir := filepath.Dir(path)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", dir, err)
	}
	prefix := tmpPrefix(path)
	var removed []string
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !e.Type().IsRegular() {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || processAlive(pid) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("removing stale %s: %w", p, err)
		}
		removed = append(removed, p)
	}
	return removed, nil
}
