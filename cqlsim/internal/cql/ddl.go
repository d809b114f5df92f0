package cql

import (
	"strings"
)

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
	if t := p.peek(); t.kind != tIdent || !isStatementWord(t.val) {
		p.failExpecting("KEYSPACE, TABLE or TYPE")
	}
	p.i--
	p.unsupported(4)
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
	if t := p.peek(); t.kind != tIdent || !isStatementWord(t.val) {
		p.failExpecting("KEYSPACE, TABLE or TYPE")
	}
	p.i--
	p.unsupported(4)
	return nil
}

func (p *parser) alterTable() Statement {
	s := &AlterTable{}
	s.Keyspace, s.Name = p.qualifiedName()
	switch {
	case p.acceptKw("add"):
		s.IfColumn = p.ifNotExists()
		column := func() {
			c := ColumnDef{Name: p.ident(), Type: p.typ()}
			c.Static = p.acceptKw("static")
			s.Add = append(s.Add, c)
		}
		if p.acceptPunct("(") {
			for column(); p.acceptPunct(","); column() {
			}
			p.expectPunct(")")
		} else {
			for column(); p.acceptPunct(","); column() {
			}
		}
	case p.acceptKw("drop"):
		s.IfColumn = p.ifExists()
		if p.acceptPunct("(") {
			s.Drop = p.identList()
			p.expectPunct(")")
		} else {
			s.Drop = []string{p.ident()}
		}
	default:
		panic(&UnsupportedError{Statement: "ALTER TABLE … " + strings.ToUpper(p.peek().val)})
	}
	return s
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
			t := p.next()
			p.expectKw("storage")
			p.setOption(s, t, "compact storage", "")
		default:
			nameTok := p.peek()
			name := p.ident()
			p.expectPunct("=")
			start := p.peek().pos
			p.term()
			p.setOption(s, nameTok, name, p.src[start:p.toks[p.i-1].end])
		}
		if !p.acceptKw("and") {
			return
		}
	}
}

func (p *parser) setOption(s *CreateTable, at token, name, raw string) {
	if s.Options == nil {
		s.Options = map[string]string{}
	}
	if _, dup := s.Options[name]; dup {
		panic(p.errAt(at, "multiple definitions for property %s", name))
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
