package cql

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// dateEpoch is the serialized date of 1970-01-01: dates are unsigned days
// with the epoch at the centre of the range.
const dateEpoch = 1 << 31

// timestampLayouts are the formats Cassandra's TimestampSerializer accepts,
// in Go notation; every one may carry a zone (Z, +hhmm, +hh:mm, +hh) and a
// fractional second, which parseTimestamp strips first.
var timestampLayouts = [...]string{
	"2006-01-02 15:04:05",
	"2006-01-02T15:04:05",
	"2006-01-02 15:04",
	"2006-01-02T15:04",
	"2006-01-02",
}

// parseTimestamp parses a timestamp literal into milliseconds since the epoch:
// 'now', a date-time in one of Cassandra's formats (zone-less times are UTC;
// the fraction is read as a decimal fraction of a second) or an integer
// number of milliseconds.
func parseTimestamp(s string, now func() time.Time) (int64, error) {
	if strings.EqualFold(s, "now") {
		return now().UnixMilli(), nil
	}
	if isInteger(s) {
		ms, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("milliseconds out of range")
		}
		return ms, nil
	}
	body, loc, err := splitZone(s)
	if err != nil {
		return 0, err
	}
	body, frac, err := splitFraction(body)
	if err != nil {
		return 0, err
	}
	for _, layout := range timestampLayouts {
		if tm, err := time.ParseInLocation(layout, body, loc); err == nil {
			return tm.UnixMilli() + frac/1_000_000, nil
		}
	}
	return 0, fmt.Errorf("unable to coerce '%s' to a formatted date (long)", s)
}

func isInteger(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// splitZone removes a trailing zone designator: Z, or ±hh, ±hhmm, ±hh:mm
// after the time part.
func splitZone(s string) (string, *time.Location, error) {
	if strings.HasSuffix(s, "Z") || strings.HasSuffix(s, "z") {
		return s[:len(s)-1], time.UTC, nil
	}
	for _, name := range [...]string{" UTC", " GMT"} {
		if len(s) > len(name) && strings.EqualFold(s[len(s)-len(name):], name) {
			return s[:len(s)-len(name)], time.UTC, nil
		}
	}
	// A zone sign can only follow the date's own "yyyy-mm-dd" separators.
	i := strings.LastIndexAny(s, "+-")
	if i < 10 {
		return strings.TrimSpace(s), time.UTC, nil
	}
	z := strings.ReplaceAll(s[i+1:], ":", "")
	if len(z) != 2 && len(z) != 4 || !isInteger(z) {
		return "", nil, fmt.Errorf("invalid time zone %q", s[i:])
	}
	h, _ := strconv.Atoi(z[:2])
	m := 0
	if len(z) == 4 {
		m, _ = strconv.Atoi(z[2:])
	}
	off := h*3600 + m*60
	if s[i] == '-' {
		off = -off
	}
	return strings.TrimSpace(s[:i]), time.FixedZone("", off), nil
}

// splitFraction removes ".fffffffff" after the seconds and returns it as nanoseconds.
func splitFraction(s string) (string, int64, error) {
	i := strings.LastIndexByte(s, '.')
	if i < 0 || strings.IndexByte(s[i:], ':') >= 0 {
		return s, 0, nil
	}
	f := s[i+1:]
	if f == "" || len(f) > 9 || !isInteger(f) || f[0] == '-' {
		return "", 0, fmt.Errorf("invalid fractional seconds %q", s[i:])
	}
	n, _ := strconv.ParseInt(f+strings.Repeat("0", 9-len(f)), 10, 64)
	return s[:i], n, nil
}

// parseDate parses a date literal into its serialized form: 'yyyy-mm-dd' or
// an integer which, as in Cassandra, is the raw unsigned day number
// (2^31 is the epoch).
func parseDate(s string) (uint32, error) {
	if isInteger(s) {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v < 0 || v > 1<<32-1 {
			return 0, fmt.Errorf("unable to make unsigned int (for date) from: '%s' (out of range [0, %d])", s, uint32(1<<32-1))
		}
		return uint32(v), nil
	}
	sign := int64(1)
	body := s
	if strings.HasPrefix(body, "-") {
		sign, body = -1, body[1:]
	} else {
		body = strings.TrimPrefix(body, "+")
	}
	parts := strings.Split(body, "-")
	if len(parts) != 3 || len(parts[1]) != 2 || len(parts[2]) != 2 || len(parts[0]) < 4 || !isInteger(parts[0]) {
		return 0, errDate(s)
	}
	y, _ := strconv.ParseInt(parts[0], 10, 64)
	m, err1 := strconv.Atoi(parts[1])
	d, err2 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil || m < 1 || m > 12 || d < 1 || d > 31 || y > 1<<24 {
		return 0, errDate(s)
	}
	tm := time.Date(int(sign*y), time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if tm.Day() != d { // e.g. February 30th, which time.Date normalises
		return 0, errDate(s)
	}
	days := tm.Unix()/86400 + dateEpoch // exact: tm is midnight UTC
	if days < 0 || days > 1<<32-1 {
		return 0, fmt.Errorf("input date %s is out of the supported range", s)
	}
	return uint32(days), nil
}

func errDate(s string) error {
	return fmt.Errorf("unable to coerce '%s' to a formatted date (long)", s)
}

// parseTime parses 'hh:mm:ss[.fffffffff]' or an integer number of nanoseconds
// since midnight.
func parseTime(s string) (int64, error) {
	if isInteger(s) {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v < 0 || v >= nanosPerDay {
			return 0, fmt.Errorf("unable to make long (for time) from: '%s' (out of range [0, %d))", s, int64(nanosPerDay))
		}
		return v, nil
	}
	body, frac, err := splitFraction(strings.TrimSpace(s))
	if err != nil {
		return 0, errTime(s)
	}
	parts := strings.Split(body, ":")
	if len(parts) != 3 {
		return 0, errTime(s)
	}
	var hms [3]int64
	limits := [3]int64{24, 60, 60}
	for i, p := range parts {
		if len(p) == 0 || len(p) > 2 || !isInteger(p) || p[0] == '-' {
			return 0, errTime(s)
		}
		hms[i], _ = strconv.ParseInt(p, 10, 64)
		if hms[i] >= limits[i] {
			return 0, fmt.Errorf("%w: %s out of bounds", errTime(s), [...]string{"hour", "minute", "second"}[i])
		}
	}
	return (hms[0]*3600+hms[1]*60+hms[2])*1_000_000_000 + frac, nil
}

func errTime(s string) error {
	return fmt.Errorf("unable to coerce '%s' to a formatted time (long); the format is hh:mm:ss[.fffffffff]", s)
}

// parseDuration parses the three duration formats into months, days and
// nanoseconds: 1h30m-style units, ISO 8601 (P1DT2H, P2W) and the ISO
// alternative P0001-02-03T04:05:06.
func parseDuration(s string) (months, days, nanos int64, err error) {
	neg := strings.HasPrefix(s, "-")
	body := strings.TrimPrefix(s, "-")
	if n := matchDuration(body); n != len(body) || body == "" {
		return 0, 0, 0, fmt.Errorf("unable to convert '%s' to a duration", s)
	}
	overflow := false
	// add accumulates v (never negative: the sign is applied at the end)
	// times the unit's multiplier, noting overflow instead of wrapping.
	add := func(v int64, unit string) {
		dst, mult := &nanos, int64(1)
		switch strings.ToLower(unit) {
		case "y":
			dst, mult = &months, 12
		case "mo":
			dst = &months
		case "w":
			dst, mult = &days, 7
		case "d":
			dst = &days
		case "h":
			mult = 3600e9
		case "m":
			mult = 60e9
		case "s":
			mult = 1e9
		case "ms":
			mult = 1e6
		case "us", "µs":
			mult = 1e3
		}
		if v > (math.MaxInt64-*dst)/mult {
			overflow = true
			return
		}
		*dst += v * mult
	}
	num := func(t string) (int64, error) {
		v, err := strconv.ParseInt(t, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("invalid duration '%s': %w", s, err)
		}
		return v, nil
	}
	switch {
	case isDigit(body[0]):
		for body != "" {
			j := 0
			for j < len(body) && isDigit(body[j]) {
				j++
			}
			u := matchUnit(body[j:])
			v, err := num(body[:j])
			if err != nil {
				return 0, 0, 0, err
			}
			add(v, body[j:j+u])
			body = body[j+u:]
		}
	case matchISOAlt(body) == len(body):
		// P0001-02-03T04:05:06
		fields := [...]struct {
			from, to int
			unit     string
		}{{1, 5, "y"}, {6, 8, "mo"}, {9, 11, "d"}, {12, 14, "h"}, {15, 17, "m"}, {18, 20, "s"}}
		for _, f := range fields {
			v, _ := num(body[f.from:f.to])
			add(v, f.unit)
		}
	default:
		inTime := false
		j := 1
		for j < len(body) {
			if body[j] == 'T' || body[j] == 't' {
				inTime = true
				j++
				continue
			}
			k := j
			for k < len(body) && isDigit(body[k]) {
				k++
			}
			v, err := num(body[j:k])
			if err != nil {
				return 0, 0, 0, err
			}
			unit := strings.ToLower(body[k : k+1])
			if unit == "m" && !inTime {
				unit = "mo"
			}
			add(v, unit)
			j = k + 1
		}
	}
	if overflow {
		return 0, 0, 0, fmt.Errorf("invalid duration '%s': out of range", s)
	}
	if neg {
		months, days, nanos = -months, -days, -nanos
	}
	if months != int64(int32(months)) || days != int64(int32(days)) {
		return 0, 0, 0, fmt.Errorf("invalid duration '%s': months and days must fit in 32 bits", s)
	}
	return months, days, nanos, nil
}

// formatDuration renders a duration in Cassandra's 1y2mo3d4h5m6s7ms8us9ns form.
func formatDuration(months, days, nanos int64) string {
	var b strings.Builder
	if months < 0 || days < 0 || nanos < 0 {
		b.WriteByte('-')
		months, days, nanos = -months, -days, -nanos
	}
	unit := func(v int64, u string) {
		if v != 0 {
			b.WriteString(strconv.FormatInt(v, 10) + u)
		}
	}
	unit(months/12, "y")
	unit(months%12, "mo")
	unit(days, "d")
	for _, u := range [...]struct {
		n    int64
		name string
	}{{3600e9, "h"}, {60e9, "m"}, {1e9, "s"}, {1e6, "ms"}, {1e3, "us"}, {1, "ns"}} {
		unit(nanos/u.n, u.name)
		nanos %= u.n
	}
	if b.Len() == 0 || b.String() == "-" {
		return "0s"
	}
	return b.String()
}
