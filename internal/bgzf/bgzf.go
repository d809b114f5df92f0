// Package bgzf writes bgzip's format (BGZF), for the tests and
// benchmarks of reading a compressed file in stripes: cqlload reads such
// a file itself (csvparse), and needs no writer.
package bgzf

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
)

// Compress compresses data as bgzip does: gzip members of at most block
// bytes of text each, whose headers carry the extra field BC with the
// member's size less one, cut wherever the block ends (inside a record,
// often). cqlload reads such a file in stripes, as a plain one.
func Compress(data []byte, block int) ([]byte, error) {
	var out bytes.Buffer
	for from := 0; from < len(data); from += block {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Extra = []byte{'B', 'C', 2, 0, 0, 0}
		if _, err := w.Write(data[from:min(from+block, len(data))]); err != nil {
			return nil, err
		}
		if err := w.Close(); err != nil {
			return nil, err
		}
		member := b.Bytes()
		if len(member) > 1<<16 {
			return nil, fmt.Errorf("a BGZF block of %d bytes: at most 64 KiB", len(member))
		}
		binary.LittleEndian.PutUint16(member[16:], uint16(len(member)-1))
		out.Write(member)
	}
	return out.Bytes(), nil
}
