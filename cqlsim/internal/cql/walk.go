package cql

import (
	"sort"
)

// BindMarkers returns the statement's bind markers, ordered by Index. The
// pointers are the nodes of the AST, so callers may identify a marker's
// position in the statement by pointer.
func BindMarkers(s Statement) []*BindMarker {
	var ms []*BindMarker
	walkStatement(s, func(t Term) {
		if m, ok := t.(*BindMarker); ok {
			ms = append(ms, m)
		}
	})
	sort.Slice(ms, func(i, j int) bool { return ms[i].Index < ms[j].Index })
	return ms
}

// walkStatement calls fn for every term in s, depth first.
func walkStatement(s Statement, fn func(Term)) {
	rels := func(rs []Relation) {
		for _, r := range rs {
			walkTerm(r.Key, fn)
			for _, v := range r.Values {
				walkTerm(v, fn)
			}
		}
	}
	switch s := s.(type) {
	case *Insert:
		for _, v := range s.Values {
			walkTerm(v, fn)
		}
		walkTerm(s.JSONValue, fn)
		walkTerm(s.TTL, fn)
		walkTerm(s.Timestamp, fn)
	case *Update:
		walkTerm(s.TTL, fn)
		walkTerm(s.Timestamp, fn)
		for _, a := range s.Set {
			walkTerm(a.Key, fn)
			walkTerm(a.Value, fn)
		}
		rels(s.Where)
		rels(s.Conditions)
	case *Delete:
		for _, e := range s.Elements {
			walkTerm(e, fn)
		}
		walkTerm(s.Timestamp, fn)
		rels(s.Where)
		rels(s.Conditions)
	case *Select:
		rels(s.Where)
		walkTerm(s.PerPartitionLimit, fn)
		walkTerm(s.Limit, fn)
	case *Batch:
		walkTerm(s.Timestamp, fn)
		for _, st := range s.Statements {
			walkStatement(st, fn)
		}
	}
}

func walkTerm(t Term, fn func(Term)) {
	if t == nil {
		return
	}
	fn(t)
	var kids []Term
	switch t := t.(type) {
	case *ListLit:
		kids = t.Elems
	case *SetLit:
		kids = t.Elems
	case *TupleLit:
		kids = t.Elems
	case *UDTLit:
		kids = t.Values
	case *FuncCall:
		kids = t.Args
	case *TypeHint:
		kids = []Term{t.Term}
	case *MapLit:
		for i := range t.Keys {
			walkTerm(t.Keys[i], fn)
			walkTerm(t.Values[i], fn)
		}
	}
	for _, k := range kids {
		walkTerm(k, fn)
	}
}
