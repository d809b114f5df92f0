package cql

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"unicode/utf8"
)

// Values are always in the native protocol v3/v4 serialized form: collections
// carry 4-byte counts and 4-byte length-prefixed elements; tuples and UDTs are
// sequences of 4-byte length-prefixed fields where a negative length is null.
//
// A nil slice is null and always valid. A non-nil empty slice is Cassandra's
// "empty value": its marshal classes accept it for ascii, text, blob, varint,
// int, bigint, counter, timestamp, float, double, boolean, uuid, timeuuid,
// inet, decimal, custom types and tuples/UDTs (zero fields), and reject it
// for smallint, tinyint, date, time, duration, collections and vectors, whose
// serializers demand their exact framing. Validate follows that rule.

// Validate checks that b is a valid serialized value of type t, as Cassandra's
// marshal classes validate it. It does not allocate unless it fails.
func Validate(t *Type, b []byte) error {
	if b == nil {
		return nil
	}
	return validate(t, b)
}

// errFixed reports a value of the wrong size for a fixed-size type.
func errFixed(t *Type, want string, got int) error {
	return fmt.Errorf("invalid %s value: expected %s bytes, got %d", t, want, got)
}

func validate(t *Type, b []byte) error {
	n := len(b)
	switch t.Kind {
	case Int, Float:
		if n != 4 && n != 0 {
			return errFixed(t, "4", n)
		}
	case Bigint, Counter, Timestamp, Double:
		if n != 8 && n != 0 {
			return errFixed(t, "8", n)
		}
	case Smallint:
		if n != 2 {
			return errFixed(t, "2", n)
		}
	case Tinyint:
		if n != 1 {
			return errFixed(t, "1", n)
		}
	case Boolean:
		if n > 1 {
			return errFixed(t, "1", n)
		}
	case Date:
		if n != 4 {
			return errFixed(t, "4", n)
		}
	case Time:
		if n != 8 {
			return errFixed(t, "8", n)
		}
		if v := int64(binary.BigEndian.Uint64(b)); v < 0 || v >= nanosPerDay {
			return fmt.Errorf("invalid time value %d: nanoseconds since midnight must be in [0, 86399999999999]", v)
		}
	case Uuid:
		if n != 16 && n != 0 {
			return errFixed(t, "16", n)
		}
	case Timeuuid:
		if n != 16 && n != 0 {
			return errFixed(t, "16", n)
		}
		if n == 16 && b[6]&0xf0 != 0x10 {
			return fmt.Errorf("invalid timeuuid value: version %d, want 1", b[6]>>4)
		}
	case Inet:
		if n != 0 && n != 4 && n != 16 {
			return errFixed(t, "4 or 16", n)
		}
	case Decimal:
		if n > 0 && n < 4 {
			return errFixed(t, "at least 4", n)
		}
	case Varint, Blob, Custom:
		// Any bytes: Cassandra's IntegerSerializer accepts non-minimal
		// two's complement, so this does too.
	case Text:
		if !utf8.Valid(b) {
			return errors.New("invalid text value: not valid UTF-8")
		}
	case Ascii:
		for i, c := range b {
			if c >= 0x80 {
				return fmt.Errorf("invalid ascii value: byte 0x%02x at offset %d", c, i)
			}
		}
	case Duration:
		return validateDuration(b)
	case List, Set:
		return validateCollection(t, b, 1)
	case Map:
		return validateCollection(t, b, 2)
	case Tuple:
		return validateFields(t, b, len(t.Elems), func(i int) *Type { return t.Elems[i] })
	case UDT:
		if t.Fields == nil {
			// Unresolved: only the framing can be checked.
			return validateFields(t, b, -1, nil)
		}
		return validateFields(t, b, len(t.Fields), func(i int) *Type { return t.Fields[i].Type })
	case Vector:
		return validateVector(t, b)
	default:
		return fmt.Errorf("cannot validate values of unknown type kind %d", t.Kind)
	}
	return nil
}

const nanosPerDay = 86400 * 1_000_000_000

// readInt reads a 4-byte big-endian signed int.
func readInt(b []byte) (int32, []byte, bool) {
	if len(b) < 4 {
		return 0, b, false
	}
	return int32(binary.BigEndian.Uint32(b)), b[4:], true
}

func validateCollection(t *Type, b []byte, per int) error {
	count, rest, ok := readInt(b)
	if !ok {
		return fmt.Errorf("invalid %s value: not enough bytes to read the element count", t)
	}
	if count < 0 {
		return fmt.Errorf("invalid %s value: negative element count %d", t, count)
	}
	for i := 0; i < int(count); i++ {
		for j := 0; j < per; j++ {
			size, r, ok := readInt(rest)
			if !ok {
				return fmt.Errorf("invalid %s value: truncated at element %d of %d", t, i, count)
			}
			if size < 0 {
				return fmt.Errorf("invalid %s value: null element %d (null is not supported inside collections)", t, i)
			}
			if int(size) > len(r) {
				return fmt.Errorf("invalid %s value: element %d needs %d bytes, %d left", t, i, size, len(r))
			}
			if err := validate(t.Elems[j], r[:size]); err != nil {
				return fmt.Errorf("element %d of %s: %w", i, t, err)
			}
			rest = r[size:]
		}
	}
	if len(rest) != 0 {
		return fmt.Errorf("invalid %s value: %d extraneous bytes after the last element", t, len(rest))
	}
	return nil
}

// validateFields checks tuple/UDT framing. Fewer fields than declared are
// allowed (the rest are null); more are not. n < 0 means the field types are
// unknown and only framing is checked.
func validateFields(t *Type, b []byte, n int, field func(int) *Type) error {
	for i := 0; len(b) > 0; i++ {
		if n >= 0 && i >= n {
			return fmt.Errorf("invalid %s value: %d extraneous bytes after the last field", t, len(b))
		}
		size, r, ok := readInt(b)
		if !ok {
			return fmt.Errorf("invalid %s value: truncated size of field %d", t, i)
		}
		b = r
		if size < 0 {
			continue
		}
		if int(size) > len(b) {
			return fmt.Errorf("invalid %s value: field %d needs %d bytes, %d left", t, i, size, len(b))
		}
		if field != nil {
			if err := validate(field(i), b[:size]); err != nil {
				return fmt.Errorf("field %d of %s: %w", i, t, err)
			}
		}
		b = b[size:]
	}
	return nil
}

// fixedSize is the element size of a vector whose elements are laid out
// back to back, or 0 when each element carries an unsigned vint length.
// It follows Cassandra's VectorType, which packs an element type only when
// its valueLengthIfFixed is set: boolean, int, float, bigint, timestamp,
// double, uuid, timeuuid and vectors of those. smallint, tinyint, date and
// time have one size too but do not declare it, so their vectors carry
// lengths (as every driver writes them).
func fixedSize(t *Type) int {
	switch t.Kind {
	case Boolean:
		return 1
	case Int, Float:
		return 4
	case Bigint, Double, Timestamp:
		return 8
	case Uuid, Timeuuid:
		return 16
	case Vector:
		if s := fixedSize(t.Elems[0]); s > 0 {
			return s * t.Dim
		}
	}
	return 0
}

// AppendVectorElement appends one element of a vector of type t to dst:
// its bytes as they are for fixed-length element types, else preceded by
// their length as an unsigned vint.
func AppendVectorElement(t *Type, dst, elem []byte) []byte {
	if fixedSize(t.Elems[0]) == 0 {
		dst = appendUvarint(dst, uint64(len(elem)))
	}
	return append(dst, elem...)
}

// validateVector checks a vector: dim packed elements for fixed-size element
// types, else dim elements each prefixed by an unsigned vint length.
func validateVector(t *Type, b []byte) error {
	elem := t.Elems[0]
	if size := fixedSize(elem); size > 0 {
		if len(b) != size*t.Dim {
			return fmt.Errorf("invalid %s value: expected %d bytes (%d × %d), got %d", t, size*t.Dim, t.Dim, size, len(b))
		}
		for i := 0; i < t.Dim; i++ {
			if err := validate(elem, b[i*size:(i+1)*size]); err != nil {
				return fmt.Errorf("element %d of %s: %w", i, t, err)
			}
		}
		return nil
	}
	for i := 0; i < t.Dim; i++ {
		size, n, ok := readUvarint(b)
		if !ok || size > uint64(len(b)-n) {
			return fmt.Errorf("invalid %s value: truncated element %d", t, i)
		}
		b = b[n:]
		if err := validate(elem, b[:size]); err != nil {
			return fmt.Errorf("element %d of %s: %w", i, t, err)
		}
		b = b[size:]
	}
	if len(b) != 0 {
		return fmt.Errorf("invalid %s value: %d extraneous bytes after the last element", t, len(b))
	}
	return nil
}

// readUvarint reads Cassandra's unsigned vint: the number of leading one bits
// of the first byte is the number of extra bytes, and the value is the rest of
// the first byte followed by the extra bytes, big-endian.
func readUvarint(b []byte) (v uint64, n int, ok bool) {
	if len(b) == 0 {
		return 0, 0, false
	}
	first := b[0]
	extra := bits.LeadingZeros8(^first)
	if len(b) < 1+extra {
		return 0, 0, false
	}
	if extra < 8 {
		v = uint64(first & (0xff >> extra))
	}
	for i := 1; i <= extra; i++ {
		v = v<<8 | uint64(b[i])
	}
	return v, 1 + extra, true
}

// appendUvarint appends v as Cassandra's unsigned vint.
func appendUvarint(dst []byte, v uint64) []byte {
	size := (639 - bits.LeadingZeros64(v|1)*9) >> 6 // Cassandra's computeUnsignedVIntSize
	if size == 1 {
		return append(dst, byte(v))
	}
	extra := size - 1
	var buf [9]byte
	for i := size - 1; i >= 0; i-- {
		buf[i] = byte(v)
		v >>= 8
	}
	if extra < 8 {
		buf[0] |= ^byte(0xff >> extra)
	} else {
		buf[0] = 0xff
	}
	return append(dst, buf[:size]...)
}

func readVarint(b []byte) (int64, int, bool) {
	u, n, ok := readUvarint(b)
	return int64(u>>1) ^ -int64(u&1), n, ok
}

func appendVarint(dst []byte, v int64) []byte {
	return appendUvarint(dst, uint64(v<<1)^uint64(v>>63))
}

// decodeDuration reads months, days and nanoseconds.
func decodeDuration(b []byte) (months, days, nanos int64, err error) {
	if len(b) < 3 {
		return 0, 0, 0, fmt.Errorf("invalid duration value: expected at least 3 bytes, got %d", len(b))
	}
	var vals [3]int64
	for i := range vals {
		v, n, ok := readVarint(b)
		if !ok {
			return 0, 0, 0, errors.New("invalid duration value: truncated")
		}
		vals[i], b = v, b[n:]
	}
	// Like Cassandra's DurationSerializer, bytes after the third vint are ignored.
	months, days, nanos = vals[0], vals[1], vals[2]
	if months != int64(int32(months)) || days != int64(int32(days)) {
		return 0, 0, 0, errors.New("invalid duration value: months and days must fit in 32 bits")
	}
	if (months < 0 || days < 0 || nanos < 0) && (months > 0 || days > 0 || nanos > 0) {
		return 0, 0, 0, errors.New("invalid duration value: the months, days and nanoseconds must be all of the same sign")
	}
	return months, days, nanos, nil
}

func validateDuration(b []byte) error {
	_, _, _, err := decodeDuration(b)
	return err
}
