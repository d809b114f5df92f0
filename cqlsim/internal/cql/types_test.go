package cql

import (
	"reflect"
	"strings"
	"testing"

	"github.com/datastax/go-cassandra-native-protocol/datatype"
)

func TestParseTypeString(t *testing.T) {
	tests := []struct {
		in, want string // want "" means the same as in
	}{
		{"ascii", ""}, {"bigint", ""}, {"blob", ""}, {"boolean", ""}, {"counter", ""},
		{"date", ""}, {"decimal", ""}, {"double", ""}, {"duration", ""}, {"float", ""},
		{"inet", ""}, {"int", ""}, {"smallint", ""}, {"text", ""}, {"varchar", "text"},
		{"time", ""}, {"timestamp", ""}, {"timeuuid", ""}, {"tinyint", ""}, {"uuid", ""}, {"varint", ""},
		{"INT", "int"}, {"VarChar", "text"},
		{"list<int>", ""}, {"set<text>", ""}, {"map<text, int>", ""},
		{"map<varchar,list<frozen<set<int>>>>", "map<text, list<frozen<set<int>>>>"},
		{"frozen<map<text, list<int>>>", "frozen<map<text, frozen<list<int>>>>"},
		{"frozen<list<frozen<map<int, frozen<set<uuid>>>>>>", ""},
		{"frozen<list<map<int, set<uuid>>>>", "frozen<list<frozen<map<int, frozen<set<uuid>>>>>>"},
		{"frozen<map<frozen<addr>, list<addr>>>", "frozen<map<frozen<addr>, frozen<list<frozen<addr>>>>>"},
		{"tuple<int, text>", "frozen<tuple<int, text>>"},
		{"tuple<int, list<int>, addr>", "frozen<tuple<int, frozen<list<int>>, frozen<addr>>>"},
		{"frozen<tuple<int, frozen<tuple<text, blob>>>>", ""},
		{"list<tuple<int, text>>", "list<frozen<tuple<int, text>>>"},
		{"list<list<int>>", ""}, {"list<vector<float, 2>>", ""}, {"frozen<list<vector<float, 2>>>", ""},
		{"addr", ""}, {"frozen<addr>", ""}, {`"Addr"`, ""}, {`frozen<"My""Type">`, ""},
		{"ks.addr", "addr"}, {"list<frozen<addr>>", ""}, {"map<frozen<addr>, int>", ""},
		{"vector<float, 3>", ""}, {"vector<float,1024>", "vector<float, 1024>"},
		{"frozen<vector<float, 2>>", "vector<float, 2>"},
		{"vector<text, 2>", ""},
		{"'org.apache.cassandra.db.marshal.DynamicCompositeType'", ""},
		{" map < text , int > ", "map<text, int>"},
		{`"int"`, ""}, {`frozen<"map">`, ""}, {`"select"`, ""},
	}
	for _, tc := range tests {
		want := tc.want
		if want == "" {
			want = tc.in
		}
		typ, err := ParseType(tc.in)
		if err != nil {
			t.Errorf("ParseType(%q): %v", tc.in, err)
			continue
		}
		if got := typ.String(); got != want {
			t.Errorf("ParseType(%q).String() = %q, want %q", tc.in, got, want)
		}
		again, err := ParseType(want)
		if err != nil {
			t.Errorf("ParseType(%q) (round trip): %v", want, err)
			continue
		}
		if typ.Keyspace == "" && !reflect.DeepEqual(typ, again) {
			t.Errorf("round trip of %q: %s != %s", tc.in, dump(typ), dump(again))
		}
	}
}

func TestParseTypeErrors(t *testing.T) {
	for _, in := range []string{
		"", "list", "list<>", "list<int", "map<int>", "map<int, int, int>", "frozen<int>",
		"vector<float>", "vector<float, 0>", "vector<float, x>", "int int", "list<int>>", "set<select>",
	} {
		if typ, err := ParseType(in); err == nil {
			t.Errorf("ParseType(%q) = %s, want an error", in, typ)
		} else if !strings.Contains(err.Error(), "invalid type") {
			t.Errorf("ParseType(%q) error %q does not name the type", in, err)
		}
	}
}

func mustType(t testing.TB, s string) *Type {
	t.Helper()
	typ, err := ParseType(s)
	if err != nil {
		t.Fatalf("ParseType(%q): %v", s, err)
	}
	return typ
}

func udtLookup(defs map[string]string) func(ks, name string) (*Type, bool) {
	return func(ks, name string) (*Type, bool) {
		src, ok := defs[ks+"."+name]
		if !ok {
			return nil, false
		}
		u := &Type{Kind: UDT, Keyspace: ks, Name: name}
		for _, f := range strings.Split(src, ";") {
			n, typ, _ := strings.Cut(f, " ")
			ft, err := ParseType(typ)
			if err != nil {
				panic(err)
			}
			u.Fields = append(u.Fields, Field{Name: n, Type: ft})
		}
		return u, true
	}
}

func TestCheck(t *testing.T) {
	tests := []struct{ typ, err string }{
		{"int", ""}, {"list<int>", ""}, {"map<text, frozen<list<int>>>", ""}, {"frozen<list<list<int>>>", ""},
		{"list<frozen<addr>>", ""}, {"addr", ""}, {"tuple<int, list<int>>", ""}, {"list<tuple<int, int>>", ""},
		{"map<duration, int>", "Durations are not allowed as map keys: map<duration, int>"},
		{"map<int, duration>", ""}, {"list<duration>", ""},
		{"list<list<int>>", "Non-frozen collections are not allowed inside collections: list<list<int>>"},
		{"map<set<int>, int>", "Non-frozen collections are not allowed inside collections: map<set<int>, int>"},
		{"set<addr>", "Non-frozen UDTs are not allowed inside collections: set<addr>"},
		{"list<counter>", "Counters are not allowed inside collections: list<counter>"},
		{"map<counter, int>", "Counters are not allowed inside collections: map<counter, int>"},
		{"set<duration>", "Durations are not allowed inside sets: set<duration>"},
		{"frozen<set<duration>>", "Durations are not allowed inside sets: frozen<set<duration>>"},
		{"map<int, frozen<list<list<int>>>>", ""},
		{"tuple<int, set<counter>>", "Counters are not allowed inside collections: frozen<set<counter>>"},
	}
	for _, tc := range tests {
		err := mustType(t, tc.typ).Check()
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.err {
			t.Errorf("Check(%s) = %q, want %q", tc.typ, got, tc.err)
		}
	}
}

func TestResolveUDTs(t *testing.T) {
	lookup := udtLookup(map[string]string{
		"ks.addr":   "street text;zip int",
		"ks.person": "name text;home frozen<addr>",
		"other.x":   "v int",
		"ks.loop":   "self frozen<loop>",
	})
	typ := mustType(t, "map<text, frozen<person>>")
	r, err := typ.ResolveUDTs("ks", lookup)
	if err != nil {
		t.Fatal(err)
	}
	person := r.Elems[1]
	if person.Keyspace != "ks" || len(person.Fields) != 2 || !person.Frozen {
		t.Fatalf("person = %s", dump(person))
	}
	home := person.Fields[1].Type
	if home.Name != "addr" || len(home.Fields) != 2 || home.Fields[1].Type.Kind != Int {
		t.Errorf("home = %s", dump(home))
	}
	if typ.Elems[1].Fields != nil {
		t.Error("ResolveUDTs modified its receiver")
	}
	if r.String() != "map<text, frozen<person>>" {
		t.Errorf("resolved String() = %s", r)
	}
	if x, err := mustType(t, "other.x").ResolveUDTs("ks", lookup); err != nil || x.Keyspace != "other" {
		t.Errorf("qualified UDT: %v, %v", x, err)
	}
	if _, err := mustType(t, "list<frozen<nope>>").ResolveUDTs("ks", lookup); err == nil || !strings.Contains(err.Error(), "unknown type ks.nope") {
		t.Errorf("unknown UDT error = %v", err)
	}
	if _, err := mustType(t, "loop").ResolveUDTs("ks", lookup); err == nil {
		t.Error("self-referencing UDT resolved")
	}
}

func TestDataType(t *testing.T) {
	lookup := udtLookup(map[string]string{"ks.addr": "street text;zip int"})
	udt, _ := datatype.NewUserDefined("ks", "addr", []string{"street", "zip"}, []datatype.DataType{datatype.Varchar, datatype.Int})
	tests := []struct {
		typ  string
		want datatype.DataType
	}{
		{"ascii", datatype.Ascii}, {"bigint", datatype.Bigint}, {"blob", datatype.Blob}, {"boolean", datatype.Boolean},
		{"counter", datatype.Counter}, {"date", datatype.Date}, {"decimal", datatype.Decimal}, {"double", datatype.Double},
		{"duration", datatype.Duration}, {"float", datatype.Float}, {"inet", datatype.Inet}, {"int", datatype.Int},
		{"smallint", datatype.Smallint}, {"text", datatype.Varchar}, {"varchar", datatype.Varchar}, {"time", datatype.Time},
		{"timestamp", datatype.Timestamp}, {"timeuuid", datatype.Timeuuid}, {"tinyint", datatype.Tinyint},
		{"uuid", datatype.Uuid}, {"varint", datatype.Varint},
		{"list<int>", datatype.NewList(datatype.Int)},
		{"frozen<set<text>>", datatype.NewSet(datatype.Varchar)},
		{"map<text, frozen<list<bigint>>>", datatype.NewMap(datatype.Varchar, datatype.NewList(datatype.Bigint))},
		{"tuple<int, text>", datatype.NewTuple(datatype.Int, datatype.Varchar)},
		{"frozen<addr>", udt},
		{"vector<float, 3>", datatype.NewCustom("org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType , 3)")},
		{"'com.example.Thing'", datatype.NewCustom("com.example.Thing")},
		{"vector<text, 2>", datatype.NewCustom("org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.UTF8Type , 2)")},
		{"vector<frozen<list<int>>, 2>", datatype.NewCustom("org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FrozenType(org.apache.cassandra.db.marshal.ListType(org.apache.cassandra.db.marshal.Int32Type)) , 2)")},
		{"vector<tuple<int, text>, 1>", datatype.NewCustom("org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FrozenType(org.apache.cassandra.db.marshal.TupleType(org.apache.cassandra.db.marshal.Int32Type,org.apache.cassandra.db.marshal.UTF8Type)) , 1)")},
		{"vector<frozen<addr>, 1>", datatype.NewCustom("org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FrozenType(org.apache.cassandra.db.marshal.UserType(ks,61646472,737472656574:org.apache.cassandra.db.marshal.UTF8Type,7a6970:org.apache.cassandra.db.marshal.Int32Type)) , 1)")},
		{"vector<frozen<map<int, list<int>>>, 1>", datatype.NewCustom("org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FrozenType(org.apache.cassandra.db.marshal.MapType(org.apache.cassandra.db.marshal.Int32Type,org.apache.cassandra.db.marshal.ListType(org.apache.cassandra.db.marshal.Int32Type))) , 1)")},
	}
	for _, tc := range tests {
		typ, err := mustType(t, tc.typ).ResolveUDTs("ks", lookup)
		if err != nil {
			t.Fatal(err)
		}
		if got := typ.DataType(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s.DataType() = %v, want %v", tc.typ, got, tc.want)
		}
	}
}

func TestIsMultiCell(t *testing.T) {
	for typ, want := range map[string]bool{
		"int": false, "list<int>": true, "frozen<list<int>>": false, "map<int, int>": true, "addr": true,
		"frozen<addr>": false, "tuple<int>": false, "vector<float, 2>": false,
	} {
		if got := mustType(t, typ).IsMultiCell(); got != want {
			t.Errorf("%s.IsMultiCell() = %v, want %v", typ, got, want)
		}
	}
}

func TestKindString(t *testing.T) {
	if Text.String() != "text" || Vector.String() != "vector" || Kind(99).String() != "Kind(99)" {
		t.Errorf("Kind.String: %s %s %s", Text, Vector, Kind(99))
	}
	if QuoteIdent("abc_1") != "abc_1" || QuoteIdent("Abc") != `"Abc"` || QuoteIdent("select") != `"select"` || QuoteIdent(`a"b`) != `"a""b"` || QuoteIdent("1a") != `"1a"` {
		t.Error("QuoteIdent")
	}
}
