package loader

// slabs are the per-chunk allocations of conversion: the rows, their
// bound values, the arena the values are serialized in, and the values
// bound in place in the chunk's Data. A chunk's slabs go back to the Loader's pool once every
// row converted into them has left the pipeline (written, rejected or
// aborted), so a long load reuses a handful of slabs instead of
// allocating and zeroing megabytes per chunk for the collector to chase.
type slabs struct {
	rows    []row
	values  []any
	inPlace []inPlace
	arena   []byte
}

// getSlabs returns slabs holding at least the given capacities, recycled
// when the pool has some.
func (l *Loader) getSlabs(records, nvalues, ninPlace, arenaBytes int) *slabs {
	s, ok := l.idleSlabs.Get()
	if !ok {
		s = &slabs{}
	}
	if cap(s.rows) < records {
		s.rows = make([]row, 0, records)
	}
	if cap(s.values) < nvalues {
		s.values = make([]any, nvalues)
	}
	if cap(s.inPlace) < ninPlace {
		s.inPlace = make([]inPlace, ninPlace)
	}
	s.values, s.inPlace = s.values[:nvalues], s.inPlace[:ninPlace]
	if s.arena == nil {
		// A pooled arena keeps the size earlier chunks grew it to. One
		// that is too small for a chunk grows by append: the values
		// already cut keep the old array alive until the chunk is done,
		// and the slab keeps the grown one. Sizing every arena for the
		// worst case (the chunk's whole input) held three times the
		// memory narrow rows need, and 1 KB rows, bound in place, need
		// almost none.
		s.arena = make([]byte, 0, arenaBytes)
	}
	s.rows, s.arena = s.rows[:0], s.arena[:0]
	return s
}

// release recycles a settled chunk's input block and slabs. The ledger
// calls it once, when every row of the chunk has its outcome; nothing
// may touch the chunk's rows afterwards.
func (l *Loader) release(cr *chunkRecord) {
	cr.chunk.Release()
	s := cr.slabs
	if s == nil {
		return
	}
	cr.slabs = nil
	// Stale pointers would keep old arenas alive and hand the next
	// chunk rows it did not convert.
	clear(s.rows[:cap(s.rows)])
	clear(s.values)
	clear(s.inPlace)
	l.idleSlabs.Put(s)
}
