package schema_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlload/cqlload/cqlsim"
	"github.com/cqlload/cqlload/schema"
)

// These tests read schemas and write values through the real driver against
// the in-process simulator, which lays out system_schema as Cassandra 4 does
// and validates values as Cassandra does.

const simSchema = `
CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE TYPE ks.address (street text, no int, tags frozen<set<text>>);
CREATE TYPE ks."Person" (name text, home frozen<address>);
CREATE TABLE ks.every (
	k int, "Ck" text, a ascii, bi bigint, bl blob, bo boolean, da date, de decimal,
	do double, du duration, fl float, ip inet, si smallint, te text, ti time,
	ts timestamp, tu timeuuid, tiny tinyint, id uuid, vc varchar, vi varint,
	li list<int>, se set<text>, ma map<text, frozen<list<int>>>, tp tuple<int, text>,
	ad frozen<address>, pe frozen<"Person">, st text static,
	ve vector<float, 3>, vt vector<text, 2>,
	PRIMARY KEY ((k), "Ck"));
CREATE TABLE ks.hits (page text, day date, n counter, PRIMARY KEY (page, day));
`

func startSim(t *testing.T) *gocql.Session { return startSimWith(t, simSchema) }

func startSimWith(t *testing.T, script string) *gocql.Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := cqlsim.Start(ctx, cqlsim.Config{Seed: 1, Schema: []string{script}})
	if err != nil {
		t.Fatalf("start cqlsim: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	cluster := gocql.NewCluster(c.Hosts()...)
	cluster.Port = c.Port()
	cluster.ProtoVersion = 4
	cluster.Timeout = 5 * time.Second
	cluster.ConnectTimeout = 5 * time.Second
	s, err := cluster.CreateSession()
	if err != nil {
		t.Fatalf("connect to cqlsim: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

func TestLoadTableFromCluster(t *testing.T) {
	s := startSim(t)
	tb, err := schema.LoadTable(s, "ks", "every")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range tb.Columns {
		got = append(got, c.Name+" "+c.Type.String())
	}
	want := []string{
		"k int", "Ck text", "a ascii", "ad frozen<address>", "bi bigint", "bl blob", "bo boolean",
		"da date", "de decimal", "do double", "du duration", "fl float", "id uuid", "ip inet",
		"li list<int>", "ma map<text, frozen<list<int>>>", `pe frozen<"Person">`, "se set<text>",
		"si smallint", "st text", "te text", "ti time", "tiny tinyint", "tp frozen<tuple<int, text>>",
		"ts timestamp", "tu timeuuid", "vc text", "ve vector<float, 3>", "vi varint", "vt vector<text, 2>",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("columns:\n got %q\nwant %q", got, want)
	}
	pe, _ := tb.Column("pe")
	if f := pe.Type.Fields; len(f) != 2 || f[1].Type.Name != "address" || len(f[1].Type.Fields) != 3 {
		t.Errorf("Person not resolved: %+v", pe.Type)
	}
	if st, _ := tb.Column("st"); st.Kind != schema.Static {
		t.Errorf("st is %v, want static", st.Kind)
	}

	hits, err := schema.LoadTable(s, "KS", "Hits")
	if err != nil {
		t.Fatal(err)
	}
	if !hits.Counter || len(hits.Clustering) != 1 {
		t.Errorf("hits: counter %v, clustering %v", hits.Counter, hits.Clustering)
	}

	for _, tc := range []struct{ ks, table, want string }{
		{"nosuch", "every", "keyspace nosuch does not exist (the cluster has keyspaces ks)"},
		{"ks", "nosuch", "table ks.nosuch does not exist (keyspace ks has tables every, hits)"},
		{`"KS"`, "every", `keyspace "KS" does not exist (the cluster has keyspaces ks)`},
	} {
		_, err := schema.LoadTable(s, tc.ks, tc.table)
		if err == nil || err.Error() != tc.want {
			t.Errorf("LoadTable(%s, %s) error = %v, want %s", tc.ks, tc.table, err, tc.want)
		}
	}
}

// TestLoadTableListsKeyspaces checks that a missing keyspace's error lists
// the cluster's user keyspaces, never the system ones, and gives only their
// number when they are many.
func TestLoadTableListsKeyspaces(t *testing.T) {
	keyspaces := func(names ...string) string {
		var b strings.Builder
		for _, n := range names {
			fmt.Fprintf(&b, "CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\n", n)
		}
		return b.String()
	}
	many := make([]string, schema.MaxListed+1)
	for i := range many {
		many[i] = fmt.Sprintf("ks%02d", i)
	}
	for _, tc := range []struct {
		name, script, want string
	}{
		{"none", "", "keyspace nosuch does not exist (the cluster has no keyspaces besides the system ones)"},
		{"few", keyspaces("sales", `"Sales"`, "archive"), `keyspace nosuch does not exist (the cluster has keyspaces "Sales", archive, sales)`},
		{"exactly the limit", keyspaces(many[:schema.MaxListed]...),
			"keyspace nosuch does not exist (the cluster has keyspaces " + strings.Join(many[:schema.MaxListed], ", ") + ")"},
		{"too many", keyspaces(many...), fmt.Sprintf("keyspace nosuch does not exist (the cluster has %d keyspaces)", schema.MaxListed+1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startSimWith(t, tc.script)
			_, err := schema.LoadTable(s, "nosuch", "t")
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error\n got %v\nwant %s", err, tc.want)
			}
			var nf *schema.NotFoundError
			if !errors.As(err, &nf) || !errors.Is(err, gocql.ErrKeyspaceDoesNotExist) {
				t.Errorf("error %T is not a *NotFoundError wrapping gocql.ErrKeyspaceDoesNotExist", err)
			}
		})
	}
}

// raw hands the driver bytes a converter produced.
type raw []byte

func (r raw) MarshalCQL(gocql.TypeInfo) ([]byte, error) { return r, nil }

func TestConvertedValuesWriteAndReadBack(t *testing.T) {
	s := startSim(t)
	tb, err := schema.LoadTable(s, "ks", "every")
	if err != nil {
		t.Fatal(err)
	}
	fields := map[string]string{
		"k": "1", "Ck": "c", "a": "ascii", "bi": "-9223372036854775808", "bl": "0xcafe",
		"bo": "True", "da": "2020-02-29", "de": "-1.50", "do": "2.5", "du": "1mo2d3h",
		"fl": "-0.5", "ip": "::1", "si": "-32768", "te": "tëxt", "ti": "12:34:56.789",
		"ts": "2020-01-02 03:04:05.678+0100", "tu": "d2177dd0-eaa2-11de-a572-001b779c76e3",
		"tiny": "127", "id": "01234567-89ab-cdef-0123-456789abcdef", "vc": "v",
		"vi": "-123456789012345678901234567890", "li": "[3, 1, 2]", "se": "{'b', 'a'}",
		"ma": "{'x': [1, 2], 'y': []}", "tp": "(1, null)",
		"ad": "{street: 'Main', no: 3, tags: {'t'}}", "pe": `{name: 'Ann', home: {no: 7}}`,
		"st": "static", "ve": "[1.5, -2, 0]", "vt": "['a', 'bc']",
	}
	cols := tb.Columns
	stmt, binds := schema.InsertStatement(tb, cols, schema.Using{})
	var values []any
	for _, c := range cols {
		conv, err := schema.NewConverter(c.Type, schema.DefaultFormats())
		if err != nil {
			t.Fatal(err)
		}
		b, err := conv(nil, []byte(fields[c.Name]))
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if c.Type.Kind != schema.KindTuple {
			values = append(values, raw(b))
			continue
		}
		parts, err := schema.SplitTuple(nil, b, len(c.Type.Elems))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range parts {
			if p == nil {
				values = append(values, nil)
			} else {
				values = append(values, raw(p))
			}
		}
	}
	if len(values) != len(binds) {
		t.Fatalf("%d values for %d binds %q", len(values), len(binds), binds.Names())
	}
	if err := s.Query(stmt, values...).Exec(); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}

	row := map[string]any{}
	if err := s.Query(`SELECT * FROM ks.every WHERE k = 1`).MapScan(row); err != nil {
		t.Fatal(err)
	}
	check := func(col string, want any) {
		t.Helper()
		if got := row[col]; !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %#v, want %#v", col, got, want)
		}
	}
	check("bi", int64(-9223372036854775808))
	check("bl", []byte{0xca, 0xfe})
	check("bo", true)
	check("da", time.Date(2020, 2, 29, 0, 0, 0, 0, time.UTC))
	check("do", 2.5)
	check("du", gocql.Duration{Months: 1, Days: 2, Nanoseconds: 3 * int64(time.Hour)})
	check("fl", float32(-0.5))
	check("ip", "::1")
	check("si", int16(-32768))
	check("te", "tëxt")
	check("ti", 12*time.Hour+34*time.Minute+56789*time.Millisecond)
	check("ts", time.Date(2020, 1, 2, 2, 4, 5, 678e6, time.UTC))
	check("tiny", int8(127))
	check("li", []int{3, 1, 2})
	if se, _ := row["se"].([]string); len(se) == 2 {
		sort.Strings(se) // a set has no order to compare
	}
	check("se", []string{"a", "b"})
	check("ma", map[string][]int{"x": {1, 2}, "y": {}})
	check("st", "static")
	// The driver flattens a tuple column into one value per element.
	var tp0, tp1 rawBytes
	if err := s.Query(`SELECT tp FROM ks.every WHERE k = 1`).Scan(&tp0, &tp1); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(tp0, []byte{0, 0, 0, 1}) || tp1 != nil {
		t.Errorf("tp = (%x, %x), want (00000001, null)", []byte(tp0), []byte(tp1))
	}
	check("ve", []float32{1.5, -2, 0})
	check("vt", []string{"a", "bc"})
	if de, ok := row["de"].(interface{ String() string }); !ok || de.String() != "-1.50" {
		t.Errorf("de = %v, want -1.50", row["de"])
	}
	if vi, ok := row["vi"].(interface{ String() string }); !ok || vi.String() != "-123456789012345678901234567890" {
		t.Errorf("vi = %v", row["vi"])
	}
	ad, _ := row["ad"].(map[string]any)
	if ad["street"] != "Main" || ad["no"] != 3 || !reflect.DeepEqual(ad["tags"], []string{"t"}) {
		t.Errorf("ad = %#v", row["ad"])
	}
	if ts, ok := row["ts"].(time.Time); ok && !ts.Equal(time.Date(2020, 1, 2, 2, 4, 5, 678e6, time.UTC)) {
		t.Errorf("ts = %v", ts)
	}
}

func TestCounterStatementAgainstCluster(t *testing.T) {
	s := startSim(t)
	tb, err := schema.LoadTable(s, "ks", "hits")
	if err != nil {
		t.Fatal(err)
	}
	stmt, binds := schema.CounterStatement(tb, tb.Columns)
	vals := map[string]string{"page": "/", "day": "2020-01-02", "n": "5"}
	for round := 0; round < 2; round++ {
		args := make([]any, len(binds))
		for i, bd := range binds {
			c := bd.Column
			conv, err := schema.NewConverter(c.Type, schema.DefaultFormats())
			if err != nil {
				t.Fatal(err)
			}
			b, err := conv(nil, []byte(vals[c.Name]))
			if err != nil {
				t.Fatal(err)
			}
			args[i] = raw(b)
		}
		if err := s.Query(stmt, args...).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	var n int64
	if err := s.Query(`SELECT n FROM ks.hits WHERE page = '/'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 10 {
		t.Errorf("counter = %d after two increments of 5, want 10", n)
	}
}

// rawBytes captures a column's serialized value as the cluster returns it.
type rawBytes []byte

func (r *rawBytes) UnmarshalCQL(_ gocql.TypeInfo, data []byte) error {
	if data == nil {
		*r = nil // null, told apart from an empty value
		return nil
	}
	*r = append((*r)[:0], data...)
	return nil
}

// TestConvertersMatchCQLLiterals is a differential check: the simulator
// parses CQL literals as Cassandra does, independently of this package, and
// the converters must give the same bytes for the same text. NaN is left
// out (the simulator keeps Go's NaN payload, Java's canonical NaN differs)
// and so are tuples (the driver cannot scan a tuple column into raw bytes).
func TestConvertersMatchCQLLiterals(t *testing.T) {
	s := startSim(t)
	cases := []struct{ typ, literal, field string }{
		{"timestamp", "'2020-01-02 03:04:05+0200'", "2020-01-02 03:04:05+0200"},
		{"timestamp", "'2020-01-02T03:04:05.678Z'", "2020-01-02T03:04:05.678Z"},
		{"timestamp", "'2020-01-02 03:04'", "2020-01-02 03:04"},
		{"timestamp", "'2020-01-02'", "2020-01-02"},
		{"timestamp", "'2020-01-02 03:04:05-05:30'", "2020-01-02 03:04:05-05:30"},
		{"timestamp", "1577934245123", "1577934245123"},
		{"date", "'2020-02-29'", "2020-02-29"},
		{"date", "'1969-12-31'", "1969-12-31"},
		{"time", "'12:34:56.789012345'", "12:34:56.789012345"},
		{"time", "'01:02:03'", "01:02:03"},
		{"duration", "1y2mo3w4d5h6m7s8ms9us10ns", "1y2mo3w4d5h6m7s8ms9us10ns"},
		{"duration", "P1Y2M3DT4H5M6S", "P1Y2M3DT4H5M6S"},
		{"duration", "P2W", "P2W"},
		{"duration", "P0001-02-03T04:05:06", "P0001-02-03T04:05:06"},
		{"duration", "-1h30m", "-1h30m"},
		{"decimal", "1.50", "1.50"},
		{"decimal", "-12345678901234567890.123", "-12345678901234567890.123"},
		{"decimal", "1E+2", "1E+2"},
		{"varint", "-123456789012345678901234567890", "-123456789012345678901234567890"},
		{"double", "3.141592653589793", "3.141592653589793"},
		{"double", "-Infinity", "-Infinity"},
		{"float", "0.1", "0.1"},
		{"inet", "'::ffff:10.0.0.1'", "::ffff:10.0.0.1"},
		{"inet", "'192.168.0.1'", "192.168.0.1"},
		{"uuid", "01234567-89ab-cdef-0123-456789abcdef", "01234567-89ab-cdef-0123-456789abcdef"},
		{"blob", "0xcafe", "0xcafe"},
		{"boolean", "true", "True"},
		{"smallint", "-32768", "-32768"},
		{"list<int>", "[3, 1, 2]", "[3, 1, 2]"},
		{"map<text, int>", "{'a': 1}", "{'a': 1}"},
		{"frozen<address>", "{street: 'Main', no: 3}", "{street: 'Main', no: 3}"},
		{"vector<float, 2>", "[1.5, -2]", "[1.5, -2]"},
	}
	tables := map[string]string{}
	for _, tc := range cases {
		if _, ok := tables[tc.typ]; ok {
			continue
		}
		name := fmt.Sprintf("lit%d", len(tables))
		if err := s.Query(fmt.Sprintf("CREATE TABLE ks.%s (k int PRIMARY KEY, v %s)", name, tc.typ)).Exec(); err != nil {
			t.Fatalf("create table for %s: %v", tc.typ, err)
		}
		tables[tc.typ] = name
	}
	for _, tc := range cases {
		table := tables[tc.typ]
		if err := s.Query(fmt.Sprintf("INSERT INTO ks.%s (k, v) VALUES (1, %s)", table, tc.literal)).Exec(); err != nil {
			t.Errorf("%s %s: %v", tc.typ, tc.literal, err)
			continue
		}
		var want rawBytes
		if err := s.Query(fmt.Sprintf("SELECT v FROM ks.%s WHERE k = 1", table)).Scan(&want); err != nil {
			t.Errorf("%s %s: %v", tc.typ, tc.literal, err)
			continue
		}
		tb, err := schema.LoadTable(s, "ks", table)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := tb.Column("v")
		conv, err := schema.NewConverter(v.Type, schema.DefaultFormats())
		if err != nil {
			t.Fatal(err)
		}
		got, err := conv(nil, []byte(tc.field))
		if err != nil {
			t.Errorf("%s %q: %v", tc.typ, tc.field, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: converter gives %x for %q, the cluster stores %x for %s", tc.typ, got, tc.field, []byte(want), tc.literal)
		}
	}
}
