package gonbshim

import (
	"os"
	"path/filepath"
	"testing"
)

func TestNumberedFiles(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("NOTEBOOK_OUT", dir)
	DisplayHTML("<b>a</b>")
	DisplayPNG([]byte("\x89PNG"))
	DisplaySVG("<svg/>")
	for _, name := range []string{"001.html", "002.png", "003.svg"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	if UniqueId() == "" {
		t.Error("empty id")
	}
}
