//go:build unix && !linux

package inputfile

// mapFlags adds nothing where MAP_POPULATE is not offered.
const mapFlags = 0
