package csvparse

import (
	"io"
	"sync"
	"time"
)

// DefaultFlushInterval is Splitter.FlushInterval's default.
const DefaultFlushInterval = time.Second

const (
	asyncBuffers    = 4
	asyncBufSize    = 64 << 10
	asyncNoProgress = 100 // empty reads in a row before io.ErrNoProgress
)

// asyncRead is one Read of the source, done by asyncReader's goroutine.
type asyncRead struct {
	buf []byte
	err error
}

// asyncReader reads a source of unknown size (stdin, a FIFO) in a
// goroutine of its own, into a few buffers handed over on a channel, so
// the Splitter can ask whether data comes within a time (wait) without
// a read that blocks. Read itself blocks as the source's would and
// returns what it returned, errors included, in order: a decompressor
// above it never sees a timeout.
//
// It is used by one goroutine. Close does not wait for the reading
// goroutine: if the source's Read stays blocked through its Close (stdin
// does), that goroutine ends when the Read returns, at the latest when
// the writer closes its end or the process exits.
type asyncReader struct {
	rc   io.ReadCloser
	full chan asyncRead // reads done, in order
	free chan []byte    // buffers the goroutine may read into
	done chan struct{}  // closed by Close
	once sync.Once

	cur  []byte // the part of held not read yet
	held []byte // the buffer cur is in, nil if none
	err  error  // after cur: the source's error, final
}

func newAsyncReader(rc io.ReadCloser) *asyncReader {
	a := &asyncReader{
		rc:   rc,
		full: make(chan asyncRead, asyncBuffers),
		free: make(chan []byte, asyncBuffers),
		done: make(chan struct{}),
	}
	for range asyncBuffers {
		a.free <- make([]byte, asyncBufSize)
	}
	go a.run()
	return a
}

func (a *asyncReader) run() {
	empty := 0
	for {
		select {
		case <-a.done:
			return
		default:
		}
		var buf []byte
		select {
		case buf = <-a.free:
		case <-a.done:
			return
		}
		n, err := a.rc.Read(buf[:cap(buf)])
		if n == 0 && err == nil {
			if empty++; empty >= asyncNoProgress {
				err = io.ErrNoProgress
			}
		} else {
			empty = 0
		}
		// full has room for every buffer, so this never blocks.
		a.full <- asyncRead{buf: buf[:n], err: err}
		if err != nil {
			return
		}
	}
}

// take makes r the data to read next, giving back the buffer read out.
func (a *asyncReader) take(r asyncRead, ok bool) {
	if a.held != nil {
		a.free <- a.held
	}
	if !ok {
		r.err = errAsyncClosed
	}
	a.held, a.cur, a.err = r.buf, r.buf, r.err
	if len(r.buf) == 0 {
		a.held = nil
		if r.buf != nil {
			a.free <- r.buf[:0]
		}
	}
}

func (a *asyncReader) Read(p []byte) (int, error) {
	for len(a.cur) == 0 {
		if a.err != nil {
			return 0, a.err
		}
		r, ok := <-a.full
		a.take(r, ok)
	}
	n := copy(p, a.cur)
	a.cur = a.cur[n:]
	return n, nil
}

// wait reports whether Read would return without blocking within d:
// data is buffered or arrives, or the source ended.
func (a *asyncReader) wait(d time.Duration) bool {
	var t *time.Timer
	for len(a.cur) == 0 && a.err == nil {
		select {
		case r, ok := <-a.full:
			a.take(r, ok)
			continue
		default:
		}
		if t == nil {
			t = time.NewTimer(d)
			defer t.Stop()
		}
		select {
		case r, ok := <-a.full:
			a.take(r, ok)
		case <-t.C:
			return false
		}
	}
	return true
}

// Close stops the reading goroutine as soon as its Read returns and
// closes the source, without waiting for that Read.
func (a *asyncReader) Close() error {
	var err error
	a.once.Do(func() {
		close(a.done)
		err = a.rc.Close()
	})
	return err
}
