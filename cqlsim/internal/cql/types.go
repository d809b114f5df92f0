package cql

import (
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

// ParseType parses a CQL type such as "frozen<map<text, list<int>>>",
// "vector<float, 3>", a UDT name (quoted or not) or "varchar".
func ParseType(s string) (*Type, error) { panic("todo") }

// String renders t exactly as Cassandra 4 writes it in system_schema.columns.type.
func (t *Type) String() string { panic("todo") }

// ResolveUDTs replaces UDT references (by name) with their definitions from
// lookup, recursively; it fails if a UDT is unknown.
func (t *Type) ResolveUDTs(keyspace string, lookup func(keyspace, name string) (*Type, bool)) (*Type, error) {
	panic("todo")
}

// DataType is the protocol representation of t for result and prepared metadata.
func (t *Type) DataType() datatype.DataType { panic("todo") }
