package h5read

import "github.com/gomatvis/gomatvis/internal/h5write"

// checksum is the Jenkins lookup3 checksum HDF5 uses (Appendix C); the
// implementation and its test vectors live in h5write.
func checksum(b []byte) uint32 { return h5write.Checksum(b) }
