package loader

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

// TestIntegration runs against a real cluster named by CQL_HOSTS (for
// example 127.0.0.1:9042 after `make up`). It creates keyspace
// cqlload_it, loads generated rows, and reads them back.
func TestIntegration(t *testing.T) {
	hosts := os.Getenv("CQL_HOSTS")
	if hosts == "" {
		t.Skip("CQL_HOSTS is not set: the integration suite needs a real cluster (make up; CQL_HOSTS=127.0.0.1:9042 make integration)")
	}
	o := DefaultOptions()
	o.Hosts = strings.Split(hosts, ",")
	o.Keyspace, o.Table = "cqlload_it", "t"
	o.RequestTimeout = 30 * time.Second

	admin, err := Connect(Options{Hosts: o.Hosts, Port: o.Port, ConnectTimeout: 10 * time.Second, RequestTimeout: 60 * time.Second, Consistency: gocql.One})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	for _, stmt := range []string{
		"DROP KEYSPACE IF EXISTS cqlload_it",
		"CREATE KEYSPACE cqlload_it WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		strings.Replace(wideTable, "ks.t", "cqlload_it.t", 1),
	} {
		if err := admin.Query(stmt).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if err := admin.AwaitSchemaAgreement(context.Background()); err != nil {
		t.Fatal(err)
	}

	const rows = 20000
	o.Files = []string{writeCSV(t, "it.csv", rows, genRow)}
	o.Columns = wideColumns
	o.ErrFile = t.TempDir() + "/it.err"
	s, err := runLoad(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if s.RowsWritten != rows {
		t.Fatalf("written %d, want %d", s.RowsWritten, rows)
	}
	var n int64
	if err := admin.Query("SELECT count(*) FROM cqlload_it.t").Consistency(gocql.All).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != rows {
		t.Fatalf("table holds %d rows, want %d", n, rows)
	}
	var name string
	if err := admin.Query("SELECT name FROM cqlload_it.t WHERE id = 14").Scan(&name); err != nil || name != expectedName(14) {
		t.Fatalf("id 14: name %q err %v, want %q", name, err, expectedName(14))
	}
	fmt.Fprintf(os.Stderr, "integration: %d rows in %.2fs (%.0f rows/s)\n", s.RowsWritten, s.ElapsedS, s.RowsPerSec)
}
