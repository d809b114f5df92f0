package cql

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/big"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Format renders a serialized value of type t as a CQL literal for error
// messages and debugging: null as null, Cassandra's empty value as <empty>,
// and a value that does not validate as its raw bytes, 0x….
func Format(t *Type, b []byte) string {
	if b == nil {
		return "null"
	}
	if err := Validate(t, b); err != nil {
		return "0x" + hex.EncodeToString(b)
	}
	if (t.Kind == Varint || t.Kind == Decimal) && len(b) > maxDecimalFormat {
		// Decimal conversion is superlinear; a message does not need it.
		return "0x" + hex.EncodeToString(b)
	}
	var sb strings.Builder
	format(&sb, t, b)
	return sb.String()
}

// maxDecimalFormat is the largest varint or decimal, in bytes, that Format
// renders in decimal (about 2,400 digits).
const maxDecimalFormat = 1024

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// format writes a value known to be valid.
func format(sb *strings.Builder, t *Type, b []byte) {
	if b == nil {
		sb.WriteString("null")
		return
	}
	if len(b) == 0 && t.Kind != Text && t.Kind != Ascii && t.Kind != Blob && t.Kind != Tuple && t.Kind != UDT {
		sb.WriteString("<empty>")
		return
	}
	switch t.Kind {
	case Int, Bigint, Smallint, Tinyint, Counter:
		var v int64
		for i, c := range b {
			if i == 0 {
				v = int64(int8(c))
			} else {
				v = v<<8 | int64(c)
			}
		}
		sb.WriteString(strconv.FormatInt(v, 10))
	case Varint:
		sb.WriteString(varintValue(b).String())
	case Float:
		sb.WriteString(formatFloat(float64(math.Float32frombits(binary.BigEndian.Uint32(b))), 32))
	case Double:
		sb.WriteString(formatFloat(math.Float64frombits(binary.BigEndian.Uint64(b)), 64))
	case Decimal:
		sb.WriteString(formatDecimal(int32(binary.BigEndian.Uint32(b)), varintValue(b[4:])))
	case Boolean:
		sb.WriteString(strconv.FormatBool(b[0] != 0))
	case Text, Ascii:
		sb.WriteString(quote(string(b)))
	case Blob, Custom:
		sb.WriteString("0x" + hex.EncodeToString(b))
	case Uuid, Timeuuid:
		sb.WriteString(uuid.UUID(b).String())
	case Inet:
		a, _ := netip.AddrFromSlice(b)
		sb.WriteString(quote(a.String()))
	case Timestamp:
		ms := int64(binary.BigEndian.Uint64(b))
		sb.WriteString(quote(time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")))
	case Date:
		days := int64(binary.BigEndian.Uint32(b)) - dateEpoch
		sb.WriteString(quote(time.Unix(days*86400, 0).UTC().Format("2006-01-02")))
	case Time:
		ns := int64(binary.BigEndian.Uint64(b))
		sb.WriteString(quote(time.Unix(0, ns).UTC().Format("15:04:05.000000000")))
	case Duration:
		mo, d, ns, _ := decodeDuration(b)
		sb.WriteString(formatDuration(mo, d, ns))
	case List, Set, Map:
		open, close := "[", "]"
		if t.Kind != List {
			open, close = "{", "}"
		}
		sb.WriteString(open)
		n, rest, _ := readInt(b)
		for i := 0; i < int(n); i++ {
			if i > 0 {
				sb.WriteString(", ")
			}
			var v []byte
			v, rest, _ = readValue(rest)
			format(sb, t.Elems[0], v)
			if t.Kind == Map {
				sb.WriteString(": ")
				v, rest, _ = readValue(rest)
				format(sb, t.Elems[1], v)
			}
		}
		sb.WriteString(close)
	case Tuple, UDT:
		open, close := "(", ")"
		if t.Kind == UDT {
			open, close = "{", "}"
		}
		sb.WriteString(open)
		for i := 0; len(b) > 0; i++ {
			if i > 0 {
				sb.WriteString(", ")
			}
			var v []byte
			v, b, _ = readValue(b)
			ft := &Type{Kind: Blob}
			if t.Kind == Tuple {
				ft = t.Elems[i]
			} else if i < len(t.Fields) {
				sb.WriteString(QuoteIdent(t.Fields[i].Name) + ": ")
				ft = t.Fields[i].Type
			}
			format(sb, ft, v)
		}
		sb.WriteString(close)
	case Vector:
		sb.WriteString("[")
		elem := t.Elems[0]
		size := fixedSize(elem)
		for i := 0; i < t.Dim; i++ {
			if i > 0 {
				sb.WriteString(", ")
			}
			if size > 0 {
				format(sb, elem, b[i*size:(i+1)*size])
				continue
			}
			l, n, _ := readUvarint(b)
			format(sb, elem, b[n:n+int(l)])
			b = b[n+int(l):]
		}
		sb.WriteString("]")
	}
}

func formatFloat(v float64, bitSize int) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(v, 'g', -1, bitSize)
}

// formatDecimal renders unscaled × 10^-scale like Java's BigDecimal.toPlainString
// for non-negative scales and in E notation for negative ones.
func formatDecimal(scale int32, unscaled *big.Int) string {
	s := new(big.Int).Abs(unscaled).String()
	sign := ""
	if unscaled.Sign() < 0 {
		sign = "-"
	}
	switch {
	case scale == 0:
		return sign + s
	case scale < 0:
		return sign + s + "E+" + strconv.Itoa(-int(scale))
	case scale > 64:
		// Plain notation would pad up to 2^31 zeros.
		return sign + s + "E-" + strconv.Itoa(int(scale))
	}
	if len(s) <= int(scale) {
		s = strings.Repeat("0", int(scale)-len(s)+1) + s
	}
	return sign + s[:len(s)-int(scale)] + "." + s[len(s)-int(scale):]
}
