package schema

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind is the family of a CQL type.
type Kind int

// The CQL types. varchar is an alias of text and parses to KindText.
const (
	KindInvalid Kind = iota
	KindAscii
	KindBigint
	KindBlob
	KindBoolean
	KindCounter
	KindDate
	KindDecimal
	KindDouble
	KindDuration
	KindFloat
	KindInet
	KindInt
	KindSmallint
	KindText
	KindTime
	KindTimestamp
	KindTimeuuid
	KindTinyint
	KindUUID
	KindVarint
	KindList
	KindSet
	KindMap
	KindTuple
	KindUDT
	KindVector
	// KindCustom is a type given by its Java class name ('org.apache…');
	// cqlload cannot convert text into it.
	KindCustom
)

var nativeNames = map[string]Kind{
	"ascii":     KindAscii,
	"bigint":    KindBigint,
	"blob":      KindBlob,
	"boolean":   KindBoolean,
	"counter":   KindCounter,
	"date":      KindDate,
	"decimal":   KindDecimal,
	"double":    KindDouble,
	"duration":  KindDuration,
	"float":     KindFloat,
	"inet":      KindInet,
	"int":       KindInt,
	"smallint":  KindSmallint,
	"text":      KindText,
	"varchar":   KindText,
	"time":      KindTime,
	"timestamp": KindTimestamp,
	"timeuuid":  KindTimeuuid,
	"tinyint":   KindTinyint,
	"uuid":      KindUUID,
	"varint":    KindVarint,
}

var kindNames = [...]string{
	KindInvalid:   "invalid",
	KindAscii:     "ascii",
	KindBigint:    "bigint",
	KindBlob:      "blob",
	KindBoolean:   "boolean",
	KindCounter:   "counter",
	KindDate:      "date",
	KindDecimal:   "decimal",
	KindDouble:    "double",
	KindDuration:  "duration",
	KindFloat:     "float",
	KindInet:      "inet",
	KindInt:       "int",
	KindSmallint:  "smallint",
	KindText:      "text",
	KindTime:      "time",
	KindTimestamp: "timestamp",
	KindTimeuuid:  "timeuuid",
	KindTinyint:   "tinyint",
	KindUUID:      "uuid",
	KindVarint:    "varint",
	KindList:      "list",
	KindSet:       "set",
	KindMap:       "map",
	KindTuple:     "tuple",
	KindUDT:       "udt",
	KindVector:    "vector",
	KindCustom:    "custom",
}

func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Type is a CQL type.
//
// Elems holds the element type of a list, set or vector, the key and value
// types of a map, and the component types of a tuple. A user-defined type
// has Keyspace (when known), Name and Fields; ParseType leaves Fields nil
// because a type string does not carry them, and LoadTable resolves them.
// Dim is a vector's dimension. A custom type keeps its class name in Name.
type Type struct {
	Kind     Kind
	Elems    []*Type
	Frozen   bool
	Keyspace string
	Name     string
	Fields   []Field
	Dim      int
}

// Field is one field of a user-defined type.
type Field struct {
	Name string
	Type *Type
}

// IsText reports whether t is ascii, text or varchar: the types where a
// quoted empty field is an empty string rather than a missing value.
func (t *Type) IsText() bool {
	return t.Kind == KindAscii || t.Kind == KindText
}

// IsCollection reports whether t is a list, set or map.
func (t *Type) IsCollection() bool {
	return t.Kind == KindList || t.Kind == KindSet || t.Kind == KindMap
}

// String gives the CQL spelling of t, as the schema tables write it:
// "frozen<map<text, list<int>>>", "vector<float, 3>", "frozen<address>".
func (t *Type) String() string {
	var b strings.Builder
	t.write(&b)
	return b.String()
}

func (t *Type) write(b *strings.Builder) {
	if t == nil {
		b.WriteString("<nil>")
		return
	}
	if t.Frozen {
		b.WriteString("frozen<")
	}
	switch t.Kind {
	case KindList, KindSet, KindMap, KindTuple:
		b.WriteString(t.Kind.String())
		b.WriteByte('<')
		for i, e := range t.Elems {
			if i > 0 {
				b.WriteString(", ")
			}
			e.write(b)
		}
		b.WriteByte('>')
	case KindVector:
		b.WriteString("vector<")
		if len(t.Elems) == 1 {
			t.Elems[0].write(b)
		}
		b.WriteString(", ")
		b.WriteString(strconv.Itoa(t.Dim))
		b.WriteByte('>')
	case KindUDT:
		b.WriteString(quoteTypeName(t.Name))
	case KindCustom:
		b.WriteString(quoteString(t.Name))
	default:
		b.WriteString(t.Kind.String())
	}
	if t.Frozen {
		b.WriteByte('>')
	}
}

func quoteString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// ParseType parses a CQL type as the driver's metadata spells it. Names that
// are not native types are user-defined types, left unresolved (Fields nil).
func ParseType(s string) (*Type, error) {
	p := typeParser{s: s}
	t, err := p.parse(0)
	if err != nil {
		return nil, fmt.Errorf("parse type %q: %w", s, err)
	}
	p.space()
	if p.i != len(p.s) {
		return nil, fmt.Errorf("parse type %q: unexpected %q at offset %d", s, p.s[p.i:], p.i)
	}
	return t, nil
}

// maxTypeDepth bounds nesting so that a hostile type string cannot exhaust
// the stack; Cassandra itself has no practical need for deeper types.
const maxTypeDepth = 64

type typeParser struct {
	s string
	i int
}

func (p *typeParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *typeParser) expect(c byte) error {
	p.space()
	if p.i >= len(p.s) {
		return fmt.Errorf("expected %q at end", c)
	}
	if p.s[p.i] != c {
		return fmt.Errorf("expected %q at offset %d, found %q", c, p.i, p.s[p.i])
	}
	p.i++
	return nil
}

func (p *typeParser) peek() byte {
	p.space()
	if p.i >= len(p.s) {
		return 0
	}
	return p.s[p.i]
}

// ident reads an identifier, unquoted (returned as written; callers fold
// it to lower case, as CQL does) or double-quoted (exact, "" for a quote).
func (p *typeParser) ident() (string, bool, error) {
	p.space()
	if p.i >= len(p.s) {
		return "", false, fmt.Errorf("expected a type name at end")
	}
	if p.s[p.i] == '"' {
		var b strings.Builder
		for j := p.i + 1; j < len(p.s); j++ {
			if p.s[j] == '"' {
				if j+1 < len(p.s) && p.s[j+1] == '"' {
					b.WriteByte('"')
					j++
					continue
				}
				p.i = j + 1
				return b.String(), true, nil
			}
			b.WriteByte(p.s[j])
		}
		return "", false, fmt.Errorf("unterminated quoted name at offset %d", p.i)
	}
	start := p.i
	for p.i < len(p.s) && isIdentByte(p.s[p.i]) {
		p.i++
	}
	if start == p.i {
		return "", false, fmt.Errorf("expected a type name at offset %d, found %q", start, p.s[start])
	}
	return p.s[start:p.i], false, nil
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func (p *typeParser) parse(depth int) (*Type, error) {
	if depth > maxTypeDepth {
		return nil, fmt.Errorf("type nested deeper than %d", maxTypeDepth)
	}
	if p.peek() == '\'' {
		return p.custom()
	}
	name, quoted, err := p.ident()
	if err != nil {
		return nil, err
	}
	if !quoted {
		lower := strings.ToLower(name)
		if k, ok := nativeNames[lower]; ok {
			return &Type{Kind: k}, nil
		}
		switch lower {
		case "frozen":
			if err := p.expect('<'); err != nil {
				return nil, err
			}
			t, err := p.parse(depth + 1)
			if err != nil {
				return nil, err
			}
			if err := p.expect('>'); err != nil {
				return nil, err
			}
			t.Frozen = true
			return t, nil
		case "list", "set", "map", "tuple":
			return p.params(lower, depth)
		case "vector":
			return p.vector(depth)
		}
		name = lower
	}
	t := &Type{Kind: KindUDT, Name: name}
	if p.peek() == '.' {
		p.i++
		field, q, err := p.ident()
		if err != nil {
			return nil, err
		}
		if !q {
			field = strings.ToLower(field)
		}
		t.Keyspace, t.Name = name, field
	}
	return t, nil
}

func (p *typeParser) params(kind string, depth int) (*Type, error) {
	if err := p.expect('<'); err != nil {
		return nil, err
	}
	var elems []*Type
	for {
		e, err := p.parse(depth + 1)
		if err != nil {
			return nil, err
		}
		elems = append(elems, e)
		if p.peek() == ',' {
			p.i++
			continue
		}
		break
	}
	if err := p.expect('>'); err != nil {
		return nil, err
	}
	t := &Type{Elems: elems}
	want := 1
	switch kind {
	case "list":
		t.Kind = KindList
	case "set":
		t.Kind = KindSet
	case "map":
		t.Kind, want = KindMap, 2
	case "tuple":
		t.Kind, want = KindTuple, len(elems)
	}
	if len(elems) != want {
		return nil, fmt.Errorf("%s takes %d type parameters, got %d", kind, want, len(elems))
	}
	return t, nil
}

func (p *typeParser) vector(depth int) (*Type, error) {
	if err := p.expect('<'); err != nil {
		return nil, err
	}
	e, err := p.parse(depth + 1)
	if err != nil {
		return nil, err
	}
	if err := p.expect(','); err != nil {
		return nil, err
	}
	p.space()
	start := p.i
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	dim, err := strconv.Atoi(p.s[start:p.i])
	if err != nil || dim <= 0 {
		return nil, fmt.Errorf("vector dimension %q is not a positive integer", p.s[start:p.i])
	}
	if err := p.expect('>'); err != nil {
		return nil, err
	}
	return &Type{Kind: KindVector, Elems: []*Type{e}, Dim: dim}, nil
}

func (p *typeParser) custom() (*Type, error) {
	var b strings.Builder
	for j := p.i + 1; j < len(p.s); j++ {
		if p.s[j] == '\'' {
			if j+1 < len(p.s) && p.s[j+1] == '\'' {
				b.WriteByte('\'')
				j++
				continue
			}
			p.i = j + 1
			return &Type{Kind: KindCustom, Name: b.String()}, nil
		}
		b.WriteByte(p.s[j])
	}
	return nil, fmt.Errorf("unterminated custom type at offset %d", p.i)
}

// quoteTypeName quotes a user-defined type's name also when it would read
// as a built-in type ("int", "list"), so that String output parses back to
// the same type.
func quoteTypeName(name string) string {
	if _, native := nativeNames[name]; native {
		return `"` + name + `"`
	}
	switch name {
	case "frozen", "list", "set", "map", "tuple", "vector":
		return `"` + name + `"`
	}
	return QuoteIdent(name)
}

// QuoteIdent returns name as a CQL identifier: unchanged when it is a
// lower-case unquoted identifier that is not a reserved word, otherwise
// double-quoted.
func QuoteIdent(name string) string {
	if name != "" && !(name[0] >= '0' && name[0] <= '9') && !reserved[name] {
		plain := true
		for i := 0; i < len(name); i++ {
			c := name[i]
			if !(c == '_' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
				plain = false
				break
			}
		}
		if plain {
			return name
		}
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// reserved holds CQL's reserved keywords (Cassandra's ReservedKeywords),
// which must be quoted to be used as names.
var reserved = map[string]bool{
	"add": true, "allow": true, "alter": true, "and": true, "apply": true, "asc": true,
	"authorize": true, "batch": true, "begin": true, "by": true, "columnfamily": true,
	"create": true, "delete": true, "desc": true, "describe": true, "drop": true,
	"entries": true, "execute": true, "from": true, "full": true, "grant": true, "if": true,
	"in": true, "index": true, "infinity": true, "insert": true, "into": true, "is": true,
	"keyspace": true, "limit": true, "materialized": true, "mbean": true, "mbeans": true,
	"modify": true, "nan": true, "norecursive": true, "not": true, "null": true, "of": true,
	"on": true, "or": true, "order": true, "primary": true, "rename": true, "replace": true,
	"revoke": true, "schema": true, "select": true, "set": true, "table": true, "to": true,
	"token": true, "truncate": true, "unlogged": true, "unset": true, "update": true,
	"use": true, "using": true, "view": true, "where": true, "with": true,
}
