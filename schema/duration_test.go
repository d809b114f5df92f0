package schema

import (
	"math"
	"math/bits"
	"testing"
)

// TestUvint checks the unsigned vint at every length boundary: the size
// follows Cassandra's VIntCoding.computeUnsignedVIntSize and the value
// decodes back.
func TestUvint(t *testing.T) {
	var values []uint64
	for shift := 0; shift < 64; shift++ {
		v := uint64(1) << shift
		values = append(values, v-1, v, v+1)
	}
	values = append(values, math.MaxUint64, math.MaxUint64-1)
	for _, v := range values {
		enc := appendUvint(nil, v)
		magnitude := bits.LeadingZeros64(v | 1)
		if want := (639 - magnitude*9) >> 6; len(enc) != want {
			t.Errorf("%d: %d bytes (%x), want %d", v, len(enc), enc, want)
		}
		got, n := readUvint(enc)
		if got != v || n != len(enc) {
			t.Errorf("%d: encoded %x decodes to %d in %d bytes", v, enc, got, n)
		}
	}
	for _, v := range []int64{0, -1, 1, math.MinInt64, math.MaxInt64, -64, 63, 64, -65} {
		got, rest := readVint(appendVint(nil, v))
		if got != v || len(rest) != 0 {
			t.Errorf("vint %d decodes to %d", v, got)
		}
	}
}
