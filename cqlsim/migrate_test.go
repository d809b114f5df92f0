package cqlsim

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cqlload/cqlload/cqlsim/internal/cql"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
	"github.com/gocql/gocql"
)

// The tests in this file check, through gocql, what loading with each
// row's write time and TTL and with users' own statements relies on:
// USING TIMESTAMP/TTL with bind markers, last-write-wins, writetime() and
// ttl(), collection and counter updates, deletions, lightweight
// transactions and functions in values, as Cassandra 4 answers them.

// wantInvalid fails unless err is an Invalid (0x2200) error whose message
// holds want.
func wantInvalid(t *testing.T, what string, err error, want string) {
	t.Helper()
	if err == nil || codeOf(err) != 0x2200 || !strings.Contains(err.Error(), want) {
		t.Errorf("%s: got %v (code %#x), want Invalid %q", what, err, codeOf(err), want)
	}
}

func TestPreparedUsingMetadata(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 1})
	s := connect(t, cl, nil)
	mustExec(t, s, ks1, "CREATE TABLE ks.m (k int, c int, v text, PRIMARY KEY (k, c))")
	type bind struct {
		name string
		typ  primitive.DataTypeCode
	}
	cases := []struct {
		query string
		binds []bind
		pk    []uint16
	}{
		{"INSERT INTO ks.m (k, c, v) VALUES (?, ?, ?) USING TIMESTAMP ? AND TTL ?",
			[]bind{{"k", primitive.DataTypeCodeInt}, {"c", primitive.DataTypeCodeInt}, {"v", primitive.DataTypeCodeVarchar},
				{"[timestamp]", primitive.DataTypeCodeBigint}, {"[ttl]", primitive.DataTypeCodeInt}}, []uint16{0}},
		// A named marker is named by its name, as Cassandra names it.
		{"INSERT INTO ks.m (k, c, v) VALUES (:k, :c, :v) USING TIMESTAMP :ts AND TTL :ttl",
			[]bind{{"k", primitive.DataTypeCodeInt}, {"c", primitive.DataTypeCodeInt}, {"v", primitive.DataTypeCodeVarchar},
				{"ts", primitive.DataTypeCodeBigint}, {"ttl", primitive.DataTypeCodeInt}}, []uint16{0}},
		{"UPDATE ks.m USING TTL ? AND TIMESTAMP ? SET v = ? WHERE k = ? AND c = ?",
			[]bind{{"[ttl]", primitive.DataTypeCodeInt}, {"[timestamp]", primitive.DataTypeCodeBigint}, {"v", primitive.DataTypeCodeVarchar},
				{"k", primitive.DataTypeCodeInt}, {"c", primitive.DataTypeCodeInt}}, []uint16{3}},
		{"DELETE FROM ks.m USING TIMESTAMP :ts WHERE k = :k AND c > :c",
			[]bind{{"ts", primitive.DataTypeCodeBigint}, {"k", primitive.DataTypeCodeInt}, {"c", primitive.DataTypeCodeInt}}, []uint16{1}},
		{"UPDATE ks.m SET v = :v WHERE k = :k AND c = :c IF v = :old",
			[]bind{{"v", primitive.DataTypeCodeVarchar}, {"k", primitive.DataTypeCodeInt}, {"c", primitive.DataTypeCodeInt},
				{"old", primitive.DataTypeCodeVarchar}}, []uint16{1}},
	}
	for _, c := range cases {
		p, id, err := cl.Node(0).prepare(&session{}, c.query)
		if err != nil {
			t.Errorf("%s: %v", c.query, err)
			continue
		}
		res := p.preparedResult(id, primitive.ProtocolVersion4).(*message.PreparedResult)
		var got []bind
		for _, col := range res.VariablesMetadata.Columns {
			got = append(got, bind{col.Name, col.Type.Code()})
		}
		if !reflect.DeepEqual(got, c.binds) || !reflect.DeepEqual(res.VariablesMetadata.PkIndices, c.pk) {
			t.Errorf("%s:\n got binds %v pk %v\nwant binds %v pk %v", c.query, got, res.VariablesMetadata.PkIndices, c.binds, c.pk)
		}
	}
	// gocql routes by the partition key bind, wherever it is in the statement.
	q := s.Query("UPDATE ks.m USING TTL ? AND TIMESTAMP ? SET v = ? WHERE k = ? AND c = ?", 10, int64(5), "x", 7, 1)
	key, err := q.GetRoutingKey()
	if err != nil || !reflect.DeepEqual(key, []byte{0, 0, 0, 7}) {
		t.Errorf("routing key %x, %v; want 00000007", key, err)
	}
}

func TestUsingTimestampAndTTLBinds(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 1})
	s := connect(t, cl, nil)
	mustExec(t, s, ks1, "CREATE TABLE ks.m (k int, c int, v text, PRIMARY KEY (k, c))",
		"CREATE TABLE ks.d (k int PRIMARY KEY, v text) WITH default_time_to_live = 500")
	read := func(table string, k int) (v *string, wt *int64, ttl *int, ok bool) {
		q := "SELECT v, WRITETIME(v), TTL(v) FROM ks." + table + " WHERE k = ?"
		if err := s.Query(q, k).Scan(&v, &wt, &ttl); err != nil {
			if err == gocql.ErrNotFound {
				return nil, nil, nil, false
			}
			t.Fatal(err)
		}
		return v, wt, ttl, true
	}
	cases := []struct {
		name  string
		table string
		k     int
		query string
		args  []any
		wt    int64 // 0: not checked
		ttl   int   // -1: no TTL; else about this many seconds
	}{
		{"positional insert", "m", 1, "INSERT INTO ks.m (k, c, v) VALUES (?, ?, ?) USING TIMESTAMP ? AND TTL ?",
			[]any{1, 1, "a", int64(1000), 300}, 1000, 300},
		{"named insert", "m", 2, "INSERT INTO ks.m (k, c, v) VALUES (:k, :c, :v) USING TIMESTAMP :ts AND TTL :ttl",
			// gocql marshals by position but sends the names: c and k
			// swapped (both int) are bound by name.
			[]any{gocql.NamedValue("c", 1), gocql.NamedValue("k", 2), gocql.NamedValue("v", "b"), gocql.NamedValue("ts", int64(2000)), gocql.NamedValue("ttl", 200)}, 2000, 200},
		{"update ttl then timestamp", "m", 3, "UPDATE ks.m USING TTL ? AND TIMESTAMP ? SET v = ? WHERE k = ? AND c = ?",
			[]any{100, int64(3000), "c", 3, 1}, 3000, 100},
		{"TTL 0 is none", "m", 4, "INSERT INTO ks.m (k, c, v) VALUES (?, ?, ?) USING TTL ?",
			[]any{4, 1, "d", 0}, 0, -1},
		// Cassandra 4: a null TTL is no TTL; an unset one is the table's default.
		{"null TTL is none", "d", 5, "INSERT INTO ks.d (k, v) VALUES (?, ?) USING TTL ?",
			[]any{5, "e", nil}, 0, -1},
		{"unset TTL is the default", "d", 6, "INSERT INTO ks.d (k, v) VALUES (?, ?) USING TTL ?",
			[]any{6, "f", gocql.UnsetValue}, 0, 500},
		{"TTL 0 overrides the default", "d", 7, "INSERT INTO ks.d (k, v) VALUES (?, ?) USING TTL ?",
			[]any{7, "g", 0}, 0, -1},
		{"unset timestamp is the default", "m", 8, "INSERT INTO ks.m (k, c, v) VALUES (?, ?, ?) USING TIMESTAMP ?",
			[]any{8, 1, "h", gocql.UnsetValue}, 0, -1},
	}
	for _, c := range cases {
		if err := s.Query(c.query, c.args...).Exec(); err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		v, wt, ttl, ok := read(c.table, c.k)
		if !ok || v == nil {
			t.Errorf("%s: row %d not written", c.name, c.k)
			continue
		}
		if c.wt != 0 && (wt == nil || *wt != c.wt) {
			t.Errorf("%s: writetime %v, want %d", c.name, wt, c.wt)
		}
		if c.wt == 0 && (wt == nil || *wt < time.Now().Add(-time.Minute).UnixMicro()) {
			t.Errorf("%s: writetime %v, want about now", c.name, wt)
		}
		switch {
		case c.ttl < 0 && ttl != nil:
			t.Errorf("%s: ttl %d, want none", c.name, *ttl)
		case c.ttl >= 0 && (ttl == nil || *ttl > c.ttl || *ttl < c.ttl-10):
			t.Errorf("%s: ttl %v, want about %d", c.name, ttl, c.ttl)
		}
	}
	refused := []struct {
		query string
		args  []any
		want  string
	}{
		{"INSERT INTO ks.m (k, c, v) VALUES (?, ?, ?) USING TIMESTAMP ?", []any{9, 1, "x", nil}, "Invalid null value of timestamp"},
		{"UPDATE ks.m USING TIMESTAMP ? SET v = ? WHERE k = ? AND c = ?", []any{nil, "x", 9, 1}, "Invalid null value of timestamp"},
		{"INSERT INTO ks.m (k, c, v) VALUES (?, ?, ?) USING TTL ?", []any{9, 1, "x", -1}, "A TTL must be greater or equal to 0, but was -1"},
		{"INSERT INTO ks.m (k, c, v) VALUES (?, ?, ?) USING TTL ?", []any{9, 1, "x", maxTTL + 1}, "ttl is too large"},
	}
	for _, r := range refused {
		wantInvalid(t, r.query, s.Query(r.query, r.args...).Exec(), r.want)
	}
	if _, _, _, ok := read("m", 9); ok {
		t.Error("a refused write stored row 9")
	}
}

func TestLastWriteWinsByWriteTime(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 1})
	s := connect(t, cl, nil)
	mustExec(t, s, ks1, "CREATE TABLE ks.l (k int, c int, v text, PRIMARY KEY (k, c))")
	// Each case runs its statements on its own partition k, then reads
	// v at c = 1 ("" means no row, "<null>" a row without v).
	cases := []struct {
		name  string
		stmts []string
		want  string
	}{
		{"older insert after newer insert", []string{
			"INSERT INTO ks.l (k, c, v) VALUES (%d, 1, 'new') USING TIMESTAMP 200",
			"INSERT INTO ks.l (k, c, v) VALUES (%d, 1, 'old') USING TIMESTAMP 100"}, "new"},
		{"older update after newer insert", []string{
			"INSERT INTO ks.l (k, c, v) VALUES (%d, 1, 'new') USING TIMESTAMP 200",
			"UPDATE ks.l USING TIMESTAMP 100 SET v = 'old' WHERE k = %d AND c = 1"}, "new"},
		{"older insert after newer delete", []string{
			"DELETE FROM ks.l USING TIMESTAMP 200 WHERE k = %d AND c = 1",
			"INSERT INTO ks.l (k, c, v) VALUES (%d, 1, 'old') USING TIMESTAMP 100"}, ""},
		{"older delete after newer insert", []string{
			"INSERT INTO ks.l (k, c, v) VALUES (%d, 1, 'new') USING TIMESTAMP 200",
			"DELETE FROM ks.l USING TIMESTAMP 100 WHERE k = %d AND c = 1"}, "new"},
		{"older cell delete after newer update", []string{
			"UPDATE ks.l USING TIMESTAMP 200 SET v = 'new' WHERE k = %d AND c = 1",
			"DELETE v FROM ks.l USING TIMESTAMP 100 WHERE k = %d AND c = 1"}, "new"},
		{"newer insert after delete", []string{
			"DELETE FROM ks.l USING TIMESTAMP 100 WHERE k = %d",
			"INSERT INTO ks.l (k, c, v) VALUES (%d, 1, 'new') USING TIMESTAMP 200"}, "new"},
		{"equal timestamps: greater value wins", []string{
			"INSERT INTO ks.l (k, c, v) VALUES (%d, 1, 'b') USING TIMESTAMP 100",
			"INSERT INTO ks.l (k, c, v) VALUES (%d, 1, 'a') USING TIMESTAMP 100"}, "b"},
		{"equal timestamps: greater value wins either order", []string{
			"INSERT INTO ks.l (k, c, v) VALUES (%d, 1, 'a') USING TIMESTAMP 100",
			"UPDATE ks.l USING TIMESTAMP 100 SET v = 'b' WHERE k = %d AND c = 1"}, "b"},
		{"equal timestamps: a cell delete wins", []string{
			"INSERT INTO ks.l (k, c, v) VALUES (%d, 1, 'a') USING TIMESTAMP 100",
			"DELETE v FROM ks.l USING TIMESTAMP 100 WHERE k = %d AND c = 1"}, "<null>"},
		{"equal timestamps: a row delete wins", []string{
			"DELETE FROM ks.l USING TIMESTAMP 100 WHERE k = %d AND c = 1",
			"INSERT INTO ks.l (k, c, v) VALUES (%d, 1, 'a') USING TIMESTAMP 100"}, ""},
		{"range delete shadows a later older write", []string{
			"DELETE FROM ks.l USING TIMESTAMP 200 WHERE k = %d AND c >= 0",
			"INSERT INTO ks.l (k, c, v) VALUES (%d, 1, 'old') USING TIMESTAMP 100"}, ""},
		{"range delete spares a newer write", []string{
			"INSERT INTO ks.l (k, c, v) VALUES (%d, 1, 'new') USING TIMESTAMP 300",
			"DELETE FROM ks.l USING TIMESTAMP 200 WHERE k = %d AND c >= 0 AND c < 5"}, "new"},
		{"range delete outside the slice", []string{
			"INSERT INTO ks.l (k, c, v) VALUES (%d, 1, 'kept') USING TIMESTAMP 100",
			"DELETE FROM ks.l USING TIMESTAMP 200 WHERE k = %d AND c > 1"}, "kept"},
	}
	for i, c := range cases {
		k := 100 + i
		for _, st := range c.stmts {
			q := strings.ReplaceAll(st, "%d", strconv.Itoa(k))
			if err := s.Query(q).Exec(); err != nil {
				t.Fatalf("%s: %s: %v", c.name, q, err)
			}
		}
		var v *string
		got := ""
		err := s.Query("SELECT v FROM ks.l WHERE k = ? AND c = 1", k).Scan(&v)
		switch {
		case err == gocql.ErrNotFound:
		case err != nil:
			t.Fatal(err)
		case v == nil:
			got = "<null>"
		default:
			got = *v
		}
		if got != c.want {
			t.Errorf("%s: v = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestWritetimeAndTTLSelectors(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 1})
	s := connect(t, cl, nil)
	mustExec(t, s, ks1, "CREATE TYPE ks.pt (x int)",
		"CREATE TABLE ks.s (k int, c int, v int, fl frozen<list<int>>, l list<int>, u pt, fu frozen<pt>, st int STATIC, PRIMARY KEY (k, c))",
		"INSERT INTO ks.s (k, c, v, fl, st) VALUES (1, 1, 10, [1], 5) USING TIMESTAMP 1234 AND TTL 600",
		"UPDATE ks.s USING TIMESTAMP 99 SET v = 11 WHERE k = 2 AND c = 1")
	// Any case, with aliases; the metadata names the columns as Cassandra does.
	iter := s.Query("SELECT WRITETIME(v) AS w, Ttl(v), writetime(fl), ttl(st), WriteTime(st) FROM ks.s WHERE k = 1").Iter()
	var names []string
	for _, c := range iter.Columns() {
		names = append(names, c.Name)
	}
	if want := []string{"w", "ttl(v)", "writetime(fl)", "ttl(st)", "writetime(st)"}; !reflect.DeepEqual(names, want) {
		t.Errorf("columns %v, want %v", names, want)
	}
	var w, wfl, wst int64
	var ttl, ttlst int
	if !iter.Scan(&w, &ttl, &wfl, &ttlst, &wst) {
		t.Fatalf("no row: %v", iter.Close())
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	if w != 1234 || wfl != 1234 || wst != 1234 || ttl < 590 || ttl > 600 || ttlst < 590 || ttlst > 600 {
		t.Errorf("writetime %d %d %d, ttl %d %d; want 1234 and about 600", w, wfl, wst, ttl, ttlst)
	}
	// No TTL reads as null; a missing cell has neither.
	var wt, tt *int64
	var ttl2 *int
	if err := s.Query("SELECT writetime(v), ttl(v), writetime(fl) FROM ks.s WHERE k = 2 AND c = 1").Scan(&wt, &ttl2, &tt); err != nil {
		t.Fatal(err)
	}
	if wt == nil || *wt != 99 || ttl2 != nil || tt != nil {
		t.Errorf("row 2: writetime(v) %v ttl(v) %v writetime(fl) %v; want 99, null, null", wt, ttl2, tt)
	}
	// The functions Cassandra 4 refuses, with its messages.
	refused := map[string]string{
		"SELECT writetime(k) FROM ks.s":  "Cannot use selection function writeTime on PRIMARY KEY part k",
		"SELECT ttl(c) FROM ks.s":        "Cannot use selection function ttl on PRIMARY KEY part c",
		"SELECT writetime(l) FROM ks.s":  "Cannot use selection function writeTime on non-frozen collection l",
		"SELECT TTL(l) FROM ks.s":        "Cannot use selection function ttl on non-frozen collection l",
		"SELECT writetime(u) FROM ks.s":  "Cannot use selection function writeTime on non-frozen UDT u",
		"SELECT writetime(no) FROM ks.s": "Undefined column name no",
	}
	for q, want := range refused {
		wantInvalid(t, q, s.Query(q).Exec(), want)
	}
	if err := s.Query("SELECT writetime(fu), ttl(fl) FROM ks.s").Exec(); err != nil {
		t.Errorf("writetime of frozen values: %v", err)
	}
}

func TestUpdateOperationsNamedAndBatched(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 1})
	s := connect(t, cl, nil)
	mustExec(t, s, ks1, "CREATE TABLE ks.u (k int PRIMARY KEY, l list<int>, st set<int>, m map<text, int>)",
		"CREATE TABLE ks.n (k int PRIMARY KEY, c counter)")
	steps := []struct {
		stmt string
		args []any
	}{
		{"UPDATE ks.u SET l = l + :v WHERE k = :k", []any{gocql.NamedValue("v", []int{1, 2}), gocql.NamedValue("k", 1)}},
		{"UPDATE ks.u SET l = :v + l WHERE k = :k", []any{gocql.NamedValue("v", []int{0}), gocql.NamedValue("k", 1)}},
		{"UPDATE ks.u SET l[:i] = :v WHERE k = :k", []any{gocql.NamedValue("i", 2), gocql.NamedValue("v", 7), gocql.NamedValue("k", 1)}},
		{"UPDATE ks.u SET st = st + :v WHERE k = :k", []any{gocql.NamedValue("v", []int{3, 1, 2}), gocql.NamedValue("k", 1)}},
		{"UPDATE ks.u SET st = st - :v WHERE k = :k", []any{gocql.NamedValue("v", []int{2}), gocql.NamedValue("k", 1)}},
		{"UPDATE ks.u SET m = m + :v WHERE k = :k", []any{gocql.NamedValue("v", map[string]int{"a": 1, "b": 2}), gocql.NamedValue("k", 1)}},
		{"UPDATE ks.u SET m[:key] = :v WHERE k = :k", []any{gocql.NamedValue("key", "c"), gocql.NamedValue("v", 3), gocql.NamedValue("k", 1)}},
		{"DELETE m[:key] FROM ks.u WHERE k = :k", []any{gocql.NamedValue("key", "a"), gocql.NamedValue("k", 1)}},
		{"UPDATE ks.n SET c = c + :n WHERE k = :k", []any{gocql.NamedValue("n", int64(10)), gocql.NamedValue("k", 1)}},
		{"UPDATE ks.n SET c = c - :n WHERE k = :k", []any{gocql.NamedValue("n", int64(3)), gocql.NamedValue("k", 1)}},
	}
	for _, st := range steps {
		if err := s.Query(st.stmt, st.args...).Exec(); err != nil {
			t.Fatalf("%s: %v", st.stmt, err)
		}
	}
	var l, st []int
	var m map[string]int
	if err := s.Query("SELECT l, st, m FROM ks.u WHERE k = 1").Scan(&l, &st, &m); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(l, []int{0, 1, 7}) || !reflect.DeepEqual(st, []int{1, 3}) || !reflect.DeepEqual(m, map[string]int{"b": 2, "c": 3}) {
		t.Errorf("l %v st %v m %v; want [0 1 7] [1 3] map[b:2 c:3]", l, st, m)
	}
	var c int64
	if err := s.Query("SELECT c FROM ks.n WHERE k = 1").Scan(&c); err != nil || c != 7 {
		t.Errorf("counter %d, %v; want 7", c, err)
	}
	// A list append is not idempotent: the same batch sent twice appends
	// twice, through a driver batch of prepared statements and through
	// BEGIN BATCH alike.
	for i := 0; i < 2; i++ {
		b := s.Batch(gocql.LoggedBatch)
		b.Query("UPDATE ks.u SET l = l + ? WHERE k = ?", []int{5}, 2)
		b.Query("UPDATE ks.n SET c = c + 0 WHERE k = 9") // refused below: counters need a counter batch
		if err := s.ExecuteBatch(b); err == nil {
			t.Error("a logged batch took a counter update")
		}
		b = s.Batch(gocql.UnloggedBatch)
		b.Query("UPDATE ks.u SET l = l + ? WHERE k = ?", []int{5}, 2)
		if err := s.ExecuteBatch(b); err != nil {
			t.Fatal(err)
		}
		mustExec(t, s, "BEGIN BATCH UPDATE ks.u SET l = l + [6] WHERE k = 2; APPLY BATCH")
	}
	if err := s.Query("SELECT l FROM ks.u WHERE k = 2").Scan(&l); err != nil || !reflect.DeepEqual(l, []int{5, 6, 5, 6}) {
		t.Errorf("after two batches l = %v, %v; want [5 6 5 6]", l, err)
	}
}

func TestDeletes(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 1})
	s := connect(t, cl, nil)
	mustExec(t, s, ks1, "CREATE TABLE ks.d (k int, a int, b int, v text, PRIMARY KEY (k, a, b))")
	fill := func(k int) {
		for a := 0; a < 3; a++ {
			for b := 0; b < 3; b++ {
				if err := s.Query("INSERT INTO ks.d (k, a, b, v) VALUES (?, ?, ?, 'x') USING TIMESTAMP 100", k, a, b).Exec(); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	rows := func(k int) string {
		iter := s.Query("SELECT a, b, v FROM ks.d WHERE k = ?", k).Iter()
		var a, b int
		var v *string
		var out []string
		for iter.Scan(&a, &b, &v) {
			cell := "-"
			if v != nil {
				cell = *v
			}
			out = append(out, strconv.Itoa(a)+strconv.Itoa(b)+cell)
		}
		if err := iter.Close(); err != nil {
			t.Fatal(err)
		}
		return strings.Join(out, " ")
	}
	cases := []struct {
		name string
		stmt string
		args []any
		want string
	}{
		{"partition", "DELETE FROM ks.d WHERE k = ?", []any{1}, ""},
		{"row", "DELETE FROM ks.d WHERE k = ? AND a = 1 AND b = 1", []any{2}, "00x 01x 02x 10x 12x 20x 21x 22x"},
		{"clustering prefix", "DELETE FROM ks.d WHERE k = ? AND a = 1", []any{3}, "00x 01x 02x 20x 21x 22x"},
		{"slice of the first column", "DELETE FROM ks.d WHERE k = ? AND a > 0", []any{4}, "00x 01x 02x"},
		{"slice after a prefix", "DELETE FROM ks.d WHERE k = ? AND a = 2 AND b >= 1 AND b < 2", []any{5}, "00x 01x 02x 10x 11x 12x 20x 22x"},
		{"bound slice", "DELETE FROM ks.d WHERE k = ? AND a = ? AND b <= ?", []any{6, 0, 1}, "02x 10x 11x 12x 20x 21x 22x"},
		{"cell", "DELETE v FROM ks.d WHERE k = ? AND a = 0 AND b = 0", []any{7}, "00- 01x 02x 10x 11x 12x 20x 21x 22x"},
		{"older partition delete", "DELETE FROM ks.d USING TIMESTAMP 50 WHERE k = ?", []any{8}, "00x 01x 02x 10x 11x 12x 20x 21x 22x"},
		{"older range delete", "DELETE FROM ks.d USING TIMESTAMP ? WHERE k = ? AND a < 2", []any{int64(99), 9}, "00x 01x 02x 10x 11x 12x 20x 21x 22x"},
		{"newer range delete", "DELETE FROM ks.d USING TIMESTAMP ? WHERE k = ? AND a < 2", []any{int64(101), 10}, "20x 21x 22x"},
		{"range in a batch", "BEGIN UNLOGGED BATCH DELETE FROM ks.d WHERE k = ? AND a = 0; DELETE FROM ks.d WHERE k = ? AND a = 2 AND b > 0 APPLY BATCH", []any{11, 11}, "10x 11x 12x 20x"},
	}
	for _, c := range cases {
		// The partition is the first int argument (after a timestamp).
		k, ok := c.args[0].(int)
		if !ok {
			k = c.args[1].(int)
		}
		fill(k)
		if err := s.Query(c.stmt, c.args...).Exec(); err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := rows(k); got != c.want {
			t.Errorf("%s: rows %q, want %q", c.name, got, c.want)
		}
	}
	refused := map[string]string{
		"DELETE v FROM ks.d WHERE k = 1 AND a > 0":                            "Range deletions are not supported for specific columns",
		"DELETE FROM ks.d WHERE k = 1 AND a > 0 AND b = 1":                    "cannot be restricted (preceding column \"a\" is restricted by a non-EQ relation)",
		"DELETE FROM ks.d WHERE k = 1 AND a = 1 IF EXISTS":                    "DELETE statements must restrict all PRIMARY KEY columns with equality relations in order to use IF conditions",
		"UPDATE ks.d SET v = 'y' WHERE k = 1 AND a = 1 AND b > 1":             "Slice restrictions are not supported on the clustering columns in UPDATE statements",
		"DELETE FROM ks.d WHERE k = 1 AND a = 1 AND a > 0":                    "cannot be restricted by both an equality and an inequality relation",
		"DELETE FROM ks.d WHERE k = 1 AND a > 0 AND a > 1":                    "More than one restriction was found for the start bound on a",
		"DELETE FROM ks.d USING TIMESTAMP 5 WHERE k = 1 AND a = 1 IF v = 'x'": "Cannot provide custom timestamp for conditional updates",
	}
	for q, want := range refused {
		wantInvalid(t, q, s.Query(q).Exec(), want)
	}
}

func TestConditionalWrites(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 3})
	s := connect(t, cl, nil)
	mustExec(t, s, ks3, "CREATE TABLE ks.c (k int, c int, v text, w int, PRIMARY KEY (k, c))",
		"CREATE TABLE ks.o (k int, c int, v text, PRIMARY KEY (k, c))",
		"CREATE TABLE ks.n (k int PRIMARY KEY, n counter)",
		"INSERT INTO ks.c (k, c, v, w) VALUES (1, 1, 'a', 10)")
	// Each step runs on the state the previous ones left. existing is
	// what MapScanCAS reads besides [applied]: the row's columns when not
	// applied (all of them for IF [NOT] EXISTS, those of the conditions
	// otherwise), nothing when the row is not there.
	steps := []struct {
		stmt     string
		args     []any
		applied  bool
		existing map[string]any
	}{
		{"INSERT INTO ks.c (k, c, v, w) VALUES (?, ?, ?, ?) IF NOT EXISTS", []any{1, 1, "b", 20}, false,
			map[string]any{"k": 1, "c": 1, "v": "a", "w": 10}},
		{"INSERT INTO ks.c (k, c, v, w) VALUES (?, ?, ?, ?) IF NOT EXISTS", []any{1, 2, "b", 20}, true, map[string]any{}},
		{"UPDATE ks.c SET v = ? WHERE k = ? AND c = ? IF EXISTS", []any{"x", 1, 3}, false, map[string]any{}},
		{"UPDATE ks.c SET v = ? WHERE k = ? AND c = ? IF EXISTS", []any{"c", 1, 2}, true, map[string]any{}},
		{"UPDATE ks.c SET v = :v WHERE k = :k AND c = :c IF v = :old", []any{gocql.NamedValue("v", "d"), gocql.NamedValue("k", 1), gocql.NamedValue("c", 1), gocql.NamedValue("old", "zzz")}, false,
			map[string]any{"v": "a"}},
		{"UPDATE ks.c SET v = ? WHERE k = ? AND c = ? IF v = ? AND w = ?", []any{"d", 1, 1, "a", 11}, false,
			map[string]any{"v": "a", "w": 10}},
		{"UPDATE ks.c SET v = ? WHERE k = ? AND c = ? IF v = ? AND w = ?", []any{"d", 1, 1, "a", 10}, true, map[string]any{}},
		{"UPDATE ks.c SET w = ? WHERE k = ? AND c = ? IF w > ? AND v IN (?, ?)", []any{5, 1, 1, 9, "q", "d"}, true, map[string]any{}},
		{"UPDATE ks.c SET w = ? WHERE k = ? AND c = ? IF w != ?", []any{6, 1, 1, 5}, false, map[string]any{"w": 5}},
		// A missing row's cells are null: IF v = null holds there.
		{"UPDATE ks.c SET v = ? WHERE k = ? AND c = ? IF v = null", []any{"new", 2, 1}, true, map[string]any{}},
		{"UPDATE ks.c SET v = ? WHERE k = ? AND c = ? IF v = ?", []any{"x", 3, 1, "a"}, false, map[string]any{}},
		{"DELETE FROM ks.c WHERE k = ? AND c = ? IF v = ?", []any{1, 2, "zzz"}, false, map[string]any{"v": "c"}},
		{"DELETE FROM ks.c WHERE k = ? AND c = ? IF v = ?", []any{1, 2, "c"}, true, map[string]any{}},
		{"DELETE FROM ks.c WHERE k = ? AND c = ? IF EXISTS", []any{1, 2}, false, map[string]any{}},
		{"DELETE w FROM ks.c WHERE k = ? AND c = ? IF EXISTS", []any{1, 1}, true, map[string]any{}},
	}
	for _, st := range steps {
		existing := map[string]any{}
		applied, err := s.Query(st.stmt, st.args...).SerialConsistency(gocql.Serial).MapScanCAS(existing)
		if err != nil {
			t.Fatalf("%s %v: %v", st.stmt, st.args, err)
		}
		if applied != st.applied || !reflect.DeepEqual(existing, st.existing) {
			t.Errorf("%s %v: applied %v, existing %v; want %v, %v", st.stmt, st.args, applied, existing, st.applied, st.existing)
		}
	}
	var v string
	var w *int
	if err := s.Query("SELECT v, w FROM ks.c WHERE k = 1 AND c = 1").Scan(&v, &w); err != nil || v != "d" || w != nil {
		t.Errorf("row (1, 1): v %q w %v, %v; want d and null", v, w, err)
	}
	// ScanCAS with the columns of the conditions, and LOCAL_SERIAL.
	var cur string
	applied, err := s.Query("UPDATE ks.c SET v = 'e' WHERE k = 1 AND c = 1 IF v = 'nope'").SerialConsistency(gocql.LocalSerial).ScanCAS(&cur)
	if err != nil || applied || cur != "d" {
		t.Errorf("ScanCAS: applied %v current %q, %v; want false, d", applied, cur, err)
	}
	// The simple-query path answers the same.
	applied, err = s.Query("UPDATE ks.c SET v = 'e' WHERE k = 1 AND c = 1 IF v = 'd'").MapScanCAS(map[string]any{})
	if err != nil || !applied {
		t.Errorf("unbound conditional update: applied %v, %v", applied, err)
	}

	refused := []struct {
		stmt string
		args []any
		want string
	}{
		{"INSERT INTO ks.c (k, c, v) VALUES (1, 9, 'x') IF NOT EXISTS USING TIMESTAMP 5", nil, "Cannot provide custom timestamp for conditional updates"},
		{"UPDATE ks.c USING TIMESTAMP 5 SET v = 'x' WHERE k = 1 AND c = 9 IF v = 'y'", nil, "Cannot provide custom timestamp for conditional updates"},
		{"UPDATE ks.n SET n = n + 1 WHERE k = 1 IF EXISTS", nil, "Conditional updates are not supported on counter tables"},
		{"UPDATE ks.n USING TIMESTAMP 5 SET n = n + 1 WHERE k = 1", nil, "Cannot provide custom timestamp for counter updates"},
		{"UPDATE ks.n USING TTL 5 SET n = n + 1 WHERE k = 1", nil, "Cannot provide custom TTL for counter updates"},
		{"UPDATE ks.c SET v = 'x' WHERE k IN (1, 2) AND c = 1 IF v = 'y'", nil, "IN on the partition key is not supported with conditional updates"},
		{"DELETE FROM ks.c WHERE k = 1 AND c IN (1, 2) IF v = 'y'", nil, "IN on the clustering key columns is not supported with conditional deletions"},
		{"UPDATE ks.c SET v = 'x' WHERE k = 1 AND c = 1 IF c = 1", nil, "PRIMARY KEY column 'c' cannot have IF conditions"},
		{"UPDATE ks.c SET v = 'x' WHERE k = 1 AND c = 1 IF w > ?", []any{nil}, "Invalid comparison with null for operator \">\""},
	}
	for _, r := range refused {
		wantInvalid(t, r.stmt, s.Query(r.stmt, r.args...).Exec(), r.want)
	}
	// Drivers refuse to send a serial consistency that is not one; the
	// server refuses it too.
	quorum := primitive.ConsistencyLevelQuorum
	st, err := cql.Parse("UPDATE ks.c SET v = 'x' WHERE k = 1 AND c = 1 IF v = 'y'")
	if err != nil {
		t.Fatal(err)
	}
	_, err = cl.Node(0).run(&session{}, st, &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne, SerialConsistency: &quorum})
	if err == nil || !strings.Contains(err.Error(), "Invalid consistency for conditional update. Must be one of SERIAL or LOCAL_SERIAL") {
		t.Errorf("serial consistency QUORUM: %v", err)
	}

	// Conditional batches: one partition of one table, all or nothing.
	b := s.Batch(gocql.LoggedBatch)
	b.Query("INSERT INTO ks.c (k, c, v) VALUES (?, ?, ?) IF NOT EXISTS", 5, 1, "a")
	b.Query("UPDATE ks.c SET v = ? WHERE k = ? AND c = ? IF v = null", "b", 5, 2)
	b.Query("INSERT INTO ks.c (k, c, v) VALUES (?, ?, ?)", 5, 3, "c")
	if applied, _, err := s.MapExecuteBatchCAS(b, map[string]any{}); err != nil || !applied {
		t.Fatalf("first conditional batch: applied %v, %v", applied, err)
	}
	b = s.Batch(gocql.LoggedBatch)
	b.Query("UPDATE ks.c SET v = ? WHERE k = ? AND c = ? IF v = ?", "z", 5, 1, "a")
	b.Query("UPDATE ks.c SET w = ? WHERE k = ? AND c = ? IF v = ?", 1, 5, 2, "wrong")
	var bk, bc int
	var bv string
	applied, iter, err := s.ExecuteBatchCAS(b, &bk, &bc, &bv)
	if err != nil || applied {
		t.Fatalf("failing conditional batch: applied %v, %v", applied, err)
	}
	// Not applied: a row per row read, with the primary key and the
	// columns of the conditions.
	got := []string{strconv.Itoa(bk) + strconv.Itoa(bc) + bv}
	for iter.Scan(&applied, &bk, &bc, &bv) {
		got = append(got, strconv.Itoa(bk)+strconv.Itoa(bc)+bv)
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"51a", "52b"}; !reflect.DeepEqual(got, want) {
		t.Errorf("failed batch rows %v, want %v", got, want)
	}
	if err := s.Query("SELECT v FROM ks.c WHERE k = 5 AND c = 1").Scan(&v); err != nil || v != "a" {
		t.Errorf("a failed conditional batch wrote: v = %q, %v", v, err)
	}
	batchRefused := []struct {
		name string
		make func() *gocql.Batch
		want string
	}{
		{"two partitions", func() *gocql.Batch {
			b := s.Batch(gocql.LoggedBatch)
			b.Query("INSERT INTO ks.c (k, c, v) VALUES (?, ?, ?) IF NOT EXISTS", 6, 1, "a")
			b.Query("INSERT INTO ks.c (k, c, v) VALUES (?, ?, ?)", 7, 1, "a")
			return b
		}, "Batch with conditions cannot span multiple partitions"},
		{"two tables", func() *gocql.Batch {
			b := s.Batch(gocql.LoggedBatch)
			b.Query("INSERT INTO ks.c (k, c, v) VALUES (?, ?, ?) IF NOT EXISTS", 6, 1, "a")
			b.Query("INSERT INTO ks.o (k, c, v) VALUES (?, ?, ?)", 6, 1, "a")
			return b
		}, "Batch with conditions cannot span multiple tables"},
		{"IN on the partition key", func() *gocql.Batch {
			b := s.Batch(gocql.LoggedBatch)
			b.Query("UPDATE ks.c SET v = 'x' WHERE k IN (6, 7) AND c = 1")
			b.Query("INSERT INTO ks.c (k, c, v) VALUES (?, ?, ?) IF NOT EXISTS", 6, 1, "a")
			return b
		}, "Batch with conditions cannot span multiple partitions (you cannot use IN on the partition key)"},
	}
	for _, r := range batchRefused {
		_, _, err := s.MapExecuteBatchCAS(r.make(), map[string]any{})
		wantInvalid(t, r.name, err, r.want)
	}
	wantInvalid(t, "BEGIN BATCH USING TIMESTAMP with a condition",
		s.Query("BEGIN BATCH USING TIMESTAMP 10 INSERT INTO ks.c (k, c, v) VALUES (8, 1, 'a') IF NOT EXISTS; APPLY BATCH").Exec(),
		"Cannot provide custom timestamp for conditional BATCH")
	var n int
	if err := s.Query("SELECT count(*) FROM ks.c WHERE k IN (6, 7, 8)").Scan(&n); err != nil || n != 0 {
		t.Errorf("refused batches wrote %d rows, %v", n, err)
	}
	// BEGIN BATCH with conditions answers [applied] too.
	applied, err = s.Query("BEGIN BATCH INSERT INTO ks.c (k, c, v) VALUES (8, 1, 'a') IF NOT EXISTS; UPDATE ks.c SET w = 1 WHERE k = 8 AND c = 2; APPLY BATCH").MapScanCAS(map[string]any{})
	if err != nil || !applied {
		t.Errorf("BEGIN BATCH with IF NOT EXISTS: applied %v, %v", applied, err)
	}
}

func TestFunctionsInWrites(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 1})
	s := connect(t, cl, nil)
	mustExec(t, s, ks1, `CREATE TABLE ks.f (k uuid, c timeuuid, ts timestamp, ts2 timestamp, d date, d2 date, tm time,
		tu timeuuid, u uuid, ux bigint, PRIMARY KEY (k, c))`,
		"CREATE TABLE ks.t (k timeuuid PRIMARY KEY, v int)",
		"CREATE TABLE ks.i (k int PRIMARY KEY, v int)")
	before := time.Now().Add(-time.Second)
	// A function may give a primary key column its value: uuid() and
	// now() here, in the simple and the prepared path and in a batch.
	ins := `INSERT INTO ks.f (k, c, ts, ts2, d, d2, tm, tu, u, ux) VALUES (uuid(), now(), toTimestamp(now()),
		currentTimestamp(), currentDate(), toDate(now()), currentTime(), currentTimeUUID(), now(), toUnixTimestamp(now()))`
	mustExec(t, s, ins)
	if err := s.Query(ins+" USING TTL ?", 100).Exec(); err != nil {
		t.Fatal(err)
	}
	mustExec(t, s, "BEGIN BATCH "+ins+"; "+ins+"; APPLY BATCH")
	after := time.Now().Add(time.Second)
	iter := s.Query("SELECT k, c, ts, ts2, d, d2, tm, tu, u, ux FROM ks.f").Iter()
	var k, c, tu, u gocql.UUID
	var ts, ts2, d, d2 time.Time
	var tm time.Duration
	var ux int64
	keys := map[gocql.UUID]bool{}
	rows := 0
	for iter.Scan(&k, &c, &ts, &ts2, &d, &d2, &tm, &tu, &u, &ux) {
		rows++
		keys[k] = true
		if k.Version() != 4 || c.Version() != 1 || tu.Version() != 1 || u.Version() != 1 {
			t.Errorf("uuid versions k %d c %d tu %d u %d; want 4 1 1 1", k.Version(), c.Version(), tu.Version(), u.Version())
		}
		for _, x := range []time.Time{ts, ts2, c.Time(), tu.Time(), time.UnixMilli(ux)} {
			if x.Before(before) || x.After(after) {
				t.Errorf("time %v not between %v and %v", x, before, after)
			}
		}
		today := time.Now().UTC().Truncate(24 * time.Hour)
		if !d.Equal(today) && !d.Equal(today.Add(-24*time.Hour)) || !d2.Equal(d) {
			t.Errorf("dates %v %v; want today %v", d, d2, today)
		}
		if tm < 0 || tm >= 24*time.Hour {
			t.Errorf("currentTime() %v", tm)
		}
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	if rows != 4 || len(keys) != 4 {
		t.Errorf("%d rows with %d distinct uuid() keys; want 4 and 4", rows, len(keys))
	}
	// now() in the WHERE of an UPDATE names a new partition each time.
	for i := 0; i < 2; i++ {
		mustExec(t, s, "UPDATE ks.t SET v = 1 WHERE k = now()")
	}
	var n int
	if err := s.Query("SELECT count(*) FROM ks.t").Scan(&n); err != nil || n != 2 {
		t.Errorf("UPDATE … WHERE k = now() twice: %d rows, %v; want 2", n, err)
	}
	// What Cassandra refuses: a function whose type does not fit the
	// column, the key included. (It has no other rule against functions
	// on primary key columns in writes; writetime() and ttl() on them are
	// refused in SELECT, see TestWritetimeAndTTLSelectors.)
	refused := map[string]string{
		"INSERT INTO ks.i (k, v) VALUES (now(), 1)":          "Type error: cannot assign result of function system.now (type timeuuid) to k (type int)",
		"INSERT INTO ks.t (k, v) VALUES (uuid(), 1)":         "Type error: cannot assign result of function system.uuid (type uuid) to k (type timeuuid)",
		"UPDATE ks.i SET v = 1 WHERE k = toTimestamp(now())": "Type error: cannot assign result of function system.totimestamp (type timestamp) to k (type int)",
		"INSERT INTO ks.i (k, v) VALUES (1, currentDate())":  "Type error: cannot assign result of function system.currentdate (type date) to v (type int)",
		"DELETE FROM ks.i WHERE k = toUnixTimestamp(now())":  "Type error: cannot assign result of function system.tounixtimestamp (type bigint) to k (type int)",
	}
	for q, want := range refused {
		wantInvalid(t, q, s.Query(q).Exec(), want)
	}
}
