package cql

import (
	"reflect"
	"testing"
)

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"SELECT * FROM system.local WHERE key='local'",
		"INSERT INTO ks.t (a, b) VALUES (?, :b) USING TTL 1 AND TIMESTAMP ?",
		"UPDATE t SET c = c + 1, m['k'] = {1: [2]} WHERE k IN (1, 2) IF EXISTS",
		"BEGIN UNLOGGED BATCH INSERT INTO t (a) VALUES (0x00); DELETE FROM t WHERE k = 1 APPLY BATCH",
		"CREATE TABLE t (a int, b frozen<map<text, list<int>>>, PRIMARY KEY ((a), b)) WITH CLUSTERING ORDER BY (b DESC)",
		"SELECT count(*), token(k) AS t FROM t WHERE token(k) > ? AND (a, b) >= (1, 2) LIMIT 10 ALLOW FILTERING",
		"INSERT INTO t (d) VALUES (P0001-02-03T04:05:06)",
		"-- c\n/* c */ USE \"Ks\"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		a, errA := Parse(src)
		b, errB := Parse(src)
		if (errA == nil) != (errB == nil) {
			t.Fatalf("Parse is not deterministic: %v vs %v", errA, errB)
		}
		if errA != nil {
			if errA.Error() != errB.Error() {
				t.Fatalf("errors differ: %v vs %v", errA, errB)
			}
			return
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("Parse is not deterministic:\n%s\n%s", dump(a), dump(b))
		}
		ms := BindMarkers(a)
		for i, m := range ms {
			if m.Index != i {
				t.Fatalf("marker %d has index %d", i, m.Index)
			}
		}
		// A script of one statement parses the same way.
		stmts, err := ParseScript(src)
		if err != nil || len(stmts) != 1 || !reflect.DeepEqual(stmts[0], a) {
			t.Fatalf("ParseScript(%q) = %s, %v; Parse gave %s", src, dump(stmts), err, dump(a))
		}
	})
}

// withoutKeyspaces clears UDT keyspaces, which String omits as Cassandra does.
func withoutKeyspaces(t *Type) {
	t.Keyspace = ""
	for _, e := range t.Elems {
		withoutKeyspaces(e)
	}
}

func FuzzParseType(f *testing.F) {
	for _, s := range []string{
		"int", "varchar", "frozen<map<text, list<int>>>", "tuple<int, frozen<tuple<text>>>",
		"vector<float, 3>", `frozen<"My""Type">`, "ks.addr", "'org.apache.Custom'", "set<frozen<list<blob>>>",
		`"int"`, `frozen<"list">`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		typ, err := ParseType(s)
		if err != nil {
			return
		}
		str := typ.String()
		again, err := ParseType(str)
		if err != nil {
			t.Fatalf("ParseType(%q).String() = %q, which does not parse: %v", s, str, err)
		}
		withoutKeyspaces(typ)
		if !reflect.DeepEqual(typ, again) {
			t.Fatalf("round trip of %q via %q:\n%s\n%s", s, str, dump(typ), dump(again))
		}
		_ = typ.DataType()
	})
}

// fuzzTypes are the types FuzzValidate checks, indexed by the fuzzer's first input.
var fuzzTypes = []string{
	"ascii", "bigint", "blob", "boolean", "counter", "date", "decimal", "double", "duration", "float",
	"inet", "int", "smallint", "text", "time", "timestamp", "timeuuid", "tinyint", "uuid", "varint",
	"list<int>", "set<text>", "map<text, frozen<list<int>>>", "tuple<int, text, duration>", "frozen<addr>",
	"vector<float, 3>", "vector<text, 2>", "frozen<list<frozen<tuple<decimal, varint>>>>",
}

func FuzzValidate(f *testing.F) {
	f.Add(uint8(11), []byte{0, 0, 0, 1})
	f.Add(uint8(20), []byte{0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 7})
	f.Add(uint8(8), []byte{2, 4, 6})
	f.Add(uint8(6), []byte{0x7f, 0xff, 0xff, 0xff, 1})
	f.Add(uint8(24), []byte{0, 0, 0, 1, 'x', 0xff, 0xff, 0xff, 0xff})
	f.Add(uint8(26), []byte{1, 'a', 2, 'b', 'c'})
	types := make([]*Type, len(fuzzTypes))
	for i, s := range fuzzTypes {
		types[i] = testType(f, s)
	}
	f.Fuzz(func(t *testing.T, which uint8, b []byte) {
		typ := types[int(which)%len(types)]
		err := Validate(typ, b)
		// Format and Compare must cope with any bytes, valid or not.
		_ = Format(typ, b)
		if c := Compare(typ, b, b); err == nil && c != 0 {
			t.Fatalf("Compare(%s, v, v) = %d for valid %x", typ, c, b)
		}
		_ = Compare(typ, b, []byte{0, 0, 0, 1})
	})
}

// FuzzEncodeTerm checks that whatever EncodeTerm accepts is a valid value of
// its type, and that Format can render it.
func FuzzEncodeTerm(f *testing.F) {
	f.Add(uint8(11), "42")
	f.Add(uint8(8), "-P1Y2M3DT4H5M6S")
	f.Add(uint8(6), "-1.5e-3")
	f.Add(uint8(15), "'2024-01-02 03:04:05.678+0000'")
	f.Add(uint8(5), "'2024-01-02'")
	f.Add(uint8(14), "'03:04:05.123456789'")
	f.Add(uint8(22), "{'a': [1, 2], 'b': []}")
	f.Add(uint8(24), "{street: 'x', zip: 5}")
	f.Add(uint8(25), "[1.0, 2.5, NaN]")
	f.Add(uint8(19), "-123456789012345678901234567890")
	types := make([]*Type, len(fuzzTypes))
	for i, s := range fuzzTypes {
		types[i] = testType(f, s)
	}
	f.Fuzz(func(t *testing.T, which uint8, lit string) {
		st, err := Parse("INSERT INTO t (a) VALUES (" + lit + ")")
		if err != nil {
			return
		}
		ins, ok := st.(*Insert)
		if !ok || len(ins.Values) != 1 {
			return
		}
		typ := types[int(which)%len(types)]
		b, err := EncodeTerm(typ, ins.Values[0])
		if err != nil {
			return
		}
		if err := Validate(typ, b); err != nil {
			t.Fatalf("EncodeTerm(%s, %s) = %x, which does not validate: %v", typ, lit, b, err)
		}
		if Compare(typ, b, b) != 0 {
			t.Fatalf("Compare(%s, v, v) != 0 for %x", typ, b)
		}
		_ = Format(typ, b)
	})
}
