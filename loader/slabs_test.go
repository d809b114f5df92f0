package loader

import "testing"

func TestSlabsRecycledOnlyAfterLastHold(t *testing.T) {
	tests := []struct {
		name     string
		rows     int
		releases []int // holds given up, in order; the converter's is one of them
		recycled bool
	}{
		{"no rows: the converter's hold is the last", 0, []int{1}, true},
		{"rows still in flight", 3, []int{1, 2}, false},
		{"every row resolved, converter last", 3, []int{3, 1}, true},
		{"converter first, rows in two batches", 5, []int{1, 2, 3}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l Loader
			s := l.getSlabs(4, 8, 64)
			if cap(s.rows) < 4 || len(s.values) != 8 || len(s.cells) != 8 || cap(s.arena) < 64 || len(s.rows) != 0 || len(s.arena) != 0 {
				t.Fatalf("getSlabs gave rows %d/%d values %d cells %d arena %d/%d", len(s.rows), cap(s.rows), len(s.values), len(s.cells), len(s.arena), cap(s.arena))
			}
			s.rows = append(s.rows, row{line: 7})
			s.values[0] = &s.cells[0]
			s.cells[0].b = []byte("x")
			cs := &chunkState{}
			cs.hold(s, nil, tt.rows)
			for _, n := range tt.releases {
				l.release(cs, n)
			}
			recycled := s.values[0] == nil && s.cells[0].b == nil && s.rows[:1][0].line == 0
			if recycled != tt.recycled {
				t.Fatalf("slabs cleared for reuse: %v, want %v", recycled, tt.recycled)
			}
		})
	}
}

func TestGetSlabsGrowsPastPooledCapacity(t *testing.T) {
	l := Loader{idleSlabs: make(chan *slabs, 1)}
	small := l.getSlabs(2, 4, 16)
	small.arena = append(small.arena, make([]byte, 100)...) // a chunk grew it
	cs := &chunkState{}
	cs.hold(small, nil, 0)
	l.release(cs, 1)
	big := l.getSlabs(100, 300, 4096)
	if big != small {
		t.Fatal("released slabs were not reused")
	}
	if cap(big.rows) < 100 || len(big.values) != 300 || len(big.cells) != 300 {
		t.Fatalf("getSlabs(100, 300, 4096) gave rows cap %d, values %d, cells %d", cap(big.rows), len(big.values), len(big.cells))
	}
	// The arena keeps what it grew to, emptied; a chunk grows it further
	// by append if it must.
	if len(big.arena) != 0 || cap(big.arena) < 100 {
		t.Fatalf("reused arena: len %d cap %d, want empty with its grown capacity", len(big.arena), cap(big.arena))
	}
}
