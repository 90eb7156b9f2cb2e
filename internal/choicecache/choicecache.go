// Package choicecache keeps choices measured on a machine (a Gram
// strategy, a fused or transform path, a chooser's timings) between
// processes: one JSON object of keys to values per file in the user's
// cache directory. Measuring again where two paths are about as fast
// could let two runs of one input take different paths and so differ in
// their last bits; reading the choice back keeps them equal. A file that
// cannot be read, is not a regular file, is too large or does not parse
// is a miss, never an error or a stall; a failed write only means
// measuring again next time.
package choicecache

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/gomatvis/gomatvis/internal/atomicfile"
	"github.com/gomatvis/gomatvis/internal/inputfile"
)

// maxBytes bounds a cache file read back (an entry is a few hundred
// bytes): a larger one is a miss.
const maxBytes = 4 << 20

// Path is name's file in gomatvis's folder of the user's cache directory
// ("" when there is none: every Get misses and every Put is dropped).
func Path(name string) string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "gomatvis", name)
}

// Get returns key's value in the cache file at path.
func Get[T any](path, key string) (T, bool) {
	var zero T
	m, ok := read[T](path)
	if !ok {
		return zero, false
	}
	v, ok := m[key]
	return v, ok
}

// Put sets key's value in the cache file at path, keeping its other
// entries, and writes the file atomically.
func Put[T any](path, key string, v T) {
	if path == "" {
		return
	}
	m, ok := read[T](path)
	if !ok {
		m = map[string]T{}
	}
	m[key] = v
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return
	}
	_ = os.MkdirAll(filepath.Dir(path), 0o755)
	_ = atomicfile.WriteBytes(path, b)
}

// read is the cache file's entries.
func read[T any](path string) (map[string]T, bool) {
	if path == "" {
		return nil, false
	}
	b, err := inputfile.ReadAll(path, maxBytes)
	if err != nil {
		return nil, false
	}
	m := map[string]T{}
	if json.Unmarshal(b, &m) != nil {
		return nil, false
	}
	return m, true
}
