package docs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// cpuMarker precedes the performance guide's code block of CPU commands.
const cpuMarker = "<!-- test: cpu commands -->"

// guideCommands are the lines of the ```sh block after marker in page.
func guideCommands(t *testing.T, page, marker string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, page))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), marker+"\n```sh\n")
	if !ok {
		t.Fatalf("%s: no ```sh block after %q", page, marker)
	}
	block, _, ok := strings.Cut(after, "```")
	if !ok {
		t.Fatalf("%s: the block after %q does not end", page, marker)
	}
	var out []string
	for _, l := range strings.Split(block, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// TestGuideCommands runs the performance guide's CPU commands as written,
// in order: `go install ./cmd/gomatvis` from the repository (into a
// temporary GOBIN), then each gomatvis command in a temporary directory
// with that GOBIN first on the PATH; each must exit 0 and leave the
// directory it names with -o holding its JSON.
func TestGuideCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and runs three small profiles")
	}
	cmds := guideCommands(t, "docs/performance.md", cpuMarker)
	if len(cmds) < 2 || cmds[0] != "go install ./cmd/gomatvis" {
		t.Fatalf("the CPU block %q does not start by installing the command", cmds)
	}
	tmp := t.TempDir()
	bin, work := filepath.Join(tmp, "bin"), filepath.Join(tmp, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "GOBIN="+bin, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, line := range cmds {
		fields := strings.Fields(line)
		if fields[0] != "gomatvis" && fields[0] != "go" {
			t.Fatalf("%q: the CPU block holds only go and gomatvis commands", line)
		}
		if strings.Contains(line, "--backend gpu") {
			t.Fatalf("%q: a GPU command in the CPU block", line)
		}
		c := exec.Command("sh", "-c", line)
		c.Env, c.Dir = env, work
		if fields[0] == "go" {
			c.Dir = root
		}
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("%q: %v\n%s", line, err, out)
		}
		for i, f := range fields {
			if f != "-o" || i+1 == len(fields) {
				continue
			}
			dir := filepath.Join(work, fields[i+1])
			want := "summary.json"
			if fields[1] == "roofline" {
				want = "roofline.json"
			}
			if _, err := os.Stat(filepath.Join(dir, want)); err != nil {
				t.Errorf("%q wrote no %s: %v", line, want, err)
			}
		}
	}
}
