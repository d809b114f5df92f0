package loader

// batchLimits are the knobs of the batcher: MINBATCHSIZE, MAXBATCHSIZE and
// the byte cap.
type batchLimits struct {
	minRows, maxRows, maxBytes int
}

// groupRow is what the batcher needs to know of a row.
type groupRow struct {
	partition string // routing key bytes: equal for rows of one partition
	replicas  int    // replica set id
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
	// Partitions in first-seen order, each a list of row indexes.
	partIdx := make(map[string]int, len(rows))
	var parts [][]int
	for i, r := range rows {
		p, ok := partIdx[r.partition]
		if !ok {
			p = len(parts)
			partIdx[r.partition] = p
			parts = append(parts, nil)
		}
		parts[p] = append(parts[p], i)
	}

	var out [][]int
	cut := func(idx []int) {
		var cur []int
		bytes := 0
		for _, i := range idx {
			sz := rows[i].size
			if len(cur) > 0 && (len(cur) >= lim.maxRows || bytes+sz > lim.maxBytes) {
				out = append(out, cur)
				cur, bytes = nil, 0
			}
			cur = append(cur, i)
			bytes += sz
		}
		if len(cur) > 0 {
			out = append(out, cur)
		}
	}

	// Small partitions pooled per replica set, in first-seen order.
	setIdx := map[int]int{}
	var pools [][][]int
	for _, p := range parts {
		if len(p) >= lim.minRows {
			cut(p)
			continue
		}
		s := rows[p[0]].replicas
		k, ok := setIdx[s]
		if !ok {
			k = len(pools)
			setIdx[s] = k
			pools = append(pools, nil)
		}
		pools[k] = append(pools[k], p)
	}
	for _, pool := range pools {
		var cur []int
		bytes := 0
		for _, p := range pool {
			pb := 0
			for _, i := range p {
				pb += rows[i].size
			}
			if len(cur) > 0 && (len(cur)+len(p) > lim.maxRows || bytes+pb > lim.maxBytes) {
				out = append(out, cur)
				cur, bytes = nil, 0
			}
			if len(p) > lim.maxRows || pb > lim.maxBytes {
				// Cannot happen with minRows <= maxRows unless rows are
				// large; such a partition is cut on its own.
				cut(p)
				continue
			}
			cur = append(cur, p...)
			bytes += pb
		}
		if len(cur) > 0 {
			out = append(out, cur)
		}
	}
	return out
}
