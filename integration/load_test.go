package integration

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlload/cqlload/loader"
)

const keyspace = "cqlload_it"

func TestIntegration(t *testing.T) {
	for _, c := range clusters(t) {
		t.Run(c.name, func(t *testing.T) {
			hosts := c.hosts(t)
			admin := connect(t, hosts)
			t.Run("wide", func(t *testing.T) { testWide(t, hosts, admin) })
			t.Run("rejects", func(t *testing.T) { testRejects(t, hosts, admin) })
		})
	}
}

// connect opens an administrative session, retrying for a while: a node
// that has just opened its CQL port may still refuse the first queries.
func connect(t *testing.T, hosts []string) *gocql.Session {
	t.Helper()
	o := loader.Options{Hosts: hosts, Port: 9042, ConnectTimeout: 10 * time.Second, RequestTimeout: 60 * time.Second, Consistency: gocql.One}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		s, err := loader.Connect(o)
		if err == nil {
			t.Cleanup(s.Close)
			rf := replicationFactor(t, s)
			t.Logf("keyspace %s with replication factor %d", keyspace, rf)
			if err := exec(s,
				"DROP KEYSPACE IF EXISTS "+keyspace,
				fmt.Sprintf("CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': %d}", keyspace, rf),
			); err != nil {
				t.Fatal(err)
			}
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("connect to %v: %v", hosts, err)
		}
		time.Sleep(3 * time.Second)
	}
}

// replicationFactor is 3, or the node count of a smaller cluster: the
// reads at ALL then check that every replica has every row.
func replicationFactor(t *testing.T, s *gocql.Session) int {
	t.Helper()
	nodes := 1
	iter := s.Query("SELECT peer FROM system.peers").Iter()
	var peer string
	for iter.Scan(&peer) {
		nodes++
	}
	if err := iter.Close(); err != nil {
		t.Fatalf("system.peers: %v", err)
	}
	return min(nodes, 3)
}

func exec(s *gocql.Session, stmts ...string) error {
	for _, stmt := range stmts {
		if err := s.Query(stmt).Exec(); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
	}
	return s.AwaitSchemaAgreement(context.Background())
}

func options(t *testing.T, hosts []string, table string, files ...string) loader.Options {
	o := loader.DefaultOptions()
	o.Hosts = hosts
	o.Keyspace, o.Table = keyspace, table
	o.Files = files
	o.RequestTimeout = 30 * time.Second
	o.ConnectTimeout = 30 * time.Second
	o.ErrFile = filepath.Join(t.TempDir(), table+".err")
	return o
}

func run(t *testing.T, o loader.Options) loader.Summary {
	t.Helper()
	l, err := loader.New(o)
	if err != nil {
		t.Fatalf("loader.New: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	s, err := l.Run(ctx)
	if err != nil {
		t.Fatalf("Run: %v (summary %+v)", err, s.Progress)
	}
	t.Logf("%d rows in %.2fs (%.0f rows/s), %d requests, %d retries", s.RowsWritten, s.ElapsedS, s.RowsPerSec, s.Requests, s.Retries)
	return s
}

func writeFile(t *testing.T, name string, rows int, gen func(int) string) string {
	t.Helper()
	var b strings.Builder
	for i := range rows {
		b.WriteString(gen(i))
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// wideRow is row i of the wide table's file: every column type the
// common loads use, quoted fields with the delimiter and doubled quotes
// in every seventh row.
func wideRow(i int) string {
	name := fmt.Sprintf("name %d", i)
	if i%7 == 0 {
		name = fmt.Sprintf(`"quoted, ""%d"""`, i)
	}
	return fmt.Sprintf("%d,%s,%d,%g,%s,%v,%s\n",
		i, name, wideN(i), wideD(i), wideTS(i).Format("2006-01-02 15:04:05-0700"), wideOK(i), wideUUID(i))
}

func wideName(i int) string {
	if i%7 == 0 {
		return fmt.Sprintf(`quoted, "%d"`, i)
	}
	return fmt.Sprintf("name %d", i)
}

func wideN(i int) int     { return i%100000 - 50000 }
func wideD(i int) float64 { return float64(i) * 0.25 }
func wideTS(i int) time.Time {
	return time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second)
}
func wideUUID(i int) string { return fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i) }
func wideOK(i int) bool     { return i%2 == 0 }

func countAll(t *testing.T, s *gocql.Session, table string) int64 {
	t.Helper()
	var n int64
	// ALL: every replica takes part in the read, not only the nearest.
	if err := s.Query("SELECT count(*) FROM " + keyspace + "." + table).Consistency(gocql.All).Scan(&n); err != nil {
		t.Fatalf("count %s: %v", table, err)
	}
	return n
}

// testWide loads 20,000 rows of seven column types and reads them back.
func testWide(t *testing.T, hosts []string, admin *gocql.Session) {
	const rows = 20000
	if err := exec(admin, "CREATE TABLE "+keyspace+".wide (id bigint PRIMARY KEY, name text, n int, d double, ts timestamp, ok boolean, u uuid)"); err != nil {
		t.Fatal(err)
	}
	o := options(t, hosts, "wide", writeFile(t, "wide.csv", rows, wideRow))
	o.Columns = []string{"id", "name", "n", "d", "ts", "ok", "u"}
	s := run(t, o)
	if s.RowsRead != rows || s.RowsWritten != rows {
		t.Fatalf("read %d, written %d; want %d each", s.RowsRead, s.RowsWritten, rows)
	}
	if s.RowsFailedParse+s.RowsFailedInsert+s.RowsUnknown+s.RowsNotSent != 0 || s.ErrFile != "" {
		t.Fatalf("a clean load lost rows: %+v, error file %q", s.Progress, s.ErrFile)
	}
	if n := countAll(t, admin, "wide"); n != rows {
		t.Fatalf("table holds %d rows, want %d", n, rows)
	}
	for _, i := range []int{0, 1, 14, 9999, rows - 1} {
		var (
			name string
			n    int
			d    float64
			ts   time.Time
			ok   bool
			u    gocql.UUID
		)
		err := admin.Query("SELECT name, n, d, ts, ok, u FROM "+keyspace+".wide WHERE id = ?", int64(i)).
			Consistency(gocql.All).Scan(&name, &n, &d, &ts, &ok, &u)
		if err != nil {
			t.Fatalf("id %d: %v", i, err)
		}
		if name != wideName(i) || n != wideN(i) || d != wideD(i) || !ts.Equal(wideTS(i)) || ok != wideOK(i) || u.String() != wideUUID(i) {
			t.Fatalf("id %d: got (%q, %d, %g, %v, %v, %v), want (%q, %d, %g, %v, %v, %v)", i,
				name, n, d, ts.UTC(), ok, u, wideName(i), wideN(i), wideD(i), wideTS(i), wideOK(i), wideUUID(i))
		}
	}
}

// testRejects: rows the table cannot take go to the error file, the rest
// is written, and the counts say which is which.
func testRejects(t *testing.T, hosts []string, admin *gocql.Session) {
	const rows = 1000
	if err := exec(admin, "CREATE TABLE "+keyspace+".rej (k int PRIMARY KEY, v int)"); err != nil {
		t.Fatal(err)
	}
	bad := func(i int) bool { return i%100 == 50 }
	path := writeFile(t, "rej.csv", rows, func(i int) string {
		if bad(i) {
			return fmt.Sprintf("%d,not-a-number\n", i)
		}
		return fmt.Sprintf("%d,%d\n", i, i*3)
	})
	s := run(t, options(t, hosts, "rej", path))
	const rejected = rows / 100
	if s.RowsRead != rows || s.RowsWritten != rows-rejected || s.RowsFailedParse != rejected {
		t.Fatalf("read %d, written %d, rejected %d; want %d, %d, %d", s.RowsRead, s.RowsWritten, s.RowsFailedParse, rows, rows-rejected, rejected)
	}
	errRows, err := os.ReadFile(s.ErrFile)
	if err != nil {
		t.Fatalf("error file: %v", err)
	}
	if got := strings.Count(string(errRows), "not-a-number"); got != rejected {
		t.Fatalf("error file holds %d rejected rows, want %d:\n%s", got, rejected, errRows)
	}
	if n := countAll(t, admin, "rej"); n != rows-rejected {
		t.Fatalf("table holds %d rows, want %d", n, rows-rejected)
	}
	var v int
	if err := admin.Query("SELECT v FROM " + keyspace + ".rej WHERE k = 51").Consistency(gocql.All).Scan(&v); err != nil || v != 153 {
		t.Fatalf("k 51: v %d err %v, want 153", v, err)
	}
	err = admin.Query("SELECT v FROM " + keyspace + ".rej WHERE k = 50").Consistency(gocql.All).Scan(&v)
	if !errors.Is(err, gocql.ErrNotFound) {
		t.Fatalf("k 50 (rejected): err %v, want not found", err)
	}
}
