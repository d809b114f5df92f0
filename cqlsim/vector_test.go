package cqlsim

import (
	"encoding/hex"
	"reflect"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

// rawScan captures a column's serialized value as the cluster returns it.
type rawScan []byte

func (r *rawScan) UnmarshalCQL(_ gocql.TypeInfo, data []byte) error {
	*r = append(rawScan(nil), data...)
	return nil
}

// TestVectorElementLayout writes vectors of every kind of element through
// gocql, as a bound value, as a literal and as a literal with a bound
// element, and reads them back. Cassandra (VectorType) packs only elements
// of fixed-length types (boolean, int, float, bigint, timestamp, double,
// uuid, timeuuid); smallint, tinyint, date, time and the variable-length
// types carry a vint length each, and the driver writes them so.
func TestVectorElementLayout(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 1})
	s := connect(t, cl, nil)
	mustExec(t, s, ks1)
	ts := time.UnixMilli(1000).UTC()
	u, err := gocql.ParseUUID("123e4567-e89b-12d3-a456-426614174000")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		typ      string
		bound    any    // a value gocql marshals
		lit      string // the same value as a CQL literal
		withMark string // the literal with its first element bound to first
		first    any
		want     string // the serialized value, hex
	}{
		{"boolean", []bool{true, false}, "[true, false]", "[?, false]", true, "0100"},
		{"int", []int32{1, -1}, "[1, -1]", "[?, -1]", int32(1), "00000001ffffffff"},
		{"bigint", []int64{2, 3}, "[2, 3]", "[?, 3]", int64(2), "00000000000000020000000000000003"},
		{"float", []float32{1, 2}, "[1.0, 2.0]", "[?, 2.0]", float32(1), "3f80000040000000"},
		{"double", []float64{1.5, 0}, "[1.5, 0.0]", "[?, 0.0]", 1.5, "3ff80000000000000000000000000000"},
		{"timestamp", []time.Time{ts, ts}, "[1000, 1000]", "[?, 1000]", ts, "00000000000003e800000000000003e8"},
		{"uuid", []gocql.UUID{u, u}, "[" + u.String() + ", " + u.String() + "]", "[?, " + u.String() + "]", u,
			"123e4567e89b12d3a456426614174000123e4567e89b12d3a456426614174000"},
		{"smallint", []int16{1, -2}, "[1, -2]", "[?, -2]", int16(1), "020001" + "02fffe"},
		{"tinyint", []int8{1, -2}, "[1, -2]", "[?, -2]", int8(1), "0101" + "01fe"},
		{"date", []time.Time{time.Unix(0, 0).UTC(), time.Unix(86400, 0).UTC()}, "['1970-01-01', '1970-01-02']", "[?, '1970-01-02']",
			time.Unix(0, 0).UTC(), "0480000000" + "0480000001"},
		{"time", []time.Duration{time.Microsecond, 2 * time.Microsecond}, "[1000, 2000]", "[?, 2000]", time.Microsecond,
			"0800000000000003e8" + "0800000000000007d0"},
		{"text", []string{"a", "bc"}, "['a', 'bc']", "[?, 'bc']", "a", "0161" + "026263"},
		{"blob", [][]byte{{0xca}, {}}, "[0xca, 0x]", "[?, 0x]", []byte{0xca}, "01ca" + "00"},
	}
	for i, c := range cases {
		typ := "vector<" + c.typ + ", 2>"
		table := "ks.v" + string(rune('a'+i))
		mustExec(t, s, "CREATE TABLE "+table+" (k int PRIMARY KEY, v "+typ+")")
		writes := []struct {
			how  string
			q    string
			args []any
		}{
			{"bound", "INSERT INTO " + table + " (k, v) VALUES (1, ?)", []any{c.bound}},
			{"literal", "INSERT INTO " + table + " (k, v) VALUES (2, " + c.lit + ")", nil},
			{"literal with a marker", "INSERT INTO " + table + " (k, v) VALUES (3, " + c.withMark + ")", []any{c.first}},
			{"raw bytes", "INSERT INTO " + table + " (k, v) VALUES (4, ?)", []any{rawValue(mustHex(t, c.want))}},
		}
		for k, w := range writes {
			if err := s.Query(w.q, w.args...).Exec(); err != nil {
				t.Errorf("%s, %s: %v", typ, w.how, err)
				continue
			}
			var got rawScan
			if err := s.Query("SELECT v FROM "+table+" WHERE k = ?", k+1).Scan(&got); err != nil {
				t.Errorf("%s, %s: read back: %v", typ, w.how, err)
				continue
			}
			if hex.EncodeToString(got) != c.want {
				t.Errorf("%s, %s: stored %x, want %s", typ, w.how, got, c.want)
			}
		}
		// The driver decodes what cqlsim returns into the value it wrote.
		back := reflect.New(reflect.TypeOf(c.bound))
		if err := s.Query("SELECT v FROM " + table + " WHERE k = 1").Scan(back.Interface()); err != nil {
			t.Errorf("%s: scan: %v", typ, err)
		} else if !reflect.DeepEqual(back.Elem().Interface(), c.bound) {
			t.Errorf("%s: read back %v, want %v", typ, back.Elem().Interface(), c.bound)
		}
	}
	// Packed smallints, as cqlsim used to expect them, are refused.
	mustExec(t, s, "CREATE TABLE ks.vs (k int PRIMARY KEY, v vector<smallint, 2>)")
	if err := s.Query("INSERT INTO ks.vs (k, v) VALUES (1, ?)", rawValue(mustHex(t, "0001fffe"))).Exec(); codeOf(err) != gocql.ErrCodeInvalid {
		t.Errorf("packed vector<smallint, 2>: %v, want InvalidRequest", err)
	}
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
