package lifo

import (
	"sync"
	"testing"
)

func TestPool(t *testing.T) {
	p := Pool[int]{Max: 2}
	if _, ok := p.Get(); ok {
		t.Fatal("Get from an empty pool reported an item")
	}
	p.Put(1)
	p.Put(2)
	p.Put(3) // over Max: dropped
	if n := p.Len(); n != 2 {
		t.Fatalf("Len %d after three puts with Max 2, want 2", n)
	}
	for _, want := range []int{2, 1} {
		if got, ok := p.Get(); !ok || got != want {
			t.Fatalf("Get = %d, %v; want %d, true (last put, first out)", got, ok, want)
		}
	}
	if _, ok := p.Get(); ok {
		t.Fatal("Get after draining reported an item")
	}
}

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
	if n := p.Len(); n < 1 || n > 8 {
		t.Fatalf("Len %d, want 1..8", n)
	}
}
