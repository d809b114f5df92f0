package csvparse

import (
	"sync/atomic"

	"github.com/cqlload/cqlload/internal/lifo"
)

// idleBlocks bounds the released full-size blocks a Splitter keeps for
// reuse. Blocks are only made when none is idle, so keeping them never
// raises the peak: it only keeps, after a burst of releases, the blocks
// that were in use at once. Four dropped a block in fourteen with 1 KB
// rows, whose small chunks leave many blocks in flight.
const idleBlocks = 16

// block is a buffer of input that chunks point into. refs counts the
// Splitter while it still reads into the block, plus every chunk whose
// Data lies in it. A full-size block whose count drops to zero goes back
// to its Splitter: allocating and zeroing a fresh megabyte for every
// megabyte of input was the largest single cost of splitting.
type block struct {
	buf  []byte
	refs atomic.Int32
	idle *lifo.Pool[*block] // nil: not recyclable (a small first block)
}

func (b *block) hold() { b.refs.Add(1) }

// drop gives up one reference; the last one offers the block for reuse.
func (b *block) drop() {
	if b.refs.Add(-1) != 0 || b.idle == nil {
		return
	}
	b.idle.Put(b)
}

// newBlock returns a block of size bytes with one reference (the
// Splitter's), recycled when a released one of that size is idle.
func (s *Splitter) newBlock(size int) *block {
	if size == s.blockSize {
		if b, ok := s.idle.Get(); ok {
			b.refs.Store(1)
			return b
		}
	}
	b := &block{buf: make([]byte, size)}
	if size == s.blockSize {
		b.idle = s.idle
	}
	b.refs.Store(1)
	s.blocksMade++
	s.blockBytes += int64(size)
	return b
}

// Release says that nothing uses c.Data (nor, with TooLong, the record
// OpenRecord streams) any more, so the Splitter may read later input into
// its memory; c.Data is set to nil and a TooLong chunk's temporary file
// is removed. A chunk that is
// never released is left to the garbage collector, as any slice is.
// Release is not safe for concurrent use on one chunk, and calling it
// again does nothing.
func (c *Chunk) Release() {
	c.Data = nil
	if c.spill != nil {
		c.spill.close()
	}
	if c.blk != nil {
		c.blk.drop()
		c.blk = nil
	}
}

// attach makes c hold the block its Data was just cut from, giving up the
// one it held before: a chunk cut again after a refill moves with its
// bytes to the new block.
func (c *Chunk) attach(b *block) {
	if c.blk == b {
		return
	}
	if c.blk != nil {
		c.blk.drop()
	}
	b.hold()
	c.blk = b
}
