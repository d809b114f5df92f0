package schema

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"
)

// Converter appends the protocol-v4 serialized form of one CSV field to dst
// and returns it. The field has its CSV quotes removed and is never the
// NULL marker (the loader handles nulls). Converters do not allocate beyond
// growing dst, except for varints and decimals of more than 18 digits,
// strings inside collections that need unescaping, and UDTs of more than 8
// fields. On error dst is returned unchanged in length. A Converter may be
// called from many goroutines at once.
type Converter func(dst, field []byte) ([]byte, error)

// maxErrValue bounds the text an error carries: a 10 MB blob should not
// end up in an error file twice.
const maxErrValue = 64

func newConvertError(t *Type, field []byte, err error) *ConvertError {
	return &ConvertError{Type: t.String(), Value: truncate(field), Err: err}
}

func truncate(b []byte) string {
	if len(b) <= maxErrValue {
		return string(b)
	}
	n := maxErrValue
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return string(b[:n]) + "…"
}

// NewConverter builds the converter for values of type t.
func NewConverter(t *Type, f Formats) (Converter, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	layout, err := compileStrftime(f.DateTimeFormat)
	if err != nil {
		return nil, err
	}
	b := &builder{f: f, layout: layout, layoutDot: layout.takesDot()}
	b.parsers.New = func() any { return new(litParser) }
	return b.build(t, 0)
}

// MaxKeyComponentSize is the largest serialized value a primary key column
// can hold: Cassandra stores key components with a 16-bit length and
// rejects longer ones ("Key length of N is longer than maximum of 65535").
const MaxKeyComponentSize = 65535

// NewColumnConverter is NewConverter for a column: for partition key and
// clustering columns it also rejects values longer than
// MaxKeyComponentSize, which the server would refuse for the whole batch.
func NewColumnConverter(c *Column, f Formats) (Converter, error) {
	conv, err := NewConverter(c.Type, f)
	if err != nil {
		return nil, fmt.Errorf("column %s: %w", c.Name, err)
	}
	if c.Kind != PartitionKey && c.Kind != Clustering {
		return conv, nil
	}
	t := c.Type
	return func(dst, field []byte) ([]byte, error) {
		n := len(dst)
		out, err := conv(dst, field)
		if err == nil && len(out)-n > MaxKeyComponentSize {
			return dst[:n], newConvertError(t, field, &KeySizeError{Size: len(out) - n})
		}
		return out, err
	}, nil
}

// Verbatim returns, for types whose serialized form can be the CSV
// field's own bytes (text and ascii), a check that a field passes when it
// can be bound as it is, with no copy: valid for the type and with no
// cqlsh escape to undo. A field that fails it goes through the type's
// Converter, which gives the reason or the unescaped value. Verbatim
// returns nil for every other type. It knows nothing of key columns'
// size limit, which NewColumnConverter adds.
func Verbatim(t *Type, f Formats) func(field []byte) bool {
	var valid func([]byte) bool
	switch t.Kind {
	case KindText:
		valid = utf8.Valid
	case KindAscii:
		valid = isASCII
	default:
		return nil
	}
	if !f.CqlshEscapes {
		return valid
	}
	return func(field []byte) bool {
		return bytes.IndexByte(field, '\\') < 0 && valid(field)
	}
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// builder carries what all converters of one run share.
type builder struct {
	f      Formats
	layout strftimeLayout
	// layoutDot: the layout can match a value with a '.'. cqlsh's default
	// cannot, and timestamps with milliseconds, the common export form,
	// then skip a parse that must fail.
	layoutDot bool
	// parsers recycles composite values' literal parsers, which would
	// otherwise be allocated per value: the parser is handed to element
	// functions through func values, so escape analysis cannot keep it on
	// the stack.
	parsers sync.Pool
}

func (b *builder) build(t *Type, depth int) (Converter, error) {
	if t == nil {
		return nil, errors.New("nil type")
	}
	if depth > maxTypeDepth {
		return nil, fmt.Errorf("type nested deeper than %d", maxTypeDepth)
	}
	if fn := b.scalar(t); fn != nil {
		return wrapScalar(t, fn), nil
	}
	switch t.Kind {
	case KindList, KindSet, KindMap, KindTuple, KindUDT, KindVector:
		c, err := b.composite(t, depth)
		if err != nil {
			return nil, err
		}
		return c, nil
	case KindCustom:
		return nil, fmt.Errorf("cannot load values of custom type %s", t)
	}
	return nil, fmt.Errorf("no converter for type %s", t)
}

// scalarFunc converts one scalar value; it returns a bare reason on error,
// which wrapScalar turns into a ConvertError. Keeping the reason bare lets
// collection converters reuse scalar functions for their elements.
type scalarFunc func(dst, field []byte) ([]byte, error)

func wrapScalar(t *Type, fn scalarFunc) Converter {
	return func(dst, field []byte) ([]byte, error) {
		n := len(dst)
		out, err := fn(dst, field)
		if err != nil {
			var re *RangeError
			if errors.As(err, &re) {
				err = &RangeError{Min: re.Min, Max: re.Max, direct: true}
			}
			return dst[:n], newConvertError(t, field, err)
		}
		return out, nil
	}
}

func (b *builder) scalar(t *Type) scalarFunc {
	switch t.Kind {
	case KindAscii:
		if b.f.CqlshEscapes {
			return unescapingText(convertASCII)
		}
		return convertASCII
	case KindText:
		if b.f.CqlshEscapes {
			return unescapingText(convertText)
		}
		return convertText
	case KindBlob:
		return convertBlob
	case KindBoolean:
		return b.convertBool
	case KindTinyint:
		return b.intConverter(8)
	case KindSmallint:
		return b.intConverter(16)
	case KindInt:
		return b.intConverter(32)
	case KindBigint, KindCounter:
		return b.intConverter(64)
	case KindVarint:
		return b.convertVarint
	case KindFloat:
		return b.convertFloat
	case KindDouble:
		return b.convertDouble
	case KindDecimal:
		return b.convertDecimal
	case KindTimestamp:
		return b.convertTimestamp
	case KindDate:
		return convertDate
	case KindTime:
		return convertTime
	case KindDuration:
		return convertDuration
	case KindUUID:
		return convertUUID
	case KindTimeuuid:
		return convertTimeUUID
	case KindInet:
		return convertInet
	}
	return nil
}

func convertText(dst, field []byte) ([]byte, error) {
	if !utf8.Valid(field) {
		return dst, notUTF8(field)
	}
	return append(dst, field...), nil
}

// unescapingText undoes cqlsh COPY TO's text escapes before fn checks
// and appends the value. Text without a backslash costs one scan.
func unescapingText(fn scalarFunc) scalarFunc {
	return func(dst, field []byte) ([]byte, error) {
		if bytes.IndexByte(field, '\\') < 0 {
			return fn(dst, field)
		}
		n := len(dst)
		dst = appendUnescaped(dst, field)
		// fn checks the text and appends it onto dst[:n], which is where
		// it already is: the append copies it onto itself.
		return fn(dst[:n], dst[n:])
	}
}

// appendUnescaped appends s with cqlsh's escapes decoded: \\ \n \r \t
// and \xHH, the last being the code point U+00HH as Python's repr wrote it.
func appendUnescaped(dst, s []byte) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			dst = append(dst, c)
			continue
		}
		switch s[i+1] {
		case '\\':
			dst = append(dst, '\\')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'x':
			if i+3 < len(s) {
				hi, ok1 := unhex(s[i+2])
				lo, ok2 := unhex(s[i+3])
				if ok1 && ok2 {
					dst = utf8.AppendRune(dst, rune(hi<<4|lo))
					i += 3
					continue
				}
			}
			dst = append(dst, c)
			continue
		default:
			dst = append(dst, c)
			continue
		}
		i++
	}
	return dst
}

func convertASCII(dst, field []byte) ([]byte, error) {
	if !isASCII(field) {
		return dst, errNotASCII
	}
	return append(dst, field...), nil
}

func convertBlob(dst, field []byte) ([]byte, error) {
	if len(field) < 2 || field[0] != '0' || (field[1] != 'x' && field[1] != 'X') {
		return dst, errBlobPrefix
	}
	hex := field[2:]
	n := len(dst)
	for i := 0; i < len(hex); i += 2 {
		if isBlank(hex[i]) {
			i-- // Python's bytes.fromhex skips blanks between bytes
			continue
		}
		if i+1 == len(hex) {
			return dst[:n], errBlobHex
		}
		hi, ok1 := unhex(hex[i])
		lo, ok2 := unhex(hex[i+1])
		if !ok1 || !ok2 {
			return dst[:n], errBlobHex
		}
		dst = append(dst, hi<<4|lo)
	}
	return dst, nil
}

func unhex(c byte) (byte, bool) {
	v := hexValues[c]
	return v & 0x0f, v != 0xff
}

// hexValues maps a byte to its hex digit value, 0xff for non-digits; a
// table lookup beats three range tests in blob and UUID loops.
var hexValues = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = byte(c-'a') + 10
		t[c-'a'+'A'] = byte(c-'a') + 10
	}
	return t
}()

func (b *builder) convertBool(dst, field []byte) ([]byte, error) {
	switch {
	case equalFold(field, b.f.BoolStyle[0]):
		return append(dst, 1), nil
	case equalFold(field, b.f.BoolStyle[1]):
		return append(dst, 0), nil
	}
	return dst, errNotBool
}

// equalFold compares case-insensitively without allocating; BOOLSTYLE words
// may be non-ASCII ("oui", "ja", "да").
func equalFold(b []byte, s string) bool {
	return strings.EqualFold(bstr(b), s)
}

// bstr views b as a string without copying. Only for calls that neither
// keep the string nor let it outlive b: strconv and netip parsers, whose
// errors (which would hold it) are dropped on the spot.
func bstr(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// notUTF8 is the error for invalid UTF-8 field, naming a lone UTF-16
// surrogate, the way invalid UTF-16 input comes out of decoding.
func notUTF8(field []byte) error {
	for i := 0; i+1 < len(field); i++ {
		if field[i] == 0xed && field[i+1] >= 0xa0 && field[i+1] <= 0xbf {
			return errLoneSurrogate
		}
	}
	return errNotUTF8
}
