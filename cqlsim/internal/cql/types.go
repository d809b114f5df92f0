package cql

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/datastax/go-cassandra-native-protocol/datatype"
)

// Kind is the kind of a CQL type.
type Kind int

const (
	Ascii Kind = iota
	Bigint
	Blob
	Boolean
	Counter
	Date
	Decimal
	Double
	Duration
	Float
	Inet
	Int
	Smallint
	Text // varchar is an alias
	Time
	Timestamp
	Timeuuid
	Tinyint
	Uuid
	Varint
	List
	Set
	Map
	Tuple
	UDT
	Vector
	Custom
)

// Type is a CQL type.
type Type struct {
	Kind Kind
	// Elems: list/set/vector [elem]; map [key, value]; tuple its items.
	Elems  []*Type
	Frozen bool
	// Keyspace, Name: for UDT its name (Keyspace "" until resolved); for Custom the class name in Name.
	Keyspace, Name string
	// Fields are the UDT's fields, filled in by ResolveUDTs.
	Fields []Field
	// Dim is the vector dimension.
	Dim int
}

// Field is a named field of a UDT.
type Field struct {
	Name string
	Type *Type
}

var nativeKinds = map[string]Kind{
	"ascii": Ascii, "bigint": Bigint, "blob": Blob, "boolean": Boolean, "counter": Counter,
	"date": Date, "decimal": Decimal, "double": Double, "duration": Duration, "float": Float,
	"inet": Inet, "int": Int, "smallint": Smallint, "text": Text, "varchar": Text, "time": Time,
	"timestamp": Timestamp, "timeuuid": Timeuuid, "tinyint": Tinyint, "uuid": Uuid, "varint": Varint,
}

var kindNames = [...]string{
	Ascii: "ascii", Bigint: "bigint", Blob: "blob", Boolean: "boolean", Counter: "counter",
	Date: "date", Decimal: "decimal", Double: "double", Duration: "duration", Float: "float",
	Inet: "inet", Int: "int", Smallint: "smallint", Text: "text", Time: "time",
	Timestamp: "timestamp", Timeuuid: "timeuuid", Tinyint: "tinyint", Uuid: "uuid", Varint: "varint",
	List: "list", Set: "set", Map: "map", Tuple: "tuple", UDT: "udt", Vector: "vector", Custom: "custom",
}

// native reports whether k is a built-in scalar type; they are the kinds
// declared before List.
func (k Kind) native() bool { return k >= 0 && k < List }

func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// ParseType parses a CQL type such as "frozen<map<text, list<int>>>",
// "vector<float, 3>", a UDT name (quoted or not, optionally keyspace-qualified)
// or "varchar" (which becomes text). Tuples are always frozen, as in Cassandra 4.
func ParseType(s string) (*Type, error) {
	toks, err := lex(s)
	if err != nil {
		return nil, err
	}
	p := &parser{src: s, toks: toks}
	var t *Type
	err = p.guard(func() {
		t = p.typ()
		if p.peek().kind != tEOF {
			p.failExpecting("end of type")
		}
	})
	if err != nil {
		return nil, fmt.Errorf("invalid type %q: %w", s, err)
	}
	return t, nil
}

// typ parses a type at the current position.
func (p *parser) typ() *Type {
	p.enter()
	defer p.leave()
	t := p.peek()
	if t.kind == tString {
		p.i++
		return &Type{Kind: Custom, Name: t.val}
	}
	if t.kind == tIdent {
		if k, ok := nativeKinds[t.val]; ok {
			p.i++
			return &Type{Kind: k}
		}
		switch t.val {
		case "frozen", "list", "set", "map", "tuple", "vector":
			p.i++
			p.expectPunct("<")
			typ := p.typeArgs(t)
			p.expectPunct(">")
			return typ
		}
	}
	ks, name := p.qualifiedName()
	return &Type{Kind: UDT, Keyspace: ks, Name: name}
}

// typeArgs parses the arguments of a parameterized type after its '<'.
func (p *parser) typeArgs(t token) *Type {
	switch t.val {
	case "frozen":
		inner := p.typ()
		if !inner.supportsFreezing() {
			panic(p.errAt(t, "frozen<> is only allowed on collections, tuples, and user-defined types (got %s)", inner))
		}
		inner.freeze()
		return inner
	case "list", "set":
		k := List
		if t.val == "set" {
			k = Set
		}
		return &Type{Kind: k, Elems: []*Type{p.typ()}}
	case "map":
		key := p.typ()
		p.expectPunct(",")
		return &Type{Kind: Map, Elems: []*Type{key, p.typ()}}
	case "tuple":
		elems := []*Type{p.typ()}
		for p.acceptPunct(",") {
			elems = append(elems, p.typ())
		}
		tuple := &Type{Kind: Tuple, Elems: elems}
		tuple.freeze()
		return tuple
	default: // vector
		elem := p.typ()
		p.expectPunct(",")
		dt := p.peek()
		if dt.kind != tInteger {
			p.failExpecting("vector dimension")
		}
		p.i++
		n, err := strconv.Atoi(dt.val)
		if err != nil || n <= 0 {
			panic(p.errAt(dt, "vectors must have a dimension greater than 0"))
		}
		return &Type{Kind: Vector, Elems: []*Type{elem}, Dim: n}
	}
}

// String renders t exactly as Cassandra 4 writes it in
// system_schema.columns.type: "frozen<map<text, list<int>>>", "text" for
// varchar, a UDT by its bare (quoted if needed) name.
func (t *Type) String() string {
	var b strings.Builder
	t.write(&b)
	return b.String()
}

func (t *Type) write(b *strings.Builder) {
	if t.Kind.native() {
		b.WriteString(kindNames[t.Kind])
		return
	}
	switch t.Kind {
	case Custom:
		b.WriteString("'" + strings.ReplaceAll(t.Name, "'", "''") + "'")
		return
	case Vector:
		b.WriteString("vector<")
		t.Elems[0].write(b)
		b.WriteString(", " + strconv.Itoa(t.Dim) + ">")
		return
	}
	if t.Frozen {
		b.WriteString("frozen<")
	}
	if t.Kind == UDT {
		b.WriteString(quoteTypeName(t.Name))
	} else {
		b.WriteString(kindNames[t.Kind])
		b.WriteByte('<')
		for i, e := range t.Elems {
			if i > 0 {
				b.WriteString(", ")
			}
			e.write(b)
		}
		b.WriteByte('>')
	}
	if t.Frozen {
		b.WriteByte('>')
	}
}

// QuoteIdent returns name as CQL source: bare if it is a lower-case
// identifier that is not a reserved keyword, else double-quoted.
func QuoteIdent(name string) string {
	plain := name != "" && !reserved[name] && name[0] >= 'a' && name[0] <= 'z'
	for i := 0; plain && i < len(name); i++ {
		c := name[i]
		plain = c >= 'a' && c <= 'z' || isDigit(c) || c == '_'
	}
	if plain {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

func (t *Type) supportsFreezing() bool {
	switch t.Kind {
	case List, Set, Map, Tuple, UDT, Vector:
		return true
	}
	return false
}

// freeze makes t frozen the way Cassandra does: deeply, so that
// frozen<map<text, list<int>>> is stored as frozen<map<text, frozen<list<int>>>>.
// Tuples are always frozen; vectors are never multi-cell and are left as they are.
func (t *Type) freeze() {
	if t.Kind == Vector {
		return
	}
	t.Frozen = true
	if t.Kind == UDT {
		return
	}
	for _, e := range t.Elems {
		if e.supportsFreezing() {
			e.freeze()
		}
	}
}

// Check reports what Cassandra refuses in a column or field type:
// non-frozen collections or UDTs inside collections, counters inside
// collections, durations in sets or as map keys. The messages are Cassandra's.
func (t *Type) Check() error {
	switch t.Kind {
	case List, Set, Map:
		for _, e := range t.Elems {
			if t.Frozen || e.Frozen || e.Kind == Vector || e.Kind == Tuple {
				continue
			}
			if e.IsCollection() {
				return cassandraError("Non-frozen collections are not allowed inside collections", t)
			}
			if e.Kind == UDT {
				return cassandraError("Non-frozen UDTs are not allowed inside collections", t)
			}
		}
		for _, e := range t.Elems {
			if e.Kind == Counter {
				return cassandraError("Counters are not allowed inside collections", t)
			}
		}
		if t.Kind == Set && t.Elems[0].Kind == Duration {
			return cassandraError("Durations are not allowed inside sets", t)
		}
		if t.Kind == Map && t.Elems[0].Kind == Duration {
			return cassandraError("Durations are not allowed as map keys", t)
		}
	}
	for _, e := range t.Elems {
		if err := e.Check(); err != nil {
			return err
		}
	}
	return nil
}

// cassandraError formats "<message>: <type>" keeping Cassandra's capitalised
// wording, which reaches clients verbatim in error frames.
func cassandraError(msg string, t *Type) error {
	return errors.New(msg + ": " + t.String())
}

// quoteTypeName quotes a UDT name that would otherwise read as a built-in type.
func quoteTypeName(name string) string {
	if _, native := nativeKinds[name]; native {
		return `"` + name + `"`
	}
	switch name {
	case "frozen", "list", "set", "map", "tuple", "vector":
		return `"` + name + `"`
	}
	return QuoteIdent(name)
}

// IsCollection reports whether t is a list, set or map.
func (t *Type) IsCollection() bool { return t.Kind == List || t.Kind == Set || t.Kind == Map }

// IsMultiCell reports whether t is a non-frozen collection or UDT, whose
// elements Cassandra stores (and updates) separately.
func (t *Type) IsMultiCell() bool {
	return !t.Frozen && (t.IsCollection() || t.Kind == UDT)
}

// ResolveUDTs returns a copy of t in which every UDT reference is replaced by
// its definition from lookup (a Type of Kind UDT with Fields), recursively.
// References without a keyspace are looked up in keyspace. It fails if a UDT
// is unknown.
func (t *Type) ResolveUDTs(keyspace string, lookup func(keyspace, name string) (*Type, bool)) (*Type, error) {
	return t.resolve(keyspace, lookup, 0)
}

// maxTypeDepth bounds resolution so that a (malformed) self-referencing UDT
// set cannot recurse forever.
const maxTypeDepth = 64

func (t *Type) resolve(keyspace string, lookup func(keyspace, name string) (*Type, bool), depth int) (*Type, error) {
	if depth > maxTypeDepth {
		return nil, fmt.Errorf("type %s nests too deeply (recursive user type?)", t)
	}
	c := *t
	if t.Kind == UDT {
		ks := t.Keyspace
		if ks == "" {
			ks = keyspace
		}
		def, ok := lookup(ks, t.Name)
		if !ok || def == nil {
			return nil, fmt.Errorf("unknown type %s.%s", ks, t.Name)
		}
		c.Keyspace = ks
		c.Fields = make([]Field, len(def.Fields))
		for i, f := range def.Fields {
			ft, err := f.Type.resolve(ks, lookup, depth+1)
			if err != nil {
				return nil, fmt.Errorf("field %s of %s.%s: %w", f.Name, ks, t.Name, err)
			}
			c.Fields[i] = Field{Name: f.Name, Type: ft}
		}
		return &c, nil
	}
	if t.Elems != nil {
		c.Elems = make([]*Type, len(t.Elems))
		for i, e := range t.Elems {
			r, err := e.resolve(keyspace, lookup, depth+1)
			if err != nil {
				return nil, err
			}
			c.Elems[i] = r
		}
	}
	return &c, nil
}

var primitiveDataTypes = [...]datatype.DataType{
	Ascii: datatype.Ascii, Bigint: datatype.Bigint, Blob: datatype.Blob, Boolean: datatype.Boolean,
	Counter: datatype.Counter, Date: datatype.Date, Decimal: datatype.Decimal, Double: datatype.Double,
	Duration: datatype.Duration, Float: datatype.Float, Inet: datatype.Inet, Int: datatype.Int,
	Smallint: datatype.Smallint, Text: datatype.Varchar, Time: datatype.Time, Timestamp: datatype.Timestamp,
	Timeuuid: datatype.Timeuuid, Tinyint: datatype.Tinyint, Uuid: datatype.Uuid, Varint: datatype.Varint,
}

// marshalClasses name Cassandra's marshal classes, for the custom type string of vectors.
var marshalClasses = [...]string{
	Ascii: "AsciiType", Bigint: "LongType", Blob: "BytesType", Boolean: "BooleanType",
	Counter: "CounterColumnType", Date: "SimpleDateType", Decimal: "DecimalType", Double: "DoubleType",
	Duration: "DurationType", Float: "FloatType", Inet: "InetAddressType", Int: "Int32Type",
	Smallint: "ShortType", Text: "UTF8Type", Time: "TimeType", Timestamp: "TimestampType",
	Timeuuid: "TimeUUIDType", Tinyint: "ByteType", Uuid: "UUIDType", Varint: "IntegerType",
}

// DataType is the protocol representation of t for result and prepared
// metadata. Vectors travel as the custom type
// "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType , 3)".
// A UDT must have been resolved (ResolveUDTs) to carry its fields.
func (t *Type) DataType() datatype.DataType {
	if t.Kind.native() {
		return primitiveDataTypes[t.Kind]
	}
	switch t.Kind {
	case List:
		return datatype.NewList(t.Elems[0].DataType())
	case Set:
		return datatype.NewSet(t.Elems[0].DataType())
	case Map:
		return datatype.NewMap(t.Elems[0].DataType(), t.Elems[1].DataType())
	case Tuple:
		elems := make([]datatype.DataType, len(t.Elems))
		for i, e := range t.Elems {
			elems[i] = e.DataType()
		}
		return datatype.NewTuple(elems...)
	case UDT:
		names := make([]string, len(t.Fields))
		types := make([]datatype.DataType, len(t.Fields))
		for i, f := range t.Fields {
			names[i], types[i] = f.Name, f.Type.DataType()
		}
		// NewUserDefined only fails when the two slices differ in length.
		udt, _ := datatype.NewUserDefined(t.Keyspace, t.Name, names, types)
		return udt
	case Vector:
		return datatype.NewCustom(t.marshalClass(false))
	}
	return datatype.NewCustom(t.Name)
}

// marshalClass is the fully qualified Cassandra marshal class of t, as
// AbstractType.toString writes it in custom type strings: a frozen collection,
// tuple or UDT is wrapped in FrozenType unless an enclosing frozen type
// already is (ignoreFreezing), as Cassandra's TypeParser does.
func (t *Type) marshalClass(ignoreFreezing bool) string {
	const pkg = "org.apache.cassandra.db.marshal."
	switch t.Kind {
	case Custom:
		return t.Name
	case Vector:
		// " , " is Cassandra's spelling (TypeParser.stringifyVectorParameters);
		// drivers trim the spaces.
		return pkg + "VectorType(" + t.Elems[0].marshalClass(ignoreFreezing) + " , " + strconv.Itoa(t.Dim) + ")"
	}
	if t.Kind.native() {
		return pkg + marshalClasses[t.Kind]
	}
	frozen := !t.IsMultiCell()
	inner := ignoreFreezing || frozen
	var b strings.Builder
	if frozen && !ignoreFreezing {
		b.WriteString(pkg + "FrozenType(")
	}
	if t.Kind == UDT {
		b.WriteString(pkg + "UserType(" + t.Keyspace + "," + hex.EncodeToString([]byte(t.Name)))
		for _, f := range t.Fields {
			b.WriteString("," + hex.EncodeToString([]byte(f.Name)) + ":" + f.Type.marshalClass(inner))
		}
	} else {
		b.WriteString(pkg + map[Kind]string{List: "ListType", Set: "SetType", Map: "MapType", Tuple: "TupleType"}[t.Kind] + "(")
		for i, e := range t.Elems {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(e.marshalClass(inner))
		}
	}
	b.WriteByte(')')
	if frozen && !ignoreFreezing {
		b.WriteByte(')')
	}
	return b.String()
}
