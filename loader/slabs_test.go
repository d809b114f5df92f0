package loader

import (
	"testing"

	"github.com/cqlload/cqlload/csvparse"
	"github.com/cqlload/cqlload/internal/lifo"
)

func TestGetSlabsGrowsPastPooledCapacity(t *testing.T) {
	l := Loader{idleSlabs: &lifo.Pool[*slabs]{Max: 1}}
	small := l.getSlabs(2, 4, 1, 16)
	small.arena = append(small.arena, make([]byte, 100)...) // a chunk grew it
	l.release(&chunkRecord{chunk: &csvparse.Chunk{}, slabs: small})
	big := l.getSlabs(100, 300, 100, 4096)
	if big != small {
		t.Fatal("released slabs were not reused")
	}
	if cap(big.rows) < 100 || len(big.values) != 300 || len(big.inPlace) != 100 {
		t.Fatalf("getSlabs(100, 300, 100, 4096) gave rows cap %d, values %d, in place %d", cap(big.rows), len(big.values), len(big.inPlace))
	}
	// The arena keeps what it grew to, emptied; a chunk grows it further
	// by append if it must.
	if len(big.arena) != 0 || cap(big.arena) < 100 {
		t.Fatalf("reused arena: len %d cap %d, want empty with its grown capacity", len(big.arena), cap(big.arena))
	}
}
