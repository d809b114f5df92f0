// Package lifo is a bounded pool of reusable buffers that hands back the
// one released last. Buffers the pipeline recycles (read blocks, chunk
// slabs) are large and written whole on every reuse; the one released
// last is the likeliest still to be in the cache, where the oldest, which
// a channel would hand back, has usually been evicted, and then every
// line written first has to be fetched.
package lifo

import "sync"

// Pool holds at most Max items. The zero value with Max set is ready to
// use; it is safe for concurrent use.
type Pool[T any] struct {
	Max   int
	mu    sync.Mutex
	items []T
}

// Put offers x for reuse; it is dropped, left to the collector, when the
// pool holds Max items already.
func (p *Pool[T]) Put(x T) {
	p.mu.Lock()
	if len(p.items) < p.Max {
		p.items = append(p.items, x)
	}
	p.mu.Unlock()
}

// Get returns the item put last, or ok false when the pool is empty.
func (p *Pool[T]) Get() (x T, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.items)
	if n == 0 {
		return x, false
	}
	x = p.items[n-1]
	var zero T
	p.items[n-1] = zero
	p.items = p.items[:n-1]
	return x, true
}
