package cql

import (
	"sort"
	"strings"
)

// Parse parses one CQL statement; a trailing ';' is allowed. Keywords are
// case-insensitive; unquoted identifiers are lower-cased and "quoted" ones keep
// their case. Comments are --, // and /* */. A syntax error is a *SyntaxError
// with Cassandra's line:column convention; valid CQL that cqlsim does not
// implement is an *UnsupportedError.
func Parse(src string) (Statement, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{src: src, toks: toks}
	return p.parseOne()
}

// ParseScript splits a .cql file into ';'-separated statements (comments and
// string literals respected) and parses each. Empty statements are skipped.
func ParseScript(src string) ([]Statement, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	var stmts []Statement
	p := &parser{src: src, toks: toks}
	for p.peek().kind != tEOF {
		if p.acceptPunct(";") {
			continue
		}
		p.markers = 0
		s, err := p.parseStatement()
		if err != nil {
			return stmts, err
		}
		stmts = append(stmts, s)
		if p.peek().kind != tEOF && !p.acceptPunct(";") {
			return stmts, p.errExpecting("';'")
		}
	}
	return stmts, nil
}

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

// parser is a recursive-descent parser over the token slice. Parse errors are
// raised with panic(*SyntaxError) deep in the descent and recovered in
// parseStatement, which keeps the grammar code readable; no panic escapes.
type parser struct {
	src     string
	toks    []token
	i       int
	markers int
	depth   int
}

// maxDepth bounds the nesting of terms and types so that hostile input such
// as "[[[[…" cannot exhaust the stack.
const maxDepth = 500

// enter counts one level of nesting; callers defer p.leave().
func (p *parser) enter() {
	p.depth++
	if p.depth > maxDepth {
		p.fail("nesting deeper than %d levels", maxDepth)
	}
}

func (p *parser) leave() { p.depth-- }

// reserved are Cassandra 4's reserved keywords: they cannot be unquoted
// identifiers. Every other keyword (key, ttl, type, count, …) can.
var reserved = map[string]bool{
	"add": true, "allow": true, "alter": true, "and": true, "apply": true, "asc": true,
	"authorize": true, "batch": true, "begin": true, "by": true, "columnfamily": true,
	"create": true, "delete": true, "desc": true, "describe": true, "drop": true,
	"entries": true, "execute": true, "from": true, "full": true, "grant": true,
	"if": true, "in": true, "index": true, "infinity": true, "insert": true, "into": true,
	"is": true, "keyspace": true, "limit": true, "materialized": true, "mbean": true,
	"mbeans": true, "modify": true, "nan": true, "norecursive": true, "not": true,
	"null": true, "of": true, "on": true, "or": true, "order": true, "primary": true,
	"rename": true, "replace": true, "revoke": true, "schema": true, "select": true,
	"set": true, "table": true, "to": true, "token": true, "truncate": true,
	"unlogged": true, "unset": true, "update": true, "use": true, "using": true,
	"view": true, "where": true, "with": true,
}

func (p *parser) parseOne() (Statement, error) {
	s, err := p.parseStatement()
	if err != nil {
		return nil, err
	}
	p.acceptPunct(";")
	if p.peek().kind != tEOF {
		return nil, p.errAt(p.peek(), "extraneous input '%s' expecting <EOF>", p.text(p.peek()))
	}
	return s, nil
}

func (p *parser) parseStatement() (Statement, error) {
	var s Statement
	if err := p.guard(func() { s = p.statement() }); err != nil {
		return nil, err
	}
	return s, nil
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) peekN(n int) token {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *parser) text(t token) string {
	if t.kind == tEOF {
		return "<EOF>"
	}
	return p.src[t.pos:t.end]
}

func (p *parser) errAt(t token, format string, args ...any) *SyntaxError {
	return errAt(p.src, t.pos, format, args...)
}

func (p *parser) fail(format string, args ...any) {
	panic(p.errAt(p.peek(), format, args...))
}

func (p *parser) errExpecting(what string) *SyntaxError {
	t := p.peek()
	if t.kind == tEOF {
		return p.errAt(t, "mismatched input '<EOF>' expecting %s", what)
	}
	return p.errAt(t, "mismatched input '%s' expecting %s", p.text(t), what)
}

func (p *parser) failExpecting(what string) { panic(p.errExpecting(what)) }

func isKw(t token, kw string) bool { return t.kind == tIdent && t.val == kw }

func (p *parser) atKw(kw string) bool { return isKw(p.peek(), kw) }

func (p *parser) acceptKw(kw string) bool {
	if p.atKw(kw) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expectKw(kw string) {
	if !p.acceptKw(kw) {
		p.failExpecting(strings.ToUpper(kw))
	}
}

func (p *parser) atPunct(s string) bool {
	t := p.peek()
	return t.kind == tPunct && t.val == s
}

func (p *parser) acceptPunct(s string) bool {
	if p.atPunct(s) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expectPunct(s string) {
	if !p.acceptPunct(s) {
		p.failExpecting("'" + s + "'")
	}
}

// isIdent reports whether t can be used as an identifier.
func isIdent(t token) bool {
	return t.kind == tQIdent || t.kind == tIdent && !reserved[t.val]
}

func (p *parser) ident() string {
	t := p.peek()
	if !isIdent(t) {
		if t.kind == tIdent {
			p.fail("no viable alternative at input '%s' (reserved keyword used as identifier)", p.text(t))
		}
		p.failExpecting("identifier")
	}
	p.i++
	return t.val
}

// qualifiedName reads [keyspace '.'] name.
func (p *parser) qualifiedName() (keyspace, name string) {
	name = p.ident()
	if p.acceptPunct(".") {
		return name, p.ident()
	}
	return "", name
}

func (p *parser) statement() Statement {
	t := p.peek()
	if t.kind != tIdent {
		p.fail("no viable alternative at input '%s'", p.text(t))
	}
	switch t.val {
	case "select":
		p.i++
		return p.selectStmt()
	case "insert":
		p.i++
		return p.insert()
	case "update":
		p.i++
		return p.update()
	case "delete":
		p.i++
		return p.deleteStmt()
	case "begin":
		p.i++
		return p.batch()
	case "use":
		p.i++
		return &Use{Keyspace: p.ident()}
	case "truncate":
		p.i++
		p.acceptKw("table")
		ks, name := p.qualifiedName()
		return &Truncate{Keyspace: ks, Table: name}
	case "create":
		p.i++
		return p.create()
	case "drop":
		p.i++
		return p.drop()
	case "alter", "grant", "revoke", "list", "describe", "desc":
		p.unsupported(2)
	}
	p.fail("no viable alternative at input '%s'", p.text(t))
	return nil
}

// unsupported raises an UnsupportedError naming the statement by its first
// words (up to n, stopping at a name or punctuation).
func (p *parser) unsupported(n int) {
	words := []string{strings.ToUpper(p.peek().val)}
	for k := 1; k < n; k++ {
		t := p.peekN(k)
		if t.kind != tIdent || !isStatementWord(t.val) {
			break
		}
		words = append(words, strings.ToUpper(t.val))
	}
	panic(&UnsupportedError{Statement: strings.Join(words, " ")})
}

func isStatementWord(w string) bool {
	switch w {
	case "table", "keyspace", "schema", "type", "index", "materialized", "view", "function",
		"aggregate", "trigger", "role", "user", "users", "roles", "custom", "or", "columnfamily",
		"permissions", "permission", "all", "select", "modify":
		return true
	}
	return false
}

func (p *parser) ifNotExists() bool {
	if p.atKw("if") {
		p.i++
		p.expectKw("not")
		p.expectKw("exists")
		return true
	}
	return false
}

func (p *parser) ifExists() bool {
	if p.atKw("if") && isKw(p.peekN(1), "exists") {
		p.i += 2
		return true
	}
	return false
}

func (p *parser) create() Statement {
	switch {
	case p.acceptKw("keyspace"), p.acceptKw("schema"):
		return p.createKeyspace()
	case p.acceptKw("table"), p.acceptKw("columnfamily"):
		return p.createTable()
	case p.acceptKw("type"):
		return p.createType()
	}
	p.i--
	p.unsupported(3)
	return nil
}

func (p *parser) drop() Statement {
	switch {
	case p.acceptKw("keyspace"), p.acceptKw("schema"):
		ifExists := p.ifExists()
		return &DropKeyspace{IfExists: ifExists, Name: p.ident()}
	case p.acceptKw("table"), p.acceptKw("columnfamily"):
		ifExists := p.ifExists()
		ks, name := p.qualifiedName()
		return &DropTable{Keyspace: ks, Name: name, IfExists: ifExists}
	case p.acceptKw("type"):
		ifExists := p.ifExists()
		ks, name := p.qualifiedName()
		return &DropType{Keyspace: ks, Name: name, IfExists: ifExists}
	}
	p.i--
	p.unsupported(3)
	return nil
}

func (p *parser) createKeyspace() Statement {
	s := &CreateKeyspace{IfNotExists: p.ifNotExists(), DurableWrites: true}
	s.Name = p.ident()
	p.expectKw("with")
	for {
		nameTok := p.peek()
		name := p.ident()
		p.expectPunct("=")
		switch name {
		case "replication":
			m, ok := p.term().(*MapLit)
			if !ok {
				panic(p.errAt(nameTok, "replication must be a map literal"))
			}
			s.Replication = make(map[string]string, len(m.Keys))
			for i := range m.Keys {
				k, kok := m.Keys[i].(*Constant)
				v, vok := m.Values[i].(*Constant)
				if !kok || !vok {
					panic(p.errAt(nameTok, "replication options must be constants"))
				}
				s.Replication[k.Text] = v.Text
			}
		case "durable_writes":
			c, ok := p.term().(*Constant)
			if !ok || (c.Kind != ConstBoolean && c.Kind != ConstString) {
				panic(p.errAt(nameTok, "durable_writes must be a boolean"))
			}
			switch strings.ToLower(c.Text) {
			case "true":
				s.DurableWrites = true
			case "false":
				s.DurableWrites = false
			default:
				panic(p.errAt(nameTok, "invalid boolean value %q for durable_writes", c.Text))
			}
		default:
			panic(p.errAt(nameTok, "unknown keyspace property '%s'", name))
		}
		if !p.acceptKw("and") {
			break
		}
	}
	if s.Replication == nil {
		p.fail("missing mandatory replication strategy class")
	}
	return s
}

func (p *parser) createTable() Statement {
	s := &CreateTable{IfNotExists: p.ifNotExists()}
	s.Keyspace, s.Name = p.qualifiedName()
	p.expectPunct("(")
	for {
		if p.atKw("primary") {
			if s.PartitionKey != nil {
				p.fail("multiple PRIMARY KEYs specified (exactly one required)")
			}
			p.i++
			p.expectKw("key")
			p.expectPunct("(")
			if p.acceptPunct("(") {
				s.PartitionKey = p.identList()
				p.expectPunct(")")
			} else {
				s.PartitionKey = []string{p.ident()}
			}
			for p.acceptPunct(",") {
				s.Clustering = append(s.Clustering, p.ident())
			}
			p.expectPunct(")")
		} else {
			c := ColumnDef{Name: p.ident(), Type: p.typ()}
			if p.acceptKw("static") {
				c.Static = true
			}
			if p.acceptKw("primary") {
				p.expectKw("key")
				if s.PartitionKey != nil {
					p.fail("multiple PRIMARY KEYs specified (exactly one required)")
				}
				s.PartitionKey = []string{c.Name}
			}
			s.Columns = append(s.Columns, c)
		}
		if !p.acceptPunct(",") {
			break
		}
		if p.atPunct(")") { // Cassandra tolerates a trailing comma
			break
		}
	}
	p.expectPunct(")")
	if s.PartitionKey == nil {
		p.fail("no PRIMARY KEY specified for table %s (exactly one required)", s.Name)
	}
	if p.acceptKw("with") {
		p.tableOptions(s)
	}
	return s
}

func (p *parser) tableOptions(s *CreateTable) {
	for {
		switch {
		case p.atKw("clustering"):
			p.i++
			p.expectKw("order")
			p.expectKw("by")
			p.expectPunct("(")
			for {
				col := p.ident()
				switch {
				case p.acceptKw("desc"):
					if s.Desc == nil {
						s.Desc = map[string]bool{}
					}
					s.Desc[col] = true
				default:
					p.acceptKw("asc")
				}
				if !p.acceptPunct(",") {
					break
				}
			}
			p.expectPunct(")")
		case p.atKw("compact"):
			p.i++
			p.expectKw("storage")
			p.setOption(s, "compact storage", "")
		default:
			name := p.ident()
			p.expectPunct("=")
			start := p.peek().pos
			p.term()
			p.setOption(s, name, p.src[start:p.toks[p.i-1].end])
		}
		if !p.acceptKw("and") {
			return
		}
	}
}

func (p *parser) setOption(s *CreateTable, name, raw string) {
	if s.Options == nil {
		s.Options = map[string]string{}
	}
	if _, dup := s.Options[name]; dup {
		p.fail("multiple definitions for property %s", name)
	}
	s.Options[name] = raw
}

func (p *parser) createType() Statement {
	s := &CreateType{IfNotExists: p.ifNotExists()}
	s.Keyspace, s.Name = p.qualifiedName()
	p.expectPunct("(")
	for {
		s.Fields = append(s.Fields, ColumnDef{Name: p.ident(), Type: p.typ()})
		if !p.acceptPunct(",") {
			break
		}
	}
	p.expectPunct(")")
	return s
}

func (p *parser) identList() []string {
	names := []string{p.ident()}
	for p.acceptPunct(",") {
		names = append(names, p.ident())
	}
	return names
}

// using parses USING TTL t AND TIMESTAMP ts (either order, either optional).
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
	// Cassandra's grammar has IF NOT EXISTS before USING; drivers and people
	// also write it after, so both orders are taken.
	s.IfNotExists = p.ifNotExists()
	p.using(&s.TTL, &s.Timestamp, true)
	if !s.IfNotExists {
		s.IfNotExists = p.ifNotExists()
	}
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
	t := p.next()
	if t.kind == tPunct {
		switch t.val {
		case "=":
			return RelEq
		case "<":
			return RelLt
		case "<=":
			return RelLte
		case ">":
			return RelGt
		case ">=":
			return RelGte
		case "!=":
			return RelNeq
		}
	}
	if t.kind == tIdent {
		switch t.val {
		case "in":
			return RelIn
		case "contains":
			if p.acceptKw("key") {
				return RelContainsKey
			}
			return RelContains
		case "like":
			return RelLike
		case "is":
			p.expectKw("not")
			p.expectKw("null")
			return RelIsNotNull
		}
	}
	p.i--
	p.failExpecting("a relation operator")
	return 0
}

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
		case t.kind == tInteger || t.kind == tFloat || t.kind == tDuration:
			p.i++
			kind := map[tokKind]ConstKind{tInteger: ConstInteger, tFloat: ConstFloat, tDuration: ConstDuration}[t.kind]
			return &Constant{Kind: kind, Text: "-" + t.val}
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
