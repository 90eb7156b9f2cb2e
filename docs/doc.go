// Package docs holds the repository's documentation (Markdown beside this
// file) and the tests that keep it true: every relative link and
// repository path in the Markdown files and Go comments resolves
// (links_test.go), the numbers the README and the guides quote agree with
// the committed profiles (numbers_test.go), the blocks generated from a
// profile are current (generated_test.go), the performance guide's CPU
// commands run as written (performance_test.go), and the scripts' apt-get
// calls wait for the dpkg lock (scripts_test.go).
package docs
