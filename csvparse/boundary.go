package csvparse

import (
	"bytes"
	"cmp"
	"errors"
	"io"
	"math/bits"
	"slices"
	"strings"

	"golang.org/x/text/encoding/charmap"
)

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

// SplittableFile reports whether the file name, r of size bytes, can be
// cut into byte ranges as the Splitter would read it: not compressed (by
// extension or magic bytes, as the Splitter decides), a regular file of
// known size, in a Splittable encoding, and under UTF-8 not starting with
// a UTF-16 byte order mark. It depends only on the file's name and first
// bytes, so every process of a split run decides alike.
func SplittableFile(name string, r io.ReaderAt, size int64, d Dialect) (bool, error) {
	if size < 0 || !Splittable(d) {
		return false, nil
	}
	var head [len(zstdMagic)]byte
	n, err := r.ReadAt(head[:min(size, int64(len(head)))], 0)
	if int64(n) < min(size, int64(len(head))) {
		return false, readErr(err)
	}
	magic := string(head[:n])
	lower := strings.ToLower(name)
	enc, _ := lookupEncoding(d.Encoding)
	switch {
	case n == 0:
		return true, nil // empty: nothing to decompress or decode
	case unsupportedCompression(lower, head[:n]) != "",
		strings.HasPrefix(magic, gzipMagic) || strings.HasSuffix(lower, ".gz"),
		strings.HasPrefix(magic, zstdMagic) || strings.HasSuffix(lower, ".zst") || strings.HasSuffix(lower, ".zstd"):
		return false, nil
	case enc == nil && (strings.HasPrefix(magic, "\xff\xfe") || strings.HasPrefix(magic, "\xfe\xff")):
		return false, nil
	}
	return true, nil
}

// Window sizes of the speculative search.
const (
	boundaryWindowMin = 64 << 10
	boundaryWindowMax = 4 << 20
	boundaryReadBlock = 1 << 20
	// The largest block of lastQuote's scan through streams, one
	// request each.
	boundaryStreamMax = 256 << 20
	// What lastQuote reads at a time: small enough that the bytes a
	// read just copied are still in the core's cache when they are
	// scanned (see fileSearch).
	boundaryScanBuffer = 256 << 10
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
// FindRecordStart(b) (which a Splitter reading on from FindRecordStart(a)
// with Source.Until = b reaches without a search), and the two sides of
// every cut compute the same offset independently. Blank lines before a record belong to the range
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
// The window starts at 64 KiB and doubles to 4 MiB while it holds
// quotes. Only a quote can take the parse out of a quoted field, so when
// a quoted state survives the window, the quote characters before it
// decide: with none at all, the quoted states are ruled out; else, the
// window's start is inside quotes only if the last quote q before it
// left the parse inside quotes, and the state at q is found the same way
// (recursively). The quote search is a vectorised IndexByte over the
// prefix, so a file without quotes costs reading its prefix (56-95 ms of
// CPU per GB for a local file in the page cache, read as fileSearch
// does, on an AMD EPYC VM; more while other work shares the memory
// bandwidth), one with quoted fields every few records one window (about
// 0.3 ms, whatever the offset). Should several states still be
// left (a file made of "" fields, say), the Splitter's scanner walks the
// prefix from the file's start: exact, at about 600 MB/s.
// FindRecordStartWithin bounds how far back any of this reads and
// returns an ErrUndecidable *BoundaryError naming the offset instead.
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

// RecordStarts finds record starts in one file, as FindRecordStart does,
// for several offsets: what one search proved about the file (a stretch
// without quote characters, a record start) spares the next one reading
// it again. A process whose range has two ends in a file without quotes
// reads the prefix before the farther end once, not the two prefixes.
// In a file whose cuts the bytes near them do not decide (long quoted
// fields holding lines that parse as records either way), a search
// walks on from the last record start found before its offset, so
// offsets asked in increasing order read the file about once. Not safe
// for concurrent use.
type RecordStarts struct {
	// OpenRange, when set, streams n bytes of the file from off. The
	// scan of a long prefix for quotes then streams blocks that double
	// from 1 MiB to 256 MiB, one stream each, rather than issuing a
	// ReadAt per MiB: for an object in storage, where each read is a
	// request, that is about a dozen requests for a GB, not a thousand;
	// for a local file, a dozen opens.
	OpenRange func(off, n int64) (io.ReadCloser, error)

	size int64
	d    Dialect
	fs   fileSearch
}

// NewRecordStarts returns a RecordStarts for the file r of size bytes.
func NewRecordStarts(r io.ReaderAt, size int64, d Dialect) *RecordStarts {
	return &RecordStarts{size: size, d: d, fs: newFileSearch(r)}
}

// At returns FindRecordStart(r, size, off, d).
func (rs *RecordStarts) At(off int64) (int64, error) {
	rs.fs.open = rs.OpenRange
	return findRecordStartIn(&rs.fs, rs.size, off, rs.d, -1, boundaryWindowMin, boundaryWindowMax)
}

// Searched returns how many bytes of the file the searches so far have
// read.
func (rs *RecordStarts) Searched() int64 { return rs.fs.searched }

// fileSearch is what the searches of one file share: how they read it and
// what they learned of it.
//
// The costly part of a search in a file with few quotes is the scan of
// its prefix for the last quote (see statesAt). It reads the prefix
// boundaryScanBuffer bytes at a time, each read copied out of the page
// cache into a buffer that stays in the core's cache for the scan. That
// cost less CPU than larger reads and than memory maps (whose page
// set-up can cost more than the scan) on the machines measured (see
// docs/benchmarks.md), and a file cut short is a short read, not a
// SIGBUS.
// A file that can be streamed (the loader streams every input, local or
// in storage) is scanned through streams of doubling blocks (see
// RecordStarts.OpenRange); other readers through ReadAt.
type fileSearch struct {
	r io.ReaderAt
	// open streams a range of the file, when it can be.
	open func(off, n int64) (io.ReadCloser, error)
	memo quoteMemo
	// between holds offsets, in order, where the parse is known to be
	// between two records: the starts searches found, and places walks
	// from the file's start passed, at least walkMarkEvery apart.
	between []int64
	// hard: a search of the file needed windows larger than its
	// smallest, or the walk from the start; the bytes near a cut do
	// not decide it, and a walk from a known place between records,
	// if one is near, costs less.
	hard bool
	// answered holds what searches found, [off, start]: the first record
	// start at or after any offset from off to start is start. Sorted
	// by off, disjoint.
	answered [][2]int64
	searched int64 // bytes read
}

// answer returns the record start that an earlier search proved for off.
func (fs *fileSearch) answer(off int64) (int64, bool) {
	i, _ := slices.BinarySearchFunc(fs.answered, off, func(a [2]int64, off int64) int { return cmp.Compare(a[0], off) })
	if i < len(fs.answered) && fs.answered[i][0] == off {
		return fs.answered[i][1], true
	}
	if i > 0 && off <= fs.answered[i-1][1] {
		return fs.answered[i-1][1], true
	}
	return 0, false
}

// noteAnswer records that start is the first record start at or after
// off, and so after every offset between them: the cuts of a plan that
// fall in one long record are answered by the search of the first.
func (fs *fileSearch) noteAnswer(off, start int64) {
	i, _ := slices.BinarySearchFunc(fs.answered, off, func(a [2]int64, off int64) int { return cmp.Compare(a[0], off) })
	fs.answered = slices.Insert(fs.answered, i, [2]int64{off, start})
	// Intervals that end at one start overlap, or hold each other:
	// keep their union.
	out := fs.answered[:0]
	for _, a := range fs.answered {
		if n := len(out); n > 0 && out[n-1][1] == a[1] {
			out[n-1][0] = min(out[n-1][0], a[0])
			continue
		}
		out = append(out, a)
	}
	fs.answered = out
}

// walkMarkEvery is how far apart a walk from the file's start notes the
// places between records where a later walk may begin.
const walkMarkEvery = 1 << 20

// walkFromStart is the walk from the file's start (after any BOM) to the
// first record start at or after off, begun where the parse is known to
// be between records, as far on as it can. In a file whose cuts the
// windows cannot decide (long quoted fields holding lines that parse as
// records either way) each cut walked the whole prefix again, and a
// plan's N cuts read the file about N times.
func (fs *fileSearch) walkFromStart(size, start, off int64, c *codes) (int64, error) {
	fs.hard = true
	return fs.walkFrom(size, max(start, fs.betweenBefore(off)), off, c)
}

// betweenBefore is the last place before off where the parse is known to
// be between records; -1 if none.
func (fs *fileSearch) betweenBefore(off int64) int64 {
	if i, _ := slices.BinarySearch(fs.between, off); i > 0 {
		return fs.between[i-1]
	}
	return -1
}

// walkFrom walks from p, between records, to the first record start at
// or after off, noting where it passes between records.
func (fs *fileSearch) walkFrom(size, p, off int64, c *codes) (int64, error) {
	marks := []int64{p}
	got, err := walkRecords(fs, size, p, off, c, bStart, &marks)
	if err != nil {
		return 0, err
	}
	for _, m := range marks {
		fs.noteBetween(m, size)
	}
	fs.noteBetween(got, size)
	return got, nil
}

// noteBetween records that the parse is between records at p.
func (fs *fileSearch) noteBetween(p, size int64) {
	if p <= 0 || p >= size {
		return
	}
	i, found := slices.BinarySearch(fs.between, p)
	if !found {
		fs.between = slices.Insert(fs.between, i, p)
	}
}

func newFileSearch(r io.ReaderAt) fileSearch { return fileSearch{r: r} }

// ReadAt reads through fs.r, counting what it reads.
func (fs *fileSearch) ReadAt(p []byte, off int64) (int, error) {
	n, err := fs.r.ReadAt(p, off)
	fs.searched += int64(n)
	return n, err
}

// quoteMemo is a stretch [lo, hi) of a file known to hold no quote
// character (empty while hi <= lo).
type quoteMemo struct{ lo, hi int64 }

// note records that [lo, hi) holds no quote, keeping the union with
// what is known when the two meet, else the longer stretch.
func (m *quoteMemo) note(lo, hi int64) {
	switch {
	case hi <= lo:
	case m.hi > m.lo && lo <= m.hi && hi >= m.lo:
		m.lo, m.hi = min(m.lo, lo), max(m.hi, hi)
	case hi-lo > m.hi-m.lo:
		m.lo, m.hi = lo, hi
	}
}

// findRecordStart is FindRecordStartWithin with the window's first and
// largest sizes as parameters, which tests shrink.
func findRecordStart(r io.ReaderAt, size, off int64, d Dialect, maxBack, wMin, wMax int64) (int64, error) {
	fs := newFileSearch(r)
	return findRecordStartIn(&fs, size, off, d, maxBack, wMin, wMax)
}

// findRecordStartIn is findRecordStart sharing fs with other searches of
// the same file.
func findRecordStartIn(fs *fileSearch, size, off int64, d Dialect, maxBack, wMin, wMax int64) (int64, error) {
	if off <= 0 {
		return 0, nil
	}
	if off >= size {
		return size, nil
	}
	if p, ok := fs.answer(off); ok {
		return p, nil
	}
	if m := fs.betweenBefore(off); fs.hard && maxBack < 0 && m >= 0 && off-m <= 2*wMax {
		// An earlier search found the parse between records not far
		// before off: walking on from there is exact, and reads less
		// than the windows this file needs.
		p, err := fs.walkFrom(size, m, off, compile(d))
		if err != nil {
			return 0, &BoundaryError{Offset: off, Err: err}
		}
		fs.noteAnswer(off, p)
		return p, nil
	}
	b, err := boundaryStates(fs, size, off, d, maxBack, wMin, wMax)
	if err != nil {
		return 0, &BoundaryError{Offset: off, Err: err}
	}
	p, err := b.decide(fs, size, off)
	if err != nil {
		return 0, &BoundaryError{Offset: off, Err: err}
	}
	fs.noteBetween(p, size)
	fs.noteAnswer(off, p)
	return p, nil
}

// boundaryAt is what the bytes before an offset say about the parse
// there.
type boundaryAt struct {
	c            *codes
	start, floor int64 // where the parse starts (after a BOM); how far back the search read
	set          uint8 // the states the parse may be in at the offset
}

// decide walks to the first record start at or after off when the
// states decide it: one state left, or none read past, so that the walk
// from the start is exact. Else it returns ErrUndecidable.
func (b boundaryAt) decide(fs *fileSearch, size, off int64) (int64, error) {
	switch {
	case bits.OnesCount8(b.set) == 1:
		// From off, or from the end of a BOM that off lies in.
		return walkRecords(fs, size, max(off, b.start), off, b.c, uint8(bits.TrailingZeros8(b.set)), nil)
	case b.floor == b.start:
		// The last resort: the Splitter's own scan from the start.
		return fs.walkFromStart(size, b.start, off, b.c)
	}
	return 0, ErrUndecidable
}

// boundaryStates checks d and the file's head and works out the states
// the parse may be in at off (0 < off < size), reading no further back
// than maxBack (< 0: no limit). An offset at or before a BOM's end gives
// the start state.
func boundaryStates(fs *fileSearch, size, off int64, d Dialect, maxBack, wMin, wMax int64) (boundaryAt, error) {
	if !Splittable(d) {
		return boundaryAt{}, ErrNotSplittable
	}
	b := boundaryAt{c: compile(d)}
	// The parse starts between records at 0, or after a UTF-8 BOM.
	enc, _ := lookupEncoding(d.Encoding)
	if enc == nil {
		var head [3]byte
		n, err := fs.ReadAt(head[:min(size, 3)], 0)
		if n < int(min(size, 3)) {
			return b, readErr(err)
		}
		switch {
		case n >= 2 && (head[0] == 0xff && head[1] == 0xfe || head[0] == 0xfe && head[1] == 0xff):
			return b, ErrNotSplittable
		case n == 3 && head == [3]byte{0xef, 0xbb, 0xbf}:
			b.start = 3
		}
	}
	b.floor = b.start
	if off <= b.start {
		b.set = 1 << bStart
		return b, nil
	}
	if maxBack >= 0 {
		b.floor = max(b.start, off-maxBack)
	}
	f := &boundaryFinder{fs: fs, t: newBoundaryTable(b.c), quote: b.c.quote, start: b.start, floor: b.floor, wMin: wMin, wMax: wMax}
	var err error
	b.set, err = f.statesAt(off)
	return b, err
}

// Check reports whether start can be At(off) as far as the maxBack
// bytes before off (< 0: no limit) and the bytes from off to start tell:
// where those before off decide the parse state at off, start must be
// the answer; where they leave several states, start must be where one of
// them reaches its first record start. A quoted state counts only if its
// field closes: one running to the end of a file without quotes would
// allow any start. It reads what FindRecordStartWithin does, and from off
// up to start only when off's state is not decided; Searched counts it.
func (rs *RecordStarts) Check(off, start, maxBack int64) (bool, error) {
	rs.fs.open = rs.OpenRange
	if off <= 0 || off >= rs.size {
		got, err := rs.At(off)
		return got == start, err
	}
	fail := func(err error) (bool, error) { return false, &BoundaryError{Offset: off, Err: err} }
	b, err := boundaryStates(&rs.fs, rs.size, off, rs.d, maxBack, boundaryWindowMin, boundaryWindowMax)
	if err != nil {
		return fail(err)
	}
	got, err := b.decide(&rs.fs, rs.size, off)
	switch {
	case err == nil:
		return got == start, nil
	case !errors.Is(err, ErrUndecidable):
		return fail(err)
	case start < off || start > rs.size:
		return false, nil
	}
	// Walk no further than start: past it, the state cannot give start.
	limit := min(rs.size, start+1)
	// The unquoted states first: their walk ends at the next line break.
	for _, quoted := range []bool{false, true} {
		for st := range bStates {
			if b.set&(1<<st) == 0 || (quotedStates&(1<<st) != 0) != quoted {
				continue
			}
			got, err := walkRecords(&rs.fs, limit, off, off, b.c, st, nil)
			if err != nil {
				return fail(err)
			}
			if got == start && (!quoted || start < rs.size) {
				return true, nil
			}
		}
	}
	return false, nil
}

// HeaderEnd returns where the file's second record begins (size if it
// has none): with Header, [0, HeaderEnd) holds the header record, after
// any UTF-8 BOM and blank lines before it, which FindRecordStart(1) would
// not skip. Errors are *BoundaryError with Offset 0.
func HeaderEnd(r io.ReaderAt, size int64, d Dialect) (int64, error) {
	fail := func(err error) (int64, error) { return 0, &BoundaryError{Offset: 0, Err: err} }
	if !Splittable(d) {
		return fail(ErrNotSplittable)
	}
	start := int64(0)
	if enc, _ := lookupEncoding(d.Encoding); enc == nil && size >= 3 {
		var head [3]byte
		if n, err := r.ReadAt(head[:], 0); n < 3 {
			return fail(readErr(err))
		}
		if head == [3]byte{0xef, 0xbb, 0xbf} {
			start = 3
		}
	}
	c := compile(d)
	first, err := walkRecords(r, size, start, start, c, bStart, nil)
	if err != nil {
		return fail(err)
	}
	if first >= size {
		return size, nil
	}
	end, err := walkRecords(r, size, first, first+1, c, bStart, nil)
	if err != nil {
		return fail(err)
	}
	return end, nil
}

// Sets of boundary states.
const (
	allStates    = 1<<bStates - 1
	quotedStates = 1<<bQuoted | 1<<bQuotedEsc
	plainStates  = 1<<bStart | 1<<bField | 1<<bUnq | 1<<bUnqEsc
)

// boundaryFinder works out the parse state at an offset from the bytes
// before it, reading no further back than floor.
type boundaryFinder struct {
	fs           *fileSearch
	t            *boundaryTable
	quote        byte
	start, floor int64
	wMin, wMax   int64
	buf          []byte // the window
	blk          []byte // lastQuote's block, when read
}

// window reads [s, p) into f.buf.
func (f *boundaryFinder) window(s, p int64) ([]byte, error) {
	if int64(cap(f.buf)) < p-s {
		f.buf = make([]byte, p-s)
	}
	buf := f.buf[:p-s]
	return buf, readFull(f.fs, buf, s)
}

// statesAt returns the set of states the parse may be in at p, before
// the byte at p. Several states mean the bytes from floor do not decide.
//
// The window [p-W, p) is run from every state (from the start state if
// it reaches the start). If that leaves several, one of them quoted,
// only the quote characters before the window can tell: with none
// between the last one, q, and the window, the parse is inside quotes
// at the window's start only if it is right after q, which statesAt(q)
// answers the same way. If the largest window holds quotes and still
// leaves several states, statesAt gives up.
func (f *boundaryFinder) statesAt(p int64) (uint8, error) {
	if p <= f.start {
		return 1 << bStart, nil
	}
	var set uint8
	var s int64
	var buf []byte
	for w := f.wMin; ; w *= 2 {
		if w > f.wMin {
			f.fs.hard = true
		}
		w = min(w, p-f.floor, f.wMax)
		s = p - w
		var err error
		if buf, err = f.window(s, p); err != nil {
			return 0, err
		}
		init := uint8(allStates)
		if s == f.start {
			init = 1 << bStart
		}
		set = f.t.run(init, buf)
		// A longer window helps only if this one has a quote to
		// resolve; else the quotes before it decide (below).
		if bits.OnesCount8(set) == 1 || s == f.floor || w == f.wMax || bytes.IndexByte(buf, f.quote) < 0 {
			break
		}
	}
	if bits.OnesCount8(set) == 1 || s == f.floor || set&quotedStates == 0 {
		return set, nil
	}
	if bytes.IndexByte(buf, f.quote) >= 0 {
		// Quotes that the largest window does not resolve (a file of ""
		// fields): going back a window at a time would cost more than
		// the walk from the start.
		return set, nil
	}
	q, err := f.lastQuote(f.floor, s)
	if err != nil {
		return 0, err
	}
	var init uint8
	switch {
	case q < 0 && f.floor > f.start:
		return set, nil // the quote may lie before floor
	case q < 0:
		init = plainStates // no quote before s at all
	default:
		sq, err := f.statesAt(q)
		if err != nil {
			return 0, err
		}
		if buf, err = f.window(s, p); err != nil { // the recursion reused f.buf
			return 0, err
		}
		after := f.t.next[sq][clQuote] // the states at q+1
		if q+1 == s {
			init = after
		} else {
			// No quote in (q, s): a quoted state stays quoted, any
			// other becomes unquoted. (Adding the unquoted states to a
			// quoted one would leave a search inside a long quoted
			// field undecided, and send it on the walk from the start.)
			init = 0
			if after&quotedStates != 0 {
				init |= quotedStates
			}
			if after&^quotedStates != 0 {
				init |= plainStates
			}
		}
	}
	return f.t.run(init, buf), nil
}

// lastQuote returns the offset of the last quote in [from, to), or -1,
// going backwards a block at a time and skipping what the memo knows to
// hold none; what it finds without a quote goes into the memo.
func (f *boundaryFinder) lastQuote(from, to int64) (int64, error) {
	m := &f.fs.memo
	clean := to // [to, clean) holds no quote
	// Blocks double from boundaryReadBlock: a quote near the window is
	// found in the first, and a prefix without one costs few requests.
	block := int64(boundaryReadBlock)
	for to > from {
		if m.hi > m.lo && to <= m.hi && to > m.lo {
			to = max(from, m.lo)
			continue
		}
		n := min(block, to-from)
		block = min(2*block, f.maxBlock())
		if m.hi > m.lo && m.hi > to-n && m.hi < to {
			n = to - m.hi // down to the known stretch only
		}
		last, err := f.lastIn(to-n, to)
		if err != nil {
			return 0, err
		}
		if last >= 0 {
			q := to - n + int64(last)
			m.note(q+1, clean)
			return q, nil
		}
		to -= n
	}
	m.note(from, clean)
	return -1, nil
}

// maxBlock is the largest block lastQuote takes at once: a stream's, or
// without streams what ReadAt reads backwards in pieces.
func (f *boundaryFinder) maxBlock() int64 {
	if f.fs.open != nil {
		return boundaryStreamMax
	}
	return boundaryReadBlock
}

// lastIn returns the index in [lo, hi) of its last quote, or -1: from
// one stream of the range if the file can be streamed, else from reads.
func (f *boundaryFinder) lastIn(lo, hi int64) (int, error) {
	if f.blk == nil {
		f.blk = make([]byte, boundaryScanBuffer)
	}
	if f.fs.open != nil && hi-lo > boundaryScanBuffer {
		return f.streamedLastQuote(lo, hi)
	}
	// Backwards a buffer at a time: a quote near hi ends the scan early.
	for end := hi; end > lo; {
		start := max(lo, end-int64(len(f.blk)))
		p := f.blk[:end-start]
		if err := readFull(f.fs, p, start); err != nil {
			return 0, err
		}
		if k := lastIndexByte(p, f.quote); k >= 0 {
			return int(start-lo) + k, nil
		}
		end = start
	}
	return -1, nil
}

// streamedLastQuote is lastIn through one stream of [lo, hi), read a
// buffer at a time.
func (f *boundaryFinder) streamedLastQuote(lo, hi int64) (last int, err error) {
	rc, err := f.fs.open(lo, hi-lo)
	if err != nil {
		return 0, err
	}
	defer func() {
		if cerr := rc.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	last = -1
	for pos := lo; pos < hi; {
		p := f.blk[:min(int64(len(f.blk)), hi-pos)]
		n, err := io.ReadFull(rc, p)
		f.fs.searched += int64(n)
		if err != nil {
			return 0, readErr(err)
		}
		if k := lastIndexByte(p, f.quote); k >= 0 {
			last = int(pos-lo) + k
		}
		pos += int64(n)
	}
	return last, nil
}

// lastIndexByte is bytes.LastIndexByte through the vectorised
// bytes.IndexByte, which LastIndexByte is not.
func lastIndexByte(p []byte, c byte) int {
	last := -1
	for i := 0; ; {
		k := bytes.IndexByte(p[i:], c)
		if k < 0 {
			return last
		}
		last = i + k
		i = last + 1
	}
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
func walkRecords(r io.ReaderAt, size, p, off int64, c *codes, st uint8, marks *[]int64) (int64, error) {
	sc := scanner{c: c}
	inRecord := st != bStart
	if inRecord {
		sc.reset()
		sc.fresh = false
		sc.st = []scanState{bField: stFieldStart, bUnq: stUnquoted, bUnqEsc: stUnquotedEsc,
			bQuoted: stQuoted, bQuotedEsc: stQuotedEsc, bAfterQuote: stAfterQuote}[st]
	}
	buf := make([]byte, 16<<10) // doubled to boundaryReadBlock: most walks are short
	var base int64 = -1         // buf holds [base, base+n)
	n := 0
	for p < size {
		if base < 0 || p >= base+int64(n) {
			if base >= 0 && len(buf) < boundaryReadBlock {
				buf = make([]byte, 2*len(buf))
			}
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
		if k := sc.scan(piece, false); k >= 0 {
			p += int64(k)
			inRecord = false
			if marks != nil && (len(*marks) == 0 || p-(*marks)[len(*marks)-1] >= walkMarkEvery) {
				*marks = append(*marks, p)
			}
			continue
		}
		p += int64(len(piece))
	}
	return size, nil
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
