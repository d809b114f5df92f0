package cql

// Statement is one parsed CQL statement. The concrete types are the exported
// structs in this file; a type switch over them is the intended use.
type Statement interface{ statement() }

// Use is USE keyspace.
type Use struct{ Keyspace string }

// CreateKeyspace is CREATE KEYSPACE.
type CreateKeyspace struct {
	Name        string
	IfNotExists bool
	// Replication holds the replication map as written, values unquoted
	// (numbers keep their text), e.g. {"class": "SimpleStrategy", "replication_factor": "3"}.
	Replication map[string]string
	// DurableWrites defaults to true when the statement does not set it.
	DurableWrites bool
}

// DropKeyspace is DROP KEYSPACE.
type DropKeyspace struct {
	Name     string
	IfExists bool
}

// ColumnDef is a column of a table or a field of a user-defined type.
type ColumnDef struct {
	Name   string
	Type   *Type
	Static bool
}

// CreateTable is CREATE TABLE (or its synonym CREATE COLUMNFAMILY).
type CreateTable struct {
	Keyspace, Name string // Keyspace "" means the session keyspace
	IfNotExists    bool
	Columns        []ColumnDef
	PartitionKey   []string
	Clustering     []string
	// Desc marks clustering columns declared DESC in CLUSTERING ORDER BY.
	Desc map[string]bool
	// Options holds the other WITH options as raw source text keyed by the
	// lower-cased option name, e.g. "compaction": "{'class': 'LeveledCompactionStrategy'}".
	Options map[string]string
}

// DropTable is DROP TABLE.
type DropTable struct {
	Keyspace, Name string
	IfExists       bool
}

// AlterTable is ALTER TABLE … ADD or … DROP, of regular or static
// columns; its other forms (RENAME, WITH, ALTER … TYPE) are unsupported.
type AlterTable struct {
	Keyspace, Name string
	Add            []ColumnDef // ADD [IF NOT EXISTS] c type [, …] or ADD (…)
	Drop           []string    // DROP [IF EXISTS] c or DROP (c, …)
	// IfColumn: ADD IF NOT EXISTS or DROP IF EXISTS (Cassandra 4.1).
	IfColumn bool
}

// CreateType is CREATE TYPE.
type CreateType struct {
	Keyspace, Name string
	IfNotExists    bool
	Fields         []ColumnDef
}

// DropType is DROP TYPE.
type DropType struct {
	Keyspace, Name string
	IfExists       bool
}

// Truncate is TRUNCATE [TABLE].
type Truncate struct{ Keyspace, Table string }

// Insert is INSERT INTO, either with a column list and VALUES or with JSON.
type Insert struct {
	Keyspace, Table string
	Columns         []string
	Values          []Term
	IfNotExists     bool
	TTL, Timestamp  Term // nil when absent
	JSON            bool
	JSONValue       Term
	// DefaultUnset is INSERT JSON … DEFAULT UNSET (DEFAULT NULL is the default).
	DefaultUnset bool
}

// Update is UPDATE.
type Update struct {
	Keyspace, Table string
	TTL, Timestamp  Term
	Set             []Assignment
	Where           []Relation
	IfExists        bool
	// Conditions are the IF col = v AND … lightweight-transaction conditions.
	Conditions []Relation
}

// AssignOp says how an assignment in UPDATE … SET changes a column.
type AssignOp int

const (
	AssignSet     AssignOp = iota // c = v
	AssignAdd                     // c = c + v: counters, list append, set/map union
	AssignSub                     // c = c - v
	AssignPrepend                 // l = v + l
	AssignElement                 // m[k] = v, l[i] = v
)

// Assignment is one element of UPDATE … SET.
type Assignment struct {
	Column string
	Op     AssignOp
	Value  Term
	Key    Term // AssignElement only
	// Field is set for UDT field assignments (c.f = v); Op is AssignSet.
	Field string
}

// Delete is DELETE.
type Delete struct {
	Keyspace, Table string
	Columns         []string // empty means the whole row
	Timestamp       Term
	Where           []Relation
	IfExists        bool
	Conditions      []Relation
	// Elements holds, per entry of Columns, the selected element (DELETE m[k]),
	// or nil for a whole column. It is nil when no column has an element.
	Elements []Term
}

// SelectorKind says what a Selector selects.
type SelectorKind int

const (
	SelColumn    SelectorKind = iota // a column
	SelCount                         // count(*), count(1), COUNT(col)
	SelToken                         // token(a, b)
	SelWritetime                     // writetime(c)
	SelTTL                           // ttl(c)
	SelFunc                          // any other function, e.g. now(), toJson(x): Name + Args
)

// Selector is one element of a SELECT clause.
type Selector struct {
	Kind SelectorKind
	// Name is the column for SelColumn/SelWritetime/SelTTL, and the lower-cased
	// function name for SelCount/SelToken/SelFunc.
	Name string
	// Args are the column arguments of token()/functions; count(*) has ["*"],
	// count(1) has ["1"]. Literal arguments keep their source text.
	Args  []string
	Alias string // AS x
}

// Select is SELECT.
type Select struct {
	Keyspace, Table          string
	Star                     bool
	Selectors                []Selector
	Distinct, JSON           bool
	Where                    []Relation
	Limit, PerPartitionLimit Term // nil when absent
	AllowFiltering           bool
	OrderBy                  []OrderTerm
	GroupBy                  []string
	// Timeout is ScyllaDB's USING TIMEOUT, nil when absent; cqlsim
	// accepts it and answers within any timeout anyway.
	Timeout Term
}

// OrderTerm is one element of ORDER BY.
type OrderTerm struct {
	Column string
	Desc   bool
}

// RelOp is the operator of a WHERE relation.
type RelOp int

const (
	RelEq RelOp = iota
	RelIn
	RelLt
	RelLte
	RelGt
	RelGte
	RelContains
	RelContainsKey
	RelNeq
	RelLike
	RelIsNotNull
)

// Relation is one relation of a WHERE (or IF) clause.
type Relation struct {
	// Columns holds one column, or several for (a, b) tuple relations.
	Columns []string
	// Token marks token(cols) op term.
	Token bool
	Op    RelOp
	// Values holds the IN (…) list, or one element otherwise; IN ? is a single
	// BindMarker. A tuple relation (a, b) > (1, 2) has one TupleLit.
	Values []Term
	// Key is set for m[k] = v conditions (IF clauses).
	Key Term
}

// BatchType is the kind of a BATCH.
type BatchType int

const (
	LoggedBatch BatchType = iota
	UnloggedBatch
	CounterBatch
)

// Batch is BEGIN … BATCH … APPLY BATCH.
type Batch struct {
	Type       BatchType
	Timestamp  Term
	Statements []Statement // *Insert, *Update, *Delete
}

func (*Use) statement()            {}
func (*CreateKeyspace) statement() {}
func (*DropKeyspace) statement()   {}
func (*CreateTable) statement()    {}
func (*DropTable) statement()      {}
func (*AlterTable) statement()     {}
func (*CreateType) statement()     {}
func (*DropType) statement()       {}
func (*Truncate) statement()       {}
func (*Insert) statement()         {}
func (*Update) statement()         {}
func (*Delete) statement()         {}
func (*Select) statement()         {}
func (*Batch) statement()          {}

// Term is a value expression: a constant, a bind marker, a collection, tuple
// or UDT literal, or a function call.
type Term interface{ term() }

// ConstKind is the lexical kind of a Constant.
type ConstKind int

const (
	ConstString   ConstKind = iota // '…' or $$…$$
	ConstInteger                   // 42, -7
	ConstFloat                     // 1.5, -2e10
	ConstBoolean                   // true, false
	ConstUUID                      // unquoted 8-4-4-4-12 hex
	ConstHex                       // 0x…
	ConstDuration                  // 1h30m, P1D, P0001-02-03T04:05:06
	ConstNull                      // null
	ConstNaN                       // NaN
	ConstInfinity                  // Infinity, -Infinity
)

// Constant is a literal. Text is the literal without quotes and with doubled
// quotes unescaped; numbers keep their sign; booleans are lower-cased; hex keeps "0x".
type Constant struct {
	Kind ConstKind
	Text string
}

// BindMarker is ? or :name.
type BindMarker struct {
	// Index is 0-based in textual order across the whole statement, batch included.
	Index int
	Name  string // :name markers; "" for ?
}

// ListLit is [a, b].
type ListLit struct{ Elems []Term }

// SetLit is {a, b}. `{}` parses as an empty SetLit; EncodeTerm treats it as an
// empty map for map types.
type SetLit struct{ Elems []Term }

// MapLit is {k: v, …}.
type MapLit struct{ Keys, Values []Term }

// TupleLit is (a, b).
type TupleLit struct{ Elems []Term }

// UDTLit is {name: v, …} with identifier keys.
type UDTLit struct {
	Fields []string
	Values []Term
}

// FuncCall is a function call in a term position: now(), uuid(),
// toTimestamp(now()), currentTimestamp(), … Name is lower-cased unless quoted.
type FuncCall struct {
	Name string
	Args []Term
}

// TypeHint is a (type) term cast, e.g. (int)?, which Cassandra allows to type bind markers.
type TypeHint struct {
	Type *Type
	Term Term
}

func (*Constant) term()   {}
func (*BindMarker) term() {}
func (*ListLit) term()    {}
func (*SetLit) term()     {}
func (*MapLit) term()     {}
func (*TupleLit) term()   {}
func (*UDTLit) term()     {}
func (*FuncCall) term()   {}
func (*TypeHint) term()   {}
