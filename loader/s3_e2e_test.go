package loader

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/cqlload/cqlload/split"
)

// TestLoadFromS3Splits: two splits of inputs in an S3 bucket (an
// in-process S3 server: a glob listed, byte ranges read across the split
// points) write every record once between them, and resume works on
// objects as on files.
func TestLoadFromS3Splits(t *testing.T) {
	backend, _ := fakeS3(t)
	const perFile = 20000
	for f := range 2 {
		var b bytes.Buffer
		b.WriteString("k,v\n")
		for i := range perFile {
			k := f*perFile + i
			fmt.Fprintf(&b, "%d,\"line %d\nof k, \"\"%d\"\"\"\n", k, i, k)
		}
		if _, err := backend.PutObject("in", fmt.Sprintf("data/part-%d.csv", f), nil, bytes.NewReader(b.Bytes()), int64(b.Len()), nil); err != nil {
			t.Fatal(err)
		}
	}
	c := startCluster(t, 3, 1, `CREATE TABLE ks.s3 (k int PRIMARY KEY, v text);`, nil)
	var total int64
	parts := 0
	for i := range 2 {
		o := testOptions(t, c, "s3", "s3://in/data/*.csv")
		o.Dialect.Header = true
		o.SplitIndex, o.SplitCount, o.SplitSize = i, 2, 64<<10
		o.Resume = t.TempDir() + "/ckpt"
		s, err := runLoad(t, o)
		if err != nil {
			t.Fatalf("split %d: %v", i, err)
		}
		if s.RowsFailedParse+s.RowsFailedInsert != 0 {
			t.Fatalf("split %d: %+v from %d parts", i, s.Progress, s.Files)
		}
		total += s.RowsWritten
		parts += s.Files
	}
	if parts <= 2 {
		t.Fatalf("the splits read %d parts of 2 objects: neither was cut into ranges", parts)
	}
	if total != 2*perFile {
		t.Fatalf("the splits wrote %d rows of %d", total, 2*perFile)
	}
	var n int
	if err := session(t, c).Query("SELECT count(*) FROM ks.s3").Scan(&n); err != nil || n != 2*perFile {
		t.Fatalf("the table holds %d rows (%v), want %d", n, err, 2*perFile)
	}
	var v string
	if err := session(t, c).Query("SELECT v FROM ks.s3 WHERE k = 20007").Scan(&v); err != nil || v != "line 7\nof k, \"20007\"" {
		t.Fatalf("k=20007 holds %q (%v)", v, err)
	}
}

// fakeS3 starts an in-process S3 server holding an empty bucket "in",
// points the AWS environment at it, and counts the GET requests of its
// objects.
func fakeS3(t *testing.T) (*s3mem.Backend, *atomic.Int64) {
	t.Helper()
	backend, log := fakeS3Log(t)
	return backend, &log.gets
}

// s3Log is what a fake S3 server was asked for.
type s3Log struct {
	gets   atomic.Int64 // GET requests of objects
	mu     sync.Mutex
	ranges []string // their Range headers, in order
	// cutAt, when positive, drops the connection of the next object GET
	// after that many bytes of its body; the GET after that one is then
	// refused (403), which a reader does not retry.
	cutAt    atomic.Int64
	refusing atomic.Bool
	// holding: object GETs get no answer until the client gives up.
	holding atomic.Bool
}

// reachesPast says a GET with Range header rng reads beyond n bytes of
// its body: the read of a whole object, not of its edges.
func reachesPast(rng string, n int64) bool {
	from, to, ok := strings.Cut(strings.TrimPrefix(rng, "bytes="), "-")
	if rng == "" || ok && to == "" {
		return true
	}
	a, err1 := strconv.ParseInt(from, 10, 64)
	b, err2 := strconv.ParseInt(to, 10, 64)
	return err1 == nil && err2 == nil && b-a+1 > n
}

// cutWriter aborts the response once it has written n bytes of body.
type cutWriter struct {
	http.ResponseWriter
	n int64
}

func (c *cutWriter) Write(p []byte) (int, error) {
	if int64(len(p)) >= c.n {
		c.ResponseWriter.Write(p[:c.n])
		if f, ok := c.ResponseWriter.(http.Flusher); ok {
			f.Flush()
		}
		panic(http.ErrAbortHandler) // the connection is dropped
	}
	c.n -= int64(len(p))
	return c.ResponseWriter.Write(p)
}

// takeRanges returns the Range headers logged since the last call.
func (l *s3Log) takeRanges() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.ranges
	l.ranges = nil
	return r
}

// fakeS3Log is fakeS3 with the log of object GETs.
func fakeS3Log(t *testing.T) (*s3mem.Backend, *s3Log) {
	t.Helper()
	backend := s3mem.New()
	s3 := gofakes3.New(backend, gofakes3.WithLogger(gofakes3.DiscardLog())).Server()
	log := &s3Log{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.Trim(r.URL.Path, "/") != "in" {
			log.gets.Add(1) // of an object, not a listing of the bucket
			log.mu.Lock()
			log.ranges = append(log.ranges, r.Header.Get("Range"))
			log.mu.Unlock()
			if log.holding.Load() {
				<-r.Context().Done()
				return
			}
			if log.refusing.CompareAndSwap(true, false) {
				w.WriteHeader(http.StatusForbidden)
				fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`)
				return
			}
			if n := log.cutAt.Load(); n > 0 && reachesPast(r.Header.Get("Range"), n) && log.cutAt.CompareAndSwap(n, 0) {
				log.refusing.Store(true)
				w = &cutWriter{ResponseWriter: w, n: n}
			}
		}
		s3.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDTEST")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_ENDPOINT_URL", srv.URL)
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	if err := backend.CreateBucket("in"); err != nil {
		t.Fatal(err)
	}
	return backend, log
}

// putPlainObject stores s3://in/plain.csv: a header and rows records of
// about 1 KB without a quote character. It returns the object's size.
func putPlainObject(t *testing.T, backend *s3mem.Backend, rows int) int64 {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("k,v\n")
	filler := strings.Repeat("x", 1000)
	for k := range rows {
		fmt.Fprintf(&b, "%d,%s%d\n", k, filler, k)
	}
	if _, err := backend.PutObject("in", "plain.csv", nil, bytes.NewReader(b.Bytes()), int64(b.Len()), nil); err != nil {
		t.Fatal(err)
	}
	return int64(b.Len())
}

// TestS3SplitsOfObjectWithoutQuotes: the splits of an object without a
// quote character load it exactly, and the last one finds its start by
// streaming the prefix in a few requests, not one per MiB of it.
func TestS3SplitsOfObjectWithoutQuotes(t *testing.T) {
	backend, log := fakeS3Log(t)
	gets := &log.gets
	const rows = 24000
	size := int(putPlainObject(t, backend, rows))
	c := startCluster(t, 1, 1, `CREATE TABLE ks.plain (k int PRIMARY KEY, v text);`, nil)
	const n = 4
	plan, err := split.Plan([]split.File{{Name: "s3://in/plain.csv", Size: int64(size), Splittable: true}}, n, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for i := range n {
		log.takeRanges()
		o := testOptions(t, c, "plain", "s3://in/plain.csv")
		o.Dialect.Header = true
		o.SplitIndex, o.SplitCount, o.SplitSize = i, n, 1<<20
		before := gets.Load()
		s, err := runLoad(t, o)
		if err != nil {
			t.Fatalf("split %d: %v", i, err)
		}
		if s.RowsFailedParse+s.RowsFailedInsert != 0 {
			t.Fatalf("split %d: %+v", i, s.Progress)
		}
		total += s.RowsWritten
		requests := gets.Load() - before
		if i > 0 && i < n-1 && s.SplitFindBytes > int64(i)*int64(size)/n+int64(size)/(2*n) {
			// Its end is found as the range is parsed, not by a
			// search that would read the range before the load does.
			t.Fatalf("split %d searched %d bytes of a %d-byte object: past its start, into its own range", i, s.SplitFindBytes, size)
		}
		// And no request asks for more than the record past its end
		// (a MiB of slack), not the rest of the object.
		if end := plan[i][0].End; i < n-1 {
			for _, r := range log.takeRanges() {
				_, last, _ := strings.Cut(strings.TrimPrefix(r, "bytes="), "-")
				if b, err := strconv.ParseInt(last, 10, 64); err != nil || b >= end+endSlack {
					t.Fatalf("split %d, whose range ends at %d, asked for %q", i, end, r)
				}
			}
		}
		if i == n-1 {
			// Its prefix is about 18 MiB: 1 MiB reads were 18 requests
			// for it alone (28 in all); doubling streams are 5 (15 in
			// all, with the windows, the header, the range itself and
			// the peeks at the object's first bytes).
			if s.SplitFindBytes < int64(size)/2 {
				t.Fatalf("split %d searched %d bytes of a %d-byte object without quotes", i, s.SplitFindBytes, size)
			}
			if requests > 20 {
				t.Fatalf("split %d made %d GET requests", i, requests)
			}
		}
	}
	if total != rows {
		t.Fatalf("the splits wrote %d rows of %d", total, rows)
	}
	var got int
	if err := session(t, c).Query("SELECT count(*) FROM ks.plain").Scan(&got); err != nil || got != rows {
		t.Fatalf("the table holds %d rows (%v), want %d", got, err, rows)
	}
}

// TestS3RequestsPerObject: a load of many small objects asks for each
// object once (no second stream, no separate peek at its first bytes),
// and with --resume once more for its identity.
func TestS3RequestsPerObject(t *testing.T) {
	backend, gets := fakeS3(t)
	const objects, perObject = 20, 50
	for f := range objects {
		var b bytes.Buffer
		for i := range perObject {
			fmt.Fprintf(&b, "%d,v%d\n", f*perObject+i, i)
		}
		if _, err := backend.PutObject("in", fmt.Sprintf("many/part-%02d.csv", f), nil, bytes.NewReader(b.Bytes()), int64(b.Len()), nil); err != nil {
			t.Fatal(err)
		}
	}
	c := startCluster(t, 1, 1, `CREATE TABLE ks.many (k int PRIMARY KEY, v text);`, nil)
	for _, resume := range []bool{false, true} {
		o := testOptions(t, c, "many", "s3://in/many/*.csv")
		perObj := int64(1)
		if resume {
			// And one ranged read of each object's edges (all of a
			// small one) for its identity in the checkpoint.
			o.Resume = t.TempDir() + "/ckpt"
			perObj = 2
		}
		before := gets.Load()
		s, err := runLoad(t, o)
		if err != nil {
			t.Fatal(err)
		}
		if s.RowsWritten != objects*perObject {
			t.Fatalf("resume %v: wrote %d rows of %d", resume, s.RowsWritten, objects*perObject)
		}
		if n := gets.Load() - before; n > perObj*objects {
			t.Fatalf("resume %v: %d GET requests for %d objects", resume, n, objects)
		}
	}
}

// TestS3SplitPlan: with a split plan, the split holding the last range of
// an object without quotes asks for none of the prefix before it but the
// object's first and last 64 KiB (its identity, and the header): the plan
// was made once, by one search.
func TestS3SplitPlan(t *testing.T) {
	backend, log := fakeS3Log(t)
	const rows = 24000
	size := putPlainObject(t, backend, rows)
	c := startCluster(t, 1, 1, `CREATE TABLE ks.plain (k int PRIMARY KEY, v text);`, nil)
	const n = 4
	layout, err := split.Plan([]split.File{{Name: "s3://in/plain.csv", Size: size, Splittable: true}}, n, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	opts := func(i int, plan string) Options {
		o := testOptions(t, c, "plain", "s3://in/plain.csv")
		o.Dialect.Header = true
		o.SplitIndex, o.SplitCount, o.SplitSize, o.SplitPlan = i, n, 1<<20, plan
		return o
	}
	plan := filepath.Join(t.TempDir(), "plan.json")
	st, err := WriteSplitPlan(context.Background(), opts(0, ""), plan)
	if err != nil {
		t.Fatal(err)
	}
	if st.Starts != n-1 || st.Searched < size/2 {
		t.Fatalf("the plan found %d starts reading %d bytes of %d", st.Starts, st.Searched, size)
	}
	var total int64
	for i := range n {
		log.takeRanges()
		s, err := runLoad(t, opts(i, plan))
		if err != nil {
			t.Fatalf("split %d: %v", i, err)
		}
		total += s.RowsWritten
		if s.SplitFindBytes > 2*planCheckBytes {
			t.Errorf("split %d with the plan read %d bytes to find its start", i, s.SplitFindBytes)
		}
		// Every request starts in the object's first or last 64 KiB,
		// or at most a check's reach before the split's own range.
		from := layout[i][0].Start - planCheckBytes
		for _, r := range log.takeRanges() {
			first, _, _ := strings.Cut(strings.TrimPrefix(r, "bytes="), "-")
			off, err := strconv.ParseInt(first, 10, 64)
			if err != nil {
				t.Fatalf("split %d asked for %q", i, r)
			}
			if off >= 64<<10 && off < size-64<<10 && off < from {
				t.Errorf("split %d, whose range starts at %d, asked for %q: the prefix", i, layout[i][0].Start, r)
			}
		}
	}
	if total != rows {
		t.Fatalf("the splits wrote %d rows of %d", total, rows)
	}
}

// TestS3ReadFailureThenResume: an object that cannot be read past some
// byte (the connection dropped, the reopen refused) ends the run; the
// chunk it was reading into is cut short there. Resumed once the object
// reads again, the run loads every row once: that chunk is read again
// whole, not skipped as settled under its number (before, the rows
// between the cut and the chunk's full end were lost, unreported), and
// its counter updates already acknowledged are not sent again.
func TestS3ReadFailureThenResume(t *testing.T) {
	const rows = 5000
	for _, tc := range []struct {
		table, schema string
		row           func(k int) string
	}{
		{"plain", `CREATE TABLE ks.plain (k int PRIMARY KEY, v text);`, func(k int) string { return fmt.Sprintf("%d,%s%d\n", k, strings.Repeat("x", 1000), k) }},
		// A column not loaded (SKIPCOLS) makes the rows as long.
		{"incr", `CREATE TABLE ks.incr (k int PRIMARY KEY, n counter);`, func(k int) string { return fmt.Sprintf("%d,%s,1\n", k, strings.Repeat("x", 1000)) }},
	} {
		t.Run(tc.table, func(t *testing.T) {
			backend, log := fakeS3Log(t)
			var b bytes.Buffer
			b.WriteString("k,v\n")
			for k := range rows {
				b.WriteString(tc.row(k))
			}
			if _, err := backend.PutObject("in", "in.csv", nil, bytes.NewReader(b.Bytes()), int64(b.Len()), nil); err != nil {
				t.Fatal(err)
			}
			c := startCluster(t, 1, 1, tc.schema, nil)
			o := testOptions(t, c, tc.table, "s3://in/in.csv")
			o.Dialect.Header = true
			if tc.table == "incr" {
				o.Columns, o.SkipCols = []string{"k", "pad", "n"}, []string{"pad"}
			}
			o.ChunkSize = 700    // several chunks settle before the cut, which falls inside one
			o.IngestRate = 40000 // the reader waits for the writes: some settle before the cut
			o.Resume = filepath.Join(t.TempDir(), "ckpt")
			log.cutAt.Store(int64(b.Len()/2 + 123))
			first, err := runLoad(t, o)
			if err == nil || first.RowsWritten == 0 || first.RowsWritten >= int64(rows) {
				t.Fatalf("first run: %v, %d rows written; want a run ended by the read, part way", err, first.RowsWritten)
			}
			if n := strings.Count(err.Error(), "s3://in/in.csv"); n != 1 {
				t.Errorf("the error names the object %d times: %v", n, err)
			}
			second, err := runLoad(t, o)
			if err != nil {
				t.Fatalf("resumed run: %v", err)
			}
			got, err := c.Query(`SELECT * FROM ks.` + tc.table)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != rows || second.RowsResumed+second.RowsRead != int64(rows) {
				t.Errorf("after the resume the table holds %d of %d rows (resumed %d, read %d; the first run wrote %d)",
					len(got), rows, second.RowsResumed, second.RowsRead, first.RowsWritten)
			}
			for _, r := range got {
				if n, ok := r["n"]; ok && n != "1" {
					t.Errorf("counter %s is %s, want 1", r["k"], n)
					break
				}
			}
		})
	}
}

// TestS3ResumeObjectReplaced: an object rewritten under its key between a
// stopped run and its resume, with the same size and the same first and
// last 64 KiB (a fixed-width daily export), is another input: the resume
// is refused, naming it, rather than loading a mix of the two versions.
func TestS3ResumeObjectReplaced(t *testing.T) {
	backend, _ := fakeS3Log(t)
	const rows = 5000
	object := func(v string) []byte {
		var b bytes.Buffer
		b.WriteString("k,v\n")
		for k := range rows {
			val := "old"
			if k > 500 && k < rows-500 {
				val = v // the middle only
			}
			fmt.Fprintf(&b, "%d,%s%s\n", k, strings.Repeat("x", 200), val)
		}
		return b.Bytes()
	}
	put := func(data []byte) {
		if _, err := backend.PutObject("in", "daily.csv", nil, bytes.NewReader(data), int64(len(data)), nil); err != nil {
			t.Fatal(err)
		}
	}
	put(object("AAA"))
	c := startCluster(t, 1, 1, `CREATE TABLE ks.daily (k int PRIMARY KEY, v text);`, nil)
	o := testOptions(t, c, "daily", "s3://in/daily.csv")
	o.Dialect.Header = true
	o.ChunkSize = 500
	o.Resume = filepath.Join(t.TempDir(), "ckpt")
	o.IngestRate = 5000 // a second: the cancel comes first
	l, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(400*time.Millisecond, cancel)
	if s, err := l.Run(ctx); !errors.Is(err, context.Canceled) || s.RowsWritten == 0 {
		t.Fatalf("first run: %v, %d rows written; want an interrupted run that wrote some", err, s.RowsWritten)
	}
	put(object("BBB"))
	o.IngestRate = 0
	s, err := runLoad(t, o)
	var re *ResumeError
	if !errors.As(err, &re) || !strings.Contains(re.Reason, "s3://in/daily.csv has other content") || s.RowsRead != 0 {
		t.Fatalf("resume over a replaced object: %v, %d rows read; want a refusal naming it", err, s.RowsRead)
	}
}

// TestS3InterruptedWhileOpening: a run interrupted while an object's
// first read waits for the store ends as interrupted (the CLI's exit 4,
// which a scheduler resumes), not as an input failure (exit 3): the read
// was cut off by the stop.
func TestS3InterruptedWhileOpening(t *testing.T) {
	backend, log := fakeS3Log(t)
	putPlainObject(t, backend, 100)
	c := startCluster(t, 1, 1, `CREATE TABLE ks.plain (k int PRIMARY KEY, v text);`, nil)
	o := testOptions(t, c, "plain", "s3://in/plain.csv")
	o.Dialect.Header = true
	log.holding.Store(true)
	l, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	_, err = l.Run(ctx)
	var ae *AbortError
	if !errors.Is(err, context.Canceled) || errors.As(err, &ae) {
		t.Fatalf("interrupted while the first read waited: %v; want the run's cancellation, not an abort", err)
	}
}
