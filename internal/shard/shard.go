// Package shard computes which ScyllaDB shard (CPU core) owns a token.
package shard

import "math/bits"

// Algorithm is the only sharding algorithm ScyllaDB advertises
// (SCYLLA_SHARDING_ALGORITHM) and the one Of implements.
const Algorithm = "biased-token-round-robin"

// DefaultIgnoreMSB is ScyllaDB's default SCYLLA_SHARDING_IGNORE_MSB
// (murmur3_partitioner_ignore_msb_bits).
const DefaultIgnoreMSB = 12

// Of returns the shard of token on a node with shards shards: the token
// is biased to an unsigned value, its top ignoreMSB bits dropped, and the
// result scaled onto [0, shards), as ScyllaDB's dht::shard_of does.
// It returns 0 when shards < 1.
func Of(token int64, shards int, ignoreMSB uint) int {
	if shards < 1 {
		return 0
	}
	z := (uint64(token) ^ 1<<63) << ignoreMSB
	hi, _ := bits.Mul64(z, uint64(shards))
	return int(hi)
}
