package cql

import (
	"fmt"
	"strings"
)

func (p *parser) marker(name string) *BindMarker {
	m := &BindMarker{Index: p.markers, Name: name}
	p.markers++
	return m
}

// term parses a value expression.
func (p *parser) term() Term {
	p.enter()
	defer p.leave()
	t := p.peek()
	switch t.kind {
	case tString:
		p.i++
		return &Constant{Kind: ConstString, Text: t.val}
	case tInteger:
		p.i++
		return &Constant{Kind: ConstInteger, Text: t.val}
	case tFloat:
		p.i++
		return &Constant{Kind: ConstFloat, Text: t.val}
	case tUUID:
		p.i++
		return &Constant{Kind: ConstUUID, Text: t.val}
	case tHex:
		p.i++
		return &Constant{Kind: ConstHex, Text: t.val}
	case tDuration:
		p.i++
		return &Constant{Kind: ConstDuration, Text: t.val}
	case tIdent, tQIdent:
		if t.kind == tIdent {
			switch t.val {
			case "true", "false":
				p.i++
				return &Constant{Kind: ConstBoolean, Text: t.val}
			case "null":
				p.i++
				return &Constant{Kind: ConstNull, Text: "null"}
			case "nan":
				p.i++
				return &Constant{Kind: ConstNaN, Text: "NaN"}
			case "infinity":
				p.i++
				return &Constant{Kind: ConstInfinity, Text: "Infinity"}
			}
		}
		return p.funcCall()
	case tPunct:
		switch t.val {
		case "-":
			return p.negative()
		case "?":
			p.i++
			return p.marker("")
		case ":":
			p.i++
			return p.marker(p.ident())
		case "[":
			p.i++
			l := &ListLit{}
			if !p.atPunct("]") {
				l.Elems = p.termList()
			}
			p.expectPunct("]")
			return l
		case "{":
			p.i++
			return p.braces()
		case "(":
			return p.paren()
		}
	}
	if t.kind == tEOF {
		p.fail("no viable alternative at input '<EOF>'")
	}
	p.fail("no viable alternative at input '%s'", p.text(t))
	return nil
}

func (p *parser) termList() []Term {
	ts := []Term{p.term()}
	for p.acceptPunct(",") {
		ts = append(ts, p.term())
	}
	return ts
}

// negative parses '-' directly followed by a number, NaN or Infinity, which
// Cassandra lexes as one signed literal.
func (p *parser) negative() Term {
	minus := p.next()
	t := p.peek()
	if t.pos == minus.end {
		switch {
		case t.kind == tInteger:
			p.i++
			return &Constant{Kind: ConstInteger, Text: "-" + t.val}
		case t.kind == tFloat:
			p.i++
			return &Constant{Kind: ConstFloat, Text: "-" + t.val}
		case t.kind == tDuration:
			p.i++
			return &Constant{Kind: ConstDuration, Text: "-" + t.val}
		case isKw(t, "infinity"):
			p.i++
			return &Constant{Kind: ConstInfinity, Text: "-Infinity"}
		case isKw(t, "nan"):
			p.i++
			return &Constant{Kind: ConstNaN, Text: "NaN"}
		}
	}
	panic(p.errAt(minus, "no viable alternative at input '-'"))
}

func (p *parser) funcCall() Term {
	start := p.peek()
	var name string
	if isKw(start, "token") {
		// token is reserved but is a function: WHERE token(k) > token(?)
		p.i++
		name = "token"
	} else {
		name = p.ident()
	}
	if p.acceptPunct(".") { // keyspace-qualified function
		name = name + "." + p.ident()
	}
	if !p.acceptPunct("(") {
		panic(p.errAt(start, "no viable alternative at input '%s'", p.text(start)))
	}
	f := &FuncCall{Name: name}
	if !p.atPunct(")") {
		f.Args = p.termList()
	}
	p.expectPunct(")")
	return f
}

// braces parses what follows '{': a set, map or UDT literal.
func (p *parser) braces() Term {
	if p.acceptPunct("}") {
		return &SetLit{}
	}
	t := p.peek()
	if isIdent(t) && !isConstWord(t) && p.peekN(1).kind == tPunct && p.peekN(1).val == ":" {
		u := &UDTLit{}
		for {
			u.Fields = append(u.Fields, p.ident())
			p.expectPunct(":")
			u.Values = append(u.Values, p.term())
			if !p.acceptPunct(",") {
				break
			}
		}
		p.expectPunct("}")
		return u
	}
	first := p.term()
	if p.acceptPunct(":") {
		m := &MapLit{Keys: []Term{first}, Values: []Term{p.term()}}
		for p.acceptPunct(",") {
			m.Keys = append(m.Keys, p.term())
			p.expectPunct(":")
			m.Values = append(m.Values, p.term())
		}
		p.expectPunct("}")
		return m
	}
	s := &SetLit{Elems: []Term{first}}
	for p.acceptPunct(",") {
		s.Elems = append(s.Elems, p.term())
	}
	p.expectPunct("}")
	return s
}

func isConstWord(t token) bool {
	if t.kind != tIdent {
		return false
	}
	switch t.val {
	case "true", "false", "null", "nan", "infinity":
		return true
	}
	return false
}

// paren parses what starts with '(': a tuple literal or a type hint such as (int)?.
func (p *parser) paren() Term {
	save := p.i
	p.i++
	if t := p.peek(); t.kind == tIdent || t.kind == tQIdent {
		if typ, ok := p.tryType(); ok && p.acceptPunct(")") {
			return &TypeHint{Type: typ, Term: p.term()}
		}
		p.i = save + 1
	}
	tl := &TupleLit{Elems: p.termList()}
	p.expectPunct(")")
	return tl
}

// tryType parses a type, restoring the position and reporting false if the
// tokens are not one (e.g. a function call in a tuple).
func (p *parser) tryType() (t *Type, ok bool) {
	save := p.i
	defer func() {
		if r := recover(); r != nil {
			if _, isSyntax := r.(*SyntaxError); !isSyntax {
				panic(r)
			}
			p.i = save
			t, ok = nil, false
		}
	}()
	return p.typ(), true
}

func markerText(m *BindMarker) string {
	if m.Name != "" {
		return ":" + m.Name
	}
	return "?"
}

func termKind(term Term) string {
	switch v := term.(type) {
	case *Constant:
		return [...]string{"STRING", "INTEGER", "FLOAT", "BOOLEAN", "UUID", "HEX", "DURATION", "NULL", "NAN", "INFINITY"}[v.Kind]
	case *ListLit:
		return "list"
	case *SetLit:
		return "set"
	case *MapLit:
		return "map"
	case *TupleLit:
		return "tuple"
	case *UDTLit:
		return "user type"
	case *FuncCall:
		return "function"
	}
	return "term"
}

// TermString renders a term as CQL source.
func TermString(term Term) string {
	list := func(ts []Term) string {
		s := make([]string, len(ts))
		for i, t := range ts {
			s[i] = TermString(t)
		}
		return strings.Join(s, ", ")
	}
	switch v := term.(type) {
	case nil:
		return ""
	case *Constant:
		if v.Kind == ConstString {
			return "'" + strings.ReplaceAll(v.Text, "'", "''") + "'"
		}
		return v.Text
	case *BindMarker:
		return markerText(v)
	case *ListLit:
		return "[" + list(v.Elems) + "]"
	case *SetLit:
		return "{" + list(v.Elems) + "}"
	case *TupleLit:
		return "(" + list(v.Elems) + ")"
	case *MapLit:
		s := make([]string, len(v.Keys))
		for i := range v.Keys {
			s[i] = TermString(v.Keys[i]) + ": " + TermString(v.Values[i])
		}
		return "{" + strings.Join(s, ", ") + "}"
	case *UDTLit:
		s := make([]string, len(v.Fields))
		for i := range v.Fields {
			s[i] = QuoteIdent(v.Fields[i]) + ": " + TermString(v.Values[i])
		}
		return "{" + strings.Join(s, ", ") + "}"
	case *FuncCall:
		return v.Name + "(" + list(v.Args) + ")"
	case *TypeHint:
		return "(" + v.Type.String() + ")" + TermString(v.Term)
	}
	return fmt.Sprintf("%v", term)
}
