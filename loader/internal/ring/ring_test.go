package ring

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/cqlload/cqlload/internal/shard"
)

func TestRingReplicas(t *testing.T) {
	nodes := []Node{
		{ID: "a", DC: "dc1", Rack: "r1", Tokens: []int64{-100, 200}},
		{ID: "b", DC: "dc1", Rack: "r1", Tokens: []int64{0}},
		{ID: "c", DC: "dc1", Rack: "r2", Tokens: []int64{100}},
		{ID: "d", DC: "dc2", Rack: "r1", Tokens: []int64{50}},
	}
	tests := []struct {
		name  string
		repl  Replication
		token int64
		want  []string
	}{
		{"simple rf1 exact token", Replication{class: "SimpleStrategy", rf: 1}, 0, []string{"b"}},
		{"simple rf1 between tokens", Replication{class: "SimpleStrategy", rf: 1}, 1, []string{"d"}},
		{"simple rf1 wraps", Replication{class: "SimpleStrategy", rf: 1}, 300, []string{"a"}},
		{"simple rf2 distinct nodes", Replication{class: "SimpleStrategy", rf: 2}, 150, []string{"a", "b"}},
		{"simple rf larger than ring", Replication{class: "SimpleStrategy", rf: 9}, 0, []string{"a", "b", "c", "d"}},
		// From token 1: d(50, dc2) c(100, r2) a(200, r1) …: dc1 takes c, then a (new rack r1).
		{"nts dc1:2 prefers racks", Replication{class: "NetworkTopologyStrategy", dcRF: map[string]int{"dc1": 2}}, 1, []string{"a", "c"}},
		// From -100: a(r1) b(r1, skipped: rack used) c(r2): a, c.
		{"nts skips same rack", Replication{class: "NetworkTopologyStrategy", dcRF: map[string]int{"dc1": 2}}, -150, []string{"a", "c"}},
		// All racks used after a, c: the skipped b comes next.
		{"nts fills skipped", Replication{class: "NetworkTopologyStrategy", dcRF: map[string]int{"dc1": 3}}, -150, []string{"a", "b", "c"}},
		{"nts two dcs", Replication{class: "NetworkTopologyStrategy", dcRF: map[string]int{"dc1": 1, "dc2": 1}}, 150, []string{"a", "d"}},
		{"local strategy groups by owner", Replication{class: "LocalStrategy"}, 150, []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New(nodes, tt.repl, "")
			got := r.sets[r.replicaSet(tt.token)]
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("replicas of %d = %v, want %v", tt.token, got, tt.want)
			}
		})
	}
}

// anyLocal: no local data center, so every host is local.
func anyLocal(string) bool { return true }

// TestRingCoordinator: a token's coordinator is its first replica in ring
// order, in the local data center when there is one, as the driver's
// token-aware policy picks it with replicas not shuffled; not the least
// host id of its replica set (which it was: with more than one replica,
// the loader charged requests to a node the driver did not send them to).
func TestRingCoordinator(t *testing.T) {
	nodes := []Node{
		{ID: "a", DC: "dc1", Rack: "r1", Tokens: []int64{-100, 200}},
		{ID: "b", DC: "dc1", Rack: "r1", Tokens: []int64{0}},
		{ID: "c", DC: "dc1", Rack: "r2", Tokens: []int64{100}},
		{ID: "d", DC: "dc2", Rack: "r1", Tokens: []int64{50}},
	}
	simple := func(rf int) Replication { return Replication{class: "SimpleStrategy", rf: rf} }
	nts := func(dcRF map[string]int) Replication {
		return Replication{class: "NetworkTopologyStrategy", dcRF: dcRF}
	}
	tests := []struct {
		name    string
		repl    Replication
		localDC string
		token   int64
		want    string
	}{
		// From token 1 the ring goes d(50) c(100) a(200) a(-100) b(0).
		{"simple rf2: the first in ring order", simple(2), "", 1, "d"},
		{"simple rf2, local dc1: its first", simple(2), "dc1", 1, "c"},
		{"simple rf1, no replica in dc1: the replica", simple(1), "dc1", 1, "d"},
		{"simple rf3 wraps", simple(3), "", 150, "a"},
		{"nts: the first met of all data centers", nts(map[string]int{"dc1": 2, "dc2": 1}), "", 1, "d"},
		{"nts, local dc1", nts(map[string]int{"dc1": 2, "dc2": 1}), "dc1", 1, "c"},
		{"nts, local dc2", nts(map[string]int{"dc1": 2, "dc2": 1}), "dc2", 150, "d"},
		{"nts: the walk from 150 meets a before d", nts(map[string]int{"dc1": 1, "dc2": 1}), "", 150, "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := New(nodes, tt.repl, tt.localDC).Primary(tt.token); got != tt.want {
				t.Fatalf("coordinator of %d = %q, want %q", tt.token, got, tt.want)
			}
		})
	}
}

func TestParseReplication(t *testing.T) {
	r, err := ParseReplication("org.apache.cassandra.locator.NetworkTopologyStrategy", map[string]any{"dc1": "3", "dc2": 2, "class": "x"})
	if err != nil {
		t.Fatal(err)
	}
	if r.class != "NetworkTopologyStrategy" || !reflect.DeepEqual(r.dcRF, map[string]int{"dc1": 3, "dc2": 2}) {
		t.Fatalf("got %+v", r)
	}
	r, err = ParseReplication("SimpleStrategy", map[string]any{"replication_factor": "2"})
	if err != nil || r.rf != 2 {
		t.Fatalf("got %+v, %v", r, err)
	}
	if _, err := ParseReplication("SimpleStrategy", map[string]any{"replication_factor": "x"}); err == nil {
		t.Fatal("bad replication factor accepted")
	}
}

func TestRangeRing(t *testing.T) {
	r := rangeRing([]Range{
		{Last: -100, Hosts: []string{"b", "a"}},
		{Last: 0, Hosts: []string{"c"}},
		{Last: 500, Hosts: []string{"a", "b"}},
	}, anyLocal)
	tests := []struct {
		token int64
		want  []string
	}{
		{-200, []string{"a", "b"}}, {-100, []string{"a", "b"}}, {-99, []string{"c"}},
		{0, []string{"c"}}, {1, []string{"a", "b"}}, {501, []string{"a", "b"}},
	}
	for _, tt := range tests {
		if got := r.sets[r.replicaSet(tt.token)]; !reflect.DeepEqual(got, tt.want) {
			t.Errorf("token %d: replicas %v, want %v", tt.token, got, tt.want)
		}
	}
	if len(r.sets) != 2 {
		t.Errorf("%d replica sets, want 2 (same hosts in another order are one set)", len(r.sets))
	}
}

// The bucket index finds the range a binary search over the ends does,
// for rings from one range to more than the buckets (several ends a
// bucket), with ends bunched together and at the extremes, and tokens at,
// around and between the ends.
func TestReplicaSetIndexMatchesSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 2, 3, 768, 7680, 200000} {
		ends := make([]int64, 0, n)
		for len(ends) < n {
			e := int64(rng.Uint64())
			switch rng.IntN(8) {
			case 0:
				e = math.MaxInt64 - int64(rng.IntN(3))
			case 1:
				e = math.MinInt64 + int64(rng.IntN(3))
			case 2:
				e = e>>40 | 1<<40 // bunched in a few buckets
			}
			ends = append(ends, e)
		}
		slices.Sort(ends)
		ends = slices.Compact(ends)
		ranges := make([]Range, len(ends))
		for i, e := range ends {
			ranges[i] = Range{Last: e, Hosts: []string{strconv.Itoa(i)}}
		}
		r := rangeRing(ranges, anyLocal)
		want := func(token int64) int {
			i, _ := slices.BinarySearch(ends, token)
			if i == len(ends) {
				i = 0
			}
			return r.set[i]
		}
		tokens := []int64{math.MinInt64, math.MinInt64 + 1, -1, 0, 1, math.MaxInt64 - 1, math.MaxInt64}
		for _, e := range ends[:min(len(ends), 2000)] {
			tokens = append(tokens, e-1, e, e+1)
		}
		for range 20000 {
			tokens = append(tokens, int64(rng.Uint64()))
		}
		for _, tok := range tokens {
			if got, w := r.replicaSet(tok), want(tok); got != w {
				t.Fatalf("%d ranges, token %d: replica set %d, want %d", len(ends), tok, got, w)
			}
		}
	}
}

func TestGroupOfSplitsReplicaSetsByShard(t *testing.T) {
	r := New([]Node{{ID: "a", Tokens: []int64{0}}, {ID: "b", Tokens: []int64{1 << 62}}}, Replication{class: "SimpleStrategy", rf: 1}, "")
	tokens := []int64{-1 << 62, -5, 5, 1 << 61, 1<<62 + 1, 1 << 63 >> 1}
	for _, tok := range tokens {
		if got, want := r.GroupOf(tok), r.replicaSet(tok); got != want {
			t.Fatalf("unsharded: GroupOf(%d) = %d, want the replica set %d", tok, got, want)
		}
	}
	r.Shards, r.IgnoreMSB = 4, shard.DefaultIgnoreMSB
	seen := map[int]bool{}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 4000 {
		tok := int64(rng.Uint64())
		g := r.GroupOf(tok)
		if g/4 != r.replicaSet(tok) || g%4 != shard.Of(tok, 4, shard.DefaultIgnoreMSB) {
			t.Fatalf("GroupOf(%d) = %d: not replica set %d, shard %d", tok, g, r.replicaSet(tok), shard.Of(tok, 4, shard.DefaultIgnoreMSB))
		}
		seen[g] = true
	}
	if len(seen) != 8 {
		t.Fatalf("%d groups over 2 replica sets of 4 shards, want 8", len(seen))
	}
}

// TestSetShares: each replica set's share of the ring is the length of
// its ranges, the first range wrapping past the ring's end; a token's
// set holds its replicas.
func TestSetShares(t *testing.T) {
	const q = int64(1) << 62 // a quarter of the ring
	nodes := []Node{
		{ID: "a", Tokens: []int64{-q}}, // (q, -q]: half the ring, wrapping
		{ID: "b", Tokens: []int64{0}},  // (-q, 0]: a quarter
		{ID: "c", Tokens: []int64{q}},  // (0, q]: a quarter
	}
	r := New(nodes, Replication{class: "SimpleStrategy", rf: 1}, "")
	if r.Sets() != 3 {
		t.Fatalf("%d sets, want 3", r.Sets())
	}
	want := map[string]float64{"a": 0.5, "b": 0.25, "c": 0.25}
	sum := 0.0
	for set, share := range r.SetShares() {
		id := r.SetHosts(set)[0]
		if math.Abs(share-want[id]) > 1e-9 {
			t.Errorf("set of %s: share %v, want %v", id, share, want[id])
		}
		sum += share
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Errorf("shares add up to %v", sum)
	}
	one := New(nodes[:1], Replication{class: "SimpleStrategy", rf: 1}, "")
	if got := one.SetShares(); len(got) != 1 || got[0] != 1 {
		t.Errorf("one node: shares %v, want [1]", got)
	}
	all := New(nodes, Replication{class: "SimpleStrategy", rf: 3}, "")
	if got := all.SetShares(); len(got) != 1 || math.Abs(got[0]-1) > 1e-9 {
		t.Errorf("rf 3 of 3 nodes: shares %v, want one set with all", got)
	}
	for _, tok := range []int64{-q - 5, 7, q - 3, q + 1} {
		if got, want := r.SetHosts(r.SetOf(tok)), r.Replicas(tok); !slices.Equal(got, want) {
			t.Errorf("token %d: set of hosts %v, want %v", tok, got, want)
		}
	}
}
