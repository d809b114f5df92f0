package cqlsim

import (
	"encoding/binary"
	"math"
	"net/netip"
	"sort"
)

// Encoders for the handful of value shapes the simulator writes itself
// (system tables, counters, tokens, [applied]). This is a shim, not a codec:
// user values are validated, ordered and rendered by package cql.

func encText(s string) []byte { return []byte(s) }

func encBool(b bool) []byte {
	if b {
		return []byte{1}
	}
	return []byte{0}
}

func encInt(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }

func encBigint(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }

func encDouble(v float64) []byte { return encBigint(int64(math.Float64bits(v))) }

func encUUID(u [16]byte) []byte { return append([]byte(nil), u[:]...) }

func encInet(a netip.Addr) []byte { return a.AsSlice() }

// encTextList encodes list<text> (and set<text> when the items are sorted).
func encTextList(items []string) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(items)))
	for _, s := range items {
		b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
		b = append(b, s...)
	}
	return b
}

// encTextSet encodes set<text>; sets are serialized in their sort order,
// which for text is byte order.
func encTextSet(items []string) []byte {
	s := append([]string(nil), items...)
	sort.Strings(s)
	return encTextList(s)
}

// encTextMap encodes map<text, text> in key order.
func encTextMap(m map[string]string) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b := binary.BigEndian.AppendUint32(nil, uint32(len(keys)))
	for _, k := range keys {
		b = binary.BigEndian.AppendUint32(b, uint32(len(k)))
		b = append(b, k...)
		b = binary.BigEndian.AppendUint32(b, uint32(len(m[k])))
		b = append(b, m[k]...)
	}
	return b
}

// encEmptyMap is map<…> with no entries.
func encEmptyMap() []byte { return []byte{0, 0, 0, 0} }

func decBigint(b []byte) (int64, bool) {
	if len(b) != 8 {
		return 0, false
	}
	return int64(binary.BigEndian.Uint64(b)), true
}

func decInt(b []byte) (int32, bool) {
	if len(b) != 4 {
		return 0, false
	}
	return int32(binary.BigEndian.Uint32(b)), true
}

// decList splits a serialized list/set (v3+ framing) into its elements.
func decList(b []byte) ([][]byte, bool) {
	if len(b) < 4 {
		return nil, false
	}
	n := int(int32(binary.BigEndian.Uint32(b)))
	b = b[4:]
	if n < 0 || n > len(b) {
		return nil, false
	}
	out := make([][]byte, 0, n)
	for i := 0; i < n; i++ {
		if len(b) < 4 {
			return nil, false
		}
		l := int(int32(binary.BigEndian.Uint32(b)))
		b = b[4:]
		if l < 0 {
			out = append(out, nil)
			continue
		}
		if l > len(b) {
			return nil, false
		}
		out = append(out, b[:l:l])
		b = b[l:]
	}
	return out, len(b) == 0
}

// routingKey builds the partition key bytes Cassandra hashes: the value
// itself for one column, else each component as a 2-byte length, the bytes
// and a 0 end-of-component byte.
func routingKey(dst []byte, parts [][]byte) []byte {
	if len(parts) == 1 {
		return append(dst, parts[0]...)
	}
	for _, p := range parts {
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(p)))
		dst = append(dst, p...)
		dst = append(dst, 0)
	}
	return dst
}
