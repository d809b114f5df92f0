package schema

import (
	"encoding/binary"
	"errors"
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
	if c, ok := b.layout.parse(field); ok {
		if ms, err := b.civilMillis(c); err == nil {
			return binary.BigEndian.AppendUint64(dst, uint64(ms)), nil
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

type timestampFormatError struct{ format string }

func (e *timestampFormatError) Error() string {
	return fmt.Sprintf("matches neither DATETIMEFORMAT %q, nor a CQL timestamp (yyyy-mm-dd[( |T)hh:mm[:ss[.fff]]][[ ]Z|±hh[:mm]| UTC]), nor integer milliseconds", e.format)
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

// parseCQLTimestamp reads the CQL literal forms: yyyy-mm-dd, optionally
// followed by a space or T and hh:mm[:ss[.f{1,9}]], optionally followed by a
// zone (see parseLiteralZone). It reports ok=false when the text does not
// have that shape.
func parseCQLTimestamp(s []byte) (c civil, ok bool) {
	y, n := digits(s, 4, 4)
	if n == 0 || len(s) < 5 || s[4] != '-' {
		return c, false
	}
	c.year = y
	i := 5
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
// months and days may have one digit and a leading + is allowed), and a
// signed integer counting days from 1970-01-01 (what cqlsh COPY TO writes
// for dates outside years 1–9999). The wire form is that count plus 2^31.
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
	if days < math.MinInt32 || days > math.MaxInt32 {
		return dst, &RangeError{Min: "-2147483648", Max: "2147483647"}
	}
	return binary.BigEndian.AppendUint32(dst, uint32(days+1<<31)), nil
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

// Duration units in nanoseconds.
const (
	nsMicro  = int64(1e3)
	nsMilli  = int64(1e6)
	nsSecond = int64(1e9)
	nsMinute = 60 * nsSecond
	nsHour   = 60 * nsMinute
)

var errDurationRange = errors.New("duration component out of range")

// convertDuration accepts Cassandra's three duration literal forms: the
// unit form (1y2mo3w4d5h6m7s8ms9us10ns, units in decreasing order, µs for
// us allowed), ISO 8601 (P1Y2M3DT4H5M6S and P2W) and the ISO 8601
// alternative (P0001-02-03T04:05:06); each may start with '-'. The wire
// form is months, days and nanoseconds as zig-zag vints.
func convertDuration(dst, field []byte) ([]byte, error) {
	s := field
	neg := false
	if len(s) > 0 && s[0] == '-' {
		neg, s = true, s[1:]
	}
	if len(s) == 0 {
		return dst, errNotDuration
	}
	var months, days, nanos int64
	var err error
	if s[0] == 'P' || s[0] == 'p' {
		months, days, nanos, err = parseISODuration(s[1:])
	} else {
		months, days, nanos, err = parseUnitDuration(s)
	}
	if err != nil {
		return dst, err
	}
	limit := int64(math.MaxInt32)
	if neg {
		limit++ // -2^31 months or days is representable
	}
	if months > limit || days > limit {
		return dst, errDurationRange
	}
	if neg {
		months, days, nanos = -months, -days, -nanos
	}
	dst = appendVint(dst, months)
	dst = appendVint(dst, days)
	return appendVint(dst, nanos), nil
}

// durationUnits lists the unit form's units from largest to smallest; a
// unit may not follow a smaller one nor repeat, as Cassandra requires.
var durationUnits = [...]struct {
	name        string
	months, day int64
	nanos       int64
}{
	{"y", 12, 0, 0},
	{"mo", 1, 0, 0},
	{"w", 0, 7, 0},
	{"d", 0, 1, 0},
	{"h", 0, 0, nsHour},
	{"m", 0, 0, nsMinute},
	{"s", 0, 0, nsSecond},
	{"ms", 0, 0, nsMilli},
	{"us", 0, 0, nsMicro},
	{"ns", 0, 0, 1},
}

func parseUnitDuration(s []byte) (months, days, nanos int64, err error) {
	next := 0
	for len(s) > 0 {
		v, n := digits64(s)
		if n == 0 {
			return 0, 0, 0, errNotDuration
		}
		if v < 0 {
			return 0, 0, 0, errDurationRange
		}
		s = s[n:]
		u := matchUnit(s)
		if u < 0 {
			return 0, 0, 0, errNotDuration
		}
		if u < next {
			return 0, 0, 0, fmt.Errorf("unit %s repeated or after a smaller unit", durationUnits[u].name)
		}
		next = u + 1
		if durationUnits[u].name == "us" && len(s) >= 3 && s[0] == 0xc2 {
			s = s[3:] // "µs" is three bytes
		} else {
			s = s[len(durationUnits[u].name):]
		}
		unit := durationUnits[u]
		var ok bool
		switch {
		case unit.months > 0:
			months, ok = mulAdd(months, v, unit.months)
		case unit.day > 0:
			days, ok = mulAdd(days, v, unit.day)
		default:
			nanos, ok = mulAdd(nanos, v, unit.nanos)
		}
		if !ok {
			return 0, 0, 0, errDurationRange
		}
	}
	return months, days, nanos, nil
}

// matchUnit finds the unit at the start of s, longest name first so that
// "ms" and "mo" are not read as "m".
func matchUnit(s []byte) int {
	switch {
	case len(s) >= 2 && equalFoldASCII(s[:2], "mo"):
		return 1
	case len(s) >= 2 && equalFoldASCII(s[:2], "ms"):
		return 7
	case len(s) >= 2 && equalFoldASCII(s[:2], "us"):
		return 8
	case len(s) >= 3 && s[0] == 0xc2 && s[1] == 0xb5 && (s[2] == 's' || s[2] == 'S'):
		return 8
	case len(s) >= 2 && equalFoldASCII(s[:2], "ns"):
		return 9
	case len(s) >= 1:
		switch s[0] {
		case 'y', 'Y':
			return 0
		case 'w', 'W':
			return 2
		case 'd', 'D':
			return 3
		case 'h', 'H':
			return 4
		case 'm', 'M':
			return 5
		case 's', 'S':
			return 6
		}
	}
	return -1
}

func parseISODuration(s []byte) (months, days, nanos int64, err error) {
	// The alternative form: yyyy-mm-ddThh:mm:ss.
	if len(s) == 19 && s[4] == '-' && s[7] == '-' && (s[10] == 'T' || s[10] == 't') && s[13] == ':' && s[16] == ':' {
		y, n1 := digits(s[0:], 4, 4)
		mo, n2 := digits(s[5:], 2, 2)
		d, n3 := digits(s[8:], 2, 2)
		h, n4 := digits(s[11:], 2, 2)
		mi, n5 := digits(s[14:], 2, 2)
		sec, n6 := digits(s[17:], 2, 2)
		if n1 == 0 || n2 == 0 || n3 == 0 || n4 == 0 || n5 == 0 || n6 == 0 {
			return 0, 0, 0, errNotDuration
		}
		return int64(y)*12 + int64(mo), int64(d), int64(h)*nsHour + int64(mi)*nsMinute + int64(sec)*nsSecond, nil
	}
	if len(s) == 0 {
		return 0, 0, 0, errNotDuration
	}
	// P2W: weeks stand alone in ISO 8601.
	if s[len(s)-1] == 'W' || s[len(s)-1] == 'w' {
		w, n := digits64(s)
		if n == 0 || n != len(s)-1 {
			return 0, 0, 0, errNotDuration
		}
		d, ok := mulAdd(0, w, 7)
		if !ok || w < 0 {
			return 0, 0, 0, errDurationRange
		}
		return 0, d, 0, nil
	}
	inTime := false
	next := 0 // order: Y M D T H M S
	any := false
	for len(s) > 0 {
		if s[0] == 'T' || s[0] == 't' {
			if inTime {
				return 0, 0, 0, errNotDuration
			}
			inTime, s = true, s[1:]
			if len(s) == 0 {
				return 0, 0, 0, errNotDuration
			}
			continue
		}
		v, n := digits64(s)
		if n == 0 || n >= len(s) {
			return 0, 0, 0, errNotDuration
		}
		if v < 0 {
			return 0, 0, 0, errDurationRange
		}
		unit := s[n] | 0x20
		s = s[n+1:]
		var pos int
		var ok bool
		switch {
		case !inTime && unit == 'y':
			pos = 0
			months, ok = mulAdd(months, v, 12)
		case !inTime && unit == 'm':
			pos = 1
			months, ok = mulAdd(months, v, 1)
		case !inTime && unit == 'd':
			pos = 2
			days, ok = mulAdd(days, v, 1)
		case inTime && unit == 'h':
			pos = 3
			nanos, ok = mulAdd(nanos, v, nsHour)
		case inTime && unit == 'm':
			pos = 4
			nanos, ok = mulAdd(nanos, v, nsMinute)
		case inTime && unit == 's':
			pos = 5
			nanos, ok = mulAdd(nanos, v, nsSecond)
		default:
			return 0, 0, 0, errNotDuration
		}
		if pos < next {
			return 0, 0, 0, errNotDuration
		}
		if !ok {
			return 0, 0, 0, errDurationRange
		}
		next, any = pos+1, true
	}
	if !any {
		return 0, 0, 0, errNotDuration
	}
	return months, days, nanos, nil
}

// digits64 reads a run of decimal digits; v is -1 if it overflows int64.
func digits64(s []byte) (v int64, n int) {
	for n < len(s) && isDigit(s[n]) {
		if d := int64(s[n] - '0'); v >= 0 {
			if v > (math.MaxInt64-d)/10 {
				v = -1
			} else {
				v = v*10 + d
			}
		}
		n++
	}
	return v, n
}

// mulAdd returns acc + v*unit, reporting false on int64 overflow.
func mulAdd(acc, v, unit int64) (int64, bool) {
	if v != 0 && unit > math.MaxInt64/v {
		return 0, false
	}
	p := v * unit
	if acc > math.MaxInt64-p {
		return 0, false
	}
	return acc + p, true
}

// appendVint writes Cassandra's signed vint: zig-zag, then the unsigned
// vint whose first byte's leading one-bits count the extra bytes.
func appendVint(dst []byte, v int64) []byte {
	return appendUvint(dst, uint64(v<<1)^uint64(v>>63))
}

func appendUvint(dst []byte, u uint64) []byte {
	if u < 0x80 {
		return append(dst, byte(u))
	}
	// Bits needed, then extra bytes: each extra byte adds 8 bits and costs
	// one marker bit in the first byte.
	bitsNeeded := 64
	for bitsNeeded > 0 && u>>(bitsNeeded-1)&1 == 0 {
		bitsNeeded--
	}
	extra := (bitsNeeded - 1) / 7
	if extra > 8 {
		extra = 8
	}
	var buf [9]byte
	for i := extra; i > 0; i-- {
		buf[i] = byte(u)
		u >>= 8
	}
	if extra == 8 {
		buf[0] = 0xff
	} else {
		buf[0] = byte(u) | byte(0xff<<(8-extra))
	}
	return append(dst, buf[:extra+1]...)
}
