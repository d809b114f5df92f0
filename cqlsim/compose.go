package cqlsim

import (
	"encoding/binary"
	"sort"

	"github.com/cqlload/cqlload/cqlsim/internal/cql"
)

// compose serializes a literal whose elements are bound at execution, in
// the protocol v3+ layout: tuples and UDTs as [int length][bytes] per field
// (-1 for null), collections with an int count first, sets and maps sorted
// and without duplicates as Cassandra stores them, vectors of fixed-size
// elements as their bare concatenation. Validation of the whole value is
// left to the caller, as for any bound value.
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
			out = append(out, v...)
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
