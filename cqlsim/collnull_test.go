package cqlsim

import (
	"strings"
	"testing"

	"github.com/gocql/gocql"
)

// TestNullInsideCollections: Cassandra refuses a null element, map key or
// map value, whether the collection is bound whole, built from a literal,
// or a literal with bound elements, in EXECUTE and in BATCH alike; and
// nothing is written. Setting one map entry to null deletes it instead.
func TestNullInsideCollections(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 1})
	s := connect(t, cl, nil)
	mustExec(t, s, ks1, `CREATE TABLE ks.cn (k int PRIMARY KEY, l list<int>, st set<int>, m map<text, int>,
		fm frozen<map<text, int>>, fl frozen<list<int>>, v vector<text, 2>)`)
	one, a := 1, "a"
	cases := []struct {
		q    string
		args []any
	}{
		{"INSERT INTO ks.cn (k, m) VALUES (1, ?)", []any{map[string]*int{"a": nil}}},
		{"INSERT INTO ks.cn (k, fm) VALUES (1, ?)", []any{map[string]*int{"a": nil}}},
		{"INSERT INTO ks.cn (k, l) VALUES (1, ?)", []any{[]*int{&one, nil}}},
		{"INSERT INTO ks.cn (k, fl) VALUES (1, ?)", []any{[]*int{nil}}},
		{"INSERT INTO ks.cn (k, st) VALUES (1, ?)", []any{[]*int{nil}}},
		{"INSERT INTO ks.cn (k, m) VALUES (1, {'a': null})", nil},
		{"INSERT INTO ks.cn (k, m) VALUES (1, {null: 1})", nil},
		{"INSERT INTO ks.cn (k, fm) VALUES (1, {'a': null})", nil},
		{"INSERT INTO ks.cn (k, l) VALUES (1, [1, null])", nil},
		{"INSERT INTO ks.cn (k, st) VALUES (1, {null})", nil},
		{"INSERT INTO ks.cn (k, m) VALUES (1, {'a': ?})", []any{nil}},
		{"INSERT INTO ks.cn (k, m) VALUES (1, {?: 1})", []any{nil}},
		{"INSERT INTO ks.cn (k, l) VALUES (1, [?, 1])", []any{nil}},
		{"INSERT INTO ks.cn (k, st) VALUES (1, {?})", []any{nil}},
		{"INSERT INTO ks.cn (k, v) VALUES (1, ['a', null])", nil},
		{"INSERT INTO ks.cn (k, v) VALUES (1, [?, 'b'])", []any{nil}},
		{"UPDATE ks.cn SET m = m + {'a': null} WHERE k = 1", nil},
		{"UPDATE ks.cn SET m = m + ? WHERE k = 1", []any{map[string]*int{"a": nil}}},
		{"UPDATE ks.cn SET m = m - ? WHERE k = 1", []any{[]*string{&a, nil}}},
		{"UPDATE ks.cn SET l = l + ? WHERE k = 1", []any{[]*int{nil}}},
		{"UPDATE ks.cn SET l = ? + l WHERE k = 1", []any{[]*int{nil}}},
		{"UPDATE ks.cn SET st = st + ? WHERE k = 1", []any{[]*int{nil}}},
		{"UPDATE ks.cn SET st = st - {null} WHERE k = 1", nil},
	}
	check := func(how, q string, err error) {
		t.Helper()
		if codeOf(err) != gocql.ErrCodeInvalid || !strings.Contains(err.Error(), "null is not supported inside collections") {
			t.Errorf("%s %s: %v, want InvalidRequest: null is not supported inside collections", how, q, err)
		}
	}
	for _, c := range cases {
		check("EXECUTE", c.q, s.Query(c.q, c.args...).Exec())
		b := s.Batch(gocql.LoggedBatch)
		b.Query(c.q, c.args...)
		b.Query("INSERT INTO ks.cn (k, l) VALUES (2, [2])")
		check("BATCH", c.q, s.ExecuteBatch(b))
	}
	if rows, err := cl.Query("SELECT * FROM ks.cn"); err != nil || len(rows) != 0 {
		t.Fatalf("after refused statements: %v, %v; want no rows", rows, err)
	}

	// m[k] = null is no null inside a collection: it deletes the entry.
	mustExec(t, s, "INSERT INTO ks.cn (k, m) VALUES (3, {'a': 1, 'b': 2})", "UPDATE ks.cn SET m['a'] = null WHERE k = 3")
	if err := s.Query("UPDATE ks.cn SET m[?] = ? WHERE k = 3", "b", nil).Exec(); err != nil {
		t.Fatalf("m[?] = null: %v", err)
	}
	if rows, err := cl.Query("SELECT m FROM ks.cn WHERE k = 3"); err != nil || len(rows) != 1 || rows[0]["m"] != "null" {
		t.Errorf("after setting both entries to null: %v, %v; want m = null", rows, err)
	}
}
