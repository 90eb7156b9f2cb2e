package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// SyncTree flushes every regular file and directory under dir to stable
// storage. A directory written whole and renamed into place (a
// Measurement Set) is then as durable as a file output, whose temporary
// is synced before its rename: without it a crash soon after the rename
// can leave the name pointing at files the disk never received.
func SyncTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && !d.Type().IsRegular() {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		serr := f.Sync()
		if cerr := f.Close(); serr == nil {
			serr = cerr
		}
		return serr
	})
}
