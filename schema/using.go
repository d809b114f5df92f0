package schema

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
)

// A row's own write time and TTL, from fields of the input
// (--writetime-field, --ttl-field): a migration keeps each row's as the
// source cluster had them, so that an older row never overwrites a newer
// live write, and a row expires when it would have.

// MaxTTL is the largest TTL Cassandra takes, 20 years in seconds.
const MaxTTL = 20 * 365 * 24 * 60 * 60

// WriteTimeParser reads a write time field: integer microseconds since
// the epoch (what CQL's writetime() returns and DSBulk and Spark export),
// or a timestamp in any form a timestamp column takes under f (its
// DATETIMEFORMAT, a CQL literal), whose milliseconds it gives in
// microseconds. An empty field gives ok false: the row has none.
type WriteTimeParser struct {
	conv   Converter
	format string
}

// NewWriteTimeParser builds the parser for timestamps written as f says.
func NewWriteTimeParser(f Formats) (*WriteTimeParser, error) {
	conv, err := NewConverter(&Type{Kind: KindTimestamp}, f)
	if err != nil {
		return nil, err
	}
	return &WriteTimeParser{conv: conv, format: f.DateTimeFormat}, nil
}

// Parse reads field as a write time in microseconds.
func (p *WriteTimeParser) Parse(field []byte) (us int64, ok bool, err error) {
	if len(field) == 0 {
		return 0, false, nil
	}
	if n, err := strconv.ParseInt(string(field), 10, 64); err == nil {
		if n == math.MinInt64 {
			// Cassandra keeps it for "no timestamp".
			return 0, false, fmt.Errorf("write time %d: out of range", n)
		}
		return n, true, nil
	} else if isDigits(field) {
		return 0, false, fmt.Errorf("write time %s: out of range of microseconds since the epoch", truncate(field))
	}
	var buf [8]byte
	b, err := p.conv(buf[:0], field)
	if err != nil {
		// The converter's reason would offer integer milliseconds,
		// which a write time's integers are not.
		return 0, false, fmt.Errorf("write time %s: neither microseconds since the epoch nor a timestamp (DATETIMEFORMAT %q, or a CQL timestamp: yyyy-mm-dd[( |T)hh:mm[:ss[.fff]]][[ ]Z|±hh[:mm]])", truncate(field), p.format)
	}
	ms := int64(binary.BigEndian.Uint64(b))
	if ms > math.MaxInt64/1000 || ms < math.MinInt64/1000+1 {
		return 0, false, fmt.Errorf("write time %s: out of range", truncate(field))
	}
	return ms * 1000, true, nil
}

// isDigits reports whether b is an optionally signed run of digits.
func isDigits(b []byte) bool {
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		b = b[1:]
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

// ParseTTL reads a TTL field: whole seconds, at most MaxTTL; 0 is none, as
// in CQL. An empty field gives ok false: the row has none of its own.
func ParseTTL(field []byte) (seconds int32, ok bool, err error) {
	if len(field) == 0 {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(string(field), 10, 64)
	switch {
	case err != nil && isDigits(field):
		return 0, false, fmt.Errorf("TTL %s: larger than the largest, %d (20 years)", truncate(field), MaxTTL)
	case err != nil:
		return 0, false, fmt.Errorf("TTL %s: not a whole number of seconds", truncate(field))
	case n < 0:
		return 0, false, fmt.Errorf("TTL %d: negative", n)
	case n > MaxTTL:
		return 0, false, fmt.Errorf("TTL %d: larger than the largest, %d (20 years)", n, MaxTTL)
	}
	return int32(n), true, nil
}
