package schema

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// cqlshFormatter renders a serialized value the way cqlsh COPY TO writes it
// (cqlshlib/formatting.py), so that fuzz tests can check that what COPY TO
// writes loads back to the same bytes. Where cqlsh's own output is lossy
// or broken it follows the intent instead, and says so:
//   - floats use the shortest repr that round-trips (cqlsh rounds to
//     FLOATPRECISION/DOUBLEPRECISION digits);
//   - durations use Cassandra's unit form (cqlsh under Python 3 prints
//     quotients such as "1.0y");
//   - text is escaped as cqlsh does (backslashes doubled, control
//     characters as Python repr escapes) only with escapes set, the case
//     Formats.CqlshEscapes reads back.
type cqlshFormatter struct{ escapes bool }

// escapeText doubles backslashes and writes control characters as
// Python's repr does.
func escapeText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r >= 0x7f && r <= 0xa0:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// format renders b; nested is set inside collections, tuples and UDTs,
// where cqlsh quotes strings, timestamps and inet addresses.
func (cf cqlshFormatter) format(t *Type, b []byte, nested bool) (string, error) {
	quote := func(s string) string {
		if !nested {
			return s
		}
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	switch t.Kind {
	case KindAscii, KindText:
		if cf.escapes {
			return quote(escapeText(string(b))), nil
		}
		return quote(string(b)), nil
	case KindTinyint:
		return strconv.Itoa(int(int8(b[0]))), nil
	case KindSmallint:
		return strconv.Itoa(int(int16(binary.BigEndian.Uint16(b)))), nil
	case KindInt:
		return strconv.Itoa(int(int32(binary.BigEndian.Uint32(b)))), nil
	case KindBigint, KindCounter:
		return strconv.FormatInt(int64(binary.BigEndian.Uint64(b)), 10), nil
	case KindVarint:
		return varintValue(b).String(), nil
	case KindFloat:
		return formatFloat(float64(math.Float32frombits(binary.BigEndian.Uint32(b))), 32), nil
	case KindDouble:
		return formatFloat(math.Float64frombits(binary.BigEndian.Uint64(b)), 64), nil
	case KindDecimal:
		return pythonDecimal(varintValue(b[4:]), int32(binary.BigEndian.Uint32(b))), nil
	case KindBoolean:
		if b[0] != 0 {
			return "True", nil
		}
		return "False", nil
	case KindBlob:
		return "0x" + hex.EncodeToString(b), nil
	case KindUUID, KindTimeuuid:
		h := hex.EncodeToString(b)
		return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:], nil
	case KindInet:
		a, ok := netip.AddrFromSlice(b)
		if !ok {
			return "", fmt.Errorf("inet of %d bytes", len(b))
		}
		return quote(a.String()), nil
	case KindTimestamp:
		ms := int64(binary.BigEndian.Uint64(b))
		tm := time.UnixMilli(ms).UTC()
		if tm.Year() < 1 || tm.Year() > 9999 {
			return strconv.FormatInt(ms, 10), nil // as cqlsh does beyond datetime's range
		}
		return quote(tm.Format("2006-01-02 15:04:05.000000-0700")), nil
	case KindDate:
		days := int64(binary.BigEndian.Uint32(b)) - 1<<31
		y, m, d := civilFromDays(days)
		if y < 1 || y > 9999 {
			// cqlsh writes the signed count of days from 1970-01-01,
			// which Cassandra (and cqlload) would read as another day:
			// the day number Cassandra reads is the wire value.
			// Eight digits that read as yyyymmdd take a leading zero,
			// the form the converter reads as a day number.
			n := strconv.FormatUint(uint64(binary.BigEndian.Uint32(b)), 10)
			if _, _, _, ok := yyyymmdd([]byte(n)); ok {
				n = "0" + n
			}
			return n, nil
		}
		return fmt.Sprintf("%04d-%02d-%02d", y, m, d), nil
	case KindTime:
		ns := int64(binary.BigEndian.Uint64(b))
		return fmt.Sprintf("%02d:%02d:%02d.%09d", ns/nsHour, ns/nsMinute%60, ns/nsSecond%60, ns%nsSecond), nil
	case KindDuration:
		return formatDuration(b)
	case KindList, KindSet, KindVector:
		open, end := "[", "]"
		if t.Kind == KindSet {
			open, end = "{", "}"
		}
		elems, err := splitElements(t, b)
		if err != nil {
			return "", err
		}
		parts := make([]string, len(elems))
		for i, e := range elems {
			if parts[i], err = cf.format(t.Elems[0], e, true); err != nil {
				return "", err
			}
		}
		return open + strings.Join(parts, ", ") + end, nil
	case KindMap:
		n := int(binary.BigEndian.Uint32(b))
		b = b[4:]
		parts := make([]string, n)
		for i := range n {
			var k, v []byte
			k, b = cut(b)
			v, b = cut(b)
			ks, err := cf.format(t.Elems[0], k, true)
			if err != nil {
				return "", err
			}
			vs, err := cf.format(t.Elems[1], v, true)
			if err != nil {
				return "", err
			}
			parts[i] = ks + ": " + vs
		}
		return "{" + strings.Join(parts, ", ") + "}", nil
	case KindTuple, KindUDT:
		types := t.Elems
		if t.Kind == KindUDT {
			types = nil
			for _, f := range t.Fields {
				types = append(types, f.Type)
			}
		}
		parts := make([]string, len(types))
		for i, et := range types {
			var v []byte
			null := int32(binary.BigEndian.Uint32(b)) < 0
			if null {
				b = b[4:]
			} else {
				v, b = cut(b)
			}
			s := "null"
			if t.Kind == KindUDT && null {
				s = "" // cqlsh writes its NULL marker, empty by default
			}
			if !null {
				var err error
				if s, err = cf.format(et, v, true); err != nil {
					return "", err
				}
			}
			if t.Kind == KindUDT {
				s = t.Fields[i].Name + ": " + s
			}
			parts[i] = s
		}
		if t.Kind == KindTuple {
			return "(" + strings.Join(parts, ", ") + ")", nil
		}
		return "{" + strings.Join(parts, ", ") + "}", nil
	}
	return "", fmt.Errorf("cannot format %s", t)
}

func cut(b []byte) (value, rest []byte) {
	n := int(binary.BigEndian.Uint32(b))
	return b[4 : 4+n], b[4+n:]
}

func splitElements(t *Type, b []byte) ([][]byte, error) {
	var elems [][]byte
	if t.Kind != KindVector {
		n := int(binary.BigEndian.Uint32(b))
		b = b[4:]
		for range n {
			var e []byte
			e, b = cut(b)
			elems = append(elems, e)
		}
		return elems, nil
	}
	size := fixedSize(t.Elems[0])
	for range t.Dim {
		if size > 0 {
			elems, b = append(elems, b[:size]), b[size:]
			continue
		}
		n, k := readUvint(b)
		elems, b = append(elems, b[k:k+int(n)]), b[k+int(n):]
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("%d bytes after the vector", len(b))
	}
	return elems, nil
}

func readUvint(b []byte) (uint64, int) {
	extra := 0
	for extra < 8 && b[0]&(0x80>>extra) != 0 {
		extra++
	}
	v := uint64(b[0]) & (0xff >> extra)
	if extra == 8 {
		v = 0
	}
	for i := 1; i <= extra; i++ {
		v = v<<8 | uint64(b[i])
	}
	return v, extra + 1
}

func readVint(b []byte) (int64, []byte) {
	u, n := readUvint(b)
	return int64(u>>1) ^ -int64(u&1), b[n:]
}

func formatDuration(b []byte) (string, error) {
	months, b := readVint(b)
	days, b := readVint(b)
	nanos, b := readVint(b)
	if len(b) != 0 {
		return "", fmt.Errorf("%d bytes after the duration", len(b))
	}
	var s strings.Builder
	if months < 0 || days < 0 || nanos < 0 {
		s.WriteByte('-')
	}
	abs := func(v int64) uint64 {
		if v < 0 {
			return uint64(-v)
		}
		return uint64(v)
	}
	unit := func(v uint64, name string) {
		if v != 0 {
			s.WriteString(strconv.FormatUint(v, 10) + name)
		}
	}
	m, d, ns := abs(months), abs(days), abs(nanos)
	unit(m/12, "y")
	unit(m%12, "mo")
	unit(d, "d")
	unit(ns/uint64(nsHour), "h")
	unit(ns%uint64(nsHour)/uint64(nsMinute), "m")
	unit(ns%uint64(nsMinute)/uint64(nsSecond), "s")
	unit(ns%uint64(nsSecond)/uint64(nsMilli), "ms")
	unit(ns%uint64(nsMilli)/uint64(nsMicro), "us")
	unit(ns%uint64(nsMicro), "ns")
	if m == 0 && d == 0 && ns == 0 {
		s.WriteString("0s")
	}
	return s.String(), nil
}

func varintValue(b []byte) *big.Int {
	v := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return v
}

func formatFloat(v float64, bits int) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(v, 'g', -1, bits)
}

// pythonDecimal is Python's str(Decimal), which cqlsh prints: plain
// notation unless the exponent is positive or the number is tiny.
func pythonDecimal(unscaled *big.Int, scale int32) string {
	sign := ""
	if unscaled.Sign() < 0 {
		sign = "-"
	}
	digits := new(big.Int).Abs(unscaled).String()
	exp := -int64(scale)
	left := exp + int64(len(digits))
	dot := int64(1)
	if exp <= 0 && left > -6 {
		dot = left
	}
	var intPart, frac string
	switch {
	case dot <= 0:
		intPart, frac = "0", "."+strings.Repeat("0", int(-dot))+digits
	case dot >= int64(len(digits)):
		intPart = digits + strings.Repeat("0", int(dot-int64(len(digits))))
	default:
		intPart, frac = digits[:dot], "."+digits[dot:]
	}
	e := ""
	if left != dot {
		e = fmt.Sprintf("E%+d", left-dot)
	}
	return sign + intPart + frac + e
}

// formatWithFormats renders a scalar as cqlsh COPY TO writes it with
// DECIMALSEP, THOUSANDSSEP, BOOLSTYLE and DATETIMEFORMAT set (the format
// here being europeanFormats'). cqlsh groups digits through a float, which
// loses precision beyond 2^53; this follows the intent and groups exactly.
func formatWithFormats(t *Type, b []byte, f Formats) (string, error) {
	plain, err := cqlshFormatter{}.format(t, b, false)
	if err != nil {
		return "", err
	}
	switch t.Kind {
	case KindTinyint, KindSmallint, KindInt, KindBigint, KindCounter, KindVarint:
		return groupDigits(plain, f.ThousandsSep), nil
	case KindFloat, KindDouble, KindDecimal:
		if t.Kind != KindDecimal {
			bits := 64
			if t.Kind == KindFloat {
				bits = 32
			}
			v, err := strconv.ParseFloat(plain, bits)
			if err == nil && !math.IsInf(v, 0) && !math.IsNaN(v) {
				plain = strconv.FormatFloat(v, 'f', -1, bits)
			}
		}
		if strings.ContainsAny(plain, "EeNI") {
			return strings.Replace(plain, ".", f.DecimalSep, 1), nil
		}
		ip, fp, hasFrac := strings.Cut(plain, ".")
		s := groupDigits(ip, f.ThousandsSep)
		if hasFrac {
			s += f.DecimalSep + fp
		}
		return s, nil
	case KindBoolean:
		if b[0] != 0 {
			return f.BoolStyle[0], nil
		}
		return f.BoolStyle[1], nil
	case KindTimestamp:
		ms := int64(binary.BigEndian.Uint64(b))
		tm := time.UnixMilli(ms).In(time.FixedZone("", 3600))
		if tm.Year() < 1 || tm.Year() > 9999 {
			return strconv.FormatInt(ms, 10), nil
		}
		// %a %d %b %Y %H:%M:%S,%f %z
		return tm.Format("Mon 02 Jan 2006 15:04:05,000000 -0700"), nil
	}
	return "", fmt.Errorf("no formats rendering for %s", t)
}

// groupDigits inserts sep every three digits of an integer's text.
func groupDigits(s, sep string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteString(sep)
		}
		b.WriteRune(c)
	}
	return sign + b.String()
}
