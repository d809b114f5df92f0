package schema

// The package's errors: the types callers branch on (ConvertError and
// its reasons, NotFoundError, AmbiguousError, ErrNoColumn) and the
// reasons the converters share.

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/gocql/gocql"
)

// ConvertError is the error every converter returns: the CQL type, the
// offending text (at most maxErrValue bytes) and the reason.
type ConvertError struct {
	Type  string
	Value string
	Err   error
}

func (e *ConvertError) Error() string {
	var re *RangeError
	if errors.As(e.Err, &re) && re.direct {
		return fmt.Sprintf("%s %s %v", e.Type, e.Value, re)
	}
	return fmt.Sprintf("invalid %s %q: %v", e.Type, e.Value, e.Err)
}

func (e *ConvertError) Unwrap() error { return e.Err }

// RangeError says a number is outside its type's range. Min and Max are the
// bounds as CQL writes them.
type RangeError struct {
	Min, Max string
	// direct is set when the range error is the converter's own, so that
	// ConvertError prints "int 3000000000 out of range [...]"; a range error
	// of a collection element keeps the "invalid list<int> ..." form.
	direct bool
}

func (e *RangeError) Error() string {
	return "out of range [" + e.Min + ", " + e.Max + "]"
}

// KeySizeError is a primary key value longer than MaxKeyComponentSize.
type KeySizeError struct{ Size int }

func (e *KeySizeError) Error() string {
	return fmt.Sprintf("%d bytes, more than the %d a primary key column can hold", e.Size, MaxKeyComponentSize)
}

// ErrNoColumn says a table has no column of a name.
var ErrNoColumn = errors.New("no such column")

// AmbiguousError says a name is none of a table's columns exactly, but
// two or more of them when case is ignored ("VAL" with columns "Val" and
// val): no rule can tell which one was meant, so it is an error, never a
// guess.
type AmbiguousError struct {
	Name    string
	Columns []string // as CQL identifiers, quoted where needed
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%s matches columns %s only when case is ignored (write the name exactly as one of them)", e.Name, strings.Join(e.Columns, " and "))
}

// NotFoundError says a keyspace or a table does not exist and, when there
// are few, names those that do, so that a typo or a case mismatch shows at
// once.
type NotFoundError struct {
	// Keyspace is the keyspace as given when it is missing, or the
	// keyspace's name when the table is missing.
	Keyspace string
	// Table is the table as given, or "" when the keyspace is missing.
	Table string
	// Existing lists the cluster's user keyspaces (when the keyspace is
	// missing) or the keyspace's tables, sorted and written as CQL
	// identifiers (quoted where needed). It is nil when there are none
	// or more than MaxListed.
	Existing []string
	// Count is how many there are, -1 when they could not be read.
	Count int
}

func (e *NotFoundError) setExisting(names []string) {
	e.Count = len(names)
	if len(names) == 0 || len(names) > MaxListed {
		return
	}
	e.Existing = make([]string, len(names))
	for i, n := range names {
		e.Existing[i] = QuoteIdent(n)
	}
	sort.Strings(e.Existing)
}

func (e *NotFoundError) Error() string {
	msg, where, kind := "keyspace "+e.Keyspace+" does not exist", "the cluster", "keyspaces"
	if e.Table != "" {
		msg, where, kind = "table "+e.Keyspace+"."+e.Table+" does not exist", "keyspace "+QuoteIdent(e.Keyspace), "tables"
	}
	switch {
	case e.Count < 0:
		return msg
	case e.Count == 0 && e.Table == "":
		return msg + " (the cluster has no keyspaces besides the system ones)"
	case e.Count == 0:
		return msg + " (" + where + " has no tables)"
	case e.Existing == nil:
		return fmt.Sprintf("%s (%s has %d %s)", msg, where, e.Count, kind)
	}
	return msg + " (" + where + " has " + kind + " " + strings.Join(e.Existing, ", ") + ")"
}

// Unwrap gives gocql.ErrKeyspaceDoesNotExist for a missing keyspace, so
// that errors.Is works as with the driver's own error.
func (e *NotFoundError) Unwrap() error {
	if e.Table == "" {
		return gocql.ErrKeyspaceDoesNotExist
	}
	return nil
}

// timestampFormatError is a timestamp that matches none of the forms
// accepted: the run's DATETIMEFORMAT, CQL's own, integer milliseconds.
type timestampFormatError struct{ format string }

func (e *timestampFormatError) Error() string {
	return fmt.Sprintf("matches neither DATETIMEFORMAT %q, nor a CQL timestamp (yyyy-mm-dd[( |T)hh:mm[:ss[.fff]]][[ ]Z|±hh[:mm]| UTC]), nor integer milliseconds", e.format)
}

// compactDateError is an integer date that reads as yyyymmdd.
type compactDateError struct{ y, m, d int }

func (e *compactDateError) Error() string {
	return fmt.Sprintf("reads as %04d-%02d-%02d without dashes: write dates as yyyy-mm-dd "+
		"(an integer date is a day number on which 2147483648 is 1970-01-01, as Cassandra reads it)", e.y, e.m, e.d)
}

// Reasons shared by many converters. They are values, not formatted
// strings, so that returning them costs nothing until the error is printed.
var (
	errEmpty      = errors.New("empty value")
	errNotNumber  = errors.New("not a number")
	errNotInteger = errors.New("not an integer")
	errNotUTF8    = errors.New("not valid UTF-8")
	// errLoneSurrogate: csvparse's UTF-16 decoder keeps a lone surrogate
	// as the three bytes (ED A0–BF xx) it would encode to in UTF-8.
	errLoneSurrogate = errors.New("not valid text: a lone UTF-16 surrogate (U+D800–U+DFFF without its pair)")
	errNotASCII      = errors.New("not ASCII")
	errNotBool       = errors.New("not a boolean")
	errBlobPrefix    = errors.New("a blob must be 0x followed by hex digits")
	errBlobHex       = errors.New("after 0x, not pairs of hex digits")
	errNotUUID       = errors.New("not a UUID")
	errNotInet       = errors.New("not an IPv4 or IPv6 address")
	errNotDate       = errors.New("not a date (yyyy-mm-dd, or a day number on which 2147483648 is 1970-01-01)")
	errNotTime       = errors.New("not a time (hh:mm:ss[.fffffffff] or nanoseconds since midnight)")
	errNotDuration   = errors.New("not a duration (like 1h30m, P1DT2H, P2W or P0001-02-03T04:05:06)")
	errDecimalNaN    = errors.New("NaN and Infinity are not decimal values")
	// errDurationRange: a duration's months, days or nanoseconds beyond
	// what its encoding holds.
	errDurationRange = errors.New("duration component out of range")
	// errNullElement: a null inside a collection literal, which CQL
	// does not allow.
	errNullElement = errors.New("null is not allowed inside a list, set or map")
	// errOverflow: an integer beyond int64, where one is needed.
	errOverflow = errors.New("overflows int64")
	// errScale: a decimal whose exponent leaves its scale beyond int32.
	errScale = errors.New("exponent out of range")
	// errTooManyDigits: a number longer than maxDigits.
	errTooManyDigits = errors.New("more than 4300 digits")
)
