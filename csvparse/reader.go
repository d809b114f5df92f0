package csvparse

import (
	"bytes"
	"io"
	"unicode/utf8"

	"github.com/gofiber/utils/v2/simd"
)

// Record is one record of a chunk. The Reader reuses it: it and all its
// slices are valid only until the next call to Next.
type Record struct {
	Line int64 // line where the record starts
	// Offset is the record's byte offset in the decoded stream, as
	// Chunk.Offset counts (the file offset for plain UTF-8 files).
	Offset int64
	// Raw is the record as read (decoded to UTF-8), without its final
	// line terminator; written to an error file it loads again as it is.
	// Of a TooLong chunk's record it is only the first MaxRecordBytes
	// bytes: Chunk.OpenRecord streams the whole record.
	Raw []byte
	// Fields are the values with quotes removed and escapes and doubled
	// quotes resolved. After a ParseError they are best effort.
	Fields [][]byte
	// Quoted tells, per field, whether it was quoted: a quoted empty field
	// is an empty string, only an unquoted one can be the NULL marker.
	Quoted []bool
	// FieldCount is the number of fields the record has: len(Fields),
	// unless Reader.MaxFields kept fewer.
	FieldCount int

	data   []byte // the chunk's Data, for positions
	start  int    // Raw's offset in data
	starts []int  // offset in data where each field starts
}

// FieldPos returns the 1-based line and character column where field i
// starts (at its opening quote if quoted), for error messages.
func (r *Record) FieldPos(i int) (line int64, column int) {
	if i < 0 || i >= len(r.starts) {
		return r.Line, 1
	}
	return position(r.data, r.start, r.Line, r.starts[i])
}

// FieldColumn returns the 1-based character column where field i starts
// in its line (see FieldPos for the line, which differs from Line only
// after a quoted line break).
func (r *Record) FieldColumn(i int) int {
	_, col := r.FieldPos(i)
	return col
}

// position converts byte offset p of data, inside the record that starts
// at recStart on line recLine, to a line and a character column. Records
// start at line starts, so the column never needs bytes before recStart.
func position(data []byte, recStart int, recLine int64, p int) (int64, int) {
	seg := data[recStart:p]
	line := recLine + int64(bytes.Count(seg, []byte{'\n'}))
	ls := bytes.LastIndexByte(seg, '\n') + 1
	return line, utf8.RuneCount(seg[ls:]) + 1
}

type fieldLoc struct {
	start, end int // in the chunk's data, or in Reader.buf if buffered
	buffered   bool
	quoted     bool
}

// Reader yields the records of one chunk. It allocates nothing per
// record once its buffers have grown: fields are sub-slices of the
// chunk's Data where no unescaping is needed, else of a reused buffer.
type Reader struct {
	// MaxFields, when > 0, bounds the fields a record keeps: past
	// MaxFields+1 (one more, so that a caller comparing len(Fields) with
	// what it expects sees the excess) the fields are only counted, in
	// Record.FieldCount. A line of delimiters under MaxRecordBytes would
	// otherwise cost about 70 bytes of slices per byte of input. Set it
	// before the first Next.
	MaxFields int

	c       *codes
	file    string
	data    []byte
	base    int64 // Chunk.Offset
	pos     int
	line    int64
	tooLong bool
	// unclosed: Chunk.Unclosed
	unclosed bool
	cut      bool // Chunk.Incomplete
	done     bool
	plain    bool    // Chunk.plain, for this Reader's quote
	ends     []int32 // Chunk.ends, with plain
	k        int     // records parsed, an index into ends

	rec Record
	buf []byte // unescaped field contents of the current record
	fl  []fieldLoc
	raw []byte

	// first error of the current record
	errAt  int
	errErr error
	// extra counts the current record's fields past MaxFields+1.
	extra int
}

// NewReader returns a Reader over c.Data. Line numbers start at
// c.FirstLine (1 if unset). d should be the Dialect the chunk was split
// with; it is not validated here.
func NewReader(c *Chunk, d Dialect) *Reader {
	return newReader(c, compile(d))
}

func newReader(c *Chunk, cd *codes) *Reader {
	r := &Reader{c: cd, file: c.File, data: c.Data, base: c.Offset, line: c.FirstLine, tooLong: c.TooLong, unclosed: c.Unclosed, cut: c.Incomplete,
		plain: c.plain && c.plainQuote == cd.quote}
	if r.plain && len(c.ends) == c.Records {
		r.ends = c.ends
	}
	if r.line < 1 {
		r.line = 1
	}
	return r
}

// Raw returns the raw bytes of the last record returned, the one a
// ParseError is about; valid until the next call to Next.
func (r *Reader) Raw() []byte { return r.raw }

// Next returns the next record, or io.EOF after the last one. A malformed
// record comes back together with a *ParseError (the Record is non-nil,
// with Line and Raw set) and the following call continues with the next
// record.
func (r *Reader) Next() (*Record, error) {
	if r.done {
		return nil, io.EOF
	}
	if r.tooLong || r.cut {
		r.done = true
		raw := r.data
		r.raw = raw
		r.rec = Record{Line: r.line, Offset: r.base, Raw: raw, Fields: r.rec.Fields[:0], Quoted: r.rec.Quoted[:0], data: raw, starts: r.rec.starts[:0]}
		err := ErrRecordTooLong
		switch {
		case r.cut:
			err = ErrIncompleteRecord
		case r.unclosed:
			err = errTooLongUnclosed
		}
		return &r.rec, &ParseError{File: r.file, Line: r.line, Column: 1, Err: err}
	}
	d, n := r.data, len(r.data)
	// Blank lines are not records.
	for r.pos < n {
		switch d[r.pos] {
		case '\n':
			r.pos++
			r.line++
			continue
		case '\r':
			r.pos++
			if r.pos < n && d[r.pos] == '\n' {
				r.pos++
			}
			r.line++
			continue
		}
		break
	}
	if r.pos >= n {
		r.done = true
		return nil, io.EOF
	}
	rawEnd := r.parse()
	r.k++
	rec := &r.rec
	rec.Raw = d[rec.start:rawEnd:rawEnd]
	r.raw = rec.Raw
	rec.Fields = rec.Fields[:0]
	rec.Quoted = rec.Quoted[:0]
	for _, f := range r.fl {
		src := d
		if f.buffered {
			src = r.buf
		}
		rec.Fields = append(rec.Fields, src[f.start:f.end:f.end])
		rec.Quoted = append(rec.Quoted, f.quoted)
	}
	rec.FieldCount = len(r.fl) + r.extra
	if r.errErr != nil {
		line, col := position(d, rec.start, rec.Line, r.errAt)
		return rec, &ParseError{File: r.file, Line: line, Column: col, Err: r.errErr}
	}
	return rec, nil
}

// full reports whether the current record holds all the fields it
// keeps (MaxFields).
func (r *Reader) full() bool { return r.MaxFields > 0 && len(r.fl) > r.MaxFields }

// addField keeps f, or once the record is full only counts it, giving
// back the buffer space an unescaped field took.
func (r *Reader) addField(f fieldLoc) {
	if r.full() {
		r.extra++
		if f.buffered {
			r.buf = r.buf[:f.start]
		}
		return
	}
	r.fl = append(r.fl, f)
}

func (r *Reader) fail(at int, err error) {
	if r.errErr == nil {
		r.errAt, r.errErr = at, err
	}
}

// parse reads the record at r.pos, fills r.fl and r.buf, advances r.pos
// and r.line past the terminator and returns where Raw ends.
func (r *Reader) parse() (rawEnd int) {
	c, d, n := r.c, r.data, len(r.data)
	rec := &r.rec
	rec.Line, rec.start, rec.data = r.line, r.pos, d
	rec.Offset = r.base + int64(r.pos)
	rec.starts = rec.starts[:0]
	r.fl = r.fl[:0]
	r.buf = r.buf[:0]
	r.errErr = nil
	r.extra = 0
	if end, ok := r.parsePlain(); ok {
		return end
	}
	i := r.pos
	line := r.line
	for {
		if !r.full() {
			rec.starts = append(rec.starts, i)
		}
		f := fieldLoc{start: i}
		seg := i // start of the bytes not yet copied when buffered
		if i < n && d[i] == c.quote {
			f.quoted = true
			open := i
			i++
			f.start, seg = i, i
			closed := false
			nextQuote := -1 // as in scanner.scan: each byte searched once
			for !closed {
				if nextQuote < i {
					nextQuote = n
					if k := bytes.IndexByte(d[i:], c.quote); k >= 0 {
						nextQuote = i + k
					}
				}
				end := nextQuote
				if c.hasEsc {
					if k := bytes.IndexByte(d[i:end], c.esc); k >= 0 {
						end = i + k
					}
				}
				line += int64(countLF(d[i:end]))
				if i = end; i == n {
					r.fail(open, ErrQuote)
					break
				}
				if d[i] != c.quote { // escape
					r.bufferField(&f, d[seg:i])
					i, line = r.unescape(i, line)
					seg = i
					continue
				}
				if i+1 < n && d[i+1] == c.quote {
					r.bufferField(&f, d[seg:i+1])
					i += 2
					seg = i
					continue
				}
				closed = true
			}
			if !closed {
				r.endField(&f, d[seg:n], n)
				r.addField(f)
				r.pos, r.line = n, line
				return n
			}
			// d[i] is the closing quote.
			r.endField(&f, d[seg:i], i)
			i++
			if i == n {
				r.addField(f)
				r.pos, r.line = n, line
				return n
			}
			switch b := d[i]; {
			case b == c.delim:
				r.addField(f)
				i++
				continue
			case b == '\n':
				r.addField(f)
				r.pos, r.line = i+1, line+1
				return i
			case b == '\r':
				r.addField(f)
				return r.endRecordCR(i, line)
			}
			// Text after the closing quote: report it, then read on as
			// unquoted so the record ends where the scanner says.
			r.fail(i, ErrQuote)
			if !f.buffered {
				r.bufferField(&f, d[f.start:f.end])
			}
			seg = i
		}
		// Unquoted field, or the rest of a malformed quoted one.
		for {
			for i < n && !c.readUnq[d[i]] {
				i++
			}
			if i == n {
				r.endField(&f, d[seg:n], n)
				r.addField(f)
				r.pos, r.line = n, line
				return n
			}
			b := d[i]
			switch {
			case b == c.delim:
				r.endField(&f, d[seg:i], i)
				r.addField(f)
				i++
			case b == '\n':
				r.endField(&f, d[seg:i], i)
				r.addField(f)
				r.pos, r.line = i+1, line+1
				return i
			case b == '\r':
				r.endField(&f, d[seg:i], i)
				r.addField(f)
				return r.endRecordCR(i, line)
			case b == c.quote: // only with StrictQuotes
				r.fail(i, ErrBareQuote)
				i++
				continue
			default: // escape
				r.bufferField(&f, d[seg:i])
				i, line = r.unescape(i, line)
				seg = i
				continue
			}
			break // delimiter: next field
		}
	}
}

// parsePlain handles the common record: one line ending in LF or CRLF
// with no quote, escape or other CR, so every field is a plain sub-slice
// found with vectorised searches.
func (r *Reader) parsePlain() (rawEnd int, ok bool) {
	c := r.c
	rest := r.data[r.pos:]
	nl := -1
	if r.k < len(r.ends) {
		// The splitter found this record's LF; trust but verify.
		if i := int(r.ends[r.k]) - 1 - r.pos; i >= 0 && i < len(rest) && rest[i] == '\n' {
			nl = i
		}
	}
	if nl < 0 {
		nl = bytes.IndexByte(rest, '\n')
	}
	line := rest
	if nl >= 0 {
		line = rest[:nl]
	}
	if r.plain {
		// The splitter has searched this line for quotes and CRs.
		if nl < 0 {
			return 0, false
		}
		if k := len(line) - 1; k >= 0 && line[k] == '\r' {
			line = line[:k]
		}
	} else {
		switch k := simd.Memchr2(line, c.quote, '\r'); {
		case k < 0:
		case line[k] == '\r' && nl >= 0 && k == len(line)-1:
			line = line[:k] // CRLF
		default:
			return 0, false // a quote, or a lone CR that ends the record there
		}
	}
	rec := &r.rec
	start := r.pos
	rawEnd = start + len(line)
	for {
		seg := r.data[start:rawEnd]
		if r.full() {
			// The rest is only counted: one pass, no slices.
			if c.hasEsc && bytes.IndexByte(seg, c.esc) >= 0 {
				rec.starts, r.fl = rec.starts[:0], r.fl[:0]
				return 0, false // an escape
			}
			r.extra = bytes.Count(seg, []byte{c.delim}) + 1
			break
		}
		rec.starts = append(rec.starts, start)
		// Escapes are looked for in the same pass as delimiters.
		var j int
		if c.hasEsc {
			j = simd.Memchr2(seg, c.delim, c.esc)
		} else {
			j = bytes.IndexByte(seg, c.delim)
		}
		if j < 0 {
			r.fl = append(r.fl, fieldLoc{start: start, end: rawEnd})
			break
		}
		if seg[j] != c.delim {
			rec.starts, r.fl = rec.starts[:0], r.fl[:0]
			return 0, false // an escape
		}
		r.fl = append(r.fl, fieldLoc{start: start, end: start + j})
		start += j + 1
	}
	if nl >= 0 {
		r.pos += nl + 1
		r.line++
	} else {
		r.pos += len(rest)
	}
	return rawEnd, true
}

// endRecordCR finishes a record ended by the CR at i, alone or in CRLF.
func (r *Reader) endRecordCR(i int, line int64) int {
	r.pos, r.line = i+1, line+1
	if r.pos < len(r.data) && r.data[r.pos] == '\n' {
		r.pos++
	}
	return i
}

// unescape handles the escape at d[i], appending its meaning to r.buf,
// and returns the index after it and the updated line.
func (r *Reader) unescape(i int, line int64) (int, int64) {
	c, d := r.c, r.data
	if i+1 == len(d) {
		r.buf = append(r.buf, c.esc) // dangling at the end: literal
		return i + 1, line
	}
	b := d[i+1]
	if !c.escapable(b) {
		r.buf = append(r.buf, c.esc)
	}
	r.buf = append(r.buf, b)
	if b == '\n' {
		line++
	}
	return i + 2, line
}

// bufferField switches f to r.buf (if not yet) and appends p.
func (r *Reader) bufferField(f *fieldLoc, p []byte) {
	if !f.buffered {
		f.buffered = true
		f.start = len(r.buf)
	}
	r.buf = append(r.buf, p...)
}

// endField sets f's end: the tail p goes to r.buf if f is buffered,
// else the field is data[f.start:end].
func (r *Reader) endField(f *fieldLoc, p []byte, end int) {
	if f.buffered {
		r.buf = append(r.buf, p...)
		f.end = len(r.buf)
		return
	}
	f.end = end
}
