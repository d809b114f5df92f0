package shard

import (
	"math"
	"math/rand/v2"
	"testing"
)

// byHalves is the same scaling done in 32-bit halves, as drivers without
// a 128-bit multiply do it; the two must agree on every token.
func byHalves(token int64, shards int, ignoreMSB uint) int {
	z := uint64(token-math.MinInt64) << ignoreMSB
	lo, hi := z&0xffffffff, z>>32
	sum := (lo*uint64(shards))>>32 + hi*uint64(shards)
	return int(sum >> 32)
}

func TestOf(t *testing.T) {
	tests := []struct {
		token  int64
		shards int
		msb    uint
		want   int
	}{
		{math.MinInt64, 8, 12, 0},
		{math.MaxInt64, 8, 0, 7},
		{0, 2, 0, 1}, // the midpoint of the biased range
		{-1, 2, 0, 0},
		{0, 8, 12, 0}, // 2^63 << 12 wraps to 0
		{12345, 1, 12, 0},
		{12345, 0, 12, 0},
	}
	for _, tt := range tests {
		if got := Of(tt.token, tt.shards, tt.msb); got != tt.want {
			t.Errorf("Of(%d, %d, %d) = %d, want %d", tt.token, tt.shards, tt.msb, got, tt.want)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	counts := make([]int, 7)
	for range 100_000 {
		tok := int64(r.Uint64())
		for _, s := range []int{1, 3, 7, 64, 255} {
			for _, msb := range []uint{0, 12} {
				got := Of(tok, s, msb)
				if want := byHalves(tok, s, msb); got != want {
					t.Fatalf("Of(%d, %d, %d) = %d, by halves %d", tok, s, msb, got, want)
				}
			}
		}
		counts[Of(tok, 7, DefaultIgnoreMSB)]++
	}
	for s, n := range counts {
		if n < 100_000/7*9/10 {
			t.Errorf("shard %d of 7 got %d of 100000 random tokens", s, n)
		}
	}
}
