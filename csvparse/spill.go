package csvparse

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sync"
	"unicode/utf8"
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
	n    int64  // bytes written: the record's first bytes, up to max
	max  int64  // bytes kept at most; < 0: all (Splitter.KeepTooLong)
	full bool   // max reached: the rest is not written
	// lastRune is where the last character written starts, to cut it
	// if it turns out to go on past max.
	lastRune int64
	reg      *spills
}

// spills are the spill files a Splitter made and nobody closed yet, so
// that Close can close them. Chunk.Release runs in other goroutines,
// hence the lock.
type spills struct {
	mu   sync.Mutex
	open map[*spill]struct{}
}

func (r *spills) create(dir string, max int64) (*spill, error) {
	f, err := os.CreateTemp(dir, "cqlload-record-*")
	if err != nil {
		return nil, err
	}
	sp := &spill{f: f, path: f.Name(), max: max, reg: r}
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

// write appends p, or what of it fits under max: the file never grows
// past what is kept, however long the record goes on.
func (sp *spill) write(p []byte) error {
	if sp.full {
		return nil
	}
	if sp.max >= 0 && int64(len(p)) > sp.max-sp.n {
		sp.full = true
		k := runeCut(p, int(sp.max-sp.n))
		if k == 0 && !utf8.RuneStart(p[0]) && sp.lastRune < sp.n {
			// The character the file ends with goes on in p: cut it.
			sp.n = sp.lastRune
			return sp.f.Truncate(sp.n)
		}
		p = p[:k]
	}
	n, err := sp.f.Write(p)
	for i := n - 1; i >= max(0, n-utf8.UTFMax); i-- {
		if utf8.RuneStart(p[i]) {
			sp.lastRune = sp.n + int64(i)
			break
		}
	}
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

// OpenRecord streams what is kept of the record of a TooLong chunk: its
// first KeptBytes bytes, exactly as read (decoded to UTF-8, like
// Record.Raw), without the line break that ended it. When KeptBytes is
// RecordBytes, written to an error file followed by a line break, it
// loads again as it was. Past len(Data) the stream reads a temporary
// file that Release (or Splitter.Close) removes, so read it to the end
// first; several streams may be open at once.
func (c *Chunk) OpenRecord() (io.ReadCloser, error) {
	if !c.TooLong {
		return nil, errNoRecord
	}
	sp := c.spill
	if sp == nil {
		if int64(len(c.Data)) < c.KeptBytes {
			return nil, fmt.Errorf("%s:%d: %w", c.File, c.FirstLine, errNoRecord) // released
		}
		return io.NopCloser(bytes.NewReader(c.Data[:c.KeptBytes])), nil
	}
	sp.reg.mu.Lock()
	_, open := sp.reg.open[sp]
	sp.reg.mu.Unlock()
	if !open {
		return nil, fmt.Errorf("%s:%d: %w", c.File, c.FirstLine, errNoRecord)
	}
	return io.NopCloser(io.NewSectionReader(sp.f, 0, sp.n)), nil
}
