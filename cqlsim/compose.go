package cqlsim

import (
	"encoding/binary"
	"sort"

	"github.com/cqlload/cqlload/cqlsim/internal/cql"
)

// compose serializes a literal whose elements are bound at execution, in
// the protocol v3+ layout: tuples and UDTs as [int length][bytes] per field
// (-1 for null), collections with an int count first, sets and maps sorted
// and without duplicates as Cassandra stores them, vectors as their
// elements back to back, each after its unsigned vint length unless the
// element type is fixed-length (cql.AppendVectorElement). Validation of
// the whole value is left to the caller, as for any bound value.
func (a *execArgs) compose(s *source) ([]byte, error) {
	elems := make([][]byte, len(s.parts))
	for i, p := range s.parts {
		if p == nil {
			continue
		}
		v, unset, err := a.value(p)
		if err != nil {
			return nil, err
		}
		if unset && s.typ.Kind != cql.Tuple && s.typ.Kind != cql.UDT {
			return nil, invalidf("Invalid unset value inside a collection literal")
		}
		if v == nil && s.typ.Kind != cql.Tuple && s.typ.Kind != cql.UDT {
			return nil, invalidf("null is not supported inside collections")
		}
		elems[i] = v
	}
	var out []byte
	appendValue := func(v []byte) {
		if v == nil {
			out = binary.BigEndian.AppendUint32(out, 0xffffffff)
			return
		}
		out = binary.BigEndian.AppendUint32(out, uint32(len(v)))
		out = append(out, v...)
	}
	switch s.typ.Kind {
	case cql.Tuple, cql.UDT:
		out = []byte{}
		for _, v := range elems {
			appendValue(v)
		}
	case cql.Vector:
		out = []byte{}
		for _, v := range elems {
			out = cql.AppendVectorElement(s.typ, out, v)
		}
	case cql.List:
		out = binary.BigEndian.AppendUint32(nil, uint32(len(elems)))
		for _, v := range elems {
			appendValue(v)
		}
	case cql.Set:
		et := s.typ.Elems[0]
		sort.SliceStable(elems, func(i, j int) bool { return cql.Compare(et, elems[i], elems[j]) < 0 })
		uniq := elems[:0]
		for _, v := range elems {
			if len(uniq) == 0 || cql.Compare(et, uniq[len(uniq)-1], v) != 0 {
				uniq = append(uniq, v)
			}
		}
		out = binary.BigEndian.AppendUint32(nil, uint32(len(uniq)))
		for _, v := range uniq {
			appendValue(v)
		}
	case cql.Map:
		kt := s.typ.Elems[0]
		type kv struct{ k, v []byte }
		pairs := make([]kv, 0, len(elems)/2)
		for i := 0; i+1 < len(elems); i += 2 {
			pairs = append(pairs, kv{elems[i], elems[i+1]})
		}
		sort.SliceStable(pairs, func(i, j int) bool { return cql.Compare(kt, pairs[i].k, pairs[j].k) < 0 })
		// The last of equal keys wins, as in a map literal.
		uniq := pairs[:0]
		for _, p := range pairs {
			if len(uniq) > 0 && cql.Compare(kt, uniq[len(uniq)-1].k, p.k) == 0 {
				uniq[len(uniq)-1] = p
				continue
			}
			uniq = append(uniq, p)
		}
		out = binary.BigEndian.AppendUint32(nil, uint32(len(uniq)))
		for _, p := range uniq {
			appendValue(p.k)
			appendValue(p.v)
		}
	default:
		return nil, invalidf("cqlsim cannot build a %s value from bound elements", s.typ)
	}
	return out, nil
}

// normalize rewrites a collection value the way Cassandra stores it: set
// elements sorted and unique, map entries sorted by unique key (the last of
// equal keys wins), recursively through nested collections; and an empty
// non-frozen collection, which has no cells, reads as null. Other values
// are returned unchanged.
func normalize(t *cql.Type, v []byte, top bool) []byte {
	if v == nil || !hasCollection(t) {
		return v
	}
	if t.Kind == cql.List && !hasCollection(t.Elems[0]) {
		// Nothing to reorder: only an empty non-frozen list changes (to null).
		if top && !t.Frozen && len(v) >= 4 && binary.BigEndian.Uint32(v) == 0 {
			return nil
		}
		return v
	}
	switch t.Kind {
	case cql.List, cql.Set:
		elems, ok := decList(v)
		if !ok {
			return v
		}
		if top && !t.Frozen && len(elems) == 0 {
			return nil
		}
		et := t.Elems[0]
		for i := range elems {
			elems[i] = normalize(et, elems[i], false)
		}
		if t.Kind == cql.Set {
			sort.SliceStable(elems, func(i, j int) bool { return cql.Compare(et, elems[i], elems[j]) < 0 })
			uniq := elems[:0]
			for _, e := range elems {
				if len(uniq) == 0 || cql.Compare(et, uniq[len(uniq)-1], e) != 0 {
					uniq = append(uniq, e)
				}
			}
			elems = uniq
		}
		out := binary.BigEndian.AppendUint32(make([]byte, 0, len(v)), uint32(len(elems)))
		for _, e := range elems {
			out = appendCell(out, e)
		}
		return out
	case cql.Map:
		kvs, ok := decPairs(v)
		if !ok {
			return v
		}
		if top && !t.Frozen && len(kvs) == 0 {
			return nil
		}
		kt, vt := t.Elems[0], t.Elems[1]
		for i := range kvs {
			kvs[i][0] = normalize(kt, kvs[i][0], false)
			kvs[i][1] = normalize(vt, kvs[i][1], false)
		}
		sort.SliceStable(kvs, func(i, j int) bool { return cql.Compare(kt, kvs[i][0], kvs[j][0]) < 0 })
		uniq := kvs[:0]
		for _, p := range kvs {
			if len(uniq) > 0 && cql.Compare(kt, uniq[len(uniq)-1][0], p[0]) == 0 {
				uniq[len(uniq)-1] = p
				continue
			}
			uniq = append(uniq, p)
		}
		out := binary.BigEndian.AppendUint32(make([]byte, 0, len(v)), uint32(len(uniq)))
		for _, p := range uniq {
			out = appendCell(appendCell(out, p[0]), p[1])
		}
		return out
	}
	return v
}

// hasCollection reports whether t is a list, set or map (values of other
// types, tuples and UDTs included, are stored as sent).
func hasCollection(t *cql.Type) bool {
	return t.Kind == cql.List || t.Kind == cql.Set || t.Kind == cql.Map
}

func appendCell(out, v []byte) []byte {
	if v == nil {
		return binary.BigEndian.AppendUint32(out, 0xffffffff)
	}
	out = binary.BigEndian.AppendUint32(out, uint32(len(v)))
	return append(out, v...)
}

// decPairs splits a serialized map into its key/value pairs.
func decPairs(b []byte) ([][2][]byte, bool) {
	if len(b) < 4 {
		return nil, false
	}
	n := int(int32(binary.BigEndian.Uint32(b)))
	b = b[4:]
	if n < 0 || n > len(b) {
		return nil, false
	}
	out := make([][2][]byte, n)
	for i := 0; i < 2*n; i++ {
		if len(b) < 4 {
			return nil, false
		}
		l := int(int32(binary.BigEndian.Uint32(b)))
		b = b[4:]
		var v []byte
		if l >= 0 {
			if l > len(b) {
				return nil, false
			}
			v = b[:l:l]
			b = b[l:]
		}
		out[i/2][i%2] = v
	}
	return out, len(b) == 0
}
