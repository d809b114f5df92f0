package loader

// batchLimits are the knobs of the batcher: MINBATCHSIZE, MAXBATCHSIZE and
// the byte cap.
type batchLimits struct {
	minRows, maxRows, maxBytes int
}

// groupRow is what the batcher needs to know of a row.
type groupRow struct {
	partition string // routing key bytes: equal for rows of one partition
	replicas  int    // replica set id, with the shard where nodes have shards (ring.GroupOf)
	size      int    // serialized value bytes
}

// groupBatches cuts a chunk's rows into batches and returns them as lists
// of row indexes, following cqlsh's rule: a partition with at least
// minRows rows gets batches of its own (cut at maxRows/maxBytes); the rows
// of smaller partitions are pooled by replica set, so every batch still
// goes to a coordinator that owns all of its rows, and each small
// partition's rows stay together when they fit. Input order is kept within
// a partition, which keeps last-write-wins by file order for repeated keys
// inside a chunk when the cluster orders a batch's mutations by position.
func groupBatches(rows []groupRow, lim batchLimits) [][]int {
	var g grouper
	return g.group(rows, lim)
}

// grouper is groupBatches with its working memory kept from one call to
// the next: a converter groups chunk after chunk, and allocating (and
// later collecting) the tables afresh each time cost more than filling
// them.
type grouper struct {
	rows                   []groupRow // the caller's input, kept for reuse
	partOf, counts, starts []int32
	byPart, pooled         []int
	out                    [][]int
	ids                    map[string]int32
	setIdx                 map[int]int
	pools                  [][]int32
}

// group is groupBatches. What it returns lives in g, so it is valid only
// until the next call.
func (g *grouper) group(rows []groupRow, lim batchLimits) [][]int {
	if len(rows) == 0 {
		return nil
	}
	// Number partitions in first-seen order, then lay each one's rows out
	// contiguously (in input order) in one slab: batches are sub-slices of
	// it, so the cost per chunk is a few allocations, not a few per row.
	partOf := grow(g.partOf, len(rows))
	g.partOf = partOf
	if g.ids == nil {
		g.ids = make(map[string]int32, len(rows))
	}
	ids := g.ids
	clear(ids)
	counts := g.counts[:0]
	for i := range rows {
		p, ok := ids[rows[i].partition]
		if !ok {
			p = int32(len(counts))
			ids[rows[i].partition] = p
			counts = append(counts, 0)
		}
		partOf[i] = p
		counts[p]++
	}
	g.counts = counts
	starts := grow(g.starts, len(counts)+1)
	g.starts = starts
	starts[0] = 0
	for p, n := range counts {
		starts[p+1] = starts[p] + n
		counts[p] = starts[p] // from here on: where the next row of p goes
	}
	byPart := grow(g.byPart, len(rows))
	g.byPart = byPart
	for i, p := range partOf {
		byPart[counts[p]] = i
		counts[p]++
	}
	part := func(p int32) []int { return byPart[starts[p]:starts[p+1]:starts[p+1]] }

	out := g.out[:0]
	cut := func(idx []int) {
		from, bytes := 0, 0
		for k, i := range idx {
			sz := rows[i].size
			if k > from && (k-from >= lim.maxRows || bytes+sz > lim.maxBytes) {
				out = append(out, idx[from:k:k])
				from, bytes = k, 0
			}
			bytes += sz
		}
		out = append(out, idx[from:len(idx):len(idx)])
	}

	// Small partitions pooled per replica set, in first-seen order.
	if g.setIdx == nil {
		g.setIdx = map[int]int{}
	}
	setIdx := g.setIdx
	clear(setIdx)
	pools := g.pools[:0]
	for p := range int32(len(counts)) {
		idx := part(p)
		if len(idx) >= lim.minRows {
			cut(idx)
			continue
		}
		s := rows[idx[0]].replicas
		k, ok := setIdx[s]
		if !ok {
			k = len(pools)
			setIdx[s] = k
			if len(pools) < cap(pools) {
				pools = append(pools, pools[:cap(pools)][len(pools)][:0])
			} else {
				pools = append(pools, nil)
			}
		}
		pools[k] = append(pools[k], p)
	}
	// Pooled batches are runs of whole partitions copied into one slab
	// that never grows past its capacity, so earlier batches stay valid.
	g.pools = pools
	pooled := grow(g.pooled, len(rows))[:0]
	g.pooled = pooled
	for _, pool := range pools {
		from, bytes := len(pooled), 0
		for _, p := range pool {
			idx := part(p)
			pb := 0
			for _, i := range idx {
				pb += rows[i].size
			}
			if n := len(pooled) - from; n > 0 && (n+len(idx) > lim.maxRows || bytes+pb > lim.maxBytes) {
				out = append(out, pooled[from:len(pooled):len(pooled)])
				from, bytes = len(pooled), 0
			}
			if len(idx) > lim.maxRows || pb > lim.maxBytes {
				// Cannot happen with minRows <= maxRows unless rows are
				// large; such a partition is cut on its own.
				cut(idx)
				continue
			}
			pooled = append(pooled, idx...)
			bytes += pb
		}
		if len(pooled) > from {
			out = append(out, pooled[from:len(pooled):len(pooled)])
		}
	}
	g.out = out
	return out
}

// grow returns s resized to n, reallocated only when too small; the
// contents are not kept.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
