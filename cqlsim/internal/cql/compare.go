package cql

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/big"
)

// Compare orders two serialized values of type t as Cassandra orders them in
// ascending clustering order and inside sets and map keys: signed integers,
// Java's Float.compare for floats (NaN last, -0 before 0), unsigned bytes for
// blob/text/ascii/inet/date, timeuuid by time, uuid by version then time (v1)
// then bytes, decimals and varints numerically, collections/tuples/UDTs and
// vectors element by element. Null and empty values sort first. Malformed
// values fall back to byte order rather than failing.
func Compare(t *Type, a, b []byte) int {
	if len(a) == 0 || len(b) == 0 {
		return cmpInt(min(len(a), 1), min(len(b), 1))
	}
	switch t.Kind {
	case Int, Bigint, Smallint, Tinyint, Counter, Timestamp, Time:
		if len(a) == len(b) {
			if c := cmpInt(int(int8(a[0])), int(int8(b[0]))); c != 0 {
				return c
			}
			return bytes.Compare(a[1:], b[1:])
		}
	case Float:
		if len(a) == 4 && len(b) == 4 {
			return cmpFloat(float64(math.Float32frombits(binary.BigEndian.Uint32(a))), float64(math.Float32frombits(binary.BigEndian.Uint32(b))))
		}
	case Double:
		if len(a) == 8 && len(b) == 8 {
			return cmpFloat(math.Float64frombits(binary.BigEndian.Uint64(a)), math.Float64frombits(binary.BigEndian.Uint64(b)))
		}
	case Boolean:
		return cmpInt(int(min(a[0], 1)), int(min(b[0], 1)))
	case Varint:
		return varintValue(a).Cmp(varintValue(b))
	case Decimal:
		if len(a) >= 4 && len(b) >= 4 {
			return compareDecimal(a, b)
		}
	case Uuid:
		if len(a) == 16 && len(b) == 16 {
			return compareUUID(a, b)
		}
	case Timeuuid:
		if len(a) == 16 && len(b) == 16 {
			return compareTimeUUID(a, b)
		}
	case List, Set:
		if c, ok := compareCollections(t, a, b, 1); ok {
			return c
		}
	case Map:
		if c, ok := compareCollections(t, a, b, 2); ok {
			return c
		}
	case Tuple:
		if c, ok := compareFields(a, b, func(i int) *Type {
			if i < len(t.Elems) {
				return t.Elems[i]
			}
			return nil
		}); ok {
			return c
		}
	case UDT:
		if c, ok := compareFields(a, b, func(i int) *Type {
			if i < len(t.Fields) {
				return t.Fields[i].Type
			}
			return nil
		}); ok {
			return c
		}
	case Vector:
		if c, ok := compareVectors(t, a, b); ok {
			return c
		}
	}
	return bytes.Compare(a, b)
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// cmpFloat is Java's Double.compare: -0 < 0 and NaN above everything.
func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	return cmpInt(int(math.Float64bits(b)>>63), int(math.Float64bits(a)>>63))
}

// compareDecimal compares scale+varint decimals numerically. Scales are
// attacker-controlled (up to 2^31), so it never builds 10^scale: magnitudes
// estimated from bit lengths decide unless they are within a few digits, and
// then the scales differ by little and one side is scaled up exactly.
func compareDecimal(a, b []byte) int {
	sa, sb := int64(int32(binary.BigEndian.Uint32(a))), int64(int32(binary.BigEndian.Uint32(b)))
	ua, ub := varintValue(a[4:]), varintValue(b[4:])
	sign := ua.Sign()
	if c := cmpInt(sign, ub.Sign()); c != 0 || sign == 0 {
		return c
	}
	if sa == sb {
		return ua.Cmp(ub)
	}
	// log10|x| = log10|unscaled| - scale, and log10|unscaled| lies within
	// one of BitLen*log10(2).
	const log10of2 = 0.30102999566398120
	ea := float64(ua.BitLen())*log10of2 - float64(sa)
	eb := float64(ub.BitLen())*log10of2 - float64(sb)
	if ea > eb+2 {
		return sign
	}
	if eb > ea+2 {
		return -sign
	}
	ten := big.NewInt(10)
	if sa < sb {
		ua = new(big.Int).Mul(ua, new(big.Int).Exp(ten, big.NewInt(sb-sa), nil))
	} else {
		ub = new(big.Int).Mul(ub, new(big.Int).Exp(ten, big.NewInt(sa-sb), nil))
	}
	return ua.Cmp(ub)
}

// uuidTime is the 60-bit timestamp of a version 1 uuid.
func uuidTime(u []byte) uint64 {
	return uint64(binary.BigEndian.Uint16(u[6:])&0x0fff)<<48 | uint64(binary.BigEndian.Uint16(u[4:]))<<32 | uint64(binary.BigEndian.Uint32(u))
}

func compareUUID(a, b []byte) int {
	va, vb := a[6]>>4, b[6]>>4
	if va != vb {
		return cmpInt(int(va), int(vb))
	}
	if va == 1 {
		if ta, tb := uuidTime(a), uuidTime(b); ta != tb {
			if ta < tb {
				return -1
			}
			return 1
		}
	}
	return bytes.Compare(a, b)
}

// compareTimeUUID orders by timestamp, then the low 8 bytes compared as
// signed bytes, as Cassandra's TimeUUIDType does for compatibility.
func compareTimeUUID(a, b []byte) int {
	if ta, tb := uuidTime(a), uuidTime(b); ta != tb {
		if ta < tb {
			return -1
		}
		return 1
	}
	for i := 8; i < 16; i++ {
		if c := cmpInt(int(int8(a[i])), int(int8(b[i]))); c != 0 {
			return c
		}
	}
	return 0
}

// compareCollections compares element by element, then by count. ok is false
// if either value is malformed.
func compareCollections(t *Type, a, b []byte, per int) (int, bool) {
	na, a, oka := readInt(a)
	nb, b, okb := readInt(b)
	if !oka || !okb || na < 0 || nb < 0 {
		return 0, false
	}
	for i := 0; i < int(min(na, nb)); i++ {
		for j := 0; j < per; j++ {
			var ea, eb []byte
			var ok bool
			if ea, a, ok = readValue(a); !ok {
				return 0, false
			}
			if eb, b, ok = readValue(b); !ok {
				return 0, false
			}
			if c := Compare(t.Elems[j], ea, eb); c != 0 {
				return c, true
			}
		}
	}
	return cmpInt(int(na), int(nb)), true
}

// readValue reads a 4-byte length-prefixed value; a negative length is nil.
func readValue(b []byte) (v, rest []byte, ok bool) {
	n, rest, ok := readInt(b)
	if !ok {
		return nil, b, false
	}
	if n < 0 {
		return nil, rest, true
	}
	if int(n) > len(rest) {
		return nil, b, false
	}
	return rest[:n], rest[n:], true
}

// compareFields compares tuple/UDT fields in order; null sorts before a value
// and a value with fewer fields sorts first when all shared fields are equal.
func compareFields(a, b []byte, field func(int) *Type) (int, bool) {
	for i := 0; len(a) > 0 && len(b) > 0; i++ {
		var fa, fb []byte
		var ok bool
		if fa, a, ok = readValue(a); !ok {
			return 0, false
		}
		if fb, b, ok = readValue(b); !ok {
			return 0, false
		}
		ft := field(i)
		if ft == nil {
			ft = &Type{Kind: Blob}
		}
		if fa == nil || fb == nil {
			if c := cmpInt(boolInt(fa != nil), boolInt(fb != nil)); c != 0 {
				return c, true
			}
			continue
		}
		if c := Compare(ft, fa, fb); c != 0 {
			return c, true
		}
	}
	return cmpInt(len(a), len(b)), true
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func compareVectors(t *Type, a, b []byte) (int, bool) {
	elem := t.Elems[0]
	if size := fixedSize(elem); size > 0 {
		if len(a) != size*t.Dim || len(b) != size*t.Dim {
			return 0, false
		}
		for i := 0; i < len(a); i += size {
			if c := Compare(elem, a[i:i+size], b[i:i+size]); c != 0 {
				return c, true
			}
		}
		return 0, true
	}
	for i := 0; i < t.Dim; i++ {
		la, na, oka := readUvarint(a)
		lb, nb, okb := readUvarint(b)
		if !oka || !okb || la > uint64(len(a)-na) || lb > uint64(len(b)-nb) {
			return 0, false
		}
		ea, eb := a[na:na+int(la)], b[nb:nb+int(lb)]
		if c := Compare(elem, ea, eb); c != 0 {
			return c, true
		}
		a, b = a[na+int(la):], b[nb+int(lb):]
	}
	return 0, true
}
