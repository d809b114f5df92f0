package schema

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"time"
)

// convertTimestamp accepts, in this order: DATETIMEFORMAT (as cqlsh tries
// it first), every CQL timestamp literal form, and integer milliseconds
// since the epoch (what cqlsh COPY TO writes for years it cannot format).
// Digits of a fraction finer than a millisecond are dropped, which rounds
// toward the past: 00:00:00.9999 is 00:00:00.999.
func (b *builder) convertTimestamp(dst, field []byte) ([]byte, error) {
	if b.layoutDot || bytes.IndexByte(field, '.') < 0 {
		if c, ok := b.layout.parse(field); ok {
			if ms, err := b.civilMillis(c); err == nil {
				return binary.BigEndian.AppendUint64(dst, uint64(ms)), nil
			}
		}
	}
	if c, ok := parseCQLTimestamp(field); ok {
		ms, err := b.civilMillis(c)
		if err != nil {
			return dst, err
		}
		return binary.BigEndian.AppendUint64(dst, uint64(ms)), nil
	}
	if ms, ok := parseInt64(field); ok {
		return binary.BigEndian.AppendUint64(dst, uint64(ms)), nil
	}
	return dst, &timestampFormatError{format: b.f.DateTimeFormat}
}

// civilMillis turns a broken-down time into milliseconds since the epoch,
// applying the zone offset (east of UTC is subtracted) or, without one, the
// configured time zone.
func (b *builder) civilMillis(c civil) (int64, error) {
	if c.year < 1 || c.year > 9999 {
		return 0, fmt.Errorf("year %d out of range [1, 9999]", c.year)
	}
	if c.month < 1 || c.month > 12 {
		return 0, fmt.Errorf("month %d out of range [1, 12]", c.month)
	}
	if c.day < 1 || c.day > daysIn(c.year, c.month) {
		return 0, fmt.Errorf("day %d out of range for %04d-%02d", c.day, c.year, c.month)
	}
	if c.hour > 23 || c.minute > 59 || c.sec > 59 {
		return 0, fmt.Errorf("time %02d:%02d:%02d out of range", c.hour, c.minute, c.sec)
	}
	ms := int64(c.nanos / 1e6)
	loc := b.f.location()
	if c.hasZone || loc == time.UTC {
		secs := daysFromCivil(c.year, c.month, c.day)*86400 + int64(c.hour*3600+c.minute*60+c.sec) - int64(c.offsetSec)
		return secs*1000 + ms, nil
	}
	t := time.Date(c.year, time.Month(c.month), c.day, c.hour, c.minute, c.sec, 0, loc)
	return t.Unix()*1000 + ms, nil
}

// parseCQLTimestamp reads the CQL literal forms: yyyy-mm-dd (the year
// may have one to four digits), optionally
// followed by a space or T and hh:mm[:ss[.f{1,9}]], optionally followed by a
// zone (see parseLiteralZone). It reports ok=false when the text does not
// have that shape.
func parseCQLTimestamp(s []byte) (c civil, ok bool) {
	// Years of one to three digits are what cqlsh COPY TO writes before
	// the year 1000 (999-12-31 23:59:59.999+0000).
	y, n := digits(s, 1, 4)
	if n == 0 || len(s) <= n || s[n] != '-' {
		return c, false
	}
	c.year = y
	i := n + 1
	if c.month, n = digits(s[i:], 1, 2); n == 0 {
		return c, false
	}
	i += n
	if i >= len(s) || s[i] != '-' {
		return c, false
	}
	i++
	if c.day, n = digits(s[i:], 1, 2); n == 0 {
		return c, false
	}
	i += n
	if i+1 < len(s) && (s[i] == ' ' || s[i] == 'T' || s[i] == 't') && isDigit(s[i+1]) {
		i++
		if c.hour, n = digits(s[i:], 1, 2); n == 0 {
			return c, false
		}
		i += n
		if i >= len(s) || s[i] != ':' {
			return c, false
		}
		i++
		if c.minute, n = digits(s[i:], 1, 2); n == 0 {
			return c, false
		}
		i += n
		if i < len(s) && s[i] == ':' {
			i++
			if c.sec, n = digits(s[i:], 1, 2); n == 0 {
				return c, false
			}
			i += n
			if i < len(s) && s[i] == '.' {
				i++
				f, n := digits(s[i:], 1, 9)
				if n == 0 {
					return c, false
				}
				for k := n; k < 9; k++ {
					f *= 10
				}
				c.nanos = f
				i += n
			}
		}
	}
	if i < len(s) {
		off, ok := parseLiteralZone(s[i:])
		if !ok {
			return c, false
		}
		c.offsetSec, c.hasZone = off, true
	}
	return c, true
}

// parseLiteralZone reads the whole rest of a CQL timestamp literal as its
// zone: Z, ±hh, ±hhmm or ±hh:mm right after the time, or after one blank
// also UTC or GMT, optionally followed by such an offset (Cassandra's
// "z" patterns); zone abbreviations such as PST are ambiguous and not read.
func parseLiteralZone(s []byte) (int, bool) {
	if s[0] == ' ' {
		s = s[1:]
		if len(s) >= 3 && (equalFoldASCII(s[:3], "utc") || equalFoldASCII(s[:3], "gmt")) {
			s = s[3:]
			if len(s) == 0 {
				return 0, true
			}
		}
		if len(s) == 0 {
			return 0, false
		}
	}
	off, n, ok := parseZone(s, false)
	return off, ok && n == len(s)
}

// parseInt64 reads an optionally signed decimal integer, nothing else.
func parseInt64(s []byte) (int64, bool) {
	if len(s) == 0 {
		return 0, false
	}
	neg := false
	if s[0] == '+' || s[0] == '-' {
		neg = s[0] == '-'
		s = s[1:]
	}
	if len(s) == 0 || len(s) > 19 {
		return 0, false
	}
	var u uint64
	for _, c := range s {
		if !isDigit(c) {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
	}
	if !neg && u > math.MaxInt64 || neg && u > 1<<63 {
		return 0, false
	}
	if neg {
		return -int64(u), true
	}
	return int64(u), true
}

// convertDate accepts yyyy-mm-dd (as Python's strptime("%Y-%m-%d"), so
// months and days may have one digit and a leading + is allowed), and an
// integer read as Cassandra reads one: an unsigned 32-bit day number on
// which 2^31 is 1970-01-01, which is also the wire form. Eight digits that
// read as yyyymmdd (20200102) are refused rather than taken for a day
// some five million years before the epoch.
func convertDate(dst, field []byte) ([]byte, error) {
	s := field
	if len(s) > 0 && s[0] == '+' {
		s = s[1:]
	}
	if y, n := digits(s, 4, 4); n == 4 && len(s) > 4 && s[4] == '-' {
		i := 5
		m, n := digits(s[i:], 1, 2)
		if n == 0 || i+n >= len(s) || s[i+n] != '-' {
			return dst, errNotDate
		}
		i += n + 1
		d, n := digits(s[i:], 1, 2)
		if n == 0 || i+n != len(s) {
			return dst, errNotDate
		}
		if y < 1 || m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
			return dst, fmt.Errorf("no such date %04d-%02d-%02d", y, m, d)
		}
		days := daysFromCivil(y, m, d)
		return binary.BigEndian.AppendUint32(dst, uint32(days+1<<31)), nil
	}
	days, ok := parseInt64(field)
	if !ok {
		return dst, errNotDate
	}
	if y, m, d, ok := yyyymmdd(field); ok {
		return dst, &compactDateError{y: y, m: m, d: d}
	}
	if days < 0 || days > math.MaxUint32 {
		return dst, &RangeError{Min: "0", Max: "4294967295"}
	}
	return binary.BigEndian.AppendUint32(dst, uint32(days)), nil
}

// yyyymmdd reads eight digits as a date written without dashes.
func yyyymmdd(s []byte) (y, m, d int, ok bool) {
	if len(s) != 8 {
		return 0, 0, 0, false
	}
	y, n1 := digits(s[0:4], 4, 4)
	m, n2 := digits(s[4:6], 2, 2)
	d, n3 := digits(s[6:8], 2, 2)
	if n1 != 4 || n2 != 2 || n3 != 2 || y < 1 || m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, 0, 0, false
	}
	return y, m, d, true
}

const nanosPerDay = 86400 * 1e9

// convertTime accepts hh:mm:ss[.f{1,9}] (hours, minutes and seconds of one
// or two digits, as strptime allows) and integer nanoseconds since
// midnight; the wire form is nanoseconds as a bigint.
func convertTime(dst, field []byte) ([]byte, error) {
	s := field
	h, n := digits(s, 1, 2)
	if n > 0 && n < len(s) && s[n] == ':' {
		i := n + 1
		m, n := digits(s[i:], 1, 2)
		if n == 0 || i+n >= len(s) || s[i+n] != ':' {
			return dst, errNotTime
		}
		i += n + 1
		sec, n := digits(s[i:], 1, 2)
		if n == 0 {
			return dst, errNotTime
		}
		i += n
		frac := 0
		if i < len(s) && s[i] == '.' {
			i++
			f, n := digits(s[i:], 1, 9)
			if n == 0 {
				return dst, errNotTime
			}
			for k := n; k < 9; k++ {
				f *= 10
			}
			frac, i = f, i+n
		}
		if i != len(s) {
			return dst, errNotTime
		}
		if h > 23 || m > 59 || sec > 59 {
			return dst, fmt.Errorf("time %02d:%02d:%02d out of range", h, m, sec)
		}
		ns := (int64(h)*3600+int64(m)*60+int64(sec))*1e9 + int64(frac)
		return binary.BigEndian.AppendUint64(dst, uint64(ns)), nil
	}
	ns, ok := parseInt64(field)
	if !ok {
		return dst, errNotTime
	}
	if ns < 0 || ns >= nanosPerDay {
		return dst, &RangeError{Min: "0", Max: "86399999999999"}
	}
	return binary.BigEndian.AppendUint64(dst, uint64(ns)), nil
}
