package csvparse

import (
	"errors"
	"fmt"
	"math/bits"
	"strings"

	"github.com/cqlload/cqlload/internal/termsafe"
)

// Errors a ParseError can carry; compare with errors.Is.
var (
	// ErrQuote: a quoted field is never closed, or a closing quote is
	// followed by something other than a delimiter or line break.
	ErrQuote = errors.New(`extraneous or missing " in quoted field`)
	// ErrBareQuote: a quote inside an unquoted field, with StrictQuotes.
	ErrBareQuote = errors.New(`bare " in non-quoted field`)
	// ErrRecordTooLong: a record exceeds Dialect.MaxRecordBytes, often
	// because a quote is unbalanced and the rest of the file looks like
	// one quoted field (then the error says so). The record is not
	// parsed; Chunk.OpenRecord streams it whole.
	ErrRecordTooLong = errors.New("record longer than the record size limit, not parsed")
	// ErrIncompleteRecord: the input became unreadable (truncated,
	// damaged, a read error) inside this record, so it is only the part
	// before the cut (an Incomplete chunk). An *InputError follows.
	ErrIncompleteRecord = errors.New("record cut short where the input became unreadable (truncated or damaged file); not parsed")
)

// ErrShrank: a file (or a range of one) ended before the bytes it held
// when it was opened, because it was truncated or replaced while it was
// read. The records read before the end are handed out; the rows the
// file held after it are not, and the InputError says so.
var ErrShrank = errors.New("the file ended early: it was truncated or replaced while it was read")

// errTooLongUnclosed is ErrRecordTooLong for a record that runs to the
// end of the input inside a quoted field (Chunk.Unclosed).
var errTooLongUnclosed = fmt.Errorf("%w: a quoted field in it is never closed, so it runs to the end of the file", ErrRecordTooLong)

// InputError is a source that could not be read to its end: it could
// not be opened or read, or its compressed data is damaged (a checksum
// or framing error) or truncated. Splitter.Next returns it, after the
// whole records read before the problem (see Truncated and Suspect*).
type InputError struct {
	File string // Source.Name
	Err  error  // the cause; errors.Is(err, io.ErrUnexpectedEOF) when truncated
	// Truncated: the compressed data ends early. Every whole record
	// before the cut was handed out, as zcat recovers them, and the
	// partial one after the last came as an Incomplete chunk.
	Truncated bool
	// Line is where reading stopped: no record starting on or after it
	// was handed out, but the Incomplete one. 0 if nothing was read.
	Line int64
	// SuspectFrom and SuspectTo, when not 0, are the first lines of the
	// first and last records already handed out that came (maybe in part)
	// from a compressed member that could not be checked before use and
	// then failed its check, or was cut short (a truncated member has no
	// checksum to check): they may hold altered data. A member is checked
	// before use when its compressed size is at most
	// Splitter.VerifyBuffer.
	SuspectFrom, SuspectTo int64
}

func (e *InputError) Error() string {
	// An object store's errors name their URL already (they also come
	// from listings, outside any InputError): said once is enough.
	cause := strings.TrimPrefix(e.Err.Error(), e.File+": ")
	file := termsafe.Name(e.File) // as every message names a file
	msg := file + ": "
	if e.Truncated {
		msg += "file is truncated (" + cause + ")"
	} else {
		msg += cause
	}
	switch {
	case e.SuspectFrom > 0 && e.Truncated:
		msg += fmt.Sprintf("; rows from lines %d–%d of %s came from a compressed member cut short, which could not be checked; they may be altered", e.SuspectFrom, e.SuspectTo, file)
	case e.SuspectFrom > 0:
		msg += fmt.Sprintf("; rows from lines %d–%d of %s came from a compressed member that failed its check; they may be altered", e.SuspectFrom, e.SuspectTo, file)
	}
	switch {
	case e.Line > 0 && e.Truncated:
		// The partial record there was handed out, as Incomplete.
		msg += fmt.Sprintf("; the input ends inside the record at line %d", e.Line)
	case e.Line > 0:
		msg += fmt.Sprintf("; lines %d and later were not read", e.Line)
	}
	return msg
}

func (e *InputError) Unwrap() error { return e.Err }

// ParseError is a malformed record's position and cause.
type ParseError struct {
	File   string // Source.Name; may be empty
	Line   int64  // 1-based line of the problem in the file
	Column int    // 1-based character (not byte) column in that line
	Err    error
}

// Error formats as "file:line:column: message", the form editors and
// terminals turn into links. A file name holding control characters is
// quoted (termsafe.Name).
func (e *ParseError) Error() string {
	if e.File == "" {
		return fmt.Sprintf("line %d, column %d: %v", e.Line, e.Column, e.Err)
	}
	return fmt.Sprintf("%s:%d:%d: %v", termsafe.Name(e.File), e.Line, e.Column, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// Errors a BoundaryError can carry (FindRecordStart); compare with
// errors.Is.
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

// ZstdWindowError is a zstd frame that needs a window larger than
// MaxZstdWindow: compressed with zstd --long=28 or more (or a frame of
// one segment larger than that).
type ZstdWindowError struct {
	Need, Max uint64 // bytes
}

func (e *ZstdWindowError) Error() string {
	long := bits.Len64(e.Need - 1) // the --long that writes such a window
	return fmt.Sprintf("zstd: a frame needs a %s window (--long=%d), larger than the %s that cqlload, as zstd -d, decodes with: "+
		"decompress it first with zstd -d --long=%d, or pipe it in: zstd -dc --long=%d FILE | cqlload ... -",
		sizeText(e.Need), long, sizeText(e.Max), long, long)
}

// errLonger: the member goes on past the buffered bytes.
var errLonger = errors.New("member longer than the buffer")

// Errors of the package's own plumbing, never seen by a caller that uses
// its types as documented.
var (
	// errAsyncClosed: a read of an asyncReader after Close.
	errAsyncClosed = errors.New("csvparse: source closed")
	// errNoRecord: Chunk.OpenRecord of a chunk with no record kept.
	errNoRecord = errors.New("csvparse: chunk holds no record over the size limit, or was released")
	// errClosed: Splitter.Next after Close.
	errClosed = errors.New("csvparse: splitter closed")
)
