package docs

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// root is the repository's root, from this package's directory.
const root = ".."

// repoFiles are the repository's files with one of exts, relative to root,
// skipping what Go and git skip: directories starting with "." or "_"
// (generated notebook programs, build outputs) and node_modules.
func repoFiles(t *testing.T, exts ...string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "node_modules" || name == "out") {
				return filepath.SkipDir
			}
			return nil
		}
		for _, e := range exts {
			if strings.HasSuffix(name, e) {
				rel, err := filepath.Rel(root, p)
				if err != nil {
					return err
				}
				out = append(out, filepath.ToSlash(rel))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var (
	// mdLink is a Markdown link or image target: [text](target) or
	// ![alt](target), the target up to a space or the closing parenthesis.
	mdLink = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	// repoPath is a path into the repository written in prose or a
	// comment: one of its top-level directories (or shared/, ../), then
	// path characters, ending in a file extension.
	repoPath = regexp.MustCompile("(?:^|[\\s(`'\"\\[])((?:\\.\\./)*(?:shared/)?(?:docs|testdata|bench|notebooks|scripts|kernels|cuda|matvis|cmd|internal|plots|docker|npy|uvh5|uvfits)/[A-Za-z0-9_./+-]*\\.[a-z0-9]+)\\b")
	// codeSpan is inline code, whose brackets are not links.
	codeSpan = regexp.MustCompile("`[^`]*`")
	// fence opens or closes a Markdown code block, inside which nothing
	// is a link.
	fence = regexp.MustCompile("^\\s*(```|~~~)")
)

// external says a link target leaves the repository (or is a page anchor).
func external(target string) bool {
	for _, p := range []string{"http://", "https://", "mailto:", "#"} {
		if strings.HasPrefix(target, p) {
			return true
		}
	}
	return false
}

// resolves says a path exists relative to the file's directory or, for a
// repository path, to the root.
func resolves(file, target string, alsoRoot bool) bool {
	target, _, _ = strings.Cut(target, "#")
	target = strings.TrimRight(target, ".,;:")
	if target == "" {
		return true
	}
	if exists(filepath.Join(filepath.Dir(file), target)) {
		return true
	}
	return alsoRoot && !strings.HasPrefix(target, "../") && exists(target)
}

// exists says a repository path names a file or directory that a clone
// has: one under a directory .gitignore leaves out (bench/tmp, .devbin)
// exists only in the checkout that made it, so it does not count.
func exists(rel string) bool {
	rel = filepath.ToSlash(filepath.Clean(rel))
	for _, dir := range ignoredDirs() {
		if rel == dir || strings.HasPrefix(rel, dir+"/") {
			return false
		}
	}
	_, err := os.Stat(filepath.Join(root, rel))
	return err == nil
}

// ignoredDirs are the root-anchored directories of the repository's
// .gitignore ("/bench/tmp/" → "bench/tmp").
func ignoredDirs() []string {
	b, err := os.ReadFile(filepath.Join(root, ".gitignore"))
	if err != nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "/") && strings.HasSuffix(line, "/") && len(line) > 2 {
			out = append(out, strings.Trim(line, "/"))
		}
	}
	return out
}

// placeholder says a path is a pattern or an example rather than a file
// (DIR/summary.json, OUT.npy, PART.gmvpart, a glob).
func placeholder(p string) bool {
	return strings.ContainsAny(p, "*…{}<>") || regexp.MustCompile(`(^|/)[A-Z][A-Z0-9_]+(/|\.)`).MatchString(p)
}

// TestRelativeLinksResolve: every relative link of every Markdown file,
// and every repository path named in a Markdown file's prose or a Go
// comment, is a file or directory of the repository. Markdown links
// resolve from the file's directory (as GitHub renders them); paths in
// prose and comments are repository paths and may also resolve from the
// root (the convention of the package comments: "docs/stokes.md").
func TestRelativeLinksResolve(t *testing.T) {
	for _, f := range repoFiles(t, ".md") {
		forEachLine(t, f, true, func(n int, line string) {
			for _, m := range mdLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
				// A target without a dot or a slash is mathematics in an
				// indented block ("A[f, k](s)"), not a file.
				target := m[1]
				if !strings.ContainsAny(target, "./") {
					continue
				}
				if !external(target) && !placeholder(target) && !resolves(f, target, false) {
					t.Errorf("%s:%d: link %q resolves to nothing (from %s)", f, n, target, filepath.Dir(f))
				}
			}
			checkPaths(t, f, n, mdLink.ReplaceAllString(line, ""))
		})
	}
	for _, f := range repoFiles(t, ".go") {
		forEachLine(t, f, false, func(n int, line string) {
			if _, c, ok := strings.Cut(line, "// "); ok && strings.HasPrefix(strings.TrimSpace(line), "//") {
				checkPaths(t, f, n, c)
			}
		})
	}
}

// checkPaths reports the repository paths in text that resolve to nothing.
func checkPaths(t *testing.T, file string, n int, text string) {
	t.Helper()
	for _, m := range repoPath.FindAllStringSubmatch(text, -1) {
		if p := m[1]; !placeholder(p) && !resolves(file, p, true) {
			t.Errorf("%s:%d: path %q names no file of the repository", file, n, p)
		}
	}
}

// forEachLine calls fn with each line of file (1-based numbers); in
// Markdown (markdown true), lines inside code blocks are skipped, as
// they hold commands and output rather than links.
func forEachLine(t *testing.T, file string, markdown bool, fn func(int, string)) {
	t.Helper()
	fh, err := os.Open(filepath.Join(root, file))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	inCode := false
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if markdown && fence.MatchString(line) {
			inCode = !inCode
			continue
		}
		if !inCode {
			fn(n, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

// TestLinkPatterns: what the checker takes for a link or a repository
// path, on lines written for it.
func TestLinkPatterns(t *testing.T) {
	links := func(s string) (out []string) {
		for _, m := range mdLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(s, ""), -1) {
			out = append(out, m[1])
		}
		return out
	}
	paths := func(s string) (out []string) {
		for _, m := range repoPath.FindAllStringSubmatch(mdLink.ReplaceAllString(s, ""), -1) {
			out = append(out, m[1])
		}
		return out
	}
	cases := []struct {
		line         string
		links, paths []string
	}{
		{"see [the guide](docs/performance.md#floor) and ![f](figures/a.png \"t\")", []string{"docs/performance.md#floor", "figures/a.png"}, nil},
		{"`Z[a](s)` is code", nil, nil},
		{"named in docs/stokes.md, (shared/docs/x.md) and `../docs/y.md`.", nil, []string{"docs/stokes.md", "shared/docs/x.md", "../docs/y.md"}},
		{"matvis/cblas.Choose is an identifier, bench/profiles/ a directory", nil, nil},
	}
	for _, c := range cases {
		if got := links(c.line); strings.Join(got, "|") != strings.Join(c.links, "|") {
			t.Errorf("%q: links %q, want %q", c.line, got, c.links)
		}
		if got := paths(c.line); strings.Join(got, "|") != strings.Join(c.paths, "|") {
			t.Errorf("%q: paths %q, want %q", c.line, got, c.paths)
		}
	}
	if !placeholder("DIR/summary.json") || !placeholder("OUT.npy") || placeholder("docs/cli.md") {
		t.Error("placeholder: DIR/summary.json and OUT.npy are patterns, docs/cli.md is not")
	}
}
