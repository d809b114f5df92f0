package csvparse

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// spill is a record over Dialect.MaxRecordBytes, kept in a temporary
// file instead of memory: the scanner follows its quotes to its real end,
// however far, so the records after it are found where they are.
//
// The file is unlinked as soon as it is created where the system allows
// it (the open descriptor keeps the data), so nothing is left behind if
// the process dies; otherwise it is removed when the spill is closed.
type spill struct {
	f    *os.File
	path string // still to remove on close; "" if unlinked already
	n    int64  // bytes written: the record without its final line break
	reg  *spills
}

// spills are the spill files a Splitter made and nobody closed yet, so
// that Close can close them. Chunk.Release runs in other goroutines,
// hence the lock.
type spills struct {
	mu   sync.Mutex
	open map[*spill]struct{}
}

func (r *spills) create(dir string) (*spill, error) {
	f, err := os.CreateTemp(dir, "cqlload-record-*")
	if err != nil {
		return nil, err
	}
	sp := &spill{f: f, path: f.Name(), reg: r}
	if os.Remove(sp.path) == nil {
		sp.path = ""
	}
	r.mu.Lock()
	if r.open == nil {
		r.open = make(map[*spill]struct{})
	}
	r.open[sp] = struct{}{}
	r.mu.Unlock()
	return sp, nil
}

func (sp *spill) write(p []byte) error {
	n, err := sp.f.Write(p)
	sp.n += int64(n)
	return err
}

// close closes and removes the file; calling it again does nothing.
func (sp *spill) close() {
	r := sp.reg
	r.mu.Lock()
	_, open := r.open[sp]
	delete(r.open, sp)
	r.mu.Unlock()
	if !open {
		return
	}
	// Read-only from here on: a close error loses nothing.
	_ = sp.f.Close()
	if sp.path != "" {
		_ = os.Remove(sp.path)
	}
}

// closeAll closes every spill still open.
func (r *spills) closeAll() {
	r.mu.Lock()
	all := make([]*spill, 0, len(r.open))
	for sp := range r.open {
		all = append(all, sp)
	}
	r.mu.Unlock()
	for _, sp := range all {
		sp.close()
	}
}

var errNoRecord = errors.New("csvparse: chunk holds no record over the size limit, or was released")

// OpenRecord streams the whole record of a TooLong chunk: RecordBytes
// bytes, exactly as read (decoded to UTF-8, like Record.Raw), without the
// line break that ended it. Written to an error file followed by a line
// break, it loads again as it was. Data holds only its first
// MaxRecordBytes bytes. The stream reads a temporary file that Release
// (or Splitter.Close) removes, so read it to the end first; several
// streams may be open at once.
func (c *Chunk) OpenRecord() (io.ReadCloser, error) {
	sp := c.spill
	if sp == nil {
		return nil, errNoRecord
	}
	sp.reg.mu.Lock()
	_, open := sp.reg.open[sp]
	sp.reg.mu.Unlock()
	if !open {
		return nil, fmt.Errorf("%s:%d: %w", c.File, c.FirstLine, errNoRecord)
	}
	return io.NopCloser(io.NewSectionReader(sp.f, 0, sp.n)), nil
}
