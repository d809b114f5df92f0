package schema

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/big"
	"strconv"
)

var intRanges = map[int]*RangeError{
	8:  {Min: "-128", Max: "127"},
	16: {Min: "-32768", Max: "32767"},
	32: {Min: "-2147483648", Max: "2147483647"},
	64: {Min: "-9223372036854775808", Max: "9223372036854775807"},
}

// intConverter serializes tinyint (8), smallint (16), int (32) and bigint
// or counter (64) as big-endian two's complement of that width.
func (b *builder) intConverter(bits int) scalarFunc {
	rng := intRanges[bits]
	lo, hi := int64(-1)<<(bits-1), int64(1)<<(bits-1)-1
	return func(dst, field []byte) ([]byte, error) {
		v, err := b.parseInt(field)
		if err == errOverflow || err == nil && (v < lo || v > hi) {
			return dst, rng
		}
		if err != nil {
			return dst, err
		}
		switch bits {
		case 8:
			return append(dst, byte(v)), nil
		case 16:
			return binary.BigEndian.AppendUint16(dst, uint16(v)), nil
		case 32:
			return binary.BigEndian.AppendUint32(dst, uint32(v)), nil
		}
		return binary.BigEndian.AppendUint64(dst, uint64(v)), nil
	}
}

// parseInt parses a decimal integer as Python's int() does (which is what
// cqlsh calls): blanks around it and a sign are allowed, THOUSANDSSEP is
// dropped, but only between digits, so that "1,,2" and ",12" stay errors.
func (b *builder) parseInt(field []byte) (int64, error) {
	s := trimBlanks(field)
	if len(s) == 0 {
		return 0, errEmpty
	}
	neg := false
	if s[0] == '+' || s[0] == '-' {
		neg = s[0] == '-'
		s = s[1:]
	}
	if u, ok := plainDigits(s); ok {
		if neg {
			return -int64(u), nil
		}
		return int64(u), nil
	}
	sep := b.f.ThousandsSep
	var u uint64
	over := false
	nd := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= '0' && c <= '9' {
			if u > (math.MaxUint64-9)/10 {
				over = true
			}
			u = u*10 + uint64(c-'0')
			nd++
			i++
			continue
		}
		if sep != "" && nd > 0 && bytes.HasPrefix(s[i:], []byte(sep)) && i+len(sep) < len(s) && isDigit(s[i+len(sep)]) {
			i += len(sep)
			continue
		}
		if c == '_' && i > 0 && isDigit(s[i-1]) && i+1 < len(s) && isDigit(s[i+1]) {
			i++ // Python's digit grouping, which cqlsh's int() reads
			continue
		}
		return 0, b.notIntReason(field)
	}
	if nd == 0 {
		return 0, b.notIntReason(field)
	}
	if over || (!neg && u > math.MaxInt64) || (neg && u > 1<<63) {
		return 0, errOverflow
	}
	if neg {
		return -int64(u), nil
	}
	return int64(u), nil
}

// plainDigits is the value of s if it is 1 to 18 ASCII digits, which no
// int64 overflows: the common case, without the general loop's checks
// for overflow, separators and underscores.
func plainDigits(s []byte) (uint64, bool) {
	if len(s) == 0 || len(s) > 18 {
		return 0, false
	}
	var u uint64
	for _, c := range s {
		d := c - '0'
		if d > 9 {
			return 0, false
		}
		u = u*10 + uint64(d)
	}
	return u, true
}

// notIntReason tells a fractional number ("not an integer") from garbage
// ("not a number"); it runs only on the error path.
func (b *builder) notIntReason(field []byte) error {
	var arr [64]byte
	if norm, err := b.normalize(arr[:0], field); err == nil {
		if _, err := strconv.ParseFloat(bstr(norm), 64); err == nil && !bytes.ContainsAny(norm, "nNiI") {
			return errNotInteger
		}
	}
	return errNotNumber
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func trimBlanks(b []byte) []byte {
	for len(b) > 0 && isBlank(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isBlank(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// normalize appends field to buf in Go's number syntax: blanks trimmed,
// THOUSANDSSEP dropped between digits and DECIMALSEP turned into '.'. A '.'
// that is not the decimal separator, hex notation (x, p) and underscores
// are rejected, since Python's float() would not read them the way Go does.
func (b *builder) normalize(buf, field []byte) ([]byte, error) {
	s := trimBlanks(field)
	if len(s) == 0 {
		return buf, errEmpty
	}
	dec, sep := b.f.DecimalSep, b.f.ThousandsSep
	if dec == "." && sep == "" && bytes.IndexByte(s, '_') < 0 {
		// cqlsh's defaults: the text is already in Go's syntax, so it only
		// needs checking, not copying.
		for _, c := range s {
			if c == 'x' || c == 'X' || c == 'p' || c == 'P' {
				return buf, errNotNumber
			}
		}
		return s, nil
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case dec != "" && bytes.HasPrefix(s[i:], []byte(dec)):
			buf = append(buf, '.')
			i += len(dec)
			continue
		case sep != "" && bytes.HasPrefix(s[i:], []byte(sep)) && i > 0 && isDigit(s[i-1]) && i+len(sep) < len(s) && isDigit(s[i+len(sep)]):
			i += len(sep)
			continue
		case c == '_' && i > 0 && isDigit(s[i-1]) && i+1 < len(s) && isDigit(s[i+1]):
			i++ // Python's digit grouping, which cqlsh's float() reads
			continue
		case c == '.' || c == 'x' || c == 'X' || c == '_' || c == 'p' || c == 'P':
			return buf, errNotNumber
		}
		buf = append(buf, c)
		i++
	}
	return buf, nil
}

var (
	floatRange  = &RangeError{Min: "-3.4028235e+38", Max: "3.4028235e+38"}
	doubleRange = &RangeError{Min: "-1.7976931348623157e+308", Max: "1.7976931348623157e+308"}
)

func (b *builder) parseFloat(field []byte, bits int) (float64, error) {
	if bits == 64 && b.f.DecimalSep == "." {
		if v, ok := plainDecimal(trimBlanks(field)); ok {
			return v, nil
		}
	}
	var arr [64]byte
	norm, err := b.normalize(arr[:0], field)
	if err != nil {
		return 0, err
	}
	if len(norm) == 4 && (norm[0] == '+' || norm[0] == '-') && equalFoldASCII(norm[1:], "nan") {
		norm = norm[1:] // Python's float() takes a signed NaN, Go's does not
	}
	v, err := strconv.ParseFloat(bstr(norm), bits)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange && !math.IsInf(v, 0) {
			// Underflow: Go reports it, Python and Java quietly give the
			// nearest representable value (zero or a subnormal), as does
			// the server for CQL literals.
			return v, nil
		}
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			if bits == 32 {
				return 0, floatRange
			}
			return 0, doubleRange
		}
		return 0, errNotNumber
	}
	return v, nil
}

// exactPow10 are the powers of ten plainDecimal divides by: at most
// 10^19, as it reads at most 19 digits; all are exact in a float64.
var exactPow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// plainDecimal is the float64 value of s if it is a sign, digits and at
// most one '.', whose digits read as an integer are at most 2^53: the
// common case. That integer is then exact in a float64, as is the power
// of ten it is divided by (at most 10^19: no more than 19 digits are
// read), and IEEE division rounds correctly, so the quotient is the
// correctly rounded value of s (Clinger's fast path, which
// strconv.ParseFloat takes too, after a general parse of the text).
func plainDecimal(s []byte) (float64, bool) {
	neg := false
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	var m uint64
	digits, frac := 0, -1 // frac: digits after the '.', -1 before it
	for _, c := range s {
		if d := c - '0'; d <= 9 {
			if digits == 19 {
				return 0, false // m could overflow
			}
			m = m*10 + uint64(d)
			digits++
			if frac >= 0 {
				frac++
			}
			continue
		}
		if c != '.' || frac >= 0 {
			return 0, false
		}
		frac = 0
	}
	if digits == 0 || m > 1<<53 {
		return 0, false
	}
	v := float64(m)
	if frac > 0 {
		v /= exactPow10[frac]
	}
	if neg {
		v = -v
	}
	return v, true
}

// The canonical quiet NaNs of Java (Float.NaN, Double.NaN) and Python;
// Go's math.NaN() carries a payload bit, which would store different bytes
// than cqlsh for the same text.
const (
	canonicalNaN32 = 0x7fc00000
	canonicalNaN64 = 0x7ff8000000000000
)

func (b *builder) convertFloat(dst, field []byte) ([]byte, error) {
	v, err := b.parseFloat(field, 32)
	if err != nil {
		return dst, err
	}
	if v != v {
		return binary.BigEndian.AppendUint32(dst, canonicalNaN32), nil
	}
	return binary.BigEndian.AppendUint32(dst, math.Float32bits(float32(v))), nil
}

func (b *builder) convertDouble(dst, field []byte) ([]byte, error) {
	v, err := b.parseFloat(field, 64)
	if err != nil {
		return dst, err
	}
	if v != v {
		return binary.BigEndian.AppendUint64(dst, canonicalNaN64), nil
	}
	return binary.BigEndian.AppendUint64(dst, math.Float64bits(v)), nil
}

// convertVarint serializes an arbitrary-precision integer as the shortest
// big-endian two's complement.
func (b *builder) convertVarint(dst, field []byte) ([]byte, error) {
	v, err := b.parseInt(field)
	if err == nil {
		return appendVarint64(dst, v), nil
	}
	if err != errOverflow {
		return dst, err
	}
	var arr [64]byte
	norm, err := b.normalize(arr[:0], field)
	if err != nil {
		return dst, err
	}
	if digitsOnly := bytes.TrimLeft(norm, "+-"); len(digitsOnly) > maxDigits {
		return dst, errTooManyDigits
	}
	n, ok := new(big.Int).SetString(string(norm), 10)
	if !ok {
		return dst, errNotNumber
	}
	return appendBigVarint(dst, n), nil
}

func appendVarint64(dst []byte, v int64) []byte {
	n := 8
	for n > 1 {
		top := byte(v >> ((n - 1) * 8))
		next := byte(v >> ((n - 2) * 8))
		if top == 0 && next&0x80 == 0 || top == 0xff && next&0x80 != 0 {
			n--
			continue
		}
		break
	}
	for i := n - 1; i >= 0; i-- {
		dst = append(dst, byte(v>>(i*8)))
	}
	return dst
}

func appendBigVarint(dst []byte, n *big.Int) []byte {
	if n.IsInt64() {
		return appendVarint64(dst, n.Int64())
	}
	if n.Sign() > 0 {
		raw := n.Bytes()
		if raw[0]&0x80 != 0 {
			dst = append(dst, 0)
		}
		return append(dst, raw...)
	}
	// Two's complement of a negative n over k bytes is 2^(8k) + n.
	k := (n.BitLen() + 8) / 8
	mod := new(big.Int).Lsh(big.NewInt(1), uint(8*k))
	raw := mod.Add(mod, n).FillBytes(make([]byte, k))
	for len(raw) > 1 && raw[0] == 0xff && raw[1]&0x80 != 0 {
		raw = raw[1:]
	}
	return append(dst, raw...)
}

// maxDigits bounds varint and decimal digits as Python (3.11 and later)
// bounds int(str), so cqlsh rejects longer numbers too; it keeps the
// quadratic decimal-to-binary conversion of a hostile field cheap.
const maxDigits = 4300

// convertDecimal serializes a decimal as its scale (int32) and unscaled
// value (varint), keeping trailing zeros as Python's Decimal does: "1.50"
// is 150 with scale 2.
func (b *builder) convertDecimal(dst, field []byte) ([]byte, error) {
	var arr [64]byte
	norm, err := b.normalize(arr[:0], field)
	if err != nil {
		return dst, err
	}
	s := norm
	neg := false
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	var digitsArr [64]byte
	digs := digitsArr[:0]
	intDigits, fracDigits := 0, 0
	i := 0
	for ; i < len(s) && isDigit(s[i]); i++ {
		digs = append(digs, s[i])
		intDigits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for ; i < len(s) && isDigit(s[i]); i++ {
			digs = append(digs, s[i])
			fracDigits++
		}
	}
	if intDigits+fracDigits == 0 {
		if isNaNOrInf(s) {
			return dst, errDecimalNaN
		}
		return dst, errNotNumber
	}
	exp := int64(0)
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		start := i
		for ; i < len(s) && isDigit(s[i]); i++ {
			if exp > math.MaxInt32 {
				return dst, errScale
			}
			exp = exp*10 + int64(s[i]-'0')
		}
		if i == start {
			return dst, errNotNumber
		}
		if eneg {
			exp = -exp
		}
	}
	if i != len(s) {
		return dst, errNotNumber
	}
	scale := int64(fracDigits) - exp
	if scale < math.MinInt32 || scale > math.MaxInt32 {
		return dst, errScale
	}
	// Leading zeros do not change the value; dropping them keeps more
	// values on the int64 path.
	for len(digs) > 1 && digs[0] == '0' {
		digs = digs[1:]
	}
	if len(digs) > maxDigits {
		return dst, errTooManyDigits
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(int32(scale)))
	if len(digs) <= 18 {
		var u int64
		for _, c := range digs {
			u = u*10 + int64(c-'0')
		}
		if neg {
			u = -u
		}
		return appendVarint64(dst, u), nil
	}
	n, _ := new(big.Int).SetString(string(digs), 10)
	if neg {
		n.Neg(n)
	}
	return appendBigVarint(dst, n), nil
}

func isNaNOrInf(s []byte) bool {
	return equalFoldASCII(s, "nan") || equalFoldASCII(s, "inf") || equalFoldASCII(s, "infinity") || equalFoldASCII(s, "snan")
}
