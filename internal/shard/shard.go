// Package shard computes which ScyllaDB shard (CPU core) owns a token.
package shard

import (
	"context"
	"math/bits"
	"time"

	"github.com/gocql/gocql"
)

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

// Hosts returns the sharding every one of hosts announces (the scylladb
// driver learns it when it connects to a host), or 0 shards when any host
// announces none, another algorithm, or differs from the others: grouping
// rows by shard then would not match how every replica splits them.
func Hosts(hosts []*gocql.HostInfo) (shards int, ignoreMSB uint) {
	for i, h := range hosts {
		f := h.ScyllaFeatures()
		n, msb := f.ShardsCount(), uint(f.MSBIgnore())
		if n < 1 || f.ShardingAlgorithm() != Algorithm || i > 0 && (n != shards || msb != ignoreMSB) {
			return 0, 0
		}
		shards, ignoreMSB = n, msb
	}
	return shards, ignoreMSB
}

// AwaitPools waits, at most limit, until the driver holds a connection to
// every shard of every host it keeps a pool for (none for a host it could
// not reach). The driver opens them in the background after the first,
// and until then sends a shard's rows down another shard's connection: a
// short load would be mostly misrouted. A pool still short at the limit
// only costs routing, so callers go on either way. Call it only for a
// sharded cluster: a pool that has not learned its shard count yet
// counts as short.
func AwaitPools(ctx context.Context, s *gocql.Session, limit time.Duration) {
	deadline := time.Now().Add(limit)
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		full := true
		s.IterateHostPools(func(p gocql.HostPoolInfo) bool {
			// A pool reports 0 shards until its first connection
			// learned the count: not full yet, though 0 >= 0.
			n := p.GetShardCount()
			full = n > 0 && p.GetConnectionCount() >= n
			return full
		})
		if full || time.Now().After(deadline) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
