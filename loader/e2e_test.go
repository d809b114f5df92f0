package loader

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlload/cqlload/cqlsim"
	"github.com/cqlload/cqlload/loader/internal/runlog"
	"github.com/cqlload/cqlload/source"
)

// startCluster starts an in-process cqlsim with a keyspace ks of the given
// replication factor and the tables of schema.
func startCluster(t *testing.T, nodes, rf int, schema string, tweak func(*cqlsim.Config)) *cqlsim.Cluster {
	t.Helper()
	cfg := cqlsim.Config{
		Nodes: nodes,
		Seed:  1,
		Schema: []string{fmt.Sprintf(
			"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': %d};\n%s", rf, schema)},
	}
	if tweak != nil {
		tweak(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := cqlsim.Start(ctx, cfg)
	if err != nil {
		t.Fatalf("start cqlsim: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func testOptions(t *testing.T, c *cqlsim.Cluster, table string, files ...string) Options {
	o := DefaultOptions()
	o.Hosts = c.Hosts()
	o.Port = c.Port()
	o.Keyspace, o.Table = "ks", table
	o.Files = files
	o.ErrFile = filepath.Join(t.TempDir(), "errors.err")
	o.Backoff = time.Millisecond
	o.MaxBackoff = 10 * time.Millisecond
	return o
}

// checkAccounting asserts the invariant every run must keep.
func checkAccounting(t *testing.T, s Summary) {
	t.Helper()
	if got := s.RowsWritten + s.RowsSkipped + s.RowsFailedParse + s.RowsFailedInsert + s.RowsUnknown + s.RowsNotSent; got != s.RowsRead {
		t.Fatalf("rows read %d != written %d + skipped %d + failed parse %d + failed insert %d + unknown %d + not sent %d",
			s.RowsRead, s.RowsWritten, s.RowsSkipped, s.RowsFailedParse, s.RowsFailedInsert, s.RowsUnknown, s.RowsNotSent)
	}
	// A run that --duration ended did not read all of its input.
	if s.BytesTotal > 0 && s.Aborted == "" && s.RowsNotSentByDuration == 0 && s.BytesDone != s.BytesTotal {
		t.Fatalf("bytes done %d != total %d at the end of a complete run", s.BytesDone, s.BytesTotal)
	}
}

func runLoad(t *testing.T, o Options) (Summary, error) {
	t.Helper()
	l, err := New(o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s, err := l.Run(ctx)
	checkAccounting(t, s)
	return s, err
}

func session(t *testing.T, c *cqlsim.Cluster) *gocql.Session {
	t.Helper()
	cc := gocql.NewCluster(c.Hosts()...)
	cc.Port = c.Port()
	cc.Timeout = 30 * time.Second
	s, err := cc.CreateSession()
	if err != nil {
		t.Fatalf("session: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

const wideTable = `CREATE TABLE ks.t (id bigint PRIMARY KEY, name text, n int, d double, ts timestamp, ok boolean, u uuid);`

// wideColumns is the file's column order; without a column list cqlsh
// (and cqlload) expect key columns first, then the others by name.
var wideColumns = []string{"id", "name", "n", "d", "ts", "ok", "u"}

func genRow(i int) string {
	ts := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second)
	name := fmt.Sprintf("name %d", i)
	if i%7 == 0 {
		name = fmt.Sprintf(`"quoted, ""%d"""`, i) // delimiter and doubled quotes inside quotes
	}
	return fmt.Sprintf("%d,%s,%d,%g,%s,%v,%08x-0000-4000-8000-%012x\n",
		i, name, i%100000-50000, float64(i)*0.25, ts.Format("2006-01-02 15:04:05-0700"), i%2 == 0, i, i)
}

func expectedName(i int) string {
	if i%7 == 0 {
		return fmt.Sprintf(`quoted, "%d"`, i)
	}
	return fmt.Sprintf("name %d", i)
}

func writeCSV(t *testing.T, name string, rows int, gen func(int) string) string {
	t.Helper()
	var b bytes.Buffer
	for i := range rows {
		b.WriteString(gen(i))
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkCoordinated fails the test unless the cluster coordinated one
// write per row, and more only for attempts given up on and sent again
// (a loaded machine may stall a request past its timeout): at most the
// retries times the largest batch.
func checkCoordinated(t *testing.T, coordinated, rows int64, s Summary) {
	t.Helper()
	if extra := coordinated - rows; extra < 0 || extra > s.Retries*int64(s.BatchRowsMax) {
		t.Fatalf("the cluster coordinated %d row writes for %d rows (%d retries)", coordinated, rows, s.Retries)
	}
}

// TestLoadEndToEnd loads 30,000 generated rows (100,000 in make check)
// into 3 nodes and reads every one back, with RF 1 and RF 3.
func TestLoadEndToEnd(t *testing.T) {
	rows := int64(30_000) // make check: 100,000
	if full {
		rows = 100_000
	}
	path := writeCSV(t, "data.csv", int(rows), genRow)
	for _, rf := range []int{1, 3} {
		t.Run(fmt.Sprintf("rf%d", rf), func(t *testing.T) {
			c := startCluster(t, 3, rf, wideTable, nil)
			o := testOptions(t, c, "t", path)
			o.Columns = wideColumns
			s, err := runLoad(t, o)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if s.RowsRead != rows || s.RowsWritten != rows {
				t.Fatalf("read %d written %d, want %d", s.RowsRead, s.RowsWritten, rows)
			}
			if s.ErrFile != "" {
				t.Fatalf("error file written for a clean load: %s", s.ErrFile)
			}
			if s.BatchRowsMax > o.MaxBatchSize || s.BatchBytesMax > o.MaxBatchBytes {
				t.Fatalf("largest batch %d rows / %d bytes exceeds limits %d / %d", s.BatchRowsMax, s.BatchBytesMax, o.MaxBatchSize, o.MaxBatchBytes)
			}

			st := c.Stats().Total()
			checkCoordinated(t, st.RowsWritten, rows, s)
			if share := float64(st.RowsWrittenAsReplica) / float64(st.RowsWritten); share < 0.99 {
				t.Fatalf("only %.2f%% of rows written through a replica coordinator", share*100)
			}
			if st.BatchesRejected != 0 {
				t.Fatalf("%d batches rejected by the cluster", st.BatchesRejected)
			}

			sess := session(t, c)
			iter := sess.Query(`SELECT id, name, n, d, ts, ok, u FROM ks.t`).PageSize(5000).Iter()
			var (
				id    int64
				name  string
				n     int
				d     float64
				ts    time.Time
				ok    bool
				u     gocql.UUID
				found = make([]bool, rows)
			)
			for iter.Scan(&id, &name, &n, &d, &ts, &ok, &u) {
				i := int(id)
				if i < 0 || int64(i) >= rows || found[i] {
					t.Fatalf("unexpected or repeated id %d", id)
				}
				found[i] = true
				wantTS := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second)
				wantU := fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
				if name != expectedName(i) || n != i%100000-50000 || d != float64(i)*0.25 || !ts.Equal(wantTS) || ok != (i%2 == 0) || u.String() != wantU {
					t.Fatalf("row %d = (%q, %d, %g, %v, %v, %v), want (%q, %d, %g, %v, %v, %s)",
						i, name, n, d, ts, ok, u, expectedName(i), i%100000-50000, float64(i)*0.25, wantTS, i%2 == 0, wantU)
				}
			}
			if err := iter.Close(); err != nil {
				t.Fatal(err)
			}
			for i, f := range found {
				if !f {
					t.Fatalf("row %d missing", i)
				}
			}
		})
	}
}

// TestBadRows: good rows load, each bad row lands in the error file with
// its original bytes and its reason in the log, and the run says so.
func TestBadRows(t *testing.T) {
	c := startCluster(t, 3, 1, `CREATE TABLE ks.b (k int PRIMARY KEY, v text, n bigint);`, nil)
	good := "1,one,10\n2,\"two, quoted\",20\n3,three,30\n"
	bad := []string{
		"4,four,notanumber",   // convert error, column 3
		"5,five",              // too few fields
		"x6,six,60",           // bad key
		",empty key,70",       // null primary key
		"7,seven,8,extra",     // too many fields
		"9999999999,big,1",    // int out of range
		"8,\"unterminated,80", // quote never closed: last record of the file
	}
	content := "1,one,10\n" + bad[0] + "\n2,\"two, quoted\",20\n" + bad[1] + "\n" + bad[2] + "\n3,three,30\n" +
		bad[3] + "\n" + bad[4] + "\n" + bad[5] + "\n" + bad[6] + "\n"
	_ = good
	path := filepath.Join(t.TempDir(), "bad.csv")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	o := testOptions(t, c, "b", path)
	o.Columns = []string{"k", "v", "n"}
	s, err := runLoad(t, o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if s.RowsWritten != 3 || s.RowsFailedParse != int64(len(bad)) {
		t.Fatalf("written %d failed %d, want 3 and %d", s.RowsWritten, s.RowsFailedParse, len(bad))
	}
	errData, err := os.ReadFile(o.ErrFile)
	if err != nil {
		t.Fatal(err)
	}
	// The unterminated quote swallowed the file's last newline: that
	// newline is part of the record's data, so it is kept.
	want := strings.Join(bad, "\n") + "\n\n"
	if string(errData) != want {
		t.Fatalf("error file =\n%q\nwant\n%q", errData, want)
	}
	logData, err := os.ReadFile(o.ErrFile + ".log")
	if err != nil {
		t.Fatal(err)
	}
	base := path
	for _, want := range []string{
		base + ":2:8: parse error: column n: invalid bigint \"notanumber\"",
		base + ":4:1: parse error: 2 fields, expected 3",
		base + ":5:1: parse error: column k:",
		base + ":7:1: parse error: column k: null value for a primary key column",
		base + ":8:11: parse error: 4 fields, expected 3",
		base + ":9:1: parse error: column k:",
		base + ":10:3: parse error: extraneous or missing",
	} {
		if !strings.Contains(string(logData), want) {
			t.Errorf("error log lacks %q:\n%s", want, logData)
		}
	}

	// The error file loads again as it is once fixed: here, reloading it
	// unchanged rejects the same rows again and writes nothing.
	o2 := testOptions(t, c, "b", o.ErrFile)
	o2.Columns = o.Columns
	s2, err := runLoad(t, o2)
	if err != nil {
		t.Fatal(err)
	}
	if s2.RowsRead != int64(len(bad)) || s2.RowsFailedParse != int64(len(bad)) {
		t.Fatalf("reloading the error file: read %d failed %d, want %d", s2.RowsRead, s2.RowsFailedParse, len(bad))
	}
}

func TestMaxParseErrorsAborts(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.b (k int PRIMARY KEY, v text);`, nil)
	path := writeCSV(t, "bad.csv", 50, func(i int) string {
		if i%2 == 1 {
			return fmt.Sprintf("bad%d,x\n", i)
		}
		return fmt.Sprintf("%d,x\n", i)
	})
	o := testOptions(t, c, "b", path)
	o.MaxParseErrors = 3
	o.ChunkSize = 5
	o.Workers = 1
	s, err := runLoad(t, o)
	var ae *AbortError
	if !errors.As(err, &ae) || !strings.Contains(ae.Reason, "MAXPARSEERRORS") {
		t.Fatalf("Run error = %v, want an abort naming MAXPARSEERRORS", err)
	}
	if s.RowsFailedParse <= 3 || s.RowsRead == 50 && s.RowsWritten == 25 {
		t.Fatalf("summary %+v: want more than 3 parse errors and an early stop", s.Progress)
	}
}

// TestOversizedBatchesBisected: batches the cluster refuses as too large
// are split until they fit, and every row lands.
func TestOversizedBatchesBisected(t *testing.T) {
	c := startCluster(t, 3, 1, `CREATE TABLE ks.w (k int PRIMARY KEY, v text);`, func(cfg *cqlsim.Config) { cfg.BatchFailKB = 20 })
	big := strings.Repeat("x", 3000)
	path := writeCSV(t, "wide.csv", 400, func(i int) string { return fmt.Sprintf("%d,%s\n", i, big) })
	o := testOptions(t, c, "w", path)
	o.MaxBatchBytes = 1 << 20 // let the loader build batches the cluster refuses
	var (
		mu        sync.Mutex
		userCalls int
		userHosts = map[string]bool{}
	)
	o.OnWarnings = func(host string, w []string) {
		mu.Lock()
		defer mu.Unlock()
		userCalls += len(w)
		userHosts[host] = true
	}
	s, err := runLoad(t, o)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if int64(userCalls) != s.Warnings {
		t.Errorf("OnWarnings got %d warnings, the summary counts %d", userCalls, s.Warnings)
	}
	for h := range userHosts {
		if !strings.HasPrefix(h, "127.0.0.") || !strings.HasSuffix(h, fmt.Sprintf(":%d", c.Port())) {
			t.Errorf("OnWarnings got host %q, want a node's address and port", h)
		}
	}
	mu.Unlock()
	if s.RowsWritten != 400 || s.RowsFailedInsert != 0 {
		t.Fatalf("written %d failed %d, want all 400 written", s.RowsWritten, s.RowsFailedInsert)
	}
	if c.Stats().Total().BatchesRejected == 0 {
		t.Fatal("the cluster rejected no batch: the test did not exercise splitting")
	}
	// Batches between the warn (5 KiB) and fail (20 KiB) thresholds draw
	// a warning each; the summary counts them instead of logging each.
	if s.Warnings == 0 || !strings.Contains(s.FirstWarning, "Batch") {
		t.Fatalf("warnings %d (first %q): want the cluster's batch size warnings counted", s.Warnings, s.FirstWarning)
	}

	// With the default byte cap, the cluster never has to refuse one.
	c2 := startCluster(t, 3, 1, `CREATE TABLE ks.w (k int PRIMARY KEY, v text);`, func(cfg *cqlsim.Config) { cfg.BatchFailKB = 20 })
	o2 := testOptions(t, c2, "w", path)
	if s, err := runLoad(t, o2); err != nil || s.RowsWritten != 400 {
		t.Fatalf("default byte cap: written %d, err %v", s.RowsWritten, err)
	}
	if n := c2.Stats().Total().BatchesRejected; n != 0 {
		t.Fatalf("%d batches over the cluster's limit with the default --max-batch-bytes", n)
	}
}

// TestInsertErrorsAbort: rows that no retry could write stop the run past
// MAXINSERTERRORS, whether refused (failed) or timed out (unknown: they
// may have been applied), as cqlsh counts both.
func TestInsertErrorsAbort(t *testing.T) {
	for _, tc := range []struct {
		failWith string
		// counter: the table is a counter table, whose updates that
		// timed out are unknown at once, never retried, and count too.
		counter bool
		failed  func(s *Summary) int64
	}{
		{"unavailable", false, func(s *Summary) int64 { return s.RowsFailedInsert }},
		{"write_timeout", false, func(s *Summary) int64 { return s.RowsUnknown }},
		{"write_timeout", true, func(s *Summary) int64 { return s.RowsUnknown }},
	} {
		t.Run(fmt.Sprintf("%s counter=%v", tc.failWith, tc.counter), func(t *testing.T) {
			schema, row := `CREATE TABLE ks.b (k int PRIMARY KEY, v text);`, "%d,v\n"
			if tc.counter {
				schema, row = `CREATE TABLE ks.b (k int PRIMARY KEY, v counter);`, "%d,1\n"
			}
			c := startCluster(t, 1, 1, schema, func(cfg *cqlsim.Config) {
				cfg.FailRate = 1
				cfg.FailWith = tc.failWith
			})
			path := writeCSV(t, "rows.csv", 2000, func(i int) string { return fmt.Sprintf(row, i) })
			o := testOptions(t, c, "b", path)
			o.MaxInsertErrors = 10
			o.MaxAttempts = 2
			s, err := runLoad(t, o)
			var ae *AbortError
			if !errors.As(err, &ae) || !strings.Contains(ae.Reason, "MAXINSERTERRORS") {
				t.Fatalf("Run error = %v, want an abort naming MAXINSERTERRORS", err)
			}
			if s.RowsWritten != 0 || tc.failed(&s) <= 10 || (s.Retries == 0) != tc.counter {
				t.Fatalf("summary %+v: want no rows written, more than 10 rows not written, retries (none for counter updates)", s.Progress)
			}
			if s.RowsNotSent == 0 {
				t.Fatalf("summary %+v: the abort left no row unsent: the run did not stop early", s.Progress)
			}
		})
	}
}

// TestRequestOverFrameLimit loads a record that MAXRECORDBYTES lets
// through but that makes a request over the cluster's frame limit (16
// MiB): Cassandra refuses it as invalid and keeps the connection, so the
// row is an insert error and the rest load. Before, cqlsim closed the
// connection instead, and the run retried the row until its window
// closed, then stopped as if the cluster were gone (exit 3, which a
// scheduler retries for ever).
func TestRequestOverFrameLimit(t *testing.T) {
	c := startCluster(t, 3, 1, `CREATE TABLE ks.b (k int PRIMARY KEY, v text);`, nil)
	big := strings.Repeat("a", 17<<20)
	path := writeCSV(t, "rows.csv", 5000, func(i int) string {
		if i == 2500 {
			return fmt.Sprintf("%d,%s\n", i, big)
		}
		return fmt.Sprintf("%d,v%d\n", i, i)
	})
	o := testOptions(t, c, "b", path)
	o.Dialect.MaxRecordBytes = 64 << 20
	// Writing 17 MiB can outlast the first attempts' timeouts (learnt
	// from small batches) on a busy machine: the request is sent again
	// with its timeout doubled until one attempt has its answer. With
	// 3 s here, a race build beside other work ran out of window first
	// (1 retry, the row unknown). Where the machine is quiet the first
	// attempt has the answer.
	o.RetryWindow = 30 * time.Second
	s, err := runLoad(t, o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if s.RowsWritten != 4999 || s.RowsFailedInsert != 1 || s.RowsUnknown != 0 {
		t.Fatalf("summary %+v: want 4,999 rows written and the big one failed", s.Progress)
	}
	log, err := os.ReadFile(o.ErrFile + ".log")
	if err != nil || !strings.Contains(string(log), "rows.csv:2501: insert error: Request is too big") {
		t.Fatalf("the log does not give the row's reason (%v):\n%.300s", err, log)
	}
}

// TestRetriesRecover: with a share of requests failing as overloaded, the
// retries get every row in.
func TestRetriesRecover(t *testing.T) {
	c := startCluster(t, 3, 1, `CREATE TABLE ks.b (k int PRIMARY KEY, v text);`, func(cfg *cqlsim.Config) {
		cfg.FailRate = 0.2
		cfg.FailWith = "overloaded"
	})
	path := writeCSV(t, "rows.csv", 5000, func(i int) string { return fmt.Sprintf("%d,v%d\n", i, i) })
	o := testOptions(t, c, "b", path)
	o.MaxAttempts = 20
	s, err := runLoad(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if s.RowsWritten != 5000 || s.Retries == 0 {
		t.Fatalf("written %d retries %d, want 5000 and some retries", s.RowsWritten, s.Retries)
	}
}

// TestIngestRate: rows go at INGESTRATE from the start of the load, also
// when the Loader was made a while before Run (the schedule once started
// in New, so the rows due meanwhile went at once).
func TestIngestRate(t *testing.T) {
	c := startCluster(t, 3, 1, `CREATE TABLE ks.b (k int PRIMARY KEY, v text);`, nil)
	const rows, rate = 12000, 4000
	path := writeCSV(t, "rows.csv", rows, func(i int) string { return fmt.Sprintf("%d,v\n", i) })
	for _, before := range []time.Duration{0, time.Second} {
		t.Run(fmt.Sprintf("Run %v after New", before), func(t *testing.T) {
			o := testOptions(t, c, "b", path)
			o.IngestRate = rate
			l, err := New(o)
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(before)
			s, err := l.Run(context.Background())
			checkAccounting(t, s)
			if err != nil {
				t.Fatal(err)
			}
			got := float64(s.RowsWritten) / s.ElapsedS
			if got > rate*1.05 {
				t.Fatalf("INGESTRATE %d: achieved %.0f rows/s over %.2fs", rate, got, s.ElapsedS)
			}
			if got < rate*0.5 {
				t.Fatalf("INGESTRATE %d: only %.0f rows/s: the limiter throttles far too much", rate, got)
			}
		})
	}
}

// TestProgressNeverAhead polls progress during a run: the rows it reports
// written never exceed what the cluster has received.
func TestProgressNeverAhead(t *testing.T) {
	c := startCluster(t, 3, 1, `CREATE TABLE ks.b (k int PRIMARY KEY, v text);`, func(cfg *cqlsim.Config) {
		cfg.LatencyMin, cfg.LatencyMax = 0, 2*time.Millisecond
	})
	path := writeCSV(t, "rows.csv", 20000, func(i int) string { return fmt.Sprintf("%d,v\n", i) })
	o := testOptions(t, c, "b", path)
	o.IngestRate = 40000
	l, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	done := make(chan struct{})
	var checks, violations int
	var firstViolation string
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
			p := l.Progress()
			cluster := c.Stats().Total().RowsWritten
			checks++
			if p.RowsWritten > cluster {
				violations++
				if firstViolation == "" {
					firstViolation = fmt.Sprintf("progress says %d written, cluster has %d", p.RowsWritten, cluster)
				}
			}
			if p.RowsInFlight() < 0 {
				violations++
				firstViolation = fmt.Sprintf("more rows resolved than read: %+v", p)
			}
		}
	}()
	s, err := l.Run(context.Background())
	close(done)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	checkAccounting(t, s)
	if violations > 0 {
		t.Fatalf("%d of %d progress checks ahead of the cluster; first: %s", violations, checks, firstViolation)
	}
	if checks < 10 || s.RowsWritten != 20000 {
		t.Fatalf("only %d checks, %d rows written", checks, s.RowsWritten)
	}
}

func TestCounterTable(t *testing.T) {
	c := startCluster(t, 3, 1, `CREATE TABLE ks.c (k text PRIMARY KEY, hits counter, misses counter);`, nil)
	path := writeCSV(t, "counts.csv", 300, func(i int) string { return fmt.Sprintf("key%d,%d,-%d\n", i%100, i, 1) })
	o := testOptions(t, c, "c", path)
	s, err := runLoad(t, o)
	if err != nil || s.RowsWritten != 300 {
		t.Fatalf("written %d, err %v", s.RowsWritten, err)
	}
	sess := session(t, c)
	var hits, misses int64
	if err := sess.Query(`SELECT hits, misses FROM ks.c WHERE k = 'key7'`).Scan(&hits, &misses); err != nil {
		t.Fatal(err)
	}
	if hits != 7+107+207 || misses != -3 {
		t.Fatalf("key7 hits=%d misses=%d, want %d and -3", hits, misses, 7+107+207)
	}
}

func TestHeaderMapsByName(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.h (k int PRIMARY KEY, a text, b int);`, nil)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "1.csv"), []byte("b,k,junk\n5,1,zz\n6,2,zz\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "2.csv"), []byte("k,a\n3,three\n"), 0o644)
	o := testOptions(t, c, "h", dir)
	o.Dialect.Header = true
	o.SkipCols = []string{"junk"}
	s, err := runLoad(t, o)
	if err != nil || s.RowsWritten != 3 || s.Files != 2 {
		t.Fatalf("written %d files %d err %v", s.RowsWritten, s.Files, err)
	}
	sess := session(t, c)
	var a string
	var b int
	if err := sess.Query(`SELECT a, b FROM ks.h WHERE k = 1`).Scan(&a, &b); err != nil || b != 5 || a != "" {
		t.Fatalf("k=1: a=%q b=%d err %v", a, b, err)
	}
	if err := sess.Query(`SELECT a FROM ks.h WHERE k = 3`).Scan(&a); err != nil || a != "three" {
		t.Fatalf("k=3: a=%q err %v", a, err)
	}

	// An unknown header name rejects that file's rows, with a reason
	// naming it, and the other files load. In the error file the rows
	// keep their header, to be mended there and loaded again.
	o2 := testOptions(t, c, "h", dir)
	o2.Dialect.Header = true
	s, err = runLoad(t, o2)
	if err != nil || s.RowsFailedParse != 2 || s.RowsWritten != 1 {
		t.Fatalf("unknown header column: %v, %d failed to parse, %d written; want 1.csv's 2 rejected and 2.csv's 1 written", err, s.RowsFailedParse, s.RowsWritten)
	}
	log, _ := os.ReadFile(s.ErrLog)
	rejected, _ := os.ReadFile(s.ErrFile)
	// The reason in full once, on the file's header line, before its
	// rows, which refer to it; the summary counts the rows under it.
	full := "the file's header does not fit the table: the header names columns that ks.h does not have: junk"
	if !strings.Contains(string(log), "1.csv: header: "+full+"\n") || strings.Count(string(log), full) != 1 ||
		!strings.Contains(string(log), "1.csv:2: parse error: "+headerRef) ||
		string(rejected) != "b,k,junk\n5,1,zz\n6,2,zz\n" {
		t.Fatalf("error log:\n%s\nerror file:\n%s", log, rejected)
	}
	if len(s.Reasons) != 1 || s.Reasons[0].Reason != full || s.Reasons[0].Rows != 2 || !strings.HasSuffix(s.Reasons[0].First, "1.csv:2") {
		t.Fatalf("reasons %+v, want the header's for 2 rows, first 1.csv:2", s.Reasons)
	}
}

// TestCounterTimeoutsNotRetried: a counter update that timed out may have
// been applied, so it is reported, not sent again.
func TestCounterTimeoutsNotRetried(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.c (k text PRIMARY KEY, hits counter);`, func(cfg *cqlsim.Config) {
		cfg.FailRate = 1
		cfg.FailWith = "write_timeout"
	})
	path := writeCSV(t, "counts.csv", 30, func(i int) string { return fmt.Sprintf("key%d,1\n", i) })
	o := testOptions(t, c, "c", path)
	s, err := runLoad(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if s.RowsUnknown != 30 || s.RowsFailedInsert != 0 || s.Retries != 0 {
		t.Fatalf("unknown %d failed %d retries %d, want 30 unknown and no retries", s.RowsUnknown, s.RowsFailedInsert, s.Retries)
	}
	log, err := os.ReadFile(o.ErrFile + ".log")
	if err != nil || !strings.Contains(string(log), "may have been applied") {
		t.Fatalf("error log does not warn that the update may have been applied (%v):\n%s", err, log)
	}
}

// TestResume: a run interrupted half way records how far it got; the
// resumed run skips that and loads the rest; a finished checkpoint leaves
// nothing to do; a checkpoint for other input is refused.
func TestResume(t *testing.T) {
	c := startCluster(t, 3, 1, `CREATE TABLE ks.r (k int PRIMARY KEY, v text);`, nil)
	const rows = 20000
	path := writeCSV(t, "rows.csv", rows, func(i int) string { return fmt.Sprintf("%d,v%d\n", i, i) })
	cpPath := filepath.Join(t.TempDir(), "load.checkpoint")
	o := testOptions(t, c, "r", path)
	o.Resume = cpPath
	o.ChunkSize = 500
	o.IngestRate = 20000 // slow enough to interrupt half way

	l, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for l.Progress().RowsWritten < rows/2 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	s1, err := l.Run(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: err %v", err)
	}
	checkAccounting(t, s1)
	if s1.RowsWritten < rows/2 || s1.RowsWritten == rows {
		t.Fatalf("interrupted run wrote %d rows", s1.RowsWritten)
	}

	o.IngestRate = 0
	s2, err := runLoad(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if s2.RowsResumed == 0 || s2.RowsResumed > s1.RowsWritten {
		t.Fatalf("resumed %d rows, first run wrote %d", s2.RowsResumed, s1.RowsWritten)
	}
	if s2.RowsResumed+s2.RowsWritten != rows || s2.RowsResumed+s2.RowsRead != rows {
		t.Fatalf("resumed %d + written %d != %d (read %d)", s2.RowsResumed, s2.RowsWritten, rows, s2.RowsRead)
	}
	var n int64
	if err := session(t, c).Query(`SELECT count(*) FROM ks.r`).Scan(&n); err != nil || n != rows {
		t.Fatalf("table holds %d rows (err %v), want %d", n, err, rows)
	}

	s3, err := runLoad(t, o)
	if err != nil || !s3.NothingToDo || s3.RowsWritten != 0 || s3.RowsRead != 0 || s3.RowsResumed != rows {
		t.Fatalf("run after a complete one: nothing to do %v, written %d read %d resumed %d err %v", s3.NothingToDo, s3.RowsWritten, s3.RowsRead, s3.RowsResumed, err)
	}

	// A completed checkpoint of the same input with other options: its
	// rows would be written twice, so the run is refused.
	o.ChunkSize = 100
	s4, err := runLoad(t, o)
	var re *ResumeError
	if !errors.As(err, &re) || !strings.Contains(re.Reason, "chunksize") || s4.RowsWritten != 0 {
		t.Fatalf("same input, other options, after a completed run: written %d, err %v; want a refusal naming chunksize", s4.RowsWritten, err)
	}
	// Last night's job: the input is new, so other options start afresh.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	s5, err := runLoad(t, o)
	if err != nil || s5.RowsWritten != rows || s5.RowsResumed != 0 {
		t.Fatalf("after a completed run, new input, other options: written %d resumed %d err %v", s5.RowsWritten, s5.RowsResumed, err)
	}
	// The same file named as a file URL is the same input.
	o.Files = []string{"file://" + path}
	if s6, err := runLoad(t, o); err != nil || !s6.NothingToDo || s6.RowsWritten != 0 {
		t.Fatalf("the same file as a file URL: nothing to do %v, written %d, err %v", s6.NothingToDo, s6.RowsWritten, err)
	}
}

// TestRateFile: RATEFILE gets a header naming the columns, then a line per
// REPORTFREQUENCY with the rows written so far, never decreasing, and the
// interval's figures, whose rows add up to the run's.
func TestRateFile(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.b (k int PRIMARY KEY, v text);`, nil)
	path := writeCSV(t, "rows.csv", 6000, func(i int) string { return fmt.Sprintf("%d,v\n", i) })
	o := testOptions(t, c, "b", path)
	o.IngestRate = 6000 // about a second
	o.ReportFrequency = 50 * time.Millisecond
	o.RateFile = filepath.Join(t.TempDir(), "rate.txt")
	if _, err := runLoad(t, o); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(o.RateFile)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) < 6 || !strings.HasPrefix(lines[0], "# elapsed_s rows_written mean_rows_per_s interval_rows_per_s") {
		t.Fatalf("%d rate lines, want a header and at least 5:\n%s", len(lines), data)
	}
	prev, sum, prevSecs := int64(-1), 0.0, 0.0
	for _, line := range lines[1:] {
		var secs, rate, ivRate, ivReq, p50, p95, p99, maxMs float64
		var rows, errs, retries, limit int64
		if _, err := fmt.Sscanf(line, "%f %d %f %f %f %f %f %f %f %d %d %d",
			&secs, &rows, &rate, &ivRate, &ivReq, &p50, &p95, &p99, &maxMs, &errs, &retries, &limit); err != nil {
			t.Fatalf("rate line %q: %v", line, err)
		}
		if rows < prev || rows > 6000 {
			t.Fatalf("rows written went from %d to %d", prev, rows)
		}
		if p50 > p95 || p95 > p99 || p99 > maxMs || limit < 1 {
			t.Fatalf("rate line %q: percentiles out of order or no limit", line)
		}
		sum += ivRate * (secs - prevSecs)
		prev, prevSecs = rows, secs
	}
	if prev != 6000 || sum < 5900 || sum > 6100 {
		t.Fatalf("last line has %d rows written, intervals add up to %.0f; want 6000", prev, sum)
	}
}

// TestLongTextAcrossRecycledBlocks loads text long enough that the input
// spans many of the splitter's blocks, which are reused once their chunks
// are done, while unquoted text is bound straight from those blocks and
// retries keep batches in flight; every value must arrive as written.
func TestLongTextAcrossRecycledBlocks(t *testing.T) {
	rows := 4_000 // about 12 MB of 1 MiB blocks; make check: 12,000
	if full {
		rows = 12_000
	}
	c := startCluster(t, 3, 1, `CREATE TABLE ks.lt (k int PRIMARY KEY, a text, b ascii);`, func(cfg *cqlsim.Config) {
		cfg.FailRate = 0.1
		cfg.FailWith = "overloaded"
	})
	text := func(i int) string {
		return strings.Repeat(string(rune('a'+i%26)), 1+i*7919%3000) + fmt.Sprint(i)
	}
	field := func(i int) (csv, value string) {
		v := text(i)
		switch i % 4 {
		case 0:
			return v, v // unquoted: bound in place
		case 1:
			return `"` + v + `"`, v // quoted, nothing to undo
		case 2:
			return `"x""` + v + `""y"`, `x"` + v + `"y` // doubled quotes: unquoted into the Reader's buffer
		default:
			return `"ü, ` + v + `"`, "ü, " + v // multi-byte UTF-8 and a delimiter
		}
	}
	path := writeCSV(t, "long.csv", rows, func(i int) string {
		a, _ := field(i)
		b := text(i + 1)
		return fmt.Sprintf("%d,%s,%s\n", i, a, b)
	})
	o := testOptions(t, c, "lt", path)
	o.MaxAttempts = 30
	s, err := runLoad(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if s.RowsWritten != int64(rows) || s.Retries == 0 {
		t.Fatalf("written %d retries %d, want %d and some retries", s.RowsWritten, s.Retries, rows)
	}
	iter := session(t, c).Query(`SELECT k, a, b FROM ks.lt`).PageSize(1000).Iter()
	var (
		k    int
		a, b string
		seen int
	)
	for iter.Scan(&k, &a, &b) {
		_, wantA := field(k)
		if a != wantA || b != text(k+1) {
			t.Fatalf("row %d: a = %.40q… (%d bytes), b = %.40q… (%d bytes); want %.40q… (%d), %.40q… (%d)",
				k, a, len(a), b, len(b), wantA, len(wantA), text(k+1), len(text(k+1)))
		}
		seen++
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	if seen != rows {
		t.Fatalf("read back %d rows, want %d", seen, rows)
	}
}

// TestShardAwareBatches loads into a cluster that announces ScyllaDB
// sharding: batches are cut per shard as well as per replica set, and the
// loader waits for the driver to connect every shard before sending, so
// every row reaches its own shard's connection through the driver's
// shard-aware routing, not only its replica.
func TestShardAwareBatches(t *testing.T) {
	const rows, shards = 30_000, 4
	for _, rf := range []int{1, 3} {
		t.Run(fmt.Sprintf("rf%d", rf), func(t *testing.T) {
			c := startCluster(t, 3, rf, wideTable, func(cfg *cqlsim.Config) { cfg.Shards = shards })
			path := writeCSV(t, "data.csv", rows, genRow)
			o := testOptions(t, c, "t", path)
			o.Columns = wideColumns
			s, err := runLoad(t, o)
			if err != nil {
				t.Fatal(err)
			}
			if s.RowsWritten != rows {
				t.Fatalf("written %d, want %d", s.RowsWritten, rows)
			}
			st := c.Stats().Total()
			checkCoordinated(t, st.RowsWritten, rows, s)
			if st.RowsWrittenAsReplica < rows*99/100 {
				t.Fatalf("cluster: %d rows, %d through a replica; want all through replicas", st.RowsWritten, st.RowsWrittenAsReplica)
			}
			if st.RowsWrittenOnShard < rows*99/100 {
				t.Fatalf("only %d of %d rows arrived on their shard's connection", st.RowsWrittenOnShard, rows)
			}
			if perReq := float64(rows) / float64(st.Requests["BATCH"]+st.Requests["EXECUTE"]); perReq < 10 {
				t.Fatalf("%.1f rows per request: shard grouping left batches too small", perReq)
			}
		})
	}
}

// A down node's shard connections never come: a sharded cluster with a
// node down must not hold the load for the whole connect timeout while
// the loader waits for the driver's pools. (The driver keeps no pool for
// a host it cannot reach; this holds it to that.)
func TestShardWaitSkipsDownNodes(t *testing.T) {
	const rows = 2000
	c := startCluster(t, 3, 3, wideTable, func(cfg *cqlsim.Config) { cfg.Shards = 4 })
	c.Node(2).Stop()
	path := writeCSV(t, "data.csv", rows, genRow)
	o := testOptions(t, c, "t", path)
	o.Columns = wideColumns
	o.ConnectTimeout = 30 * time.Second
	start := time.Now()
	s, err := runLoad(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if s.RowsWritten != rows {
		t.Fatalf("written %d, want %d", s.RowsWritten, rows)
	}
	// Far below the 30 s connect timeout, far above any real load time.
	if d := time.Since(start); d > 15*time.Second {
		t.Fatalf("the load took %v: it waited for the down node's connections", d)
	}
}

// TestOversizedRecordRejectedWhole: a 20 MB quoted multi-line field among
// 1,000 rows is one rejected record, its bytes in the error file intact
// when asked for whole (MaxErrorRecordBytes < 0); no fragment of it
// becomes a row and the rows after it load.
func TestOversizedRecordRejectedWhole(t *testing.T) {
	c := startCluster(t, 3, 1, `CREATE TABLE ks.big (k int PRIMARY KEY, v text);`, nil)
	var in bytes.Buffer
	var huge []byte
	for i := range 1000 {
		if i == 500 {
			var f bytes.Buffer
			fmt.Fprintf(&f, "%d,\"", i)
			for f.Len() < 20<<20 {
				f.WriteString("a line of the huge field, with a comma\n")
			}
			f.WriteString("end\"")
			huge = bytes.Clone(f.Bytes())
			in.Write(huge)
			in.WriteByte('\n')
			continue
		}
		fmt.Fprintf(&in, "%d,v%d\n", i, i)
	}
	path := filepath.Join(t.TempDir(), "big.csv")
	if err := os.WriteFile(path, in.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	o := testOptions(t, c, "big", path)
	o.MaxErrorRecordBytes = -1
	s, err := runLoad(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if s.RowsRead != 1000 || s.RowsWritten != 999 || s.RowsFailedParse != 1 {
		t.Fatalf("read %d written %d rejected %d, want 1000, 999, 1", s.RowsRead, s.RowsWritten, s.RowsFailedParse)
	}
	got, err := os.ReadFile(o.ErrFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, append(huge, '\n')) {
		t.Fatalf("error file holds %d bytes, want the %d-byte record and a line break", len(got), len(huge)+1)
	}
	var n int64
	if err := session(t, c).Query(`SELECT count(*) FROM ks.big`).Scan(&n); err != nil || n != 999 {
		t.Fatalf("table holds %d rows (err %v), want 999", n, err)
	}
	log, _ := os.ReadFile(o.ErrFile + ".log")
	if !strings.Contains(string(log), "big.csv:501") || strings.Count(string(log), "\n") != 1 {
		t.Fatalf("error log:\n%s", log)
	}
}

// TestPercentDoneTrue polls progress every 5 ms: percent done never runs
// ahead of the share of rows that have an outcome, nor of the rows the
// cluster holds, by more than one chunk's rows, with small chunks and
// with the default ones.
func TestPercentDoneTrue(t *testing.T) {
	rows := 60000 // make check: 100,000
	if full {
		rows = 100000
	}
	for _, tc := range []struct {
		chunk int
		gzip  bool
	}{{1000, false}, {5000, false}, {1000, true}} {
		chunk := tc.chunk
		t.Run(fmt.Sprintf("chunk %d gzip %v", chunk, tc.gzip), func(t *testing.T) {
			c := startCluster(t, 3, 1, `CREATE TABLE ks.p (k int PRIMARY KEY, v text);`, nil)
			path := writeCSV(t, "rows.csv", rows, func(i int) string { return fmt.Sprintf("%d,value %08d\n", i, i) })
			if tc.gzip {
				// The whole member is read (and checked) before its first
				// row is sent: crediting raw bytes read would say 100%.
				plain, _ := os.ReadFile(path)
				var gz bytes.Buffer
				zw := gzip.NewWriter(&gz)
				zw.Write(plain)
				zw.Close()
				path += ".gz"
				os.WriteFile(path, gz.Bytes(), 0o644)
			}
			o := testOptions(t, c, "p", path)
			o.ChunkSize = chunk
			o.IngestRate = 50000
			l, err := New(o)
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			var worst float64
			var checks int
			var first string
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-done:
						return
					case <-time.After(5 * time.Millisecond):
					}
					cluster := c.Stats().Total().RowsWritten
					p := l.Progress()
					if p.BytesTotal <= 0 {
						continue
					}
					checks++
					pctRows := float64(p.BytesDone) / float64(p.BytesTotal) * float64(rows)
					outcome := float64(p.RowsRead - p.RowsInFlight())
					ahead := max(pctRows-outcome, pctRows-float64(cluster))
					if ahead > worst {
						worst = ahead
					}
					if ahead > float64(chunk) && first == "" {
						first = fmt.Sprintf("percent done %.2f%% (%.0f rows) with %.0f rows settled and %d in the cluster",
							100*float64(p.BytesDone)/float64(p.BytesTotal), pctRows, outcome, cluster)
					}
				}
			}()
			s, err := l.Run(context.Background())
			close(done)
			wg.Wait()
			if err != nil {
				t.Fatal(err)
			}
			checkAccounting(t, s)
			if first != "" {
				t.Fatalf("progress ran ahead by more than a chunk: %s", first)
			}
			if checks < 50 || s.RowsWritten != int64(rows) {
				t.Fatalf("%d checks, %d rows written", checks, s.RowsWritten)
			}
			t.Logf("%d checks; percent done was at most %.0f rows ahead", checks, worst)
		})
	}
}

// TestResumeCounterInDoubt: a counter chunk that a stopped run had sent
// updates of is resumed exactly as its checkpoint says: updates it saw
// acknowledged are skipped, those it proved were not applied are sent,
// and the rest are reported unknown, never applied twice.
func TestResumeCounterInDoubt(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.c (k text PRIMARY KEY, hits counter);`, nil)
	path := writeCSV(t, "counts.csv", 10, func(i int) string { return fmt.Sprintf("key%d,1\n", i) })
	o := testOptions(t, c, "c", path)
	o.ChunkSize = 10
	o.Resume = filepath.Join(t.TempDir(), "ckpt")
	objs, err := source.ExpandObjects(context.Background(), o.Files, nil)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := identify(objs)
	if err != nil {
		t.Fatal(err)
	}
	// Records 0-2 were acknowledged; 0-3 and 7-9 were sent by the time
	// of the checkpoint, 4 after it (the journal says so); 5 and 6 were
	// never sent, 8 was sent and refused.
	acked, sendable, sent := make(runlog.Bitmap, 1), make(runlog.Bitmap, 1), make(runlog.Bitmap, 1)
	for _, i := range []int{0, 1, 2} {
		acked.Set(i)
	}
	for _, i := range []int{0, 1, 2, 3, 7, 8, 9} {
		sent.Set(i)
	}
	sendable.Set(8)
	if err := os.WriteFile(o.Resume+".sent", []byte("0 4\n0 9 7\n0 1"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, _ := New(o) // for the defaulted options
	cp := runlog.Checkpoint{Version: runlog.Version, Inputs: ids, Options: shapeOptions(&l.opts, MaxChunkBytes),
		InDoubt: []runlog.InDoubt{{Seq: 0, Acked: acked.String(), Sendable: sendable.String(), Sent: sent.String()}}}
	if err := cp.Save(o.Resume, (*os.File).Sync); err != nil {
		t.Fatal(err)
	}
	s, err := runLoad(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if s.RowsRead != 10 || s.RowsSkipped != 3 || s.RowsWritten != 3 || s.RowsUnknown != 4 {
		t.Fatalf("read %d skipped %d written %d unknown %d, want 10, 3, 3, 4", s.RowsRead, s.RowsSkipped, s.RowsWritten, s.RowsUnknown)
	}
	sess := session(t, c)
	for i := range 10 {
		var hits int64
		err := sess.Query(`SELECT hits FROM ks.c WHERE k = ?`, fmt.Sprintf("key%d", i)).Scan(&hits)
		want := int64(0)
		if i == 5 || i == 6 || i == 8 {
			want = 1
		}
		if (want == 0 && err != gocql.ErrNotFound) || (want == 1 && (err != nil || hits != 1)) {
			t.Fatalf("key%d: hits %d err %v, want %d", i, hits, err, want)
		}
	}
	errRows, _ := os.ReadFile(o.ErrFile)
	if string(errRows) != "key3,1\nkey4,1\nkey7,1\nkey9,1\n" {
		t.Fatalf("error file:\n%s", errRows)
	}
	if _, err := os.Stat(o.Resume + ".sent"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a completed run left its counter journal (%v)", err)
	}
	// The run completed: running it again does nothing.
	s2, err := runLoad(t, o)
	if err != nil || !s2.NothingToDo {
		t.Fatalf("second run: nothing to do %v, err %v", s2.NothingToDo, err)
	}
}

// TestCancelWhileInputBlocks: a run reading a stream that has no data
// stops within two seconds of being cancelled, and the rows it had read
// are accounted for.
func TestCancelWhileInputBlocks(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.b (k int PRIMARY KEY, v text);`, nil)
	pr, pw := io.Pipe()
	defer pw.Close()
	o := testOptions(t, c, "b", "-")
	o.Stdin = pr
	go func() { _, _ = io.WriteString(pw, "1,a\n2,b\n") }() // then nothing, never closed
	l, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	s, err := l.Run(ctx)
	took := time.Since(start) - 300*time.Millisecond
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if took > 2*time.Second {
		t.Fatalf("stopped %v after the cancel, want within 2 s", took)
	}
	checkAccounting(t, s)
}

// TestAbandonedReaderCountsNothingLate: a reader abandoned while blocked
// that gets its data after the run ended counts and hands out nothing:
// the summary stays the run's last word (once, a slow reader on a busy
// machine entered two chunks after the summary, which then missed them).
func TestAbandonedReaderCountsNothingLate(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.b (k int PRIMARY KEY, v text);`, nil)
	pr, pw := io.Pipe()
	defer pw.Close()
	o := testOptions(t, c, "b", "-")
	o.Stdin = pr
	o.FlushInterval = 50 * time.Millisecond
	go func() { _, _ = io.WriteString(pw, "1,a\n2,b\n") }()
	l, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	s, err := l.Run(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	checkAccounting(t, s)
	// The blocked read now returns, with records and the stream's end.
	var more strings.Builder
	for i := 3; i < 2000; i++ {
		fmt.Fprintf(&more, "%d,late\n", i)
	}
	go func() {
		_, _ = io.WriteString(pw, more.String())
		pw.Close()
	}()
	time.Sleep(500 * time.Millisecond)
	if p := l.Progress(); p.RowsRead != s.RowsRead || p.RowsWritten != s.RowsWritten {
		t.Fatalf("after the run: %d rows read, %d written; the summary said %d, %d", p.RowsRead, p.RowsWritten, s.RowsRead, s.RowsWritten)
	}
}

// TestDamagedGzip: a flipped byte inside a small gzip member stores no
// row of that member and stops the run with an input error naming the
// file; a truncated file loads the whole records before the cut and
// rejects the partial one.
func TestDamagedGzip(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.g (k int PRIMARY KEY, v text);`, nil)
	var plain bytes.Buffer
	for i := range 20000 {
		fmt.Fprintf(&plain, "%d,value %d\n", i, i)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain.Bytes())
	zw.Close()
	dir := t.TempDir()

	damaged := bytes.Clone(gz.Bytes())
	damaged[len(damaged)/2] ^= 0x55
	dpath := filepath.Join(dir, "damaged.csv.gz")
	os.WriteFile(dpath, damaged, 0o644)
	o := testOptions(t, c, "g", dpath)
	s, err := runLoad(t, o)
	var ae *AbortError
	if !errors.As(err, &ae) || !ae.Fatal || !strings.Contains(err.Error(), "damaged.csv.gz") {
		t.Fatalf("damaged gzip: err %v, want a fatal abort naming the file", err)
	}
	if s.RowsWritten != 0 {
		t.Fatalf("damaged gzip: %d rows written from a member that failed its check", s.RowsWritten)
	}

	// Without the verify buffer the member's rows are sent as they come;
	// when its checksum then fails, the log names them suspect.
	o = testOptions(t, c, "g", dpath)
	o.VerifyBuffer = 0
	if _, err := runLoad(t, o); !errors.As(err, &ae) || !ae.Fatal {
		t.Fatalf("damaged gzip, no verify buffer: err %v, want a fatal abort", err)
	}
	if log, _ := os.ReadFile(o.ErrFile + ".log"); !strings.Contains(string(log), "suspect") {
		t.Fatalf("damaged gzip, no verify buffer: the error log names no suspect rows:\n%s", log)
	}
	if err := session(t, c).Query(`TRUNCATE ks.g`).Exec(); err != nil {
		t.Fatal(err)
	}

	tpath := filepath.Join(dir, "truncated.csv.gz")
	os.WriteFile(tpath, gz.Bytes()[:gz.Len()/2], 0o644)
	o = testOptions(t, c, "g", tpath)
	s, err = runLoad(t, o)
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("truncated gzip: err %v, want an abort saying truncated", err)
	}
	if s.RowsWritten == 0 || s.RowsFailedParse != 1 {
		t.Fatalf("truncated gzip: written %d, rejected %d; want the whole records before the cut and the partial one rejected", s.RowsWritten, s.RowsFailedParse)
	}
	// Every stored row is one of the file's, unaltered.
	iter := session(t, c).Query(`SELECT k, v FROM ks.g`).Iter()
	var k int
	var v string
	n := 0
	for iter.Scan(&k, &v) {
		n++
		if v != fmt.Sprintf("value %d", k) {
			t.Fatalf("row %d holds %q", k, v)
		}
	}
	if err := iter.Close(); err != nil || int64(n) != s.RowsWritten {
		t.Fatalf("table holds %d rows (err %v), summary says %d written", n, err, s.RowsWritten)
	}
}

// TestSlowProducerFlushed: rows from a stream that then goes quiet are
// written after the flush interval, before the stream ends.
func TestSlowProducerFlushed(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.b (k int PRIMARY KEY, v text);`, nil)
	pr, pw := io.Pipe()
	o := testOptions(t, c, "b", "-")
	o.Stdin = pr
	o.FlushInterval = 200 * time.Millisecond
	l, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	writtenBeforeEnd := make(chan int64, 1)
	go func() {
		_, _ = io.WriteString(pw, "1,a\n2,b\n3,c\n")
		deadline := time.Now().Add(5 * time.Second)
		for l.Progress().RowsWritten < 3 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		writtenBeforeEnd <- l.Progress().RowsWritten
		_, _ = io.WriteString(pw, "4,d\n")
		pw.Close()
	}()
	s, err := l.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n := <-writtenBeforeEnd; n != 3 {
		t.Fatalf("%d rows written while the producer was quiet, want 3", n)
	}
	if s.RowsWritten != 4 || s.RowsRead != 4 {
		t.Fatalf("read %d written %d, want 4", s.RowsRead, s.RowsWritten)
	}
}

// Batches go as one prepared BEGIN BATCH when the driver can route it in
// the loader's keyspace, else as a BATCH of entries: the table holds the
// same rows either way.
func TestBatchesAsStatements(t *testing.T) {
	const rows = 3000
	path := writeCSV(t, "data.csv", rows, genRow)
	tests := []struct {
		name       string
		session    func(t *testing.T, c *cqlsim.Cluster) *gocql.Session
		statements bool
	}{
		{"own session", func(*testing.T, *cqlsim.Cluster) *gocql.Session { return nil }, true},
		{"a session without a keyspace", session, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := startCluster(t, 3, 1, wideTable, nil)
			o := testOptions(t, c, "t", path)
			o.Columns = wideColumns
			o.Session = tt.session(t, c)
			l, err := New(o)
			if err != nil {
				t.Fatal(err)
			}
			s, err := l.Run(context.Background())
			checkAccounting(t, s)
			if err != nil || s.RowsWritten != rows {
				t.Fatalf("written %d of %d: %v", s.RowsWritten, rows, err)
			}
			if l.statementBatches != tt.statements {
				t.Errorf("batches as statements: %v, want %v", l.statementBatches, tt.statements)
			}
			stats := c.Stats()
			st := stats.Total()
			checkCoordinated(t, st.RowsWritten, rows, s)
			if share := float64(st.RowsWrittenAsReplica) / float64(st.RowsWritten); share < 0.99 {
				t.Errorf("only %.2f%% of rows written through a replica coordinator", share*100)
			}
			// Batch statements are prepared on every node before the load
			// (one per row count from 2 to MAXBATCHSIZE).
			for _, ns := range stats.Nodes {
				if got, want := ns.Requests["PREPARE"] >= int64(o.MaxBatchSize-1), tt.statements; got != want {
					t.Errorf("node %d: %d PREPAREs, batch statements prepared ahead: %v, want %v", ns.Node, ns.Requests["PREPARE"], got, want)
				}
			}
			var n int
			if err := session(t, c).Query(`SELECT count(*) FROM ks.t`).Scan(&n); err != nil || n != rows {
				t.Errorf("table holds %d rows, want %d (%v)", n, rows, err)
			}
		})
	}
}
