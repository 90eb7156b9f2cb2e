package h5read

import "fmt"

// lzfDecompress expands LZF data (the format of Marc Lehmann's liblzf,
// used by h5py's LZF filter) into exactly n bytes. Each control byte c is
// either a literal run (c < 32: the next c+1 bytes) or a back reference of
// length (c>>5)+2, with 7 meaning "add the next byte", at distance
// ((c&31)<<8 | next byte) + 1 before the output position.
func lzfDecompress(in []byte, n int) ([]byte, error) {
	out := make([]byte, 0, n)
	for i := 0; i < len(in); {
		c := int(in[i])
		i++
		if c < 32 {
			run := c + 1
			if i+run > len(in) || len(out)+run > n {
				return nil, fmt.Errorf("lzf: literal run past the end")
			}
			out = append(out, in[i:i+run]...)
			i += run
			continue
		}
		length := c >> 5
		if length == 7 {
			if i >= len(in) {
				return nil, fmt.Errorf("lzf: truncated back reference")
			}
			length += int(in[i])
			i++
		}
		length += 2
		if i >= len(in) {
			return nil, fmt.Errorf("lzf: truncated back reference")
		}
		ref := len(out) - ((c&31)<<8 | int(in[i])) - 1
		i++
		if ref < 0 || len(out)+length > n {
			return nil, fmt.Errorf("lzf: back reference out of range")
		}
		for k := range length {
			out = append(out, out[ref+k])
		}
	}
	if len(out) != n {
		return nil, fmt.Errorf("lzf: %d bytes decompressed, want %d", len(out), n)
	}
	return out, nil
}
