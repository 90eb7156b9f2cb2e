//go:build !unix

package inputfile

// openFlags adds nothing where named pipes cannot block an open.
const openFlags = 0
