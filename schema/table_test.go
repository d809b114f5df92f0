package schema

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/gocql/gocql"
)

func TestParseType(t *testing.T) {
	cases := []struct{ in, want string }{
		{"int", "int"},
		{"INT", "int"},
		{"varchar", "text"},
		{"frozen<map<text, list<int>>>", "frozen<map<text, list<int>>>"},
		{" map < text ,frozen< list<int> > > ", "map<text, frozen<list<int>>>"},
		{"set<frozen<tuple<int, text, uuid>>>", "set<frozen<tuple<int, text, uuid>>>"},
		{"vector<float, 3>", "vector<float, 3>"},
		{"vector<frozen<list<int>>,2>", "vector<frozen<list<int>>, 2>"},
		{"frozen<address>", "frozen<address>"},
		{"Address", "address"},
		{`frozen<"Address">`, `frozen<"Address">`},
		{"ks.address", "address"},
		{`"int"`, `"int"`},
		{`frozen<"list">`, `frozen<"list">`},
		{"'org.apache.cassandra.db.marshal.DynamicCompositeType'", "'org.apache.cassandra.db.marshal.DynamicCompositeType'"},
	}
	for _, tc := range cases {
		typ, err := ParseType(tc.in)
		if err != nil {
			t.Errorf("ParseType(%q): %v", tc.in, err)
			continue
		}
		if got := typ.String(); got != tc.want {
			t.Errorf("ParseType(%q).String() = %q, want %q", tc.in, got, tc.want)
		}
		again, err := ParseType(typ.String())
		if err != nil || !reflect.DeepEqual(again.String(), typ.String()) {
			t.Errorf("ParseType(%q) does not round-trip: %v, %v", typ.String(), again, err)
		}
	}

	typ, _ := ParseType("frozen<map<text, list<int>>>")
	if typ.Kind != KindMap || !typ.Frozen || typ.Elems[0].Kind != KindText || typ.Elems[1].Kind != KindList || typ.Elems[1].Elems[0].Kind != KindInt {
		t.Errorf("frozen<map<text, list<int>>> parsed as %+v", typ)
	}
	udt, _ := ParseType("ks.address")
	if udt.Kind != KindUDT || udt.Keyspace != "ks" || udt.Name != "address" || udt.Fields != nil {
		t.Errorf("ks.address parsed as %+v", udt)
	}
	vec, _ := ParseType("vector<float, 3>")
	if vec.Kind != KindVector || vec.Dim != 3 || vec.Elems[0].Kind != KindFloat {
		t.Errorf("vector<float, 3> parsed as %+v", vec)
	}
}

func TestParseTypeErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", `parse type "": expected a type name at end`},
		{"list<int", `parse type "list<int": expected '>' at end`},
		{"map<int>", `parse type "map<int>": map takes 2 type parameters, got 1`},
		{"list<int, int>", `parse type "list<int, int>": list takes 1 type parameters, got 2`},
		{"vector<float, 0>", `parse type "vector<float, 0>": vector dimension "0" is not a positive integer`},
		{"vector<float>", `parse type "vector<float>": expected ',' at offset 12, found '>'`},
		{"int>", `parse type "int>": unexpected ">" at offset 3`},
		{`"unterminated`, `parse type "\"unterminated": unterminated quoted name at offset 0`},
		{strings.Repeat("list<", 100) + "int" + strings.Repeat(">", 100), `parse type "` + strings.Repeat("list<", 100) + "int" + strings.Repeat(">", 100) + `": type nested deeper than 64`},
	}
	for _, tc := range cases {
		_, err := ParseType(tc.in)
		if err == nil || err.Error() != tc.want {
			t.Errorf("ParseType(%q) error = %v, want %s", tc.in, err, tc.want)
		}
	}
}

func TestIsText(t *testing.T) {
	for s, want := range map[string]bool{"text": true, "varchar": true, "ascii": true, "blob": false, "int": false, "list<text>": false} {
		if got := mustType(t, s).IsText(); got != want {
			t.Errorf("%s IsText() = %v, want %v", s, got, want)
		}
	}
}

func TestQuoteIdent(t *testing.T) {
	for in, want := range map[string]string{
		"abc": "abc", "a_1": "a_1", "Abc": `"Abc"`, "1a": `"1a"`, "select": `"select"`,
		"my col": `"my col"`, `a"b`: `"a""b"`, "": `""`, "token": `"token"`,
	} {
		if got := QuoteIdent(in); got != want {
			t.Errorf("QuoteIdent(%q) = %s, want %s", in, got, want)
		}
	}
}

// testTableMetadata is a table as the driver's metadata describes it: a
// composite partition key, two clustering columns given out of order, a
// static column, a case-sensitive name and a UDT.
func testTableMetadata() *gocql.KeyspaceMetadata {
	ks := testKeyspace()
	col := func(name, typ string, kind gocql.ColumnKind, pos int) *gocql.ColumnMetadata {
		return &gocql.ColumnMetadata{Keyspace: "ks", Table: "events", Name: name, Type: typ, Kind: kind, ComponentIndex: pos}
	}
	ks.Tables = map[string]*gocql.TableMetadata{
		"events": {Keyspace: "ks", Name: "events", Columns: map[string]*gocql.ColumnMetadata{
			"day":     col("day", "date", gocql.ColumnPartitionKey, 1),
			"sensor":  col("sensor", "uuid", gocql.ColumnPartitionKey, 0),
			"seq":     col("seq", "int", gocql.ColumnClusteringKey, 1),
			"at":      col("at", "timestamp", gocql.ColumnClusteringKey, 0),
			"value":   col("value", "double", gocql.ColumnRegular, 0),
			"Label":   col("Label", "text", gocql.ColumnRegular, 0),
			"where":   col("where", "frozen<address>", gocql.ColumnRegular, 0),
			"owner":   col("owner", "text", gocql.ColumnStatic, 0),
			"history": col("history", "list<frozen<map<text, frozen<person>>>>", gocql.ColumnRegular, 0),
		}},
		"hits": {Keyspace: "ks", Name: "hits", Columns: map[string]*gocql.ColumnMetadata{
			"page":  {Name: "page", Type: "text", Kind: gocql.ColumnPartitionKey},
			"n":     {Name: "n", Type: "counter", Kind: gocql.ColumnRegular},
			"bytes": {Name: "bytes", Type: "counter", Kind: gocql.ColumnRegular},
		}},
		"bad": {Keyspace: "ks", Name: "bad", Columns: map[string]*gocql.ColumnMetadata{
			"k": {Name: "k", Type: "frozen<nosuch>", Kind: gocql.ColumnPartitionKey},
		}},
	}
	return ks
}

func TestTableFromMetadata(t *testing.T) {
	tb, err := TableFromMetadata(testTableMetadata(), "events")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, c := range tb.Columns {
		if c.Index != i {
			t.Errorf("column %s Index = %d, want %d", c.Name, c.Index, i)
		}
		got = append(got, c.Name+" "+c.Type.String()+" "+c.Kind.String())
	}
	want := []string{
		"sensor uuid partition key",
		"day date partition key",
		"at timestamp clustering",
		"seq int clustering",
		"Label text regular",
		"history list<frozen<map<text, frozen<person>>>> regular",
		"owner text static",
		"value double regular",
		"where frozen<address> regular",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("columns:\n got %q\nwant %q", got, want)
	}
	if len(tb.PartitionKey) != 2 || tb.PartitionKey[1].Name != "day" || len(tb.Clustering) != 2 || tb.Clustering[0].Name != "at" {
		t.Errorf("keys: %v %v", tb.PartitionKey, tb.Clustering)
	}
	if tb.Counter {
		t.Error("events is not a counter table")
	}
	where, _ := tb.Column("where")
	if where == nil || len(where.Type.Fields) != 3 || where.Type.Fields[2].Type.String() != "frozen<set<text>>" || where.Type.Keyspace != "ks" {
		t.Errorf("UDT column not resolved: %+v", where)
	}
	hist, _ := tb.Column("history")
	person := hist.Type.Elems[0].Elems[1]
	if person.Name != "person" || len(person.Fields) != 4 || person.Fields[1].Type.Fields == nil {
		t.Errorf("nested UDT not resolved: %+v", person)
	}
	// Every column can get a converter.
	for _, c := range tb.Columns {
		if _, err := NewConverter(c.Type, DefaultFormats()); err != nil {
			t.Errorf("NewConverter(%s): %v", c.Type, err)
		}
	}

	hits, err := TableFromMetadata(testTableMetadata(), "HITS")
	if err != nil {
		t.Fatal(err)
	}
	if !hits.Counter || hits.Columns[1].Name != "bytes" {
		t.Errorf("hits: counter=%v columns=%v", hits.Counter, hits.Columns)
	}

	for _, tc := range []struct{ table, want string }{
		{"nosuch", "table ks.nosuch does not exist (keyspace ks has tables bad, events, hits)"},
		{`"HITS"`, `table ks."HITS" does not exist (keyspace ks has tables bad, events, hits)`},
		{"bad", "table ks.bad column k: user-defined type nosuch does not exist in keyspace ks"},
	} {
		_, err := TableFromMetadata(testTableMetadata(), tc.table)
		if err == nil || err.Error() != tc.want {
			t.Errorf("TableFromMetadata(%s) error = %v, want %s", tc.table, err, tc.want)
		}
	}
}

// TestNotFoundListsTables checks the list of tables a missing table's
// error gives: quoted as CQL needs, sorted, and only a count when long.
func TestNotFoundListsTables(t *testing.T) {
	withTables := func(names ...string) *gocql.KeyspaceMetadata {
		ks := &gocql.KeyspaceMetadata{Name: "ks", Tables: map[string]*gocql.TableMetadata{}}
		for _, n := range names {
			ks.Tables[n] = &gocql.TableMetadata{Keyspace: "ks", Name: n}
		}
		return ks
	}
	many := make([]string, MaxListed+1)
	for i := range many {
		many[i] = fmt.Sprintf("t%02d", i)
	}
	for _, tc := range []struct {
		name   string
		ks     *gocql.KeyspaceMetadata
		want   string
		listed []string
	}{
		{"none", withTables(), "table ks.nosuch does not exist (keyspace ks has no tables)", nil},
		{"quoted", withTables("b", "Upper", "a"), `table ks.nosuch does not exist (keyspace ks has tables "Upper", a, b)`, []string{`"Upper"`, "a", "b"}},
		{"exactly the limit", withTables(many[:MaxListed]...), "table ks.nosuch does not exist (keyspace ks has tables " + strings.Join(many[:MaxListed], ", ") + ")", many[:MaxListed]},
		{"too many", withTables(many...), fmt.Sprintf("table ks.nosuch does not exist (keyspace ks has %d tables)", MaxListed+1), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := TableFromMetadata(tc.ks, "nosuch")
			var nf *NotFoundError
			if !errors.As(err, &nf) {
				t.Fatalf("error %v (%T), want a *NotFoundError", err, err)
			}
			if err.Error() != tc.want {
				t.Errorf("error\n got %s\nwant %s", err, tc.want)
			}
			if !reflect.DeepEqual(nf.Existing, tc.listed) || nf.Count != len(tc.ks.Tables) {
				t.Errorf("Existing %q Count %d, want %q and %d", nf.Existing, nf.Count, tc.listed, len(tc.ks.Tables))
			}
		})
	}
}

func TestTableColumn(t *testing.T) {
	tb, err := TableFromMetadata(testTableMetadata(), "events")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, want string
	}{
		{"value", "value"},
		{"VALUE", "value"},
		{`"value"`, "value"},
		{`"VALUE"`, ""},
		{`"Label"`, "Label"},
		{"Label", "Label"},
		{"label", "Label"},
		{"nosuch", ""},
	} {
		c, ok := tb.Column(tc.name)
		got := ""
		if ok {
			got = c.Name
		}
		if got != tc.want {
			t.Errorf("Column(%s) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestNewTable(t *testing.T) {
	intT := &Type{Kind: KindInt}
	cnt := &Type{Kind: KindCounter}
	for _, tc := range []struct {
		name string
		cols []*Column
		want string
	}{
		{"no key", []*Column{{Name: "a", Type: intT}}, "table ks.t: no partition key column"},
		{"duplicate", []*Column{{Name: "a", Type: intT, Kind: PartitionKey}, {Name: "a", Type: intT}}, "table ks.t: column a appears twice"},
		{"mixed counters", []*Column{{Name: "k", Type: intT, Kind: PartitionKey}, {Name: "c", Type: cnt}, {Name: "v", Type: intT}}, "table ks.t: a table with counter columns can hold only counters besides its primary key"},
		{"no type", []*Column{{Name: "k", Kind: PartitionKey}}, "table ks.t: column k has no type\nno partition key column"},
	} {
		_, err := NewTable("ks", "t", tc.cols)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: error = %v, want %s", tc.name, err, tc.want)
		}
	}
}

func TestStatements(t *testing.T) {
	tb, err := TableFromMetadata(testTableMetadata(), "events")
	if err != nil {
		t.Fatal(err)
	}
	pick := func(names ...string) []*Column {
		var cs []*Column
		for _, n := range names {
			c, ok := tb.Column(n)
			if !ok {
				t.Fatalf("no column %s", n)
			}
			cs = append(cs, c)
		}
		return cs
	}
	stmt, binds := InsertStatement(tb, pick("sensor", "day", "at", "seq", "Label", "where"), Using{})
	if want := `INSERT INTO ks.events (sensor,day,at,seq,"Label","where") VALUES (?,?,?,?,?,?)`; stmt != want {
		t.Errorf("insert:\n got %s\nwant %s", stmt, want)
	}
	if want := []string{"sensor", "day", "at", "seq", "Label", "where"}; !reflect.DeepEqual(binds.Names(), want) {
		t.Errorf("insert names = %q, want %q", binds.Names(), want)
	}
	stmt, _ = InsertStatement(tb, pick("sensor", "day", "at", "seq"), Using{TTL: 3600})
	if want := `INSERT INTO ks.events (sensor,day,at,seq) VALUES (?,?,?,?) USING TTL 3600`; stmt != want {
		t.Errorf("insert with TTL:\n got %s\nwant %s", stmt, want)
	}
	stmt, binds = InsertStatement(tb, pick("sensor", "day"), Using{TTL: 3600, Timestamp: true})
	if want := `INSERT INTO ks.events (sensor,day) VALUES (?,?) USING TTL 3600 AND TIMESTAMP ?`; stmt != want {
		t.Errorf("insert with TTL and timestamp:\n got %s\nwant %s", stmt, want)
	}
	if want := []string{"sensor", "day", "USING TIMESTAMP"}; !reflect.DeepEqual(binds.Names(), want) {
		t.Errorf("insert with timestamp: names = %q, want %q", binds.Names(), want)
	}
	// Each row's TTL and write timestamp (--ttl-field, --writetime-field).
	stmt, binds = InsertStatement(tb, pick("sensor", "day"), Using{TTL: 3600, TTLBound: true, Timestamp: true})
	if want := `INSERT INTO ks.events (sensor,day) VALUES (?,?) USING TTL ? AND TIMESTAMP ?`; stmt != want {
		t.Errorf("insert with TTL and timestamp bound:\n got %s\nwant %s", stmt, want)
	}
	if want := []string{"sensor", "day", "USING TTL", "USING TIMESTAMP"}; !reflect.DeepEqual(binds.Names(), want) || binds.TTL() != 2 || binds.Timestamp() != 3 {
		t.Errorf("insert with TTL and timestamp bound: names = %q, TTL at %d, timestamp at %d; want %q, 2, 3", binds.Names(), binds.TTL(), binds.Timestamp(), want)
	}

	tup, err := NewTable("ks", "t", []*Column{
		{Name: "k", Type: mustType(t, "frozen<tuple<int, text>>"), Kind: PartitionKey},
		{Name: "v", Type: mustType(t, "tuple<int, frozen<tuple<text, text>>, blob>")},
		{Name: "l", Type: mustType(t, "list<frozen<tuple<int, int>>>")},
	})
	if err != nil {
		t.Fatal(err)
	}
	stmt, binds = InsertStatement(tup, tup.Columns, Using{})
	if want := `INSERT INTO ks.t (k,l,v) VALUES ((?,?),?,(?,?,?))`; stmt != want {
		t.Errorf("insert with tuples:\n got %s\nwant %s", stmt, want)
	}
	if want := []string{"k[0]", "k[1]", "l", "v[0]", "v[1]", "v[2]"}; !reflect.DeepEqual(binds.Names(), want) {
		t.Errorf("insert with tuples: names = %q, want %q", binds.Names(), want)
	}

	odd, err := NewTable("My KS", "Hits", []*Column{
		{Name: "page", Type: &Type{Kind: KindText}, Kind: PartitionKey},
		{Name: "day", Type: &Type{Kind: KindDate}, Kind: Clustering},
		{Name: "n", Type: &Type{Kind: KindCounter}},
		{Name: "Bytes", Type: &Type{Kind: KindCounter}},
	})
	if err != nil {
		t.Fatal(err)
	}
	stmt, binds = CounterStatement(odd, odd.Columns)
	if want := `UPDATE "My KS"."Hits" SET "Bytes"="Bytes"+?,n=n+? WHERE page=? AND day=?`; stmt != want {
		t.Errorf("counter:\n got %s\nwant %s", stmt, want)
	}
	if want := []string{"Bytes", "n", "page", "day"}; !reflect.DeepEqual(binds.Names(), want) {
		t.Errorf("counter names = %q, want %q", binds.Names(), want)
	}
}

func TestCounterStatementTupleKey(t *testing.T) {
	tb, err := NewTable("ks", "c", []*Column{
		{Name: "k", Type: mustType(t, "frozen<tuple<int, text>>"), Kind: PartitionKey},
		{Name: "n", Type: &Type{Kind: KindCounter}},
	})
	if err != nil {
		t.Fatal(err)
	}
	stmt, binds := CounterStatement(tb, tb.Columns)
	if want := `UPDATE ks.c SET n=n+? WHERE k=(?,?)`; stmt != want {
		t.Errorf("got %s, want %s", stmt, want)
	}
	if want := []string{"n", "k[0]", "k[1]"}; !reflect.DeepEqual(binds.Names(), want) {
		t.Errorf("names = %q, want %q", binds.Names(), want)
	}
}

func TestSplitTuple(t *testing.T) {
	conv, err := NewConverter(mustType(t, "tuple<int, text, blob>"), DefaultFormats())
	if err != nil {
		t.Fatal(err)
	}
	b, err := conv(nil, []byte("(7, null, 0xab)"))
	if err != nil {
		t.Fatal(err)
	}
	parts, err := SplitTuple(nil, b, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]byte{{0, 0, 0, 7}, nil, {0xab}}; !reflect.DeepEqual(parts, want) {
		t.Errorf("parts = %x, want %x", parts, want)
	}
	for _, tc := range []struct {
		b    []byte
		n    int
		want string
	}{
		{b, 4, "tuple element 4: value ends after 3 of 4 elements"},
		{b, 2, "5 bytes after the 2 tuple elements"},
		{[]byte{0, 0, 0, 9, 1}, 1, "tuple element 1: length 9, 1 bytes left"},
	} {
		if _, err := SplitTuple(nil, tc.b, tc.n); err == nil || err.Error() != tc.want {
			t.Errorf("SplitTuple(%x, %d) error = %v, want %s", tc.b, tc.n, err, tc.want)
		}
	}
}

func TestNewColumnConverterKeySize(t *testing.T) {
	f := DefaultFormats()
	long := strings.Repeat("x", MaxKeyComponentSize+1)
	for _, tc := range []struct {
		kind ColumnKind
		in   string
		want string
	}{
		{PartitionKey, long, `invalid text "` + strings.Repeat("x", 64) + `…": 65536 bytes, more than the 65535 a primary key column can hold`},
		{Clustering, long, `invalid text "` + strings.Repeat("x", 64) + `…": 65536 bytes, more than the 65535 a primary key column can hold`},
		{PartitionKey, long[1:], ""},
		{Regular, long, ""},
		{Static, long, ""},
	} {
		conv, err := NewColumnConverter(&Column{Name: "c", Type: &Type{Kind: KindText}, Kind: tc.kind}, f)
		if err != nil {
			t.Fatal(err)
		}
		out, err := conv([]byte{1}, []byte(tc.in))
		got := ""
		if err != nil {
			got = err.Error()
			var ke *KeySizeError
			if !errors.As(err, &ke) || len(out) != 1 {
				t.Errorf("%v: error %v is not a KeySizeError, or dst grew to %d", tc.kind, err, len(out))
			}
		}
		if got != tc.want {
			t.Errorf("%v %d bytes: error %q, want %q", tc.kind, len(tc.in), got, tc.want)
		}
	}
	if _, err := NewColumnConverter(&Column{Name: "c", Type: &Type{Kind: KindCustom, Name: "x.Y"}}, f); err == nil || err.Error() != "column c: cannot load values of custom type 'x.Y'" {
		t.Errorf("custom type: error %v", err)
	}
}

// TestNamedAndIdent: the column a header name or a column list's
// identifier stands for in a table whose names differ only in case, or
// look like quoted identifiers. The exact name wins; a name only case
// folding matches to two columns is an error naming both.
func TestNamedAndIdent(t *testing.T) {
	tb, err := NewTable("ks", "t", []*Column{
		{Name: "k", Type: &Type{Kind: KindInt}, Kind: PartitionKey},
		{Name: "Val", Type: &Type{Kind: KindInt}},
		{Name: "val", Type: &Type{Kind: KindInt}},
		{Name: "Mixed", Type: &Type{Kind: KindInt}},
		{Name: `"q"`, Type: &Type{Kind: KindInt}},
		{Name: "a,b", Type: &Type{Kind: KindInt}},
		{Name: "Up", Type: &Type{Kind: KindInt}},
		{Name: "UP", Type: &Type{Kind: KindInt}},
	})
	if err != nil {
		t.Fatal(err)
	}
	const ambiguous = "ambiguous"
	for _, tc := range []struct {
		name         string
		named, ident string // the column found, "" for none, or ambiguous
	}{
		{"Val", "Val", "val"},
		{"val", "val", "val"},
		{"VAL", ambiguous, "val"},
		{"vAl", ambiguous, "val"},
		{`"Val"`, "Val", "Val"},
		{`"VAL"`, "", ""},
		{"mixed", "Mixed", "Mixed"},
		{"MIXED", "Mixed", "Mixed"},
		{`"mixed"`, "", ""},
		{`"q"`, `"q"`, ""},
		{`"""q"""`, `"q"`, `"q"`},
		{"q", "", ""},
		{"a,b", "a,b", "a,b"},
		{"A,B", "a,b", "a,b"},
		{"Up", "Up", "Up"},
		{"UP", "UP", "UP"},
		{"up", ambiguous, ambiguous},
		{`"up"`, "", ""},
		{"nosuch", "", ""},
	} {
		check := func(how string, c *Column, err error, want string) {
			t.Helper()
			var ae *AmbiguousError
			switch {
			case want == ambiguous:
				if !errors.As(err, &ae) || len(ae.Columns) != 2 || !strings.Contains(err.Error(), ae.Columns[0]) || !strings.Contains(err.Error(), ae.Columns[1]) {
					t.Errorf("%s(%s) = %v, %v; want an error naming both columns", how, tc.name, c, err)
				}
			case want == "":
				if !errors.Is(err, ErrNoColumn) {
					t.Errorf("%s(%s) = %v, %v; want ErrNoColumn", how, tc.name, c, err)
				}
			case err != nil || c.Name != want:
				t.Errorf("%s(%s) = %v, %v; want %s", how, tc.name, c, err, want)
			}
		}
		c, err := tb.Named(tc.name)
		check("Named", c, err, tc.named)
		c, err = tb.Ident(tc.name)
		check("Ident", c, err, tc.ident)
	}
}
