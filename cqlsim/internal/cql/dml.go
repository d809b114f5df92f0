package cql

import (
	"strings"
)

func (p *parser) identList() []string {
	names := []string{p.ident()}
	for p.acceptPunct(",") {
		names = append(names, p.ident())
	}
	return names
}

// using parses USING TTL t AND TIMESTAMP ts (either order, either
// optional), and ScyllaDB's TIMEOUT d, which is accepted and ignored: the
// scylladb driver appends it to its own queries once it sees a ScyllaDB
// node. Errors name what Cassandra expects there.
func (p *parser) using(ttl, ts *Term, allowTTL bool) {
	if !p.acceptKw("using") {
		return
	}
	for {
		switch {
		case allowTTL && p.acceptKw("ttl"):
			*ttl = p.intValue()
		case p.acceptKw("timestamp"):
			*ts = p.intValue()
		case p.acceptKw("timeout"):
			p.term()
		default:
			if allowTTL {
				p.failExpecting("TTL or TIMESTAMP")
			}
			p.failExpecting("TIMESTAMP")
		}
		if !p.acceptKw("and") {
			return
		}
	}
}

// intValue is Cassandra's intValue: an integer literal or a bind marker.
func (p *parser) intValue() Term {
	t := p.term()
	switch v := t.(type) {
	case *BindMarker:
		return v
	case *Constant:
		if v.Kind == ConstInteger {
			return v
		}
	}
	panic(p.errAt(p.toks[p.i-1], "expected an integer or a bind marker"))
}

func (p *parser) insert() Statement {
	p.expectKw("into")
	s := &Insert{}
	s.Keyspace, s.Table = p.qualifiedName()
	if p.acceptKw("json") {
		s.JSON = true
		s.JSONValue = p.term()
		if p.acceptKw("default") {
			switch {
			case p.acceptKw("unset"):
				s.DefaultUnset = true
			case p.acceptKw("null"):
			default:
				p.failExpecting("NULL or UNSET")
			}
		}
	} else {
		p.expectPunct("(")
		s.Columns = p.identList()
		p.expectPunct(")")
		p.expectKw("values")
		p.expectPunct("(")
		s.Values = []Term{p.term()}
		for p.acceptPunct(",") {
			s.Values = append(s.Values, p.term())
		}
		p.expectPunct(")")
		if len(s.Values) != len(s.Columns) {
			p.fail("unmatched column names/values")
		}
	}
	// Cassandra's grammar takes IF NOT EXISTS before USING only; accepting the
	// other order would let statements pass here that fail on a real cluster.
	s.IfNotExists = p.ifNotExists()
	p.using(&s.TTL, &s.Timestamp, true)
	return s
}

func (p *parser) update() Statement {
	s := &Update{}
	s.Keyspace, s.Table = p.qualifiedName()
	p.using(&s.TTL, &s.Timestamp, true)
	p.expectKw("set")
	for {
		s.Set = append(s.Set, p.assignment())
		if !p.acceptPunct(",") {
			break
		}
	}
	p.expectKw("where")
	s.Where = p.relations()
	s.IfExists, s.Conditions = p.conditions()
	return s
}

func (p *parser) assignment() Assignment {
	a := Assignment{Column: p.ident()}
	switch {
	case p.acceptPunct("["):
		a.Op = AssignElement
		a.Key = p.term()
		p.expectPunct("]")
		p.expectPunct("=")
		a.Value = p.term()
		return a
	case p.acceptPunct("."):
		a.Field = p.ident()
		p.expectPunct("=")
		a.Value = p.term()
		return a
	case p.atPunct("+") && p.peekN(1).kind == tPunct && p.peekN(1).val == "=":
		p.i += 2
		a.Op = AssignAdd
		a.Value = p.term()
		return a
	case p.atPunct("-") && p.peekN(1).kind == tPunct && p.peekN(1).val == "=":
		p.i += 2
		a.Op = AssignSub
		a.Value = p.term()
		return a
	}
	p.expectPunct("=")
	// c = c + v / c = c - v
	if t := p.peek(); isIdent(t) && t.val == a.Column && !(p.peekN(1).kind == tPunct && p.peekN(1).val == "(") {
		p.i++
		switch {
		case p.acceptPunct("+"):
			a.Op = AssignAdd
		case p.acceptPunct("-"):
			a.Op = AssignSub
		default:
			p.failExpecting("'+' or '-'")
		}
		a.Value = p.term()
		return a
	}
	a.Value = p.term()
	if p.acceptPunct("+") { // l = v + l
		t := p.peek()
		if p.ident() != a.Column {
			panic(p.errAt(t, "only expressions of the form X = <value> + X are supported"))
		}
		a.Op = AssignPrepend
	}
	return a
}

// conditions parses [IF EXISTS | IF cond AND …].
func (p *parser) conditions() (ifExists bool, conds []Relation) {
	if p.ifExists() {
		return true, nil
	}
	if p.acceptKw("if") {
		return false, p.relations()
	}
	return false, nil
}

func (p *parser) deleteStmt() Statement {
	s := &Delete{}
	hasElem := false
	var elems []Term
	for !p.atKw("from") {
		s.Columns = append(s.Columns, p.ident())
		var e Term
		if p.acceptPunct("[") {
			e = p.term()
			p.expectPunct("]")
			hasElem = true
		} else if p.acceptPunct(".") {
			f := p.ident()
			e = &Constant{Kind: ConstString, Text: f}
			hasElem = true
		}
		elems = append(elems, e)
		if !p.acceptPunct(",") {
			break
		}
	}
	if hasElem {
		s.Elements = elems
	}
	p.expectKw("from")
	s.Keyspace, s.Table = p.qualifiedName()
	p.using(nil, &s.Timestamp, false)
	p.expectKw("where")
	s.Where = p.relations()
	s.IfExists, s.Conditions = p.conditions()
	return s
}

func (p *parser) batch() Statement {
	s := &Batch{}
	switch {
	case p.acceptKw("unlogged"):
		s.Type = UnloggedBatch
	case p.acceptKw("counter"):
		s.Type = CounterBatch
	case p.acceptKw("logged"):
	}
	p.expectKw("batch")
	p.using(nil, &s.Timestamp, false)
	for {
		switch {
		case p.acceptKw("insert"):
			s.Statements = append(s.Statements, p.insert())
		case p.acceptKw("update"):
			s.Statements = append(s.Statements, p.update())
		case p.acceptKw("delete"):
			s.Statements = append(s.Statements, p.deleteStmt())
		case p.acceptKw("apply"):
			p.expectKw("batch")
			return s
		default:
			p.failExpecting("INSERT, UPDATE, DELETE or APPLY BATCH")
		}
		p.acceptPunct(";")
	}
}

func (p *parser) selectStmt() Statement {
	s := &Select{}
	if p.atKw("json") && !p.selectorEnds(1) {
		p.i++
		s.JSON = true
	}
	if p.atKw("distinct") && !p.selectorEnds(1) {
		p.i++
		s.Distinct = true
	}
	if p.acceptPunct("*") {
		s.Star = true
	} else {
		for {
			s.Selectors = append(s.Selectors, p.selector(true))
			if !p.acceptPunct(",") {
				break
			}
		}
	}
	p.expectKw("from")
	s.Keyspace, s.Table = p.qualifiedName()
	if p.acceptKw("where") {
		s.Where = p.relations()
	}
	if p.atKw("group") {
		p.i++
		p.expectKw("by")
		s.GroupBy = p.identList()
	}
	if p.acceptKw("order") {
		p.expectKw("by")
		for {
			o := OrderTerm{Column: p.ident()}
			if p.acceptKw("desc") {
				o.Desc = true
			} else {
				p.acceptKw("asc")
			}
			s.OrderBy = append(s.OrderBy, o)
			if !p.acceptPunct(",") {
				break
			}
		}
	}
	if p.atKw("per") {
		p.i++
		p.expectKw("partition")
		p.expectKw("limit")
		s.PerPartitionLimit = p.intValue()
	}
	if p.acceptKw("limit") {
		s.Limit = p.intValue()
	}
	if p.acceptKw("allow") {
		p.expectKw("filtering")
		s.AllowFiltering = true
	}
	if p.acceptKw("using") {
		p.expectKw("timeout")
		s.Timeout = p.term()
	}
	return s
}

// selectorEnds reports whether the token n ahead ends a selector, so that a
// column named json or distinct is not taken for the keyword.
func (p *parser) selectorEnds(n int) bool {
	t := p.peekN(n)
	return isKw(t, "from") || isKw(t, "as") || t.kind == tPunct && (t.val == "," || t.val == "(")
}

func (p *parser) selector(top bool) Selector {
	var sel Selector
	t := p.peek()
	switch {
	case (t.kind == tIdent || t.kind == tQIdent) && p.peekN(1).kind == tPunct && p.peekN(1).val == "(":
		name := t.val
		p.i += 2
		var args []string
		if !p.atPunct(")") {
			for {
				switch {
				case p.acceptPunct("*"):
					args = append(args, "*")
				case p.peek().kind == tInteger || p.peek().kind == tString || p.peek().kind == tFloat:
					args = append(args, p.text(p.next()))
				default:
					args = append(args, selectorText(p.selector(false)))
				}
				if name == "cast" && len(args) == 1 && p.acceptKw("as") {
					args = append(args, p.typ().String()) // CAST(x AS type)
				}
				if !p.acceptPunct(",") {
					break
				}
			}
		}
		p.expectPunct(")")
		sel = Selector{Kind: SelFunc, Name: name, Args: args}
		switch {
		case t.kind == tQIdent:
		case name == "count":
			sel.Kind = SelCount
		case name == "token":
			sel.Kind = SelToken
		case name == "writetime" || name == "ttl":
			if len(args) != 1 {
				panic(p.errAt(t, "%s() takes exactly one column argument", name))
			}
			sel = Selector{Kind: SelWritetime, Name: args[0]}
			if name == "ttl" {
				sel.Kind = SelTTL
			}
		}
	default:
		sel = Selector{Kind: SelColumn, Name: p.ident()}
	}
	if top && p.acceptKw("as") {
		sel.Alias = p.ident()
	}
	return sel
}

// selectorText renders a nested selector as function-argument text.
func selectorText(s Selector) string {
	switch s.Kind {
	case SelColumn:
		return s.Name
	case SelWritetime:
		return "writetime(" + s.Name + ")"
	case SelTTL:
		return "ttl(" + s.Name + ")"
	}
	return s.Name + "(" + strings.Join(s.Args, ", ") + ")"
}

func (p *parser) relations() []Relation {
	rs := []Relation{p.relation()}
	for p.acceptKw("and") {
		rs = append(rs, p.relation())
	}
	return rs
}

func (p *parser) relation() Relation {
	var r Relation
	switch {
	case p.atKw("token") && p.peekN(1).kind == tPunct && p.peekN(1).val == "(":
		p.i += 2
		r.Token = true
		r.Columns = p.identList()
		p.expectPunct(")")
	case p.acceptPunct("("):
		r.Columns = p.identList()
		p.expectPunct(")")
		r.Op = p.relOp()
		switch {
		case r.Op == RelIn && p.acceptPunct("("):
			if !p.atPunct(")") {
				for {
					r.Values = append(r.Values, p.tupleOrMarker())
					if !p.acceptPunct(",") {
						break
					}
				}
			}
			p.expectPunct(")")
		case r.Op == RelIn || r.Op == RelEq || r.Op == RelLt || r.Op == RelLte || r.Op == RelGt || r.Op == RelGte:
			r.Values = []Term{p.tupleOrMarker()}
		default:
			p.fail("invalid operator for a multi-column relation")
		}
		return r
	default:
		r.Columns = []string{p.ident()}
		if p.acceptPunct("[") {
			r.Key = p.term()
			p.expectPunct("]")
		}
	}
	r.Op = p.relOp()
	switch r.Op {
	case RelIsNotNull:
		return r
	case RelIn:
		if p.acceptPunct("(") {
			if !p.atPunct(")") {
				for {
					r.Values = append(r.Values, p.term())
					if !p.acceptPunct(",") {
						break
					}
				}
			}
			p.expectPunct(")")
			return r
		}
		m := p.term()
		if _, ok := m.(*BindMarker); !ok {
			p.failExpecting("'(' or a bind marker")
		}
		r.Values = []Term{m}
		return r
	}
	r.Values = []Term{p.term()}
	return r
}

func (p *parser) tupleOrMarker() Term {
	t := p.term()
	switch t.(type) {
	case *TupleLit, *BindMarker:
		return t
	}
	panic(p.errAt(p.toks[p.i-1], "expected a tuple literal or a bind marker"))
}

func (p *parser) relOp() RelOp {
	t := p.peek()
	if t.kind == tPunct {
		op, ok := map[string]RelOp{"=": RelEq, "<": RelLt, "<=": RelLte, ">": RelGt, ">=": RelGte, "!=": RelNeq}[t.val]
		if ok {
			p.i++
			return op
		}
	}
	switch {
	case p.acceptKw("in"):
		return RelIn
	case p.acceptKw("contains"):
		if p.acceptKw("key") {
			return RelContainsKey
		}
		return RelContains
	case p.acceptKw("like"):
		return RelLike
	case p.acceptKw("is"):
		p.expectKw("not")
		p.expectKw("null")
		return RelIsNotNull
	}
	p.failExpecting("a relation operator")
	return 0
}
