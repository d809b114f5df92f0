package lifo

import (
	"sync"
	"testing"
)

// drain returns what p holds, in the order Get hands it out.
func drain[T any](p *Pool[T]) []T {
	var out []T
	for x, ok := p.Get(); ok; x, ok = p.Get() {
		out = append(out, x)
	}
	return out
}

func TestPool(t *testing.T) {
	p := Pool[int]{Max: 2}
	if _, ok := p.Get(); ok {
		t.Fatal("Get from an empty pool reported an item")
	}
	p.Put(1)
	p.Put(2)
	p.Put(3) // over Max: dropped
	if got := drain(&p); len(got) != 2 || got[0] != 2 || got[1] != 1 {
		t.Fatalf("after putting 1, 2, 3 with Max 2, Get gave %v; want [2 1] (last put, first out)", got)
	}
	p.Put(4)
	if got := drain(&p); len(got) != 1 || got[0] != 4 {
		t.Fatalf("a drained pool takes items again: got %v, want [4]", got)
	}
}

// TestPoolConcurrent is for the race detector: goroutines taking and
// giving back items at once, each item owned by one of them at a time.
func TestPoolConcurrent(t *testing.T) {
	p := Pool[*int]{Max: 8}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				x, ok := p.Get()
				if !ok {
					x = new(int)
				}
				*x = i
				p.Put(x)
			}
		}()
	}
	wg.Wait()
	if n := len(drain(&p)); n < 1 || n > 8 {
		t.Fatalf("%d items left, want 1..8", n)
	}
}
