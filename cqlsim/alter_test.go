package cqlsim

import (
	"strings"
	"testing"
)

// TestAlterTable: ALTER TABLE ADD and DROP as Cassandra runs them. The
// table keeps its rows; an added column reads as null in them; a dropped
// one is gone from reads, from system_schema and from statements, and
// added again it starts empty. Statements prepared before the change are
// evicted, and the driver prepares them again: the same prepared INSERT
// goes on working across an ADD, and fails as invalid once its column is
// dropped.
func TestAlterTable(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 2})
	s := connect(t, cl, nil)
	mustExec(t, s, ks3, "CREATE TABLE ks.a (k int, c int, v text, PRIMARY KEY (k, c))")
	const ins = "INSERT INTO ks.a (k, c, v) VALUES (?, ?, ?)"
	for i := range 4 {
		if err := s.Query(ins, i, 0, "old").Exec(); err != nil {
			t.Fatal(err)
		}
	}
	columns := func() string {
		t.Helper()
		iter := s.Query("SELECT column_name FROM system_schema.columns WHERE keyspace_name = 'ks' AND table_name = 'a'").Iter()
		var names []string
		var n string
		for iter.Scan(&n) {
			names = append(names, n)
		}
		if err := iter.Close(); err != nil {
			t.Fatal(err)
		}
		return strings.Join(names, ",")
	}

	mustExec(t, s, "ALTER TABLE ks.a ADD (w int, st text static)")
	if got := columns(); got != "c,k,st,v,w" {
		t.Errorf("columns after ADD: %s", got)
	}
	unprepared := cl.Stats().Nodes[0].Errors["unprepared"] + cl.Stats().Nodes[1].Errors["unprepared"]
	for i := 4; i < 8; i++ { // prepared before the ALTER
		if err := s.Query(ins, i, 0, "mid").Exec(); err != nil {
			t.Fatalf("the INSERT prepared before ADD: %v", err)
		}
	}
	if n := cl.Stats().Nodes[0].Errors["unprepared"] + cl.Stats().Nodes[1].Errors["unprepared"]; n == unprepared {
		t.Error("no EXECUTE of the statement prepared before ALTER was answered UNPREPARED")
	}
	if err := s.Query("INSERT INTO ks.a (k, c, v, w, st) VALUES (9, 1, 'new', 90, 's')").Exec(); err != nil {
		t.Fatal(err)
	}
	var v string
	var w *int
	if err := s.Query("SELECT v, w FROM ks.a WHERE k = 1 AND c = 0").Scan(&v, &w); err != nil || v != "old" || w != nil {
		t.Errorf("an old row after ADD: v=%q w=%v (%v), want old and null", v, w, err)
	}
	var st string
	if err := s.Query("SELECT v, w, st FROM ks.a WHERE k = 9 AND c = 1").Scan(&v, &w, &st); err != nil || v != "new" || w == nil || *w != 90 || st != "s" {
		t.Errorf("a new row: v=%q w=%v st=%q (%v)", v, w, st, err)
	}

	mustExec(t, s, "ALTER TABLE ks.a DROP v")
	if got := columns(); got != "c,k,st,w" {
		t.Errorf("columns after DROP: %s", got)
	}
	if err := s.Query(ins, 20, 0, "late").Exec(); err == nil || !strings.Contains(err.Error(), "v") {
		t.Errorf("the INSERT of a dropped column: %v, want an invalid request naming v", err)
	}
	if err := s.Query("SELECT v FROM ks.a WHERE k = 1 AND c = 0").Scan(&v); err == nil {
		t.Error("SELECT of a dropped column succeeded")
	}
	var n int
	if err := s.Query("SELECT count(*) FROM ks.a").Scan(&n); err != nil || n != 9 {
		t.Errorf("rows after DROP: %d (%v), want 9", n, err)
	}
	mustExec(t, s, "ALTER TABLE ks.a ADD v text")
	var vp *string
	if err := s.Query("SELECT v FROM ks.a WHERE k = 1 AND c = 0").Scan(&vp); err != nil || vp != nil {
		t.Errorf("a dropped column added again: v=%v (%v), want null", vp, err)
	}
	if err := s.Query(ins, 21, 0, "again").Exec(); err != nil {
		t.Errorf("the INSERT once v is back: %v", err)
	}

	for _, tc := range []struct{ stmt, want string }{
		{"ALTER TABLE ks.a DROP k", "Cannot drop PRIMARY KEY part k"},
		{"ALTER TABLE ks.a DROP nope", "Column nope was not found"},
		{"ALTER TABLE ks.a ADD w int", "conflicts with an existing column"},
		{"ALTER TABLE ks.a ADD n counter", "Cannot add a counter column"},
		{"ALTER TABLE ks.none ADD x int", "doesn't exist"},
		{"ALTER TABLE system.local ADD x int", "not user-modifiable"},
		{"DROP TABLE IF EXISTS system.local", "not user-modifiable"},
		{"DROP TABLE ks.none", "doesn't exist"},
	} {
		if err := s.Query(tc.stmt).Exec(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.stmt, err, tc.want)
		}
	}
	mustExec(t, s, "ALTER TABLE ks.a DROP IF EXISTS nope", "ALTER TABLE ks.a ADD IF NOT EXISTS w int")
}
