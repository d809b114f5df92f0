// Package murmur3 computes partition tokens the way Cassandra's
// Murmur3Partitioner does.
//
// Cassandra's MurmurHash.hash3_x64_128 differs from the reference
// MurmurHash3 in one place: the tail bytes are read as signed Java bytes, so
// a tail byte >= 0x80 is sign-extended before it is shifted into k1/k2.
// Keys whose length is a multiple of 16 hash as in the reference; other keys
// only match Cassandra when the quirk is reproduced.
package murmur3

import (
	"encoding/binary"
	"math"
	"math/bits"
)

const (
	c1 = 0x87c37b91114253d5
	c2 = 0x4cf5ad432745937f
)

// Token returns the Murmur3Partitioner token of a serialized partition key
// (the routing key). Cassandra never hands out math.MinInt64 as a token: it
// is reserved as the ring's minimum, so the partitioner maps it to MaxInt64.
func Token(key []byte) int64 {
	h1 := hash(key)
	if h1 == math.MinInt64 {
		return math.MaxInt64
	}
	return h1
}

func hash(data []byte) int64 {
	var h1, h2 uint64
	n := len(data)
	nblocks := n / 16
	for i := 0; i < nblocks; i++ {
		k1 := binary.LittleEndian.Uint64(data[i*16:])
		k2 := binary.LittleEndian.Uint64(data[i*16+8:])

		k1 *= c1
		k1 = bits.RotateLeft64(k1, 31)
		k1 *= c2
		h1 ^= k1

		h1 = bits.RotateLeft64(h1, 27)
		h1 += h2
		h1 = h1*5 + 0x52dce729

		k2 *= c2
		k2 = bits.RotateLeft64(k2, 33)
		k2 *= c1
		h2 ^= k2

		h2 = bits.RotateLeft64(h2, 31)
		h2 += h1
		h2 = h2*5 + 0x38495ab5
	}

	tail := data[nblocks*16:]
	// sb is a tail byte as Java reads it: signed, then widened to long.
	sb := func(i int) uint64 { return uint64(int64(int8(tail[i]))) }
	var k1, k2 uint64
	switch len(tail) {
	case 15:
		k2 ^= sb(14) << 48
		fallthrough
	case 14:
		k2 ^= sb(13) << 40
		fallthrough
	case 13:
		k2 ^= sb(12) << 32
		fallthrough
	case 12:
		k2 ^= sb(11) << 24
		fallthrough
	case 11:
		k2 ^= sb(10) << 16
		fallthrough
	case 10:
		k2 ^= sb(9) << 8
		fallthrough
	case 9:
		k2 ^= sb(8)
		k2 *= c2
		k2 = bits.RotateLeft64(k2, 33)
		k2 *= c1
		h2 ^= k2
		fallthrough
	case 8:
		k1 ^= sb(7) << 56
		fallthrough
	case 7:
		k1 ^= sb(6) << 48
		fallthrough
	case 6:
		k1 ^= sb(5) << 40
		fallthrough
	case 5:
		k1 ^= sb(4) << 32
		fallthrough
	case 4:
		k1 ^= sb(3) << 24
		fallthrough
	case 3:
		k1 ^= sb(2) << 16
		fallthrough
	case 2:
		k1 ^= sb(1) << 8
		fallthrough
	case 1:
		k1 ^= sb(0)
		k1 *= c1
		k1 = bits.RotateLeft64(k1, 31)
		k1 *= c2
		h1 ^= k1
	}

	h1 ^= uint64(n)
	h2 ^= uint64(n)
	h1 += h2
	h2 += h1
	h1 = fmix(h1)
	h2 = fmix(h2)
	h1 += h2
	return int64(h1)
}

func fmix(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}
