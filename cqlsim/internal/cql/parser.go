package cql

import (
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

// ParseTerm parses one term: a literal, collection, tuple, UDT literal,
// function call or bind marker. It reads back the raw text of
// CreateTable.Options values, e.g. "{'class': 'LeveledCompactionStrategy'}".
func ParseTerm(src string) (Term, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{src: src, toks: toks}
	var t Term
	err = p.guard(func() {
		t = p.term()
		if p.peek().kind != tEOF {
			p.failExpecting("<EOF>")
		}
	})
	if err != nil {
		return nil, err
	}
	return t, nil
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

// guard runs fn, turning a raised *SyntaxError or *UnsupportedError into an error.
func (p *parser) guard(fn func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			switch e := r.(type) {
			case *SyntaxError:
				err = e
			case *UnsupportedError:
				err = e
			default:
				panic(r)
			}
		}
	}()
	fn()
	return nil
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
	case "alter":
		if isKw(p.peekN(1), "table") || isKw(p.peekN(1), "columnfamily") {
			p.i += 2
			return p.alterTable()
		}
		p.unsupported(2)
	case "grant", "revoke", "list", "describe", "desc":
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
		"permissions", "permission", "all", "select", "modify", "replace":
		return true
	}
	return false
}
