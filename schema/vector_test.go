package schema_test

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/cqlload/cqlload/schema"
)

// vectorCases cover every element type a vector can hold. Cassandra's
// VectorType packs only elements whose type has valueLengthIfFixed
// (boolean, int, float, bigint, timestamp, double, uuid, timeuuid, and
// vectors of those); all others, smallint, tinyint, date and time
// included, are each preceded by an unsigned vint length.
var vectorCases = []struct{ typ, in, hex string }{
	{"boolean", "[true, false]", "01 00"},
	{"int", "[1, -1]", "00000001 ffffffff"},
	{"float", "[1, 2]", "3f800000 40000000"},
	{"bigint", "[2, 3]", "0000000000000002 0000000000000003"},
	{"double", "[1.5, 0]", "3ff8000000000000 0000000000000000"},
	{"timestamp", "['1970-01-01 00:00:01+0000', '1970-01-01 00:00:02+0000']", "00000000000003e8 00000000000007d0"},
	{"uuid", "[123e4567-e89b-12d3-a456-426614174000, 00000000-0000-0000-0000-000000000000]",
		"123e4567e89b12d3a456426614174000 00000000000000000000000000000000"},
	{"timeuuid", "[50554d6e-29bb-11e5-b345-feff819cdc9f, d2177dd0-eaa2-11de-a572-001b779c76e3]",
		"50554d6e29bb11e5b345feff819cdc9f d2177dd0eaa211dea572001b779c76e3"},
	{"vector<int, 1>", "[[1], [2]]", "00000001 00000002"},
	{"smallint", "[1, -2]", "02 0001 02 fffe"},
	{"tinyint", "[1, -2]", "01 01 01 fe"},
	{"date", "['1970-01-01', '1970-01-02']", "04 80000000 04 80000001"},
	{"time", "['00:00:00.000001', '00:00:00.000002']", "08 00000000000003e8 08 00000000000007d0"},
	{"text", "['a', '']", "01 61 00"},
	{"ascii", "['ab', 'c']", "02 6162 01 63"},
	{"blob", "[0xca, 0x]", "01 ca 00"},
	{"varint", "[128, -1]", "02 0080 01 ff"},
	{"decimal", "[1.5, 0]", "05 00000001 0f 05 00000000 00"},
	{"inet", "['127.0.0.1', '::1']", "04 7f000001 10 00000000000000000000000000000001"},
	{"duration", "[1d, 1mo]", "03 000200 03 020000"},
	{"frozen<list<int>>", "[[1], []]", "0c 00000001 00000004 00000001 04 00000000"},
	{"frozen<map<int, int>>", "[{1: 2}, {}]", "14 00000001 00000004 00000001 00000004 00000002 04 00000000"},
	{"frozen<tuple<int>>", "[(1), (2)]", "08 00000004 00000001 08 00000004 00000002"},
	{"vector<smallint, 1>", "[[1], [2]]", "03 02 0001 03 02 0002"},
}

func TestVectorLayoutPerElementType(t *testing.T) {
	for _, tc := range vectorCases {
		typ := "vector<" + tc.typ + ", 2>"
		got := convertVector(t, typ, tc.in)
		if want := strings.ReplaceAll(tc.hex, " ", ""); hex.EncodeToString(got) != want {
			t.Errorf("%s %s = %x, want %s", typ, tc.in, got, want)
		}
	}
}

// TestVectorsReadBackFromCqlsim writes each converted vector to the
// simulator, which validates values as Cassandra does, and reads the same
// bytes back.
func TestVectorsReadBackFromCqlsim(t *testing.T) {
	var script strings.Builder
	script.WriteString("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\n")
	script.WriteString("CREATE TABLE ks.vec (k int PRIMARY KEY")
	for i, tc := range vectorCases {
		script.WriteString(", v" + string(rune('a'+i)) + " vector<" + tc.typ + ", 2>")
	}
	script.WriteString(");\n")
	s := startSimWith(t, script.String())
	for i, tc := range vectorCases {
		col := "v" + string(rune('a'+i))
		b := convertVector(t, "vector<"+tc.typ+", 2>", tc.in)
		if err := s.Query("INSERT INTO ks.vec (k, "+col+") VALUES (?, ?)", i, raw(b)).Exec(); err != nil {
			t.Errorf("vector<%s, 2> %s: cqlsim refused %x: %v", tc.typ, tc.in, b, err)
			continue
		}
		var back rawBytes
		if err := s.Query("SELECT "+col+" FROM ks.vec WHERE k = ?", i).Scan(&back); err != nil {
			t.Errorf("vector<%s, 2>: read back: %v", tc.typ, err)
			continue
		}
		if hex.EncodeToString(back) != hex.EncodeToString(b) {
			t.Errorf("vector<%s, 2>: read back %x, wrote %x", tc.typ, back, b)
		}
		if tc.typ == "smallint" {
			var v []int16
			err := s.Query("SELECT "+col+" FROM ks.vec WHERE k = ?", i).Scan(&v)
			if err != nil || len(v) != 2 || v[0] != 1 || v[1] != -2 {
				t.Errorf("vector<smallint, 2> decoded by gocql: %v, %v; want [1 -2]", v, err)
			}
		}
	}
}

func convertVector(t *testing.T, typ, in string) []byte {
	t.Helper()
	ty, err := schema.ParseType(typ)
	if err != nil {
		t.Fatalf("ParseType(%s): %v", typ, err)
	}
	conv, err := schema.NewConverter(ty, schema.DefaultFormats())
	if err != nil {
		t.Fatalf("%s: %v", typ, err)
	}
	b, err := conv(nil, []byte(in))
	if err != nil {
		t.Fatalf("%s %s: %v", typ, in, err)
	}
	return b
}
