package cql

import "fmt"

// MarkerReceivers calls fn for every bind marker in term, a value of type t
// for the column called name, with the type the marker's value must have and
// the name Cassandra gives it in prepared metadata: the column itself for a
// bare marker, "name[i]" for tuple components, "value(name)" for list, set and
// vector elements and map values, "key(name)" for map keys, and "name.field"
// for UDT fields. fn runs once per marker, not necessarily in Index order.
// UDTs must be resolved. It fails when the literal's shape
// does not fit t, or when a marker is a function argument, whose type cqlsim
// cannot infer.
func MarkerReceivers(t *Type, name string, term Term, fn func(m *BindMarker, t *Type, name string)) error {
	mismatch := func() error {
		return fmt.Errorf("invalid %s literal %s for %s of type %s", termKind(term), TermString(term), name, t)
	}
	each := func(elems []Term, et *Type, en string) error {
		for _, e := range elems {
			if err := MarkerReceivers(et, en, e, fn); err != nil {
				return err
			}
		}
		return nil
	}
	switch v := term.(type) {
	case *BindMarker:
		fn(v, t, name)
	case *TypeHint:
		return MarkerReceivers(t, name, v.Term, fn)
	case *FuncCall:
		for _, a := range v.Args {
			var found bool
			WalkTerm(a, func(x Term) {
				if _, ok := x.(*BindMarker); ok {
					found = true
				}
			})
			if found {
				return fmt.Errorf("bind markers as arguments of %s() are not supported", v.Name)
			}
		}
	case *ListLit:
		if t.Kind != List && t.Kind != Vector {
			return mismatch()
		}
		return each(v.Elems, t.Elems[0], "value("+name+")")
	case *SetLit:
		switch {
		case t.Kind == Set:
			return each(v.Elems, t.Elems[0], "value("+name+")")
		case t.Kind == Map && len(v.Elems) == 0:
		default:
			return mismatch()
		}
	case *MapLit:
		if t.Kind != Map {
			return mismatch()
		}
		if err := each(v.Keys, t.Elems[0], "key("+name+")"); err != nil {
			return err
		}
		return each(v.Values, t.Elems[1], "value("+name+")")
	case *TupleLit:
		if t.Kind != Tuple || len(v.Elems) > len(t.Elems) {
			return mismatch()
		}
		for i, e := range v.Elems {
			if err := MarkerReceivers(t.Elems[i], fmt.Sprintf("%s[%d]", name, i), e, fn); err != nil {
				return err
			}
		}
	case *UDTLit:
		if t.Kind != UDT {
			return mismatch()
		}
		for i, f := range v.Fields {
			var ft *Type
			for _, d := range t.Fields {
				if d.Name == f {
					ft = d.Type
				}
			}
			if ft == nil {
				return fmt.Errorf("unknown field '%s' in value of user defined type %s", f, t.Name)
			}
			if err := MarkerReceivers(ft, name+"."+f, v.Values[i], fn); err != nil {
				return err
			}
		}
	}
	return nil
}
