package csvparse

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
)

// DefaultMaxRecordBytes is the record size limit used when
// Dialect.MaxRecordBytes is 0.
const DefaultMaxRecordBytes = 16 << 20

// MaxRecordLimit is the largest Dialect.MaxRecordBytes: offsets within a
// chunk fit in 32 bits.
const MaxRecordLimit = 1 << 30

// Dialect holds cqlsh COPY FROM's CSV options. The zero value is not
// usable (it has no delimiter and MaxRows 0 reads nothing): start from
// DefaultDialect and change what the COPY statement sets.
type Dialect struct {
	// Delimiter separates fields (DELIMITER). Default ','.
	Delimiter byte
	// Quote encloses fields that hold delimiters, quotes or line breaks
	// (QUOTE). Default '"'. Inside a quoted field a doubled quote is one
	// quote (RFC 4180), whatever Escape is.
	Quote byte
	// Escape makes the next character literal (ESCAPE). Default '\\'.
	// Escape followed by Quote, Escape, Delimiter, CR or LF yields that
	// character; followed by anything else both characters are kept, so
	// `C:\temp` stays as written. 0 disables escaping (ESCAPE = ''), which
	// is plain RFC 4180. Escape == Quote behaves like 0.
	Escape byte
	// Header means the first record of each file holds column names
	// (HEADER). Default false.
	Header bool
	// StrictQuotes rejects a Quote inside an unquoted field with
	// ErrBareQuote. By default such a quote is data, as cqlsh loads it
	// (`12" pipe`).
	StrictQuotes bool
	// SkipRows is the number of records skipped at the start of each
	// file, after the header (SKIPROWS). Default 0.
	SkipRows int
	// MaxRows is the number of records read from each file after
	// skipping (MAXROWS); < 0 means no limit. Default -1. With a single
	// input it counts the skipped records too, as cqlsh does: SkipRows 3
	// and MaxRows 4 read one record.
	MaxRows int
	// Encoding names the character encoding of the input (ENCODING):
	// "" or "utf-8" (default), "latin-1" (also "latin1", "iso-8859-1"),
	// "cp1252" (also "windows-1252"), "utf-16" (byte order from the BOM,
	// little endian without one, as Python's codec on x86), "utf-16le",
	// "utf-16be". Names are case-insensitive. Input is decoded to UTF-8
	// before splitting. With UTF-8, a file starting with a UTF-16 byte
	// order mark is read as UTF-16 (it cannot be UTF-8).
	Encoding string
	// MaxRecordBytes bounds the records that are parsed, line terminator
	// included; 0 means DefaultMaxRecordBytes. A longer record (usually an
	// unbalanced quote) becomes a ParseError with ErrRecordTooLong and a
	// TooLong chunk that streams it whole (Chunk.OpenRecord); splitting
	// resumes at its real end.
	MaxRecordBytes int
}

// DefaultDialect returns cqlsh COPY FROM's defaults.
func DefaultDialect() Dialect {
	return Dialect{
		Delimiter: ',',
		Quote:     '"',
		Escape:    '\\',
		MaxRows:   -1,
		Encoding:  "utf-8",
	}
}

// Validate reports every problem with d at once, joined with errors.Join.
func (d Dialect) Validate() error {
	var errs []error
	checkChar := func(name string, c byte, required bool) {
		switch {
		case c == 0 && required:
			errs = append(errs, fmt.Errorf("%s must be one character", name))
		case c == '\n' || c == '\r':
			errs = append(errs, fmt.Errorf("%s cannot be a line break", name))
		case c >= 0x80:
			errs = append(errs, fmt.Errorf("%s %q is not an ASCII character", name, rune(c)))
		}
	}
	checkChar("DELIMITER", d.Delimiter, true)
	checkChar("QUOTE", d.Quote, true)
	checkChar("ESCAPE", d.Escape, false)
	if d.Delimiter != 0 && d.Delimiter == d.Quote {
		errs = append(errs, fmt.Errorf("DELIMITER and QUOTE are both %q", rune(d.Delimiter)))
	}
	if d.Escape != 0 && d.Escape == d.Delimiter {
		errs = append(errs, fmt.Errorf("DELIMITER and ESCAPE are both %q", rune(d.Delimiter)))
	}
	if d.SkipRows < 0 {
		errs = append(errs, fmt.Errorf("SKIPROWS is %d, want >= 0", d.SkipRows))
	}
	if d.MaxRecordBytes < 0 || d.MaxRecordBytes > MaxRecordLimit {
		errs = append(errs, fmt.Errorf("MaxRecordBytes is %d, want 0 to %d", d.MaxRecordBytes, MaxRecordLimit))
	}
	if _, err := lookupEncoding(d.Encoding); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func (d Dialect) maxRecord() int {
	if d.MaxRecordBytes > 0 {
		return d.MaxRecordBytes
	}
	return DefaultMaxRecordBytes
}

// TextEncoding says how to write text that d reads back as it was
// written (the error files): enc is nil for UTF-8; bom is the byte order
// mark a file starts with, for "utf-16", which reads the byte order from
// it. enc itself writes no mark, so text can be encoded piece by piece.
func (d Dialect) TextEncoding() (enc encoding.Encoding, bom []byte) {
	e, err := lookupEncoding(d.Encoding)
	if e == nil || err != nil {
		return nil, nil
	}
	if e == utf16WithBOM {
		return utf16LE, []byte{0xff, 0xfe}
	}
	return e, nil
}

// The UTF-16 encodings: "utf-16" takes the byte order from the BOM,
// little endian without one, as Python's codec on x86.
// Their decoders keep a lone surrogate invalid (utf16.go).
var (
	utf16WithBOM = newStrictUTF16(false, true)
	utf16LE      = newStrictUTF16(false, false)
	utf16BE      = newStrictUTF16(true, false)
)

// isUTF16 says whether enc is one of the UTF-16 encodings.
func isUTF16(enc encoding.Encoding) bool {
	return enc == utf16WithBOM || enc == utf16LE || enc == utf16BE
}

// lookupEncoding returns nil for UTF-8, which needs no decoding.
func lookupEncoding(name string) (encoding.Encoding, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "", "utf-8", "utf8":
		return nil, nil
	case "latin-1", "latin1", "iso-8859-1", "iso8859-1", "iso-8859-1:1987", "l1":
		return charmap.ISO8859_1, nil
	case "cp1252", "windows-1252":
		return charmap.Windows1252, nil
	case "utf-16", "utf16":
		return utf16WithBOM, nil
	case "utf-16le", "utf-16-le", "utf16le":
		return utf16LE, nil
	case "utf-16be", "utf-16-be", "utf16be":
		return utf16BE, nil
	}
	return nil, fmt.Errorf("ENCODING %q is not supported (use utf-8, latin-1, cp1252, utf-16, utf-16le or utf-16be)", name)
}
