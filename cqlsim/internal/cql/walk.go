package cql

import (
	"sort"
)

// BindMarkers returns the statement's bind markers, ordered by Index. The
// pointers are the nodes of the AST, so callers may identify a marker's
// position in the statement by pointer.
func BindMarkers(s Statement) []*BindMarker {
	var ms []*BindMarker
	WalkStatement(s, func(t Term) {
		if m, ok := t.(*BindMarker); ok {
			ms = append(ms, m)
		}
	})
	sort.Slice(ms, func(i, j int) bool { return ms[i].Index < ms[j].Index })
	return ms
}

// WalkStatement calls fn for every term of s, a batch's statements included,
// each before its sub-terms. The order is clause by clause, not exactly
// textual (USING TIMESTAMP ? AND TTL ? visits the TTL first); bind markers
// carry their textual Index.
func WalkStatement(s Statement, fn func(Term)) {
	rels := func(rs []Relation) {
		for _, r := range rs {
			WalkTerm(r.Key, fn)
			for _, v := range r.Values {
				WalkTerm(v, fn)
			}
		}
	}
	switch s := s.(type) {
	case *Insert:
		for _, v := range s.Values {
			WalkTerm(v, fn)
		}
		WalkTerm(s.JSONValue, fn)
		WalkTerm(s.TTL, fn)
		WalkTerm(s.Timestamp, fn)
	case *Update:
		WalkTerm(s.TTL, fn)
		WalkTerm(s.Timestamp, fn)
		for _, a := range s.Set {
			WalkTerm(a.Key, fn)
			WalkTerm(a.Value, fn)
		}
		rels(s.Where)
		rels(s.Conditions)
	case *Delete:
		for _, e := range s.Elements {
			WalkTerm(e, fn)
		}
		WalkTerm(s.Timestamp, fn)
		rels(s.Where)
		rels(s.Conditions)
	case *Select:
		rels(s.Where)
		WalkTerm(s.PerPartitionLimit, fn)
		WalkTerm(s.Limit, fn)
	case *Batch:
		WalkTerm(s.Timestamp, fn)
		for _, st := range s.Statements {
			WalkStatement(st, fn)
		}
	}
}

// WalkTerm calls fn for t and then for each of its sub-terms, depth first;
// a nil t is skipped.
func WalkTerm(t Term, fn func(Term)) {
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
			WalkTerm(t.Keys[i], fn)
			WalkTerm(t.Values[i], fn)
		}
	}
	for _, k := range kids {
		WalkTerm(k, fn)
	}
}
