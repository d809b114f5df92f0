package csvparse

import (
	"errors"
	"fmt"
)

// Errors a ParseError can carry; compare with errors.Is.
var (
	// ErrQuote: a quoted field is never closed, or a closing quote is
	// followed by something other than a delimiter or line break.
	ErrQuote = errors.New(`extraneous or missing " in quoted field`)
	// ErrBareQuote: a quote inside an unquoted field, with StrictQuotes.
	ErrBareQuote = errors.New(`bare " in non-quoted field`)
	// ErrRecordTooLong: a record exceeds Dialect.MaxRecordBytes, usually
	// because a quote is unbalanced and the rest of the file looks like
	// one quoted field. The record is not parsed; Chunk.OpenRecord streams
	// it whole.
	ErrRecordTooLong = errors.New("record longer than the record size limit, not parsed (an unbalanced quote makes the rest of the file one record)")
)

// ParseError is a malformed record's position and cause.
type ParseError struct {
	File   string // Source.Name; may be empty
	Line   int64  // 1-based line of the problem in the file
	Column int    // 1-based character (not byte) column in that line
	Err    error
}

// Error formats as "file:line:column: message", the form editors and
// terminals turn into links.
func (e *ParseError) Error() string {
	if e.File == "" {
		return fmt.Sprintf("line %d, column %d: %v", e.Line, e.Column, e.Err)
	}
	return fmt.Sprintf("%s:%d:%d: %v", e.File, e.Line, e.Column, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }
