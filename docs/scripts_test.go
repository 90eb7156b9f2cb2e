package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// aptCall is an apt-get command that takes the dpkg lock.
var aptCall = regexp.MustCompile(`\bapt-get\b[^;&|]*?\b(update|install|upgrade|remove)\b`)

// TestAptWaitsForLock: every apt-get in the repository's scripts that
// takes the dpkg lock waits for it (-o DPkg::Lock::Timeout=…) instead of
// failing when another install holds it.
func TestAptWaitsForLock(t *testing.T) {
	files := repoFiles(t, ".sh")
	files = append(files, ".ci/run")
	for _, f := range files {
		if !fileExists(filepath.Join(root, f)) {
			continue
		}
		forEachLine(t, f, false, func(n int, line string) {
			code, _, _ := strings.Cut(line, "#")
			for _, m := range aptCall.FindAllString(code, -1) {
				if strings.Contains(code, "echo ") || strings.Contains(code, "say ") {
					continue // a message naming the command
				}
				if !strings.Contains(m, "-o DPkg::Lock::Timeout=") {
					t.Errorf("%s:%d: %q does not wait for the dpkg lock (-o DPkg::Lock::Timeout=600)", f, n, m)
				}
			}
		})
	}
}

// fileExists says path names a file or directory.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
