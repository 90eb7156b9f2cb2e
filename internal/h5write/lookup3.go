package h5write

import "math/bits"

// Checksum returns Bob Jenkins' lookup3 "hashlittle" hash of b with initial
// value 0, the checksum the HDF5 File Format Specification (section
// "Appendix C: Jenkins' lookup3 Hash Function") prescribes for version 2
// superblocks, version 2 object headers and the other signed structures.
func Checksum(b []byte) uint32 { return lookup3(b, 0) }

// lookup3 implements hashlittle(key, length, initval) as published by
// Jenkins (lookup3.c, 2006, public domain), byte by byte so that it does not
// depend on alignment.
func lookup3(k []byte, initval uint32) uint32 {
	a := 0xdeadbeef + uint32(len(k)) + initval
	b, c := a, a
	for len(k) > 12 {
		a += le32(k[0:4])
		b += le32(k[4:8])
		c += le32(k[8:12])
		a, b, c = mix(a, b, c)
		k = k[12:]
	}
	if len(k) == 0 {
		return c
	}
	var tail [12]byte
	copy(tail[:], k)
	a += le32(tail[0:4])
	b += le32(tail[4:8])
	c += le32(tail[8:12])
	_, _, c = final(a, b, c)
	return c
}

func le32(p []byte) uint32 {
	return uint32(p[0]) | uint32(p[1])<<8 | uint32(p[2])<<16 | uint32(p[3])<<24
}

func rot(x uint32, k int) uint32 { return bits.RotateLeft32(x, k) }

// mix is lookup3's reversible mixing of three 32-bit values.
func mix(a, b, c uint32) (uint32, uint32, uint32) {
	a -= c
	a ^= rot(c, 4)
	c += b
	b -= a
	b ^= rot(a, 6)
	a += c
	c -= b
	c ^= rot(b, 8)
	b += a
	a -= c
	a ^= rot(c, 16)
	c += b
	b -= a
	b ^= rot(a, 19)
	a += c
	c -= b
	c ^= rot(b, 4)
	b += a
	return a, b, c
}

// final is lookup3's final mixing of three 32-bit values into c.
func final(a, b, c uint32) (uint32, uint32, uint32) {
	c ^= b
	c -= rot(b, 14)
	a ^= c
	a -= rot(c, 11)
	b ^= a
	b -= rot(a, 25)
	c ^= b
	c -= rot(b, 16)
	a ^= c
	a -= rot(c, 4)
	b ^= a
	b -= rot(a, 14)
	c ^= b
	c -= rot(b, 24)
	return a, b, c
}
