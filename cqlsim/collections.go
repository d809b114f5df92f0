package cqlsim

import (
	"bytes"
	"encoding/binary"

	"github.com/cqlload/cqlload/cqlsim/internal/cql"
)

// Updates of non-frozen collections: c = c + v, c = v + c, c = c - v,
// m[k] = v, l[i] = v and DELETE m[k], l[i]. Cassandra keeps one cell per
// element, each with its own timestamp; the simulator rewrites the whole
// value with the mutation's timestamp, which gives the same result unless
// concurrent writers race on one collection with out-of-order timestamps.

type collOp uint8

const (
	collSet     collOp = iota // plain assignment
	collAppend                // c = c + v
	collPrepend               // l = v + l
	collRemove                // c = c - v
	collPut                   // m[k] = v, l[i] = v
	collDelete                // DELETE m[k], l[i]
)

// applyColl computes a collection's new value from its current one (nil
// when absent). The result is normalized; an empty collection is nil.
func applyColl(t *cql.Type, op collOp, cur, v, key []byte) ([]byte, error) {
	switch t.Kind {
	case cql.List:
		elems, _ := decList(cur)
		switch op {
		case collAppend, collPrepend:
			add, ok := decList(v)
			if !ok {
				return cur, nil
			}
			if op == collAppend {
				elems = append(elems, add...)
			} else {
				elems = append(add, elems...)
			}
		case collRemove:
			drop, _ := decList(v)
			kept := elems[:0:0]
			for _, e := range elems {
				if !containsBytes(drop, e) {
					kept = append(kept, e)
				}
			}
			elems = kept
		case collPut, collDelete:
			i, ok := decInt(key)
			if !ok || i < 0 || int(i) >= len(elems) {
				return nil, invalidf("List index %d out of bound, list has size %d", i, len(elems))
			}
			if op == collDelete || v == nil {
				elems = append(elems[:i:i], elems[i+1:]...)
			} else {
				elems[i] = v
			}
		}
		return encodeElems(elems, 1), nil
	case cql.Set:
		elems, _ := decList(cur)
		add, _ := decList(v)
		switch op {
		case collAppend, collPrepend:
			elems = append(elems, add...)
		case collRemove:
			et := t.Elems[0]
			kept := elems[:0:0]
			for _, e := range elems {
				drop := false
				for _, a := range add {
					drop = drop || cql.Compare(et, a, e) == 0
				}
				if !drop {
					kept = append(kept, e)
				}
			}
			elems = kept
		}
		return normalize(t, encodeElems(elems, 1), true), nil
	case cql.Map:
		var flat [][]byte
		if pairs, ok := decPairs(cur); ok {
			for _, p := range pairs {
				flat = append(flat, p[0], p[1])
			}
		}
		kt := t.Elems[0]
		removeKeys := func(keys [][]byte) {
			kept := flat[:0:0]
			for i := 0; i+1 < len(flat); i += 2 {
				drop := false
				for _, k := range keys {
					drop = drop || cql.Compare(kt, k, flat[i]) == 0
				}
				if !drop {
					kept = append(kept, flat[i], flat[i+1])
				}
			}
			flat = kept
		}
		switch op {
		case collAppend, collPrepend:
			if pairs, ok := decPairs(v); ok {
				for _, p := range pairs {
					flat = append(flat, p[0], p[1])
				}
			}
		case collRemove:
			keys, _ := decList(v)
			removeKeys(keys)
		case collPut:
			if v == nil {
				removeKeys([][]byte{key})
			} else {
				flat = append(flat, key, v)
			}
		case collDelete:
			removeKeys([][]byte{key})
		}
		return normalize(t, encodeElems(flat, 2), true), nil
	}
	return v, nil
}

// encodeElems frames elements as a list or set (per 1) or map entries
// (per 2); no elements is nil, the absent collection.
func encodeElems(elems [][]byte, per int) []byte {
	if len(elems) == 0 {
		return nil
	}
	out := binary.BigEndian.AppendUint32(nil, uint32(len(elems)/per))
	for _, e := range elems {
		out = appendCell(out, e)
	}
	return out
}

func containsBytes(list [][]byte, b []byte) bool {
	for _, x := range list {
		if bytes.Equal(x, b) {
			return true
		}
	}
	return false
}
