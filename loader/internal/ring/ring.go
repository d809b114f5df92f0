// Package ring maps a token to its replicas, placed as Cassandra places
// them (SimpleStrategy, NetworkTopologyStrategy) on the vnode ring, or as
// the driver lists them for ScyllaDB's tablets. The loader groups rows by
// a token's replica set (and shard) and charges a batch to its
// coordinator's in-flight limit; it builds a Ring from the driver's
// metadata, which this package does not read.
package ring

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/cqlload/cqlload/internal/shard"
)

// Node is what replica placement needs to know of a host.
type Node struct {
	ID, DC, Rack string
	Tokens       []int64
}

// Ring maps a token to the set of replicas that own it, as an int id, so
// rows can be grouped by replica set without comparing host lists per row.
// Ranges are (ends[i-1], ends[i]]; a token past the last end wraps to the
// first range, as on Cassandra's ring.
type Ring struct {
	ends []int64
	// first[b] is the first range that may hold a token of bucket b, the
	// tokens' top bucketBits bits in token order (bucket): a lookup per
	// row starts there and steps over the ends inside the bucket, about
	// one, instead of a binary search's dozen unpredictable branches.
	first      []int32
	bucketBits uint
	set        []int      // replica set id of each range
	sets       [][]string // host ids of each replica set, sorted, for tests and messages
	// reps is each range's replicas, local data center first, then in
	// ring order: reps[i][0] is the range's coordinator, which the
	// driver's token-aware policy, told not to shuffle replicas, sends
	// to; the others take its requests when it stops answering
	// (the loader's reroute). Ranges with one order share a slice.
	reps [][]string

	// Shards and IgnoreMSB describe ScyllaDB sharding when every node
	// announces the same; Shards is 0 otherwise (Cassandra, or nodes
	// that differ). They and Addrs are set before the ring is shared.
	Shards    int
	IgnoreMSB uint
	Addrs     map[string]string // host id → address, for reports
}

// GroupOf is the batching group of token: its replica set and, where the
// nodes are sharded alike, its shard. A batch of one group is then one
// shard's work on every replica, and the driver's shard-aware routing,
// which follows the batch's first row, sends it to that shard.
func (r *Ring) GroupOf(token int64) int {
	set := r.replicaSet(token)
	if r.Shards <= 1 {
		return set
	}
	return set*r.Shards + shard.Of(token, r.Shards, r.IgnoreMSB)
}

// Sets is the number of distinct replica sets; set ids run from 0 to
// Sets()-1.
func (r *Ring) Sets() int { return max(len(r.sets), 1) }

// SetOf is the id of the replica set owning token.
func (r *Ring) SetOf(token int64) int { return r.replicaSet(token) }

// SetHosts are the host ids of a replica set, sorted; the slice is
// shared: do not modify it.
func (r *Ring) SetHosts(set int) []string {
	if set < 0 || set >= len(r.sets) {
		return nil
	}
	return r.sets[set]
}

// SetShares is each replica set's share of the token ring, by set id:
// the share of rows it takes when their tokens are spread at random, as
// the Murmur3 partitioner spreads keys. They add up to 1.
func (r *Ring) SetShares() []float64 {
	shares := make([]float64, r.Sets())
	if len(r.ends) <= 1 {
		shares[0] = 1
		return shares
	}
	for i, end := range r.ends {
		prev := r.ends[(i+len(r.ends)-1)%len(r.ends)]
		// Unsigned, the difference wraps past the ring's end as the
		// first range does.
		shares[r.set[i]] += float64(uint64(end)-uint64(prev)) / (1 << 64)
	}
	return shares
}

// Primary is the coordinator of token: its first replica in ring order
// (local data center first), which the driver's token-aware policy picks
// while it is up; "" when the ring is unknown.
func (r *Ring) Primary(token int64) string {
	if reps := r.Replicas(token); len(reps) > 0 {
		return reps[0]
	}
	return ""
}

// Replicas are token's replicas, its coordinator first (see reps); nil
// when the ring is unknown. The slice is shared: do not modify it.
func (r *Ring) Replicas(token int64) []string {
	if len(r.reps) == 0 {
		return nil
	}
	return r.reps[r.rangeOf(token)]
}

// replicaSet returns the id of the replica set owning token.
func (r *Ring) replicaSet(token int64) int {
	if len(r.ends) == 0 {
		return 0
	}
	return r.set[r.rangeOf(token)]
}

// rangeOf is the index of the range holding token: the first range
// ending at or after it; past the last, the first range. The ring must
// have ranges.
func (r *Ring) rangeOf(token int64) int {
	i := int(r.first[bucket(token, r.bucketBits)])
	for i < len(r.ends) && r.ends[i] < token {
		i++
	}
	if i == len(r.ends) {
		i = 0
	}
	return i
}

// bucket is the top bits of token, ordered as tokens are.
func bucket(token int64, bits uint) uint64 {
	return (uint64(token) ^ 1<<63) >> (64 - bits)
}

// index makes first: at least two buckets a range (most buckets then
// hold no end), from 2^8 to 2^16 of them.
func (r *Ring) index() {
	r.bucketBits = 8
	for r.bucketBits < 16 && 1<<r.bucketBits < 2*len(r.ends) {
		r.bucketBits++
	}
	r.first = make([]int32, 1<<r.bucketBits)
	i := 0
	for b := range r.first {
		// The bucket's least token: b in the top bits, the rest 0.
		least := int64(uint64(b)<<(64-r.bucketBits) ^ 1<<63)
		for i < len(r.ends) && r.ends[i] < least {
			i++
		}
		r.first[b] = int32(i)
	}
}

// Replication is a keyspace's replication strategy, as ParseReplication
// reads it.
type Replication struct {
	class string         // short class name: SimpleStrategy, NetworkTopologyStrategy, …
	rf    int            // SimpleStrategy
	dcRF  map[string]int // NetworkTopologyStrategy
}

// ParseReplication reads the driver's keyspace metadata (strategy class and
// options, whose values may be strings or numbers depending on the driver).
func ParseReplication(class string, opts map[string]any) (Replication, error) {
	r := Replication{class: class[strings.LastIndexByte(class, '.')+1:]}
	num := func(v any) (int, error) {
		switch x := v.(type) {
		case int:
			return x, nil
		case string:
			// NTS options may be "3" or, with transient replication, "3/1".
			full, _, _ := strings.Cut(x, "/")
			return strconv.Atoi(strings.TrimSpace(full))
		}
		return 0, fmt.Errorf("unexpected replication value %v", v)
	}
	switch r.class {
	case "SimpleStrategy":
		n, err := num(opts["replication_factor"])
		if err != nil {
			return r, fmt.Errorf("SimpleStrategy replication_factor: %w", err)
		}
		r.rf = n
	case "NetworkTopologyStrategy":
		r.dcRF = map[string]int{}
		for k, v := range opts {
			if k == "class" || k == "replication_factor" {
				continue
			}
			n, err := num(v)
			if err != nil {
				return r, fmt.Errorf("NetworkTopologyStrategy %s: %w", k, err)
			}
			r.dcRF[k] = n
		}
	}
	return r, nil
}

type tokenOwner struct {
	token int64
	node  int
}

// New places replicas the way Cassandra does for the vnode ring:
// SimpleStrategy takes the next distinct nodes clockwise; NTS does so per
// data center, preferring racks not yet used, then the skipped nodes in
// ring order. Any other strategy (LocalStrategy, EverywhereStrategy…) is
// grouped by primary owner only, which is still a valid grouping.
func New(nodes []Node, repl Replication, localDC string) *Ring {
	var owners []tokenOwner
	for i, n := range nodes {
		for _, t := range n.Tokens {
			owners = append(owners, tokenOwner{t, i})
		}
	}
	sort.Slice(owners, func(a, b int) bool { return owners[a].token < owners[b].token })
	// Each vnode is a range ending at its token, replicated as placed.
	ranges := make([]Range, len(owners))
	for i := range owners {
		reps := replicasAt(nodes, owners, i, repl)
		hostIDs := make([]string, len(reps))
		for j, n := range reps {
			hostIDs[j] = nodes[n].ID
		}
		ranges[i] = Range{Last: owners[i].token, Hosts: hostIDs}
	}
	return rangeRing(ranges, localTo(nodes, localDC))
}

// localTo says whether a host id is of a node in dc; every host is,
// without one.
func localTo(nodes []Node, dc string) func(id string) bool {
	if dc == "" {
		return func(string) bool { return true }
	}
	in := map[string]bool{}
	for _, n := range nodes {
		in[n.ID] = n.DC == dc
	}
	return func(id string) bool { return in[id] }
}

func replicasAt(nodes []Node, owners []tokenOwner, start int, repl Replication) []int {
	var out []int
	seen := map[int]bool{}
	walk := func(visit func(n int) bool) {
		for k := 0; k < len(owners); k++ {
			if !visit(owners[(start+k)%len(owners)].node) {
				return
			}
		}
	}
	switch repl.class {
	case "SimpleStrategy":
		walk(func(n int) bool {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
			return len(out) < repl.rf
		})
	case "NetworkTopologyStrategy":
		// Each data center's replicas, the data centers in the order the
		// walk meets their first replica: out[0] is then the first
		// replica in ring order, as the driver lists them.
		type dcReplicas struct {
			nodes []int
			first int
		}
		var per []dcReplicas
		for dc, rf := range repl.dcRF {
			nodes, first := ntsReplicas(nodes, owners, start, dc, rf)
			if len(nodes) > 0 {
				per = append(per, dcReplicas{nodes, first})
			}
		}
		sort.Slice(per, func(i, j int) bool { return per[i].first < per[j].first })
		for _, d := range per {
			out = append(out, d.nodes...)
		}
	default:
		out = append(out, owners[start].node)
	}
	return out
}

// ntsReplicas places dc's replicas of the range at start; first is how
// far the walk went for the first of them, which is the first node of dc
// it meets.
func ntsReplicas(nodes []Node, owners []tokenOwner, start int, dc string, rf int) (out []int, first int) {
	racks := map[string]bool{}
	inDC := 0
	seenNode := map[int]bool{}
	for _, o := range owners {
		if nodes[o.node].DC == dc && !seenNode[o.node] {
			seenNode[o.node] = true
			inDC++
			racks[nodes[o.node].Rack] = true
		}
	}
	if rf > inDC {
		rf = inDC
	}
	var skipped []int
	chosen := map[int]bool{}
	usedRacks := map[string]bool{}
	for k := 0; k < len(owners) && len(out) < rf; k++ {
		n := owners[(start+k)%len(owners)].node
		if nodes[n].DC != dc || chosen[n] {
			continue
		}
		if len(out) == 0 {
			first = k
		}
		if usedRacks[nodes[n].Rack] && len(usedRacks) < len(racks) {
			if !contains(skipped, n) {
				skipped = append(skipped, n)
			}
			continue
		}
		chosen[n] = true
		out = append(out, n)
		usedRacks[nodes[n].Rack] = true
		if len(usedRacks) == len(racks) {
			// Every rack has a replica: the nodes passed over for rack
			// diversity come next, in the order they were met.
			for _, s := range skipped {
				if len(out) < rf && !chosen[s] {
					chosen[s] = true
					out = append(out, s)
				}
			}
			skipped = nil
		}
	}
	return out, first
}

func contains(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// Range is a vnode or a tablet: tokens in (first, Last] and their
// replicas' host ids, in the driver's order (ring order for vnodes).
type Range struct {
	Last  int64
	Hosts []string
}

// FromRanges builds a ring from token ranges sorted by last token (see
// rangeRing), with the replicas of nodes in localDC first.
func FromRanges(ranges []Range, nodes []Node, localDC string) *Ring {
	return rangeRing(ranges, localTo(nodes, localDC))
}

// rangeRing builds a ring from token ranges sorted by last token: the
// vnode ring's, or tablets (ScyllaDB's per-table token ranges). The
// driver learns tablets from responses, so the list may have gaps at
// first: a token in a gap falls to the next known tablet, which only costs
// batching efficiency, never correctness (the driver routes every request
// by its own tablet map).
func rangeRing(ranges []Range, local func(id string) bool) *Ring {
	r := &Ring{}
	ids := map[string]int{}
	orders := map[string][]string{}
	for _, tr := range ranges {
		// Local replicas first, each part in the driver's order. With
		// none local, the driver falls back to another node there,
		// which cannot be known; the first replica stands for it.
		order := make([]string, 0, len(tr.Hosts))
		for _, h := range tr.Hosts {
			if local(h) {
				order = append(order, h)
			}
		}
		for _, h := range tr.Hosts {
			if !local(h) {
				order = append(order, h)
			}
		}
		if o, ok := orders[strings.Join(order, ",")]; ok {
			order = o
		} else {
			orders[strings.Join(order, ",")] = order
		}
		r.reps = append(r.reps, order)
		hosts := append([]string(nil), tr.Hosts...)
		sort.Strings(hosts)
		key := strings.Join(hosts, ",")
		id, ok := ids[key]
		if !ok {
			id = len(r.sets)
			ids[key] = id
			r.sets = append(r.sets, hosts)
		}
		r.ends = append(r.ends, tr.Last)
		r.set = append(r.set, id)
	}
	r.index()
	return r
}
