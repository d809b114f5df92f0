package csvparse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/bits"

	"golang.org/x/text/encoding/charmap"
)

var (
	// ErrNotSplittable: the dialect's encoding (UTF-16), or a UTF-16 byte
	// order mark at the file's start, rules out cutting by byte ranges.
	ErrNotSplittable = errors.New("the encoding cannot be split by byte ranges (UTF-16)")
	// ErrUndecidable: the bytes before the offset that the search may
	// read do not decide whether it lies inside a quoted field.
	ErrUndecidable = errors.New("cannot tell whether the offset lies inside a quoted field without reading further back")
)

// BoundaryError is a record boundary that could not be found.
type BoundaryError struct {
	Offset int64 // the offset asked about
	Err    error // ErrNotSplittable, ErrUndecidable or a read error
}

func (e *BoundaryError) Error() string {
	return fmt.Sprintf("record boundary at byte %d: %v", e.Offset, e.Err)
}

func (e *BoundaryError) Unwrap() error { return e.Err }

// Splittable reports whether files in d's encoding can be cut into byte
// ranges with FindRecordStart: UTF-8, latin-1 and cp1252 can, UTF-16 and
// unknown encodings cannot. A UTF-8 file that starts with a UTF-16 byte
// order mark cannot either; FindRecordStart says so.
func Splittable(d Dialect) bool {
	enc, err := lookupEncoding(d.Encoding)
	if err != nil {
		return false
	}
	return enc == nil || enc == charmap.ISO8859_1 || enc == charmap.Windows1252
}

// Window sizes of the speculative search.
const (
	boundaryWindowMin = 64 << 10
	boundaryWindowMax = 4 << 20
	boundaryReadBlock = 1 << 20
)

// FindRecordStart returns the offset of the first record that begins at
// or after off in the file r of size bytes, or size if none does; 0 for
// off <= 0. The record that straddles off, if any, belongs to the range
// before. It reads the file before off as far as it must (see below);
// errors are *BoundaryError.
//
// FindRecordStart lets several processes share one uncompressed file by
// byte ranges: a record belongs to the range that holds its first byte,
// so a range [a, b) is parsed from FindRecordStart(a) to
// FindRecordStart(b), and the two sides of every cut compute the same
// offset independently. Blank lines before a record belong to the range
// before it. A range other than the first continues the file: it is
// parsed without Header, SkipRows or MaxRows, and its first bytes are data
// even if they look like a UTF-8 BOM (the first range holds the file's).
//
// The method is speculative with proof, after Ge et al. ("Speculative
// Distributed CSV Data Parsing for Big Data Analytics", SIGMOD 2019), but
// exact: the parser's position between two bytes is one of seven states
// (between records, at a field start, in an unquoted field, after an
// escape there, in a quoted field, after an escape there, after a quote
// in a quoted field), and the next state depends only on the state and
// the byte. Starting at off-W with every state at once and stepping the
// set through the window, the hypotheses merge as soon as the bytes
// decide (an unquoted line break, a closing quote followed by text, …).
// If one state is left at off, that is the parser's state there whatever
// it was at off-W: no guess is involved. From there the scanner the
// Splitter uses walks to the first record start at or after off, so the
// answer agrees with a Splitter reading the file from its start byte
// for byte.
//
// The window starts at 64 KiB and doubles to 4 MiB. It cannot decide
// when no quote character occurs in it (then being inside a quoted field
// that began earlier cannot be ruled out): if the file has no quote at
// all before the window, the quoted states are ruled out (a cheap
// IndexByte scan of the prefix); otherwise, as a last resort, the
// Splitter's scanner walks the prefix from the file start. Both read the
// prefix, which FindRecordStartWithin can forbid: it returns an
// ErrUndecidable *BoundaryError naming the offset instead.
//
// Only byte-compatible encodings can be cut by byte ranges: UTF-8,
// latin-1 and cp1252 map the ASCII quote, delimiter, escape, CR and LF to
// themselves and never produce them from other bytes. UTF-16 cannot (see
// Splittable), nor a UTF-8 file starting with a UTF-16 byte order mark
// (read as UTF-16). StrictQuotes does not move record ends (a bare quote
// is data to the scanner either way), so it does not matter here.
func FindRecordStart(r io.ReaderAt, size, off int64, d Dialect) (int64, error) {
	return FindRecordStartWithin(r, size, off, d, -1)
}

// FindRecordStartWithin is FindRecordStart reading at most maxBack bytes
// before off (< 0: no limit). When they do not decide the state at off it
// returns an ErrUndecidable *BoundaryError rather than guess; the caller
// can then read the file whole.
func FindRecordStartWithin(r io.ReaderAt, size, off int64, d Dialect, maxBack int64) (int64, error) {
	return findRecordStart(r, size, off, d, maxBack, boundaryWindowMin, boundaryWindowMax)
}

// findRecordStart is FindRecordStartWithin with the window's first and
// largest sizes as parameters, which tests shrink.
func findRecordStart(r io.ReaderAt, size, off int64, d Dialect, maxBack, wMin, wMax int64) (int64, error) {
	if off <= 0 {
		return 0, nil
	}
	if off >= size {
		return size, nil
	}
	fail := func(err error) (int64, error) { return 0, &BoundaryError{Offset: off, Err: err} }
	done := func(p int64, err error) (int64, error) {
		if err != nil {
			return fail(err)
		}
		return p, nil
	}
	if !Splittable(d) {
		return fail(ErrNotSplittable)
	}
	c := compile(d)
	// The parse starts between records at 0, or after a UTF-8 BOM.
	start := int64(0)
	enc, _ := lookupEncoding(d.Encoding)
	if enc == nil {
		var head [3]byte
		n, err := r.ReadAt(head[:min(size, 3)], 0)
		if n < int(min(size, 3)) {
			return fail(readErr(err))
		}
		switch {
		case n >= 2 && (head[0] == 0xff && head[1] == 0xfe || head[0] == 0xfe && head[1] == 0xff):
			return fail(ErrNotSplittable)
		case n == 3 && head == [3]byte{0xef, 0xbb, 0xbf}:
			start = 3
		}
	}
	if off <= start {
		return done(walkRecords(r, size, start, off, c, bStart))
	}
	t := newBoundaryTable(c)
	limit := off - start
	if maxBack >= 0 {
		limit = min(limit, maxBack)
	}
	buf := make([]byte, 0, min(wMax, limit))
	var set uint8
	var s int64
	for w := wMin; ; w *= 2 {
		w = min(w, limit, wMax)
		s = off - w
		buf = buf[:w]
		if err := readFull(r, buf, s); err != nil {
			return fail(err)
		}
		all := uint8(1<<bStates - 1)
		if s == start {
			all = 1 << bStart
		}
		set = t.run(all, buf)
		if bits.OnesCount8(set) == 1 {
			return done(walkRecords(r, size, off, off, c, uint8(bits.TrailingZeros8(set))))
		}
		if s == start || w == limit || w == wMax {
			break
		}
	}
	if s > start && (maxBack < 0 || off-start <= maxBack) {
		// No quote anywhere before the window rules out the quoted states.
		q, err := lastIndexByteAt(r, start, s, c.quote)
		if err != nil {
			return fail(err)
		}
		if q < 0 {
			set = t.run(1<<bStart|1<<bField|1<<bUnq|1<<bUnqEsc, buf)
			if bits.OnesCount8(set) == 1 {
				return done(walkRecords(r, size, off, off, c, uint8(bits.TrailingZeros8(set))))
			}
		}
		// The last resort: the Splitter's own scan from the start.
		return done(walkRecords(r, size, start, off, c, bStart))
	}
	return fail(ErrUndecidable)
}

// Boundary states; each matches a scanState, and bStart is the state
// between records, where CR and LF are blank lines (or the LF of a CRLF).
const (
	bStart uint8 = iota
	bField
	bUnq
	bUnqEsc
	bQuoted
	bQuotedEsc
	bAfterQuote
	bStates
)

// Byte classes.
const (
	clOther = iota
	clQuote
	clEsc
	clDelim
	clLF
	clCR
	classes
)

// boundaryTable steps sets of boundary states (bit masks) a byte at a
// time, following scanner.scan's transitions.
type boundaryTable struct {
	class [256]uint8
	next  [1 << bStates][classes]uint8
}

func newBoundaryTable(c *codes) *boundaryTable {
	t := &boundaryTable{}
	t.class[c.quote] = clQuote
	if c.hasEsc {
		t.class[c.esc] = clEsc
	}
	t.class[c.delim] = clDelim
	t.class['\n'] = clLF
	t.class['\r'] = clCR
	for m := range 1 << bStates {
		for cl := range uint8(classes) {
			var out uint8
			for st := range bStates {
				if m&(1<<st) != 0 {
					out |= 1 << boundaryStep(st, cl)
				}
			}
			t.next[m][cl] = out
		}
	}
	return t
}

// boundaryStep is the state after a byte of class cl in state st.
func boundaryStep(st, cl uint8) uint8 {
	switch st {
	case bStart:
		if cl == clLF || cl == clCR {
			return bStart
		}
		return boundaryStep(bField, cl)
	case bField:
		if cl == clQuote {
			return bQuoted
		}
		return boundaryStep(bUnq, cl)
	case bUnq:
		switch cl {
		case clLF, clCR:
			return bStart
		case clDelim:
			return bField
		case clEsc:
			return bUnqEsc
		}
		return bUnq
	case bUnqEsc:
		return bUnq
	case bQuoted:
		switch cl {
		case clQuote:
			return bAfterQuote
		case clEsc:
			return bQuotedEsc
		}
		return bQuoted
	case bQuotedEsc:
		return bQuoted
	}
	// bAfterQuote
	switch cl {
	case clQuote:
		return bQuoted
	case clDelim:
		return bField
	case clLF, clCR:
		return bStart
	}
	return boundaryStep(bUnq, cl) // text after a closing quote: unquoted
}

// run steps set through p and returns the set at p's end. Once a single
// state is left it stays single: the parse is deterministic.
func (t *boundaryTable) run(set uint8, p []byte) uint8 {
	for _, b := range p {
		set = t.next[set][t.class[b]]
	}
	return set
}

// walkRecords returns the first record start at or after off, walking
// from p, where the parse is in state st, with the Splitter's scanner.
func walkRecords(r io.ReaderAt, size, p, off int64, c *codes, st uint8) (int64, error) {
	sc := scanner{c: c}
	inRecord := st != bStart
	if inRecord {
		sc.reset()
		sc.fresh = false
		sc.st = []scanState{bField: stFieldStart, bUnq: stUnquoted, bUnqEsc: stUnquotedEsc,
			bQuoted: stQuoted, bQuotedEsc: stQuotedEsc, bAfterQuote: stAfterQuote}[st]
	}
	buf := make([]byte, boundaryReadBlock)
	var base int64 = -1 // buf holds [base, base+n)
	n := 0
	for p < size {
		if base < 0 || p >= base+int64(n) {
			n = int(min(int64(len(buf)), size-p))
			if err := readFull(r, buf[:n], p); err != nil {
				return 0, err
			}
			base = p
		}
		piece := buf[p-base : n]
		if !inRecord {
			k := 0
			for k < len(piece) && (piece[k] == '\n' || piece[k] == '\r') {
				k++
			}
			p += int64(k)
			if k == len(piece) {
				continue
			}
			if p >= off {
				return p, nil
			}
			sc.reset()
			inRecord = true
			piece = piece[k:]
		}
		if k := sc.scan(piece); k >= 0 {
			p += int64(k)
			inRecord = false
			continue
		}
		p += int64(len(piece))
	}
	return size, nil
}

// lastIndexByteAt returns the offset of the last b in [from, to) of r, or
// -1, reading backwards a block at a time.
func lastIndexByteAt(r io.ReaderAt, from, to int64, b byte) (int64, error) {
	buf := make([]byte, boundaryReadBlock)
	for to > from {
		n := min(int64(len(buf)), to-from)
		if err := readFull(r, buf[:n], to-n); err != nil {
			return 0, err
		}
		if k := bytes.LastIndexByte(buf[:n], b); k >= 0 {
			return to - n + int64(k), nil
		}
		to -= n
	}
	return -1, nil
}

func readFull(r io.ReaderAt, p []byte, off int64) error {
	n, err := r.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	return readErr(err)
}

func readErr(err error) error {
	if err == nil || err == io.EOF {
		return io.ErrUnexpectedEOF // the file is shorter than its size
	}
	return err
}
