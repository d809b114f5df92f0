package cqlsim

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

func TestPaging(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 3})
	s := connect(t, cl, nil)
	mustExec(t, s, ks3, "CREATE TABLE ks.p (k int, c int, v text, PRIMARY KEY (k, c))")
	for i := 0; i < 95; i++ {
		if err := s.Query("INSERT INTO ks.p (k, c, v) VALUES (?, ?, ?)", i%7, i, fmt.Sprint(i)).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name  string
		query string
		args  []any
		want  int
	}{
		{"full scan", "SELECT k, c, v FROM ks.p", nil, 95},
		{"one partition", "SELECT k, c, v FROM ks.p WHERE k = ?", []any{3}, 14},
		{"IN partitions", "SELECT k, c, v FROM ks.p WHERE k IN (1, 2)", nil, 28},
		{"limit", "SELECT k, c, v FROM ks.p LIMIT 33", nil, 33},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Setting PageState, even nil, turns off gocql's automatic paging.
			iter := s.Query(tc.query, tc.args...).PageSize(10).PageState(nil).Iter()
			seen := map[int]bool{}
			var k, c int
			var v string
			pages := 0
			for {
				for iter.Scan(&k, &c, &v) {
					if seen[c] {
						t.Fatalf("row c=%d returned twice", c)
					}
					seen[c] = true
					if v != fmt.Sprint(c) {
						t.Fatalf("row c=%d has v=%q", c, v)
					}
				}
				pages++
				if len(iter.PageState()) == 0 {
					break
				}
				iter = s.Query(tc.query, tc.args...).PageSize(10).PageState(iter.PageState()).Iter()
			}
			if err := iter.Close(); err != nil {
				t.Fatal(err)
			}
			if len(seen) != tc.want {
				t.Errorf("got %d rows, want %d", len(seen), tc.want)
			}
			if wantPages := (tc.want + 9) / 10; pages < wantPages {
				t.Errorf("got %d pages, want at least %d", pages, wantPages)
			}
		})
	}
	// The driver's own automatic paging.
	var n int
	iter := s.Query("SELECT c FROM ks.p").PageSize(10).Iter()
	for iter.Scan(new(int)) {
		n++
	}
	if err := iter.Close(); err != nil || n != 95 {
		t.Errorf("automatic paging: %d rows, %v; want 95", n, err)
	}
	var count int64
	if err := s.Query("SELECT count(*) FROM ks.p").Scan(&count); err != nil || count != 95 {
		t.Errorf("count(*) = %d, %v; want 95", count, err)
	}
	// DISTINCT and PER PARTITION LIMIT hold across page boundaries.
	for _, tc := range []struct {
		query string
		want  int
	}{
		{"SELECT DISTINCT k FROM ks.p", 7},
		{"SELECT k FROM ks.p PER PARTITION LIMIT 3", 21},
	} {
		iter := s.Query(tc.query).PageSize(2).Iter()
		n := 0
		for iter.Scan(new(int)) {
			n++
		}
		if err := iter.Close(); err != nil || n != tc.want {
			t.Errorf("%s with pages of 2: %d rows, %v; want %d", tc.query, n, err, tc.want)
		}
	}
	// Token-range scans, as verification tools split a table: eight ranges
	// covering the ring see every row exactly once.
	bounds := []int64{math.MinInt64}
	for i := 1; i < 8; i++ {
		bounds = append(bounds, math.MinInt64+int64(i)*(math.MaxInt64/4))
	}
	bounds = append(bounds, math.MaxInt64)
	seen := map[int]int{}
	for i := 0; i+1 < len(bounds); i++ {
		q := "SELECT c FROM ks.p WHERE token(k) > ? AND token(k) <= ?"
		if i == 0 {
			q = "SELECT c FROM ks.p WHERE token(k) >= ? AND token(k) <= ?"
		}
		iter := s.Query(q, bounds[i], bounds[i+1]).PageSize(4).Iter()
		var c int
		for iter.Scan(&c) {
			seen[c]++
		}
		if err := iter.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if len(seen) != 95 {
		t.Errorf("token ranges saw %d distinct rows, want 95", len(seen))
	}
	for c, n := range seen {
		if n != 1 {
			t.Errorf("row c=%d seen %d times", c, n)
		}
	}
	// Clustering order and ORDER BY.
	var first int
	if err := s.Query("SELECT c FROM ks.p WHERE k = 0 ORDER BY c DESC LIMIT 1").Scan(&first); err != nil || first != 91 {
		t.Errorf("ORDER BY c DESC: first c = %d, %v; want 91", first, err)
	}
}

func TestCounters(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 3})
	s := connect(t, cl, nil)
	mustExec(t, s, ks3, "CREATE TABLE ks.c (k text PRIMARY KEY, hits counter, misses counter)")
	for i := 0; i < 10; i++ {
		if err := s.Query("UPDATE ks.c SET hits = hits + ?, misses = misses - 1 WHERE k = ?", int64(i), "a").Exec(); err != nil {
			t.Fatal(err)
		}
	}
	b := s.Batch(gocql.CounterBatch)
	b.Query("UPDATE ks.c SET hits = hits + 100 WHERE k = 'a'")
	b.Query("UPDATE ks.c SET hits = hits + 1 WHERE k = 'b'")
	if err := s.ExecuteBatch(b); err != nil {
		t.Fatal(err)
	}
	var hits, misses int64
	if err := s.Query("SELECT hits, misses FROM ks.c WHERE k = 'a'").Scan(&hits, &misses); err != nil {
		t.Fatal(err)
	}
	if hits != 145 || misses != -10 {
		t.Errorf("hits=%d misses=%d, want 145 and -10", hits, misses)
	}
	err := s.Query("INSERT INTO ks.c (k, hits) VALUES ('x', 1)").Exec()
	if codeOf(err) != gocql.ErrCodeInvalid {
		t.Errorf("INSERT into a counter table: %v, want InvalidRequest", err)
	}
}

func TestWriteSemantics(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 1})
	s := connect(t, cl, nil)
	mustExec(t, s, ks1, "CREATE TABLE ks.w (k int, c int, s text STATIC, v text, PRIMARY KEY (k, c))")
	read := func(k, c int) (string, bool) {
		var v *string
		err := s.Query("SELECT v FROM ks.w WHERE k = ? AND c = ?", k, c).Scan(&v)
		if err == gocql.ErrNotFound {
			return "", false
		}
		if err != nil {
			t.Fatal(err)
		}
		if v == nil {
			return "<null>", true
		}
		return *v, true
	}
	steps := []struct {
		stmt string
		k, c int
		want string // "" means no row
	}{
		{"INSERT INTO ks.w (k, c, v) VALUES (1, 1, 'a') USING TIMESTAMP 100", 1, 1, "a"},
		{"INSERT INTO ks.w (k, c, v) VALUES (1, 1, 'old') USING TIMESTAMP 50", 1, 1, "a"},
		{"UPDATE ks.w USING TIMESTAMP 200 SET v = 'b' WHERE k = 1 AND c = 1", 1, 1, "b"},
		{"DELETE v FROM ks.w USING TIMESTAMP 300 WHERE k = 1 AND c = 1", 1, 1, "<null>"},
		{"DELETE FROM ks.w USING TIMESTAMP 400 WHERE k = 1 AND c = 1", 1, 1, ""},
		{"INSERT INTO ks.w (k, c, v) VALUES (1, 1, 'late') USING TIMESTAMP 350", 1, 1, ""},
		{"INSERT INTO ks.w (k, c, v) VALUES (1, 1, 'new') USING TIMESTAMP 500", 1, 1, "new"},
		{"INSERT INTO ks.w (k, c, v) VALUES (2, 1, 'x')", 2, 1, "x"},
		{"DELETE FROM ks.w WHERE k = 2", 2, 1, ""},
	}
	for _, st := range steps {
		mustExec(t, s, st.stmt)
		got, ok := read(st.k, st.c)
		if (st.want == "") == ok || ok && got != st.want {
			t.Errorf("after %q: got %q (exists %v), want %q", st.stmt, got, ok, st.want)
		}
	}
	// IF NOT EXISTS answers [applied].
	applied, err := s.Query("INSERT INTO ks.w (k, c, v) VALUES (3, 1, 'x') IF NOT EXISTS").MapScanCAS(map[string]any{})
	if err != nil || !applied {
		t.Errorf("first IF NOT EXISTS: applied=%v err=%v", applied, err)
	}
	existing := map[string]any{}
	applied, err = s.Query("INSERT INTO ks.w (k, c, v) VALUES (3, 1, 'y') IF NOT EXISTS").MapScanCAS(existing)
	if err != nil || applied || existing["v"] != "x" {
		t.Errorf("second IF NOT EXISTS: applied=%v existing=%v err=%v; want false and the row with v=x", applied, existing, err)
	}
	if got, _ := read(3, 1); got != "x" {
		t.Errorf("IF NOT EXISTS overwrote: %q", got)
	}
	// TTL: writetime and ttl() read back.
	mustExec(t, s, "INSERT INTO ks.w (k, c, v) VALUES (4, 1, 't') USING TTL 1000 AND TIMESTAMP 12345")
	var wt int64
	var ttl int
	if err := s.Query("SELECT writetime(v), ttl(v) FROM ks.w WHERE k = 4 AND c = 1").Scan(&wt, &ttl); err != nil {
		t.Fatal(err)
	}
	if wt != 12345 || ttl <= 990 || ttl > 1000 {
		t.Errorf("writetime=%d ttl=%d, want 12345 and about 1000", wt, ttl)
	}
	// Static column shared by the partition.
	mustExec(t, s, "INSERT INTO ks.w (k, c, s, v) VALUES (5, 1, 'shared', 'a')", "INSERT INTO ks.w (k, c, v) VALUES (5, 2, 'b')")
	iter := s.Query("SELECT s FROM ks.w WHERE k = 5").Iter()
	var st string
	n := 0
	for iter.Scan(&st) {
		n++
		if st != "shared" {
			t.Errorf("static column read %q", st)
		}
	}
	if err := iter.Close(); err != nil || n != 2 {
		t.Errorf("static: %d rows, %v", n, err)
	}
	// TRUNCATE empties the table.
	mustExec(t, s, "TRUNCATE ks.w")
	var count int64
	if err := s.Query("SELECT count(*) FROM ks.w").Scan(&count); err != nil || count != 0 {
		t.Errorf("after TRUNCATE count=%d, %v", count, err)
	}
}

func TestBatches(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 3})
	s := connect(t, cl, nil)
	mustExec(t, s, ks3, "CREATE TABLE ks.b (k int, c int, v text, PRIMARY KEY (k, c))")
	small := strings.Repeat("x", 100)
	big := strings.Repeat("y", 1024)
	tests := []struct {
		name       string
		typ        gocql.BatchType
		partitions int
		rows       int
		value      string
		wantErr    bool
	}{
		{"logged small", gocql.LoggedBatch, 3, 6, small, false},
		{"unlogged small", gocql.UnloggedBatch, 4, 8, small, false},
		{"single partition over the limit", gocql.UnloggedBatch, 1, 60, big, false},
		{"multi partition over warn", gocql.UnloggedBatch, 2, 8, big, false},
		{"multi partition over fail", gocql.UnloggedBatch, 2, 60, big, true},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := cl.Stats().Total()
			b := s.Batch(tc.typ)
			for r := 0; r < tc.rows; r++ {
				b.Query("INSERT INTO ks.b (k, c, v) VALUES (?, ?, ?)", i*100+r%tc.partitions, r, tc.value)
			}
			err := s.ExecuteBatch(b)
			after := cl.Stats().Total()
			if tc.wantErr {
				if codeOf(err) != gocql.ErrCodeInvalid || !strings.Contains(err.Error(), "Batch too large") {
					t.Fatalf("got %v, want InvalidRequest Batch too large", err)
				}
				if after.RowsWritten != before.RowsWritten {
					t.Errorf("a rejected batch wrote %d rows", after.RowsWritten-before.RowsWritten)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := after.RowsWritten - before.RowsWritten; got != int64(tc.rows) {
				t.Errorf("rows written %d, want %d", got, tc.rows)
			}
			if got := after.Batches[tc.partitions] - before.Batches[tc.partitions]; got != 1 {
				t.Errorf("batches with %d partitions: +%d, want +1", tc.partitions, got)
			}
			var count int64
			if err := s.Query("SELECT count(*) FROM ks.b WHERE k IN ?", keys(i*100, tc.partitions)).Scan(&count); err != nil || count != int64(tc.rows) {
				t.Errorf("stored %d rows, %v; want %d", count, err, tc.rows)
			}
		})
	}
	if w := cl.Stats().Total().BatchWarnings; w != 1 {
		t.Errorf("batch warnings %d, want 1", w)
	}
}

func keys(from, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = from + i
	}
	return out
}

func TestBatchWarningReachesDriver(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 1, BatchWarnKB: 1, BatchFailKB: 4})
	wc := &warnCapture{}
	s := connect(t, cl, func(cc *gocql.ClusterConfig) {
		cc.WarningsHandlerBuilder = func(*gocql.Session) gocql.WarningHandler { return wc }
	})
	mustExec(t, s, ks1, "CREATE TABLE ks.b (k int PRIMARY KEY, v text)")
	b := s.Batch(gocql.UnloggedBatch)
	for r := 0; r < 3; r++ {
		b.Query("INSERT INTO ks.b (k, v) VALUES (?, ?)", r, strings.Repeat("z", 600))
	}
	if err := s.ExecuteBatch(b); err != nil {
		t.Fatal(err)
	}
	if w := wc.got(); len(w) != 1 || !strings.Contains(w[0], "exceeding specified threshold of 1.000KiB") {
		t.Errorf("warnings %q", w)
	}
}

// warnCapture collects the warnings the driver hands to its WarningHandler.
type warnCapture struct {
	mu       sync.Mutex
	warnings []string
}

func (w *warnCapture) HandleWarnings(_ gocql.ExecutableQuery, _ *gocql.HostInfo, warnings []string) {
	w.mu.Lock()
	w.warnings = append(w.warnings, warnings...)
	w.mu.Unlock()
}

func (w *warnCapture) got() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.warnings...)
}

func TestCollectionUpdates(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 1})
	s := connect(t, cl, nil)
	mustExec(t, s, ks1, "CREATE TABLE ks.cu (k int PRIMARY KEY, l list<int>, st set<text>, m map<text, int>, fl frozen<list<int>>)")
	steps := []struct {
		stmt string
		args []any
		col  string
		want string
	}{
		{"UPDATE ks.cu SET l = l + ? WHERE k = 1", []any{[]int{1, 2}}, "l", "[1, 2]"},
		{"UPDATE ks.cu SET l = ? + l WHERE k = 1", []any{[]int{0}}, "l", "[0, 1, 2]"},
		{"UPDATE ks.cu SET l = l + [2] WHERE k = 1", nil, "l", "[0, 1, 2, 2]"},
		{"UPDATE ks.cu SET l = l - [2] WHERE k = 1", nil, "l", "[0, 1]"},
		{"UPDATE ks.cu SET l[1] = ? WHERE k = 1", []any{9}, "l", "[0, 9]"},
		{"DELETE l[0] FROM ks.cu WHERE k = 1", nil, "l", "[9]"},
		// Without a row marker (UPDATE sets none), no live cell means no row.
		{"UPDATE ks.cu SET l = l - [9] WHERE k = 1", nil, "l", "no row"},
		{"UPDATE ks.cu SET st = st + {'b', 'a'} WHERE k = 1", nil, "st", "{'a', 'b'}"},
		{"UPDATE ks.cu SET st = st + ? WHERE k = 1", []any{[]string{"c", "a"}}, "st", "{'a', 'b', 'c'}"},
		{"UPDATE ks.cu SET st = st - {'b'} WHERE k = 1", nil, "st", "{'a', 'c'}"},
		{"UPDATE ks.cu SET m = m + {'x': 1} WHERE k = 1", nil, "m", "{'x': 1}"},
		{"UPDATE ks.cu SET m[?] = ? WHERE k = 1", []any{"a", 5}, "m", "{'a': 5, 'x': 1}"},
		{"UPDATE ks.cu SET m['x'] = 2 WHERE k = 1", nil, "m", "{'a': 5, 'x': 2}"},
		{"DELETE m['a'] FROM ks.cu WHERE k = 1", nil, "m", "{'x': 2}"},
		{"UPDATE ks.cu SET m = m - {'x'} WHERE k = 1", nil, "m", "null"}, // st still lives
	}
	for _, st := range steps {
		if err := s.Query(st.stmt, st.args...).Exec(); err != nil {
			t.Fatalf("%s: %v", st.stmt, err)
		}
		rows, err := cl.Query("SELECT " + st.col + " FROM ks.cu WHERE k = 1")
		got := "no row"
		if len(rows) == 1 {
			got = rows[0][st.col]
		}
		if err != nil || got != st.want {
			t.Errorf("after %s: %s = %s, %v; want %s", st.stmt, st.col, got, err, st.want)
		}
	}
	bad := []string{
		"UPDATE ks.cu SET l[5] = 1 WHERE k = 1",
		"UPDATE ks.cu SET fl = fl + [1] WHERE k = 1",
		"UPDATE ks.cu SET st = {'a'} + st WHERE k = 1",
	}
	for _, q := range bad {
		if err := s.Query(q).Exec(); codeOf(err) != gocql.ErrCodeInvalid {
			t.Errorf("%s: %v, want InvalidRequest", q, err)
		}
	}
}

func TestTTLExpiry(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 1})
	base := time.Now()
	var offset atomic.Int64
	cl.clock = func() time.Time { return base.Add(time.Duration(offset.Load())) }
	if err := cl.Exec(`CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
		CREATE TABLE ks.t (k int PRIMARY KEY, a text, b text) WITH default_time_to_live = 100;
		INSERT INTO ks.t (k, a) VALUES (1, 'row ttl 10') USING TTL 10;
		UPDATE ks.t USING TTL 50 SET b = 'cell ttl 50' WHERE k = 1;
		INSERT INTO ks.t (k, a) VALUES (2, 'default ttl 100');
		INSERT INTO ks.t (k, a) VALUES (3, 'no ttl') USING TTL 0`); err != nil {
		t.Fatal(err)
	}
	// A bound TTL: unset keeps the table default, null means none.
	s := connect(t, cl, nil)
	for _, b := range []struct {
		k   int
		ttl any
	}{{4, gocql.UnsetValue}, {5, nil}} {
		if err := s.Query("INSERT INTO ks.t (k, a) VALUES (?, 'bound') USING TTL ?", b.k, b.ttl).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		after time.Duration
		want  map[string]string // k -> "a,b"
	}{
		{0, map[string]string{"1": "'row ttl 10','cell ttl 50'", "2": "'default ttl 100',null", "3": "'no ttl',null", "4": "'bound',null", "5": "'bound',null"}},
		{11 * time.Second, map[string]string{"1": "null,'cell ttl 50'", "2": "'default ttl 100',null", "3": "'no ttl',null", "4": "'bound',null", "5": "'bound',null"}},
		{51 * time.Second, map[string]string{"2": "'default ttl 100',null", "3": "'no ttl',null", "4": "'bound',null", "5": "'bound',null"}},
		{101 * time.Second, map[string]string{"3": "'no ttl',null", "5": "'bound',null"}},
	}
	for _, st := range steps {
		offset.Store(int64(st.after))
		rows, err := cl.Query("SELECT k, a, b FROM ks.t")
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, r := range rows {
			got[r["k"]] = r["a"] + "," + r["b"]
		}
		if fmt.Sprint(got) != fmt.Sprint(st.want) {
			t.Errorf("after %v: %v, want %v", st.after, got, st.want)
		}
	}
}
