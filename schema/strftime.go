package schema

import (
	"errors"
	"fmt"
	"strings"
)

// A strftime layout is DATETIMEFORMAT compiled once: cqlsh hands the format
// to Python's datetime.strptime, so the directives below follow strptime's
// rules (numbers of one or two digits where strptime allows them, names
// compared case-insensitively, a blank in the format matching one or more
// blanks in the value).
type strftimeLayout []strftimeItem

// takesDot reports whether the layout can match text with a '.': only
// through a literal, since no verb's text has one.
func (l strftimeLayout) takesDot() bool {
	for _, it := range l {
		if it.verb == 0 && strings.Contains(it.lit, ".") {
			return true
		}
	}
	return false
}

type strftimeItem struct {
	verb byte   // 0 for a literal
	lit  string // the literal text, lower-cased
	// shortYear: %Y also takes years of one to three digits.
	shortYear bool
}

// compileStrftime compiles format. Its %Y takes four digits, as
// strptime's does, except in cqlsh's default format, where it also takes
// one to three: cqlsh COPY TO writes years before 1000 unpadded
// (999-12-31, 1-01-01) in that format. Under a format the user gave, a
// two-digit year where %Y stands is a mistake (02/01/24 under
// %d/%m/%Y), not the year 24.
func compileStrftime(format string) (strftimeLayout, error) {
	if format == "" {
		return nil, errors.New("empty format")
	}
	var l strftimeLayout
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			l = append(l, strftimeItem{lit: strings.ToLower(lit.String())})
			lit.Reset()
		}
	}
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c == ' ' || c == '\t' || c == '\n' {
			flush()
			for i+1 < len(format) && (format[i+1] == ' ' || format[i+1] == '\t' || format[i+1] == '\n') {
				i++
			}
			l = append(l, strftimeItem{verb: ' '})
			continue
		}
		if c != '%' {
			lit.WriteByte(c)
			continue
		}
		if i+1 >= len(format) {
			return nil, errors.New("format ends with a lone %")
		}
		i++
		switch v := format[i]; v {
		case '%':
			lit.WriteByte('%')
		case 'Y', 'y', 'm', 'd', 'H', 'I', 'M', 'S', 'f', 'z', 'Z', 'p', 'b', 'B', 'h', 'a', 'A', 'j':
			flush()
			l = append(l, strftimeItem{verb: v, shortYear: v == 'Y' && format == DefaultDateTimeFormat})
		default:
			return nil, fmt.Errorf("unsupported directive %%%c (supported: %%Y %%y %%m %%d %%H %%I %%M %%S %%f %%z %%Z %%p %%b %%B %%a %%A %%j %%%%)", v)
		}
	}
	flush()
	return l, nil
}

// civil is a broken-down timestamp.
type civil struct {
	year, month, day    int
	hour, minute, sec   int
	nanos               int
	offsetSec           int
	hasZone             bool
	yday                int // day of the year from %j, 0 when absent
	hour12, pm, hasAMPM bool
}

var monthNames = [...]string{"january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"}
var dayNames = [...]string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}

// parse matches s against the layout. It reports false when s does not
// match; it never allocates.
func (l strftimeLayout) parse(s []byte) (c civil, ok bool) {
	c.month, c.day = 1, 1
	c.year = 1900
	i := 0
	for _, it := range l {
		switch it.verb {
		case 0:
			if len(s)-i < len(it.lit) || !equalFoldASCII(s[i:i+len(it.lit)], it.lit) {
				return c, false
			}
			i += len(it.lit)
		case ' ':
			j := i
			for j < len(s) && isBlank(s[j]) {
				j++
			}
			if j == i {
				return c, false
			}
			i = j
		case 'Y':
			least := 4
			if it.shortYear {
				least = 1
			}
			v, n := digits(s[i:], least, 4)
			if n == 0 {
				return c, false
			}
			c.year, i = v, i+n
		case 'y':
			v, n := digits(s[i:], 2, 2)
			if n == 0 {
				return c, false
			}
			// Python's (POSIX's) pivot: 69–99 are 1900s, 00–68 are 2000s.
			if v < 69 {
				v += 2000
			} else {
				v += 1900
			}
			c.year, i = v, i+n
		case 'm', 'd', 'H', 'I', 'M', 'S':
			if it.verb == 'd' && i < len(s) && s[i] == ' ' {
				i++ // strptime's %d also takes " 5"
			}
			v, n := digits(s[i:], 1, 2)
			if n == 0 {
				return c, false
			}
			i += n
			switch it.verb {
			case 'm':
				c.month = v
			case 'd':
				c.day = v
			case 'H':
				c.hour = v
			case 'I':
				c.hour, c.hour12 = v, true
			case 'M':
				c.minute = v
			case 'S':
				c.sec = v
			}
		case 'j':
			v, n := digits(s[i:], 1, 3)
			if n == 0 || v == 0 {
				return c, false
			}
			c.yday, i = v, i+n
		case 'f':
			v, n := digits(s[i:], 1, 9)
			if n == 0 {
				return c, false
			}
			for k := n; k < 9; k++ {
				v *= 10
			}
			c.nanos, i = v, i+n
		case 'p':
			switch {
			case len(s)-i >= 2 && equalFoldASCII(s[i:i+2], "am"):
				c.pm = false
			case len(s)-i >= 2 && equalFoldASCII(s[i:i+2], "pm"):
				c.pm = true
			default:
				return c, false
			}
			c.hasAMPM, i = true, i+2
		case 'b', 'B', 'h':
			m, n := matchName(s[i:], monthNames[:])
			if n == 0 {
				return c, false
			}
			c.month, i = m+1, i+n
		case 'a', 'A':
			_, n := matchName(s[i:], dayNames[:])
			if n == 0 {
				return c, false
			}
			i += n
		case 'z':
			off, n, ok := parseZone(s[i:], true)
			if !ok {
				return c, false
			}
			c.offsetSec, c.hasZone, i = off, true, i+n
		case 'Z':
			switch {
			case len(s)-i >= 3 && (equalFoldASCII(s[i:i+3], "utc") || equalFoldASCII(s[i:i+3], "gmt")):
				i += 3
			case len(s)-i >= 1 && (s[i] == 'Z' || s[i] == 'z'):
				i++
			default:
				return c, false
			}
			c.hasZone = true
		}
	}
	if i != len(s) {
		return c, false
	}
	if c.hour12 {
		if c.hour < 1 || c.hour > 12 {
			return c, false
		}
		c.hour %= 12
		if c.pm {
			c.hour += 12
		}
	}
	if c.yday > 0 {
		if c.yday > 365+leap(c.year) {
			return c, false
		}
		days := daysFromCivil(c.year, 1, 1) + int64(c.yday-1)
		c.year, c.month, c.day = civilFromDays(days)
	}
	return c, true
}

// matchName matches an English month or day name, full or its three-letter
// abbreviation (strptime takes either for %b and %B alike).
func matchName(s []byte, names []string) (int, int) {
	for k, name := range names {
		if len(s) >= len(name) && equalFoldASCII(s[:len(name)], name) {
			return k, len(name)
		}
	}
	for k, name := range names {
		if len(s) >= 3 && equalFoldASCII(s[:3], name[:3]) {
			return k, 3
		}
	}
	return 0, 0
}

// digits reads between min and max decimal digits.
func digits(s []byte, min, max int) (v, n int) {
	for n < len(s) && n < max && s[n] >= '0' && s[n] <= '9' {
		v = v*10 + int(s[n]-'0')
		n++
	}
	if n < min {
		return 0, 0
	}
	return v, n
}

// parseZone reads a zone: Z, ±hh:mm or ±hhmm, and (in CQL literals, where
// python=false) also ±hh. It returns the offset east of UTC in seconds.
func parseZone(s []byte, python bool) (off, n int, ok bool) {
	if len(s) == 0 {
		return 0, 0, false
	}
	if s[0] == 'Z' || s[0] == 'z' {
		return 0, 1, true
	}
	if s[0] != '+' && s[0] != '-' {
		return 0, 0, false
	}
	h, hn := digits(s[1:], 2, 2)
	if hn == 0 || h > 23 {
		return 0, 0, false
	}
	n = 3
	m := 0
	switch {
	case len(s) > n && s[n] == ':':
		mv, mn := digits(s[n+1:], 2, 2)
		if mn == 0 {
			return 0, 0, false
		}
		m, n = mv, n+3
	case len(s) > n && s[n] >= '0' && s[n] <= '9':
		mv, mn := digits(s[n:], 2, 2)
		if mn == 0 {
			return 0, 0, false
		}
		m, n = mv, n+2
	case python:
		return 0, 0, false
	}
	if m > 59 {
		return 0, 0, false
	}
	off = h*3600 + m*60
	if s[0] == '-' {
		off = -off
	}
	return off, n, true
}

// isBlank reports a space, tab or line break. A table lookup: the literal
// parser asks it several times for every element it reads.
func isBlank(c byte) bool { return blanks[c] }

var blanks = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

// equalFoldASCII compares b with a lower-case ASCII string.
func equalFoldASCII(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

func leap(y int) int {
	if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		return 1
	}
	return 0
}

func daysIn(y, m int) int {
	switch m {
	case 2:
		return 28 + leap(y)
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil counts days from 1970-01-01 in the proleptic Gregorian
// calendar (Howard Hinnant's algorithm), valid for any int year.
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

// civilFromDays is the inverse of daysFromCivil.
func civilFromDays(z int64) (y, m, d int) {
	z += 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era = (z - 146096) / 146097
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	yy := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = int(doy - (153*mp+2)/5 + 1)
	m = int(mp + 3)
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		yy++
	}
	return int(yy), m, d
}
