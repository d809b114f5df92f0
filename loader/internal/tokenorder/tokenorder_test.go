package tokenorder

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/cqlload/cqlload/internal/murmur3"
)

// testRing is nodes×vnodes random tokens, each range (prev, end] owned
// by one node, RF 1: a replica set per node.
type testRing struct {
	ends  []int64
	owner []int
	nodes int
}

func newTestRing(seed uint64, nodes, vnodes int) *testRing {
	rng := rand.New(rand.NewPCG(seed, 1))
	r := &testRing{nodes: nodes}
	type tok struct {
		t int64
		n int
	}
	var all []tok
	for n := range nodes {
		for range vnodes {
			all = append(all, tok{int64(rng.Uint64()), n})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].t < all[j].t })
	for _, t := range all {
		r.ends = append(r.ends, t.t)
		r.owner = append(r.owner, t.n)
	}
	return r
}

func (r *testRing) setOf(token int64) int {
	i := sort.Search(len(r.ends), func(i int) bool { return r.ends[i] >= token })
	if i == len(r.ends) {
		i = 0
	}
	return r.owner[i]
}

func (r *testRing) shares() []float64 {
	s := make([]float64, r.nodes)
	for i, end := range r.ends {
		prev := r.ends[(i+len(r.ends)-1)%len(r.ends)]
		s[r.owner[i]] += float64(uint64(end)-uint64(prev)) / (1 << 64)
	}
	return s
}

// keyToken is the token of a bigint partition key.
func keyToken(k int64) int64 {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(k))
	return murmur3.Token(b[:])
}

// feed gives d the tokens in chunks of chunk rows, as workers converted
// them: each group of four chunks in a shuffled order. It returns the
// finding and how many rows had been fed when it came, or -1.
func feed(d *Detector, r *testRing, tokens []int64, chunk int, seed uint64) (Finding, int) {
	rng := rand.New(rand.NewPCG(seed, 2))
	var chunks [][2]int
	for from := 0; from < len(tokens); from += chunk {
		chunks = append(chunks, [2]int{from, min(from+chunk, len(tokens))})
	}
	for g := 0; g < len(chunks); g += 4 {
		grp := chunks[g:min(g+4, len(chunks))]
		rng.Shuffle(len(grp), func(i, j int) { grp[i], grp[j] = grp[j], grp[i] })
	}
	var t Tally
	fed := 0
	for _, c := range chunks {
		t.Reset("in.csv", r.nodes)
		for i := c[0]; i < c[1]; i++ {
			t.Add(r.setOf(tokens[i]), tokens[i], int64(i+1))
		}
		fed += c[1] - c[0]
		if f, ok := d.Add(&t); ok {
			return f, fed
		}
	}
	return Finding{}, -1
}

func TestDetector(t *testing.T) {
	const rows = 1_000_000
	keySorted := make([]int64, rows)
	for i := range keySorted {
		keySorted[i] = keyToken(int64(i))
	}
	tokenSorted := slices.Clone(keySorted)
	slices.Sort(tokenSorted)
	shuffled := slices.Clone(keySorted)
	rand.New(rand.NewPCG(7, 7)).Shuffle(rows, func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	// A time series: partitions of 1,000 rows each, in key order.
	series := make([]int64, rows)
	for i := range series {
		series[i] = keyToken(int64(i / 1000))
	}
	hot := make([]int64, rows)
	for i := range hot {
		hot[i] = keyToken(42)
	}
	for _, tc := range []struct {
		name          string
		nodes, vnodes int
		tokens        []int64
		found         bool
		partitions    int
	}{
		{"token-sorted, 1 token a node", 3, 1, tokenSorted, true, 0},
		{"token-sorted, 16 tokens a node", 3, 16, tokenSorted, true, 0},
		{"token-sorted, 2 nodes of 8 tokens", 2, 8, tokenSorted, true, 0},
		{"token-sorted, 12 nodes", 12, 1, tokenSorted, true, 0},
		{"key-sorted", 3, 1, keySorted, false, 0},
		{"key-sorted, 16 tokens a node", 3, 16, keySorted, false, 0},
		{"shuffled", 3, 16, shuffled, false, 0},
		{"partitions of 1,000 rows in key order", 3, 16, series, false, 0},
		{"one hot partition", 3, 16, hot, true, 1},
		{"token-sorted, fewer rows than a window", 3, 1, tokenSorted[:DefaultWindowRows-1], false, 0},
		{"token-sorted, fewer rows than the windows the rule needs", 3, 1, tokenSorted[:(DefaultNeed-1)*DefaultWindowRows], false, 0},
	} {
		for seed := range uint64(3) {
			r := newTestRing(seed, tc.nodes, tc.vnodes)
			d := New(r.shares(), 0, 0, 0)
			if !d.Watching() {
				t.Fatalf("%s: a ring of %d sets not watched", tc.name, tc.nodes)
			}
			f, at := feed(d, r, tc.tokens, 5000, seed)
			if found := at >= 0; found != tc.found {
				t.Errorf("%s, ring %d: found %v (%+v after %d rows), want %v", tc.name, seed, found, f, at, tc.found)
				continue
			}
			if !tc.found {
				continue
			}
			if at > len(tc.tokens)/10 {
				t.Errorf("%s, ring %d: found after %d rows of %d, want within the first tenth", tc.name, seed, at, len(tc.tokens))
			}
			if f.Partitions != tc.partitions {
				t.Errorf("%s, ring %d: %d partitions, want %d", tc.name, seed, f.Partitions, tc.partitions)
			}
			// Chunks come out of order: the lines span the skewed
			// windows' rows, and perhaps a chunk or two more.
			if f.File != "in.csv" || f.FirstLine < 1 || f.LastLine-f.FirstLine+1 < f.Rows || f.LastLine-f.FirstLine+1 > f.Rows+4*5000 || f.Rows < int64(DefaultNeed*DefaultWindowRows) {
				t.Errorf("%s, ring %d: finding %+v after %d rows: want lines of in.csv within them, spanning the skewed windows", tc.name, seed, f, at)
			}
			if len(f.Sets) == 0 {
				t.Errorf("%s, ring %d: finding names no replica set", tc.name, seed)
			}
			// Once only.
			if _, again := feed(d, r, tc.tokens, 5000, seed); again >= 0 {
				t.Errorf("%s, ring %d: found twice", tc.name, seed)
			}
		}
	}
}

// TestDetectorNotWatching: with one replica set (RF equal to the nodes),
// or one set owning nearly all of the ring, order cannot matter and
// nothing is said.
func TestDetectorNotWatching(t *testing.T) {
	for _, shares := range [][]float64{{1}, {0.95}, {}} {
		if New(shares, 0, 0, 0).Watching() {
			t.Errorf("shares %v: watched", shares)
		}
	}
	d := New([]float64{0.95, 0.05}, 100, 1, 1)
	var tl Tally
	tl.Reset("f", 2)
	for i := range 1000 {
		tl.Add(0, int64(i), int64(i+1))
	}
	if f, ok := d.Add(&tl); ok {
		t.Errorf("all rows to a set owning 95%% of the ring: found %+v", f)
	}
}

// TestTallyReuse: a tally reset for the next chunk forgets the last
// one's counts and tokens, and a tally of another ring's size is not
// added.
func TestTallyReuse(t *testing.T) {
	var tl Tally
	tl.Reset("a", 3)
	for i := range 20 {
		tl.Add(i%3, int64(i), int64(i+1))
	}
	tl.Add(7, 1, 1) // no such set: ignored
	if tl.Rows != 20 || !tl.manyTokens {
		t.Fatalf("rows %d, many tokens %v: want 20, true", tl.Rows, tl.manyTokens)
	}
	tl.Reset("b", 3)
	tl.Add(1, 5, 9)
	tl.Add(1, 5, 8)
	if tl.Rows != 2 || tl.counts[0] != 0 || tl.counts[1] != 2 || tl.ntokens != 1 || tl.manyTokens || tl.FirstLine != 8 || tl.LastLine != 9 || tl.File != "b" {
		t.Fatalf("after reset: %+v", tl)
	}
	d := New([]float64{0.5, 0.25, 0.25, 0}, 1, 1, 1)
	if _, ok := d.Add(&tl); ok {
		t.Fatal("a tally of 3 sets was judged against a ring of 4")
	}
}

// BenchmarkTally is the cost per row of counting a chunk of 5,000 rows
// of spread tokens, and adding the tally to a detector.
func BenchmarkTally(b *testing.B) {
	r := newTestRing(1, 3, 16)
	tokens := make([]int64, 5000)
	sets := make([]int, len(tokens))
	for i := range tokens {
		tokens[i] = keyToken(int64(i))
		sets[i] = r.setOf(tokens[i])
	}
	d := New(r.shares(), 0, 0, 0)
	var t Tally
	b.ResetTimer()
	for range b.N {
		t.Reset("f", 3)
		for i, k := range tokens {
			t.Add(sets[i], k, int64(i))
		}
		d.Add(&t)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(tokens)), "ns/row")
}
