package loader

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

	"github.com/cqlload/cqlload/cqlsim"
	"github.com/cqlload/cqlload/schema"
)

// TestTableDropped: a table dropped during a load stops the run as
// fatal, its rows not sent rather than insert errors; once the table is
// back, --resume loads them and the table holds every row.
func TestTableDropped(t *testing.T) {
	const create = `CREATE TABLE ks.d (k int PRIMARY KEY, v text);`
	c := startCluster(t, 3, 1, create, nil)
	const rows = 20000
	o, sess, s1, err := loadThenChange(t, c, rows, `DROP TABLE ks.d`)
	var ae *AbortError
	if !errors.As(err, &ae) || !ae.Fatal || !strings.Contains(ae.Reason, "table ks.d no longer exists") {
		t.Fatalf("run with its table dropped: %v, want a fatal abort saying the table no longer exists", err)
	}
	checkAccounting(t, s1)
	if s1.RowsFailedInsert != 0 {
		t.Errorf("%d insert errors: rows of a dropped table are not sent, not failed", s1.RowsFailedInsert)
	}
	if s1.RowsNotSent == 0 || s1.RowsWritten == rows {
		t.Fatalf("written %d, not sent %d: the drop came too late to test", s1.RowsWritten, s1.RowsNotSent)
	}
	// A request a second at most looked at the schema, not one per row.
	if s1.ErrorResponses > 1000 {
		t.Errorf("%d error responses", s1.ErrorResponses)
	}
	log, err := os.ReadFile(o.ErrFile + ".log")
	if err != nil || !strings.Contains(string(log), "not sent") {
		t.Fatalf("error log (%v):\n%.500s", err, log)
	}

	if err := sess.Query(create).Exec(); err != nil {
		t.Fatal(err)
	}
	o.IngestRate = 0
	s2, err := runLoad(t, o)
	if err != nil {
		t.Fatalf("resumed run: %v", err)
	}
	if s2.RowsResumed+s2.RowsRead != rows {
		t.Errorf("resumed %d + read %d != %d", s2.RowsResumed, s2.RowsRead, rows)
	}
	var n int64
	if err := sess.Query(`SELECT count(*) FROM ks.d`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	// The rows written before the drop went with the table; the resumed
	// run skipped them as settled.
	if n != s2.RowsWritten || n < rows-s1.RowsWritten {
		t.Errorf("the table holds %d rows; the resumed run wrote %d of the %d the first did not", n, s2.RowsWritten, rows-s1.RowsWritten)
	}
}

// TestTableAltered: a column added to the table during a load (a schema
// migration) costs nothing: the statements prepared before it are
// prepared again, and every row is written. A column the load writes,
// dropped during it, stops the run as a dropped table does, its rows not
// sent; once the column is back, --resume loads them.
func TestTableAltered(t *testing.T) {
	for _, tc := range []struct {
		name, alter string
		gone        string // the abort's reason; "" for a run that finishes
	}{
		{"a column added", "ALTER TABLE ks.d ADD extra int", ""},
		{"a loaded column dropped", "ALTER TABLE ks.d DROP v", "column v of table ks.d no longer exists"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := startCluster(t, 3, 1, `CREATE TABLE ks.d (k int PRIMARY KEY, v text);`, nil)
			const rows = 20000
			o, sess, s1, err := loadThenChange(t, c, rows, tc.alter)
			checkAccounting(t, s1)
			if s1.RowsFailedInsert != 0 {
				t.Errorf("%d insert errors", s1.RowsFailedInsert)
			}
			count := func() int64 {
				var n int64
				if err := sess.Query(`SELECT count(*) FROM ks.d`).Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n
			}
			if tc.gone == "" {
				if err != nil || s1.RowsWritten != rows || count() != rows {
					t.Fatalf("run: %v; written %d, the table holds %d; want every one of %d", err, s1.RowsWritten, count(), rows)
				}
				var unprepared int64
				for _, n := range c.Stats().Nodes {
					unprepared += n.Errors["unprepared"]
				}
				if unprepared == 0 {
					t.Error("no statement was prepared again: the change came too late to test")
				}
				return
			}
			var ae *AbortError
			if !errors.As(err, &ae) || !ae.Fatal || !strings.Contains(ae.Reason, tc.gone) {
				t.Fatalf("run: %v, want a fatal abort saying %q", err, tc.gone)
			}
			if s1.RowsNotSent == 0 || s1.RowsWritten == rows {
				t.Fatalf("written %d, not sent %d: the change came too late to test", s1.RowsWritten, s1.RowsNotSent)
			}
			if err := sess.Query(`ALTER TABLE ks.d ADD v text`).Exec(); err != nil {
				t.Fatal(err)
			}
			o.IngestRate = 0
			s2, err := runLoad(t, o)
			if err != nil || s2.RowsResumed+s2.RowsRead != rows || s2.RowsFailedInsert != 0 {
				t.Fatalf("resumed run: %v; resumed %d + read %d, want %d; %d insert errors", err, s2.RowsResumed, s2.RowsRead, rows, s2.RowsFailedInsert)
			}
			if n := count(); n != rows {
				t.Errorf("the table holds %d rows, want %d", n, rows)
			}
		})
	}
}

// loadThenChange loads rows rows of (k, v) into ks.d, at a pace that
// leaves time to run change (a schema statement) once a third of them
// are written, with a checkpoint to resume from. It returns the run's
// options, a session, and its summary and error.
func loadThenChange(t *testing.T, c *cqlsim.Cluster, rows int, change string) (Options, *gocql.Session, Summary, error) {
	t.Helper()
	path := writeCSV(t, "rows.csv", rows, func(i int) string { return fmt.Sprintf("%d,v%d\n", i, i) })
	o := testOptions(t, c, "d", path)
	o.Resume = filepath.Join(t.TempDir(), "ckpt")
	o.ChunkSize = 500
	o.IngestRate = 20000
	o.MaxInsertErrors = -1 // unlimited: the run must stop by itself
	l, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	sess := session(t, c)
	go func() {
		for l.Progress().RowsWritten < int64(rows)/3 {
			time.Sleep(time.Millisecond)
		}
		if err := sess.Query(change).Exec(); err != nil {
			t.Errorf("%s: %v", change, err)
		}
	}()
	s, err := l.Run(context.Background())
	return o, sess, s, err
}

// TestTableGone: what tableGone reports for a plan whose table or column
// is gone, and that a look stands for schemaCheckEvery.
func TestTableGone(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.g (k int PRIMARY KEY, v text); CREATE TABLE ks.other (k int PRIMARY KEY, w text);`, nil)
	sess := session(t, c)
	tbl, err := schema.LoadTable(sess, "ks", "g")
	if err != nil {
		t.Fatal(err)
	}
	k, _ := tbl.Column("k")
	v, _ := tbl.Column("v")
	gone := &schema.Column{Name: "w"} // a column of another table
	tests := []struct {
		name   string
		table  string
		fields []planField
		want   string
	}{
		{"all there", "g", []planField{{col: k}, {col: v}, {}}, ""},
		{"a column gone", "g", []planField{{col: k}, {col: gone}}, "column w of table ks.g no longer exists"},
		{"the table gone", "nosuch", []planField{{col: k}}, "table ks.nosuch no longer exists"},
	}
	for _, tc := range tests {
		l := &Loader{session: sess, table: &schema.Table{Keyspace: "ks", Name: tc.table}, opts: Options{RequestTimeout: 5 * time.Second}}
		got := l.tableGone(context.Background(), &plan{fields: tc.fields})
		if tc.want == "" && got != "" || !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
		// The look stands: a second call with another plan gives the
		// same answer without reading the schema.
		if again := l.tableGone(context.Background(), &plan{}); again != got {
			t.Errorf("%s: a second look within %v gave %q", tc.name, schemaCheckEvery, again)
		}
	}
}
