package schema

import (
	"math"
	"strconv"
	"testing"
)

// TestPlainNumbers: the fast paths take the plain forms, give exactly
// what strconv gives for them (the sign of zero included), and leave every
// other form to the general parsers.
func TestPlainNumbers(t *testing.T) {
	for _, tc := range []struct {
		in         string
		int, float bool // taken by plainDigits (after the sign), by plainDecimal
	}{
		{"0", true, true},
		{"7", true, true},
		{"-0", false, true},                   // plainDigits sees no sign: parseInt strips it
		{"123456789012345678", true, false},   // an int64, beyond 2^53
		{"1234567890123456789", false, false}, // 19 digits: 10^18 < m, beyond 2^53
		{"9007199254740992", true, true},      // 2^53
		{"9007199254740993", true, false},     // 2^53 + 1: not exact in a float64
		{"3.141592653589793", false, true},
		{"5313.22", false, true},
		{"-0.0", false, true},
		{"+1.5", false, true},
		{".5", false, true},
		{"1.", false, true},
		{"0.000000000000000001", false, true}, // 19 digits: 10^-18
		{"0.0000000000000000001", false, false},
		{"00000000000000000000001", false, false},
		{"", false, false},
		{".", false, false},
		{"-", false, false},
		{"1.2.3", false, false},
		{"1e5", false, false},
		{"1_000", false, false},
		{"1,5", false, false},
		{"nan", false, false},
		{"inf", false, false},
		{"0x10", false, false},
		{" 1", false, false},
	} {
		u, ok := plainDigits([]byte(tc.in))
		if ok != tc.int {
			t.Errorf("plainDigits(%q) ok = %v, want %v", tc.in, ok, tc.int)
		}
		if ok {
			if want, err := strconv.ParseUint(tc.in, 10, 64); err != nil || u != want {
				t.Errorf("plainDigits(%q) = %d, strconv %d (%v)", tc.in, u, want, err)
			}
		}
		f, ok := plainDecimal([]byte(tc.in))
		if ok != tc.float {
			t.Errorf("plainDecimal(%q) ok = %v, want %v", tc.in, ok, tc.float)
		}
		if ok {
			want, err := strconv.ParseFloat(tc.in, 64)
			if err != nil || math.Float64bits(f) != math.Float64bits(want) {
				t.Errorf("plainDecimal(%q) = %v (%x), strconv %v (%x, %v)", tc.in, f, math.Float64bits(f), want, math.Float64bits(want), err)
			}
		}
	}
}

// FuzzPlainNumbers: whatever the fast paths take, strconv reads to the same
// bits.
func FuzzPlainNumbers(f *testing.F) {
	for _, s := range []string{"0", "-0.0", "5313.22", "3.141592653589793", "9007199254740992", "123456789012345678", ".5", "1.", "0.1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if u, ok := plainDigits([]byte(in)); ok {
			if want, err := strconv.ParseUint(in, 10, 64); err != nil || u != want || want > math.MaxInt64 {
				t.Fatalf("plainDigits(%q) = %d, strconv %d (%v)", in, u, want, err)
			}
		}
		if v, ok := plainDecimal([]byte(in)); ok {
			want, err := strconv.ParseFloat(in, 64)
			if err != nil || math.Float64bits(v) != math.Float64bits(want) {
				t.Fatalf("plainDecimal(%q) = %v (%x), strconv %v (%x, %v)", in, v, math.Float64bits(v), want, math.Float64bits(want), err)
			}
		}
	})
}
