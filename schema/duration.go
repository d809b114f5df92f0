package schema

import (
	"fmt"
	"math"
)

// Duration units in nanoseconds.
const (
	nsMicro  = int64(1e3)
	nsMilli  = int64(1e6)
	nsSecond = int64(1e9)
	nsMinute = 60 * nsSecond
	nsHour   = 60 * nsMinute
)

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
