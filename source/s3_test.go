package source

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// fakeS3 is an in-memory S3 behind an httptest server whose handler can
// deny access and drop connections part way through a response.
type fakeS3 struct {
	t       *testing.T
	backend *s3mem.Backend
	srv     *httptest.Server

	mu     sync.Mutex
	all    int                 // requests of any kind
	lists  int                 // ListObjects requests
	gets   map[string][]string // path → the Range header of each GET
	drops  map[string][]int64  // path → for each of the next GETs, the bytes to send before dropping
	denied map[string]string   // bucket → every request gets 403 with this code (a HEAD: no body)
	busy   int                 // the next this many GETs of an object get 503 SlowDown
	// whole: the next this many GETs of an object from an offset past
	// its start are answered 200 with the whole object, Range ignored,
	// as an HTTP server or a proxy may answer.
	whole int
	// stalls: for each of the next GETs of an object, the bytes of body
	// to send before sending nothing more, the connection left open (0:
	// not even the headers).
	stalls []int64
	// busyMeta: the next this many listings and HEADs get 503 SlowDown.
	busyMeta int
}

func newFakeS3(t *testing.T) *fakeS3 {
	t.Helper()
	f := &fakeS3{t: t, backend: s3mem.New(), gets: map[string][]string{}, drops: map[string][]int64{}, denied: map[string]string{}}
	faker := gofakes3.New(f.backend, gofakes3.WithLogger(gofakes3.DiscardLog()))
	h := faker.Server()
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		bucket, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		f.mu.Lock()
		f.all++
		if code := f.denied[bucket]; code != "" {
			f.mu.Unlock()
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusForbidden)
			if r.Method != http.MethodHead {
				fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>Access Denied</Message><RequestId>1</RequestId></Error>`, code)
			}
			return
		}
		if r.Method == http.MethodGet && r.URL.Query().Has("list-type") {
			f.lists++
		}
		if meta := r.Method == http.MethodHead || r.URL.Query().Has("list-type"); meta && f.busyMeta > 0 {
			f.busyMeta--
			f.mu.Unlock()
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusServiceUnavailable)
			if r.Method != http.MethodHead {
				io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message><RequestId>1</RequestId></Error>`)
			}
			return
		}
		limit := int64(-1)
		if r.Method == http.MethodGet && !r.URL.Query().Has("list-type") {
			f.gets[r.URL.Path] = append(f.gets[r.URL.Path], r.Header.Get("Range"))
			if f.busy > 0 {
				f.busy--
				f.mu.Unlock()
				w.Header().Set("Content-Type", "application/xml")
				w.WriteHeader(http.StatusServiceUnavailable)
				io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message><RequestId>1</RequestId></Error>`)
				return
			}
			if d := f.drops[r.URL.Path]; len(d) > 0 {
				limit, f.drops[r.URL.Path] = d[0], d[1:]
			}
			if len(f.stalls) > 0 {
				n := f.stalls[0]
				f.stalls = f.stalls[1:]
				if n == 0 {
					f.mu.Unlock()
					<-r.Context().Done() // the client gives up
					return
				}
				w = &stallWriter{ResponseWriter: w, left: n, done: r.Context().Done()}
			}
			if rng := r.Header.Get("Range"); f.whole > 0 && rng != "" && !strings.HasPrefix(rng, "bytes=0-") {
				f.whole--
				r.Header.Del("Range")
			}
		}
		f.mu.Unlock()
		if m := r.Header.Get("If-Match"); m != "" && r.Method == http.MethodGet {
			// gofakes3 checks If-Match only on PUT; S3 checks it on GET.
			key, _ := strings.CutPrefix(strings.TrimPrefix(r.URL.Path, "/"), bucket+"/")
			if obj, err := f.backend.HeadObject(bucket, key); err == nil && m != `"`+hex.EncodeToString(obj.Hash)+`"` {
				w.Header().Set("Content-Type", "application/xml")
				w.WriteHeader(http.StatusPreconditionFailed)
				io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message><RequestId>1</RequestId></Error>`)
				return
			}
		}
		if limit >= 0 {
			w = &dropWriter{ResponseWriter: w, left: limit}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(f.srv.Close)
	// Credentials, region and endpoint as a user would give them; no
	// config files or instance metadata of the machine running the test.
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDTEST")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_ENDPOINT_URL", f.srv.URL) // an IP address: path style
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_PROFILE", "")
	return f
}

func (f *fakeS3) bucket(name string) {
	f.t.Helper()
	if err := f.backend.CreateBucket(name); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fakeS3) put(bucket, key string, data []byte) {
	f.t.Helper()
	if _, err := f.backend.PutObject(bucket, key, map[string]string{}, bytes.NewReader(data), int64(len(data)), nil); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fakeS3) dropAfter(path string, n ...int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.drops[path] = append(f.drops[path], n...)
}

func (f *fakeS3) ranges(path string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.gets[path]...)
}

// dropWriter sends left bytes of the body, then drops the connection.
type dropWriter struct {
	http.ResponseWriter
	left int64
}

func (d *dropWriter) Write(p []byte) (int, error) {
	if int64(len(p)) <= d.left {
		d.left -= int64(len(p))
		return d.ResponseWriter.Write(p)
	}
	n, _ := d.ResponseWriter.Write(p[:d.left])
	d.left = 0
	d.ResponseWriter.(http.Flusher).Flush()
	_ = n
	panic(http.ErrAbortHandler) // the server closes the connection mid-body
}

// stallWriter sends left bytes of the body, then nothing until the
// client goes away.
type stallWriter struct {
	http.ResponseWriter
	left int64
	done <-chan struct{}
}

func (d *stallWriter) Write(p []byte) (int, error) {
	if int64(len(p)) <= d.left {
		d.left -= int64(len(p))
		return d.ResponseWriter.Write(p)
	}
	d.ResponseWriter.Write(p[:d.left])
	d.left = 0
	d.ResponseWriter.(http.Flusher).Flush()
	<-d.done
	panic(http.ErrAbortHandler)
}

// readRange reads [off, off+n) of o whole (n < 0: to its end).
func readRange(o Object, off, n int64) ([]byte, error) {
	rc, err := o.OpenRange(off, n)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// payload is n deterministic pseudo-random bytes.
func payload(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func fastRetries(t *testing.T) {
	b, m, sdk := retryBase, retryMax, sdkMaxBackoff
	retryBase, retryMax, sdkMaxBackoff = time.Millisecond, 10*time.Millisecond, 10*time.Millisecond
	t.Cleanup(func() { retryBase, retryMax, sdkMaxBackoff = b, m, sdk })
}

func TestS3Listing(t *testing.T) {
	f := newFakeS3(t)
	f.bucket("bkt")
	want := map[string]int{}
	for i := range 2500 { // 3 pages of 1000
		k := fmt.Sprintf("data/part-%04d.csv", i)
		f.put("bkt", k, payload(uint64(i), i%50))
		want[k] = i % 50
	}
	for _, k := range []string{"data/sub/x.csv", "data/.hidden.csv", "data/notes.txt", "other/y.csv", "data/sub/deeper/z.csv"} {
		f.put("bkt", k, []byte(k))
		want[k] = len(k)
	}
	parts := func(from, to int) []string {
		var out []string
		for i := from; i < to; i++ {
			out = append(out, fmt.Sprintf("data/part-%04d.csv", i))
		}
		return out
	}
	ctx := context.Background()
	for _, tc := range []struct {
		url  string
		want []string
	}{
		{"s3://bkt/data/*.csv", parts(0, 2500)},
		{"s3://bkt/data/part-000?.csv", parts(0, 10)},
		{"s3://bkt/data/part-00[12]0.csv", []string{"data/part-0010.csv", "data/part-0020.csv"}},
		{"s3://bkt/data/", append([]string{"data/notes.txt"}, parts(0, 2500)...)},
		{"s3://bkt/data", append([]string{"data/notes.txt"}, parts(0, 2500)...)},
		{"s3://bkt/data/part-000?.csv?region=us-east-1", parts(0, 10)},
		{"s3://bkt/data/*/x.csv", []string{"data/sub/x.csv"}},
		{"s3://bkt/*/*/*/z.csv", []string{"data/sub/deeper/z.csv"}},
		{"s3://bkt/data/.h*", []string{"data/.hidden.csv"}},
		{"s3://bkt/data/part-0042.csv", []string{"data/part-0042.csv"}},
		{"s3://bkt/", []string{}}, // only "directories" at the top: an error
		{"s3://bkt/*/y.csv", []string{"other/y.csv"}},
		{"s3://bkt/data/*.parquet", nil},
	} {
		t.Run(tc.url, func(t *testing.T) {
			f.mu.Lock()
			f.lists = 0
			f.mu.Unlock()
			objs, err := ExpandObjects(ctx, []string{tc.url}, nil)
			if len(tc.want) == 0 {
				if err == nil || !strings.Contains(err.Error(), tc.url) {
					t.Fatalf("got %d objects, err %v; want an error naming %s", len(objs), err, tc.url)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(objs) != len(tc.want) {
				t.Fatalf("got %d objects, want %d", len(objs), len(tc.want))
			}
			for i, o := range objs {
				if w := "s3://bkt/" + tc.want[i]; o.Name != w {
					t.Fatalf("object %d: %s, want %s", i, o.Name, w)
				}
				if o.Size != int64(want[tc.want[i]]) {
					t.Fatalf("%s: size %d, want %d", o.Name, o.Size, want[tc.want[i]])
				}
			}
			f.mu.Lock()
			lists := f.lists
			f.mu.Unlock()
			if len(tc.want) > 1000 && lists < 3 {
				t.Errorf("%d list requests for %d keys: the pages were not all read", lists, len(tc.want))
			}
		})
	}
}

func TestS3SeveralItems(t *testing.T) {
	f := newFakeS3(t)
	f.bucket("bkt")
	f.bucket("other")
	f.put("bkt", "a.csv", []byte("a\n"))
	f.put("bkt", "b/c.csv", []byte("bc\n"))
	f.put("other", "d.csv", []byte("d\n"))
	objs, err := ExpandObjects(context.Background(), []string{"s3://bkt/a.csv, s3://other/*.csv", "s3://bkt/b/"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(names(objs), " "); got != "s3://bkt/a.csv s3://other/d.csv s3://bkt/b/c.csv" {
		t.Fatalf("got %s", got)
	}
	for i, want := range []string{"a\n", "d\n", "bc\n"} {
		if got := readAll(t, objs[i].Open); string(got) != want {
			t.Errorf("%s: %q", objs[i].Name, got)
		}
	}
}

func TestS3Reads(t *testing.T) {
	f := newFakeS3(t)
	f.bucket("bkt")
	const size = 3<<20 + 12345
	data := payload(1, size)
	f.put("bkt", "big.csv", data)
	f.put("bkt", "empty.csv", nil)
	ctx := context.Background()
	objs, err := ExpandObjects(ctx, []string{"s3://bkt/big.csv"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	o := objs[0]
	if o.Size != size {
		t.Fatalf("size %d, want %d", o.Size, size)
	}

	rc, err := o.Open()
	if err != nil {
		t.Fatal(err)
	}
	if err := iotest.TestReader(struct{ io.Reader }{rc}, data); err != nil { // not its ReadAt: a request per call
		t.Fatal(err)
	}
	rc.Close()

	rng := rand.New(rand.NewPCG(2, 2))
	type span struct{ off, n int64 }
	spans := []span{{0, 0}, {0, 1}, {1, 100}, {size - 1, -1}, {size - 1, 10}, {size, -1}, {12345, 1 << 20}, {0, -1}, {100, size}}
	for range 20 {
		off := rng.Int64N(size)
		spans = append(spans, span{off, rng.Int64N(size - off + 1)})
	}
	for _, s := range spans {
		rc, err := o.OpenRange(s.off, s.n)
		if err != nil {
			t.Fatalf("OpenRange(%d, %d): %v", s.off, s.n, err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("OpenRange(%d, %d): %v", s.off, s.n, err)
		}
		end := int64(size)
		if s.n >= 0 && s.off+s.n < end {
			end = s.off + s.n
		}
		if !bytes.Equal(got, data[s.off:end]) {
			t.Fatalf("OpenRange(%d, %d): %d bytes differ from the %d expected", s.off, s.n, len(got), end-s.off)
		}
	}
	if _, err := o.OpenRange(size+1, 1); err == nil {
		t.Error("OpenRange past the end: no error")
	}

	for _, s := range []span{{0, 4096}, {size - 4, 4}, {size - 4, 100}, {size, 10}, {777, 1}} {
		p := make([]byte, s.n)
		n, err := o.ReaderAt.ReadAt(p, s.off)
		want := data[min(s.off, size):min(s.off+s.n, size)]
		if n != len(want) || !bytes.Equal(p[:n], want) {
			t.Fatalf("ReadAt(%d bytes at %d): %d bytes, want %d exact", s.n, s.off, n, len(want))
		}
		if short := int64(len(want)) < s.n; short != (err == io.EOF) || !short && err != nil {
			t.Fatalf("ReadAt(%d bytes at %d): err %v", s.n, s.off, err)
		}
	}
	// What Open returns is an io.ReaderAt too, as an *os.File is.
	rc, _ = o.Open()
	if ra, ok := rc.(io.ReaderAt); !ok {
		t.Error("Open's reader is not an io.ReaderAt")
	} else if err := iotest.TestReader(io.NewSectionReader(ra, 1000, 300), data[1000:1300]); err != nil {
		t.Error(err)
	}
	rc.Close()

	objs, err = ExpandObjects(ctx, []string{"s3://bkt/empty.csv"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rc, err = objs[0].Open()
	if err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(rc); err != nil || len(b) != 0 {
		t.Fatalf("empty object: %d bytes, %v", len(b), err)
	}
}

func TestS3DroppedConnection(t *testing.T) {
	fastRetries(t)
	f := newFakeS3(t)
	f.bucket("bkt")
	const size = 2<<20 + 7
	data := payload(3, size)
	f.put("bkt", "flaky.csv", data)
	ctx := context.Background()
	objs, err := ExpandObjects(ctx, []string{"s3://bkt/flaky.csv"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	o := objs[0]
	const key = "/bkt/flaky.csv"

	t.Run("whole", func(t *testing.T) {
		before := len(f.ranges(key))
		f.dropAfter(key, 100000, 0, 1<<20) // a drop, one with no byte at all, another
		rc, err := o.Open()
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("%d bytes read, want the %d exact", len(got), len(data))
		}
		rs := f.ranges(key)[before:]
		want := []string{"", "bytes=100000-", "bytes=100000-", "bytes=1148576-"}
		if len(rs) != len(want) {
			t.Fatalf("ranges requested %q, want %q", rs, want)
		}
		for i := 1; i < len(want); i++ { // the first may name the whole object or none
			if !strings.HasPrefix(rs[i], want[i]) {
				t.Fatalf("ranges requested %q, want %q", rs, want)
			}
		}
	})
	t.Run("range", func(t *testing.T) {
		before := len(f.ranges(key))
		f.dropAfter(key, 5000)
		rc, err := o.OpenRange(300000, 400000)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, data[300000:700000]) {
			t.Fatalf("%d bytes read differ", len(got))
		}
		rs := f.ranges(key)[before:]
		if len(rs) != 2 || rs[0] != "bytes=300000-699999" || rs[1] != "bytes=305000-699999" {
			t.Fatalf("ranges requested %q", rs)
		}
	})
	t.Run("range ignored", func(t *testing.T) {
		// The reopen after a drop, and a range read, answered with the
		// whole object: the bytes before the offset are skipped, not
		// taken for the ones asked for.
		f.dropAfter(key, 100000)
		f.mu.Lock()
		f.whole = 2
		f.mu.Unlock()
		if got, err := readRange(o, 0, -1); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("whole object, reopened: %d bytes read (%v), want the %d exact", len(got), err, len(data))
		}
		if got, err := readRange(o, 300000, 400000); err != nil || !bytes.Equal(got, data[300000:700000]) {
			t.Fatalf("a range: %d bytes read (%v), want bytes 300000-699999", len(got), err)
		}
		f.mu.Lock()
		left := f.whole
		f.whole = 0
		f.mu.Unlock()
		if left != 0 {
			t.Fatalf("%d answers of the whole object not asked for: the test did not reach them", left)
		}
	})
	t.Run("stalled", func(t *testing.T) {
		// A response that stops sending, and one whose headers never
		// come, with the connection left open: given up after
		// the store's Timeout and made again from the byte reached, not
		// waited for for ever: the store answered the HEAD, so it is
		// live, and a stall is retried.
		const stall = 200 * time.Millisecond
		objs, err := ExpandObjectsConfig(ctx, []string{"s3://bkt/flaky.csv"}, nil, Config{Timeout: stall})
		if err != nil {
			t.Fatal(err)
		}
		o := objs[0]
		before := len(f.ranges(key))
		f.mu.Lock()
		f.stalls = []int64{70000, 0}
		f.mu.Unlock()
		if got, err := readRange(o, 0, -1); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%d bytes read (%v), want the %d exact", len(got), err, len(data))
		}
		if rs := f.ranges(key)[before:]; len(rs) != 3 || !strings.HasPrefix(rs[1], "bytes=70000-") || !strings.HasPrefix(rs[2], "bytes=70000-") {
			t.Fatalf("ranges requested %q, want the object, then twice from byte 70000", rs)
		}
		// A reader that stops reading for longer is no stall: only a
		// read waiting for bytes counts.
		before = len(f.ranges(key))
		rc, err := o.Open()
		if err != nil {
			t.Fatal(err)
		}
		head := make([]byte, 10)
		if _, err := io.ReadFull(rc, head); err != nil {
			t.Fatal(err)
		}
		time.Sleep(3 * stall)
		rest, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || !bytes.Equal(append(head, rest...), data) {
			t.Fatalf("after a pause: %d bytes read (%v)", len(head)+len(rest), err)
		}
		if rs := f.ranges(key)[before:]; len(rs) != 1 {
			t.Fatalf("after a pause of the reader: ranges requested %q, want the one", rs)
		}
	})
	t.Run("readat", func(t *testing.T) {
		f.dropAfter(key, 10)
		p := make([]byte, 4096)
		if n, err := o.ReaderAt.ReadAt(p, 123); err != nil || n != len(p) || !bytes.Equal(p, data[123:123+4096]) {
			t.Fatalf("ReadAt: %d, %v", n, err)
		}
	})
	t.Run("throttled", func(t *testing.T) {
		// More 503s than the SDK's own three attempts: this package's
		// retries take over.
		f.mu.Lock()
		f.busy = 4
		f.mu.Unlock()
		rc, err := o.OpenRange(1000, 1000)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || !bytes.Equal(got, data[1000:2000]) {
			t.Fatalf("%d bytes, %v", len(got), err)
		}
	})
	t.Run("gives up", func(t *testing.T) {
		drops := make([]int64, retryTries+1)
		f.dropAfter(key, drops...)
		rc, err := o.Open()
		if err == nil {
			_, err = io.ReadAll(rc)
			rc.Close()
		}
		if err == nil || !strings.Contains(err.Error(), "s3://bkt/flaky.csv") || !strings.Contains(err.Error(), "gave up") {
			t.Fatalf("err %v, want giving up naming the URL", err)
		}
		f.mu.Lock()
		f.drops[key] = nil
		f.mu.Unlock()
	})
}

func TestS3Errors(t *testing.T) {
	f := newFakeS3(t)
	f.bucket("bkt")
	f.bucket("locked")
	f.put("bkt", "a.csv", []byte("a,b\n1,2\n"))
	f.put("bkt", "gone.csv", []byte("x\n"))
	f.put("locked", "a.csv", []byte("secret\n"))
	ctx := context.Background()

	objs, err := ExpandObjects(ctx, []string{"s3://bkt/gone.csv"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.backend.DeleteObject("bkt", "gone.csv"); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.denied["locked"] = "AccessDenied"
	f.denied["badkey"] = "InvalidAccessKeyId"
	f.mu.Unlock()

	for _, tc := range []struct {
		url, cause string
	}{
		{"s3://bkt/missing.csv", "not found"},
		{"s3://bkt/missing/*.csv", "no object matches"},
		{"s3://nobucket/a.csv", "no such bucket"},
		{"s3://nobucket/*.csv", "no such bucket"},
		{"s3://nobucket/", "no such bucket"},
		{"s3://locked/a.csv", "access denied"},
		{"s3://locked/*.csv", "access denied"},
		{"s3://badkey/a.csv", "credentials rejected"},
		{"s3://badkey/*.csv", "credentials rejected"},
		{"s3://bkt/[.csv", "syntax error in pattern"},
		{"s3:///a.csv", "no bucket name"},
		{"s3://bkt/a.csv?nosuchparam=1", "unknown query parameter"},
	} {
		t.Run(tc.url, func(t *testing.T) {
			_, err := ExpandObjects(ctx, []string{tc.url}, nil)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.HasPrefix(err.Error(), tc.url+": ") || !strings.Contains(err.Error(), tc.cause) {
				t.Fatalf("error %q, want %q naming %s", err, tc.cause, tc.url)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Fatalf("error %q shows a secret", err)
			}
		})
	}
	// Removed after the listing: Open says so at once, without retrying.
	start := time.Now()
	_, err = objs[0].Open()
	if err == nil || !strings.Contains(err.Error(), "s3://bkt/gone.csv: no such object") {
		t.Fatalf("Open of a removed object: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("a permanent error took %v: retried?", d)
	}
	if _, err := objs[0].ReaderAt.ReadAt(make([]byte, 1), 0); err == nil {
		t.Error("ReadAt of a removed object: no error")
	}
	// Replaced after the listing, even by one of the same size: no read
	// splices two versions.
	for i, u := range []string{"s3://bkt/a.csv", "s3://bkt/*.csv"} {
		objs, err = ExpandObjects(ctx, []string{u}, nil)
		if err != nil {
			t.Fatal(err)
		}
		f.put("bkt", "a.csv", fmt.Appendf(nil, "a,b\n%d,4\n", i))
		if _, err := objs[0].Open(); err == nil || !strings.Contains(err.Error(), "s3://bkt/a.csv: object changed since it was listed") {
			t.Fatalf("%s: Open of a replaced object: %v", u, err)
		}
		if _, err := objs[0].ReaderAt.ReadAt(make([]byte, 2), 2); err == nil {
			t.Fatalf("%s: ReadAt of a replaced object: no error", u)
		}
	}
	// Denied after the listing.
	f.mu.Lock()
	f.denied["locked"] = ""
	f.mu.Unlock()
	objs, err = ExpandObjects(ctx, []string{"s3://locked/a.csv"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.denied["locked"] = "AccessDenied"
	f.mu.Unlock()
	if _, err := objs[0].Open(); err == nil || !strings.Contains(err.Error(), "s3://locked/a.csv: access denied") {
		t.Fatalf("Open denied: %v", err)
	}
	// Canceled: no retries, the cause is the context's.
	cctx, cancel := context.WithCancel(ctx)
	objs, err = ExpandObjects(cctx, []string{"s3://bkt/a.csv"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := objs[0].Open(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Open with a canceled context: %v", err)
	}
}

// TestS3EndpointParams reaches the store through URL parameters alone.
func TestS3EndpointParams(t *testing.T) {
	f := newFakeS3(t)
	t.Setenv("AWS_ENDPOINT_URL", "")
	t.Setenv("AWS_REGION", "")
	f.bucket("bkt")
	f.put("bkt", "a.csv", []byte("hello\n"))
	localhost := strings.Replace(f.srv.URL, "127.0.0.1", "localhost", 1)
	for _, q := range []string{
		"endpoint=" + f.srv.URL + "&use_path_style=true&region=eu-west-1",
		"endpoint=" + f.srv.URL + "&s3ForcePathStyle=true",
		"endpoint=" + f.srv.URL, // an IP address: path style without asking
		"endpoint=" + localhost,
	} {
		t.Run(q, func(t *testing.T) {
			objs, err := ExpandObjects(context.Background(), []string{"s3://bkt/*.csv?" + q}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(objs) != 1 || objs[0].Name != "s3://bkt/a.csv" || objs[0].Size != 6 {
				t.Fatalf("got %+v", objs)
			}
			rc, err := objs[0].Open()
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			if b, err := io.ReadAll(rc); err != nil || string(b) != "hello\n" {
				t.Fatalf("read %q, %v", b, err)
			}
		})
	}
	for q, want := range map[string]string{
		"bogus=1":         `unknown query parameter "bogus"`,
		"anonymous=maybe": `anonymous="maybe": want true or false`,
	} {
		if _, err := ExpandObjects(context.Background(), []string{"s3://bkt/a.csv?endpoint=" + f.srv.URL + "&" + q}, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("?%s: %v, want an error saying %s", q, err, want)
		}
	}
	t.Setenv("AWS_S3_USE_PATH_STYLE", "maybe")
	if _, err := ExpandObjects(context.Background(), []string{"s3://bkt/a.csv"}, nil); err == nil || !strings.Contains(err.Error(), "AWS_S3_USE_PATH_STYLE") {
		t.Fatalf("bad AWS_S3_USE_PATH_STYLE: %v", err)
	}
}

func TestIPOrLocalhost(t *testing.T) {
	for _, tc := range []struct {
		endpoint string
		want     bool
	}{
		{"http://127.0.0.1:9000", true},
		{"https://10.1.2.3", true},
		{"http://[::1]:9000", true},
		{"http://localhost:9000", true},
		{"127.0.0.1:9000", true},
		{"https://s3.eu-west-1.amazonaws.com", false},
		{"https://minio.example.com:9000", false},
	} {
		if got := ipOrLocalhost(tc.endpoint); got != tc.want {
			t.Errorf("ipOrLocalhost(%q) = %v, want %v", tc.endpoint, got, tc.want)
		}
	}
}

// TestS3NoCredentials: when no source gives credentials the request never
// reaches the store, and the error says so: not "access denied", which the
// instance metadata service's 403 on a host without a role used to read
// as, nor the SDK's chain of messages alone.
func TestS3NoCredentials(t *testing.T) {
	// An instance metadata service that refuses everything, as on a host
	// that blocks it.
	imds := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
	}))
	defer imds.Close()
	for _, c := range []struct{ name, imdsOff string }{
		{"metadata service off", "true"},
		{"metadata service answers 403", "false"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeS3(t)
			f.bucket("bkt")
			f.put("bkt", "a.csv", []byte("a\n"))
			t.Setenv("AWS_ACCESS_KEY_ID", "")
			t.Setenv("AWS_SECRET_ACCESS_KEY", "")
			t.Setenv("AWS_EC2_METADATA_DISABLED", c.imdsOff)
			t.Setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", imds.URL)
			_, err := ExpandObjects(context.Background(), []string{"s3://bkt/a.csv"}, nil)
			if err == nil || !strings.HasPrefix(err.Error(), "s3://bkt/a.csv: no credentials (") {
				t.Fatalf("got %v, want an error saying there are no credentials", err)
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			if f.all != 0 {
				t.Errorf("the store got %d requests", f.all)
			}
		})
	}
}

// TestS3MetadataRetries: a listing and a HEAD survive a burst of 503s
// longer than the SDK's default three attempts, as reads do.
func TestS3MetadataRetries(t *testing.T) {
	fastRetries(t)
	f := newFakeS3(t)
	f.bucket("bkt")
	f.put("bkt", "a.csv", []byte("1,a\n"))
	for _, item := range []string{"s3://bkt/a.csv", "s3://bkt/*.csv"} {
		f.mu.Lock()
		f.busyMeta = 4
		f.mu.Unlock()
		objs, err := ExpandObjects(context.Background(), []string{item}, nil)
		if err != nil || len(objs) != 1 {
			t.Errorf("%s after 4 answers 503: %d objects, %v", item, len(objs), err)
		}
	}
}

// TestS3NoSDKWarnings: reading an object prints nothing on standard
// error. The SDK warned there of every GET answered with the whole
// object that had no checksum to validate, which cqlload does not need:
// it checks sizes and ETags itself.
func TestS3NoSDKWarnings(t *testing.T) {
	f := newFakeS3(t)
	f.bucket("bkt")
	data := payload(2, 100<<10)
	f.put("bkt", "a.csv", data)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := os.Stderr
	os.Stderr = w
	done := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(r)
		done <- b
	}()
	func() {
		defer func() { os.Stderr = stderr; w.Close() }()
		objs, err := ExpandObjects(context.Background(), []string{"s3://bkt/a.csv"}, nil)
		if err != nil {
			t.Error(err)
			return
		}
		// A store may answer a ranged GET with the whole object (200).
		f.mu.Lock()
		f.whole = 1
		f.mu.Unlock()
		rc, err := objs[0].OpenRange(1000, 5000)
		if err != nil {
			t.Error(err)
			return
		}
		defer rc.Close()
		if got, err := io.ReadAll(rc); err != nil || !bytes.Equal(got, data[1000:6000]) {
			t.Errorf("read %d bytes, %v; want 5000", len(got), err)
		}
	}()
	if out := <-done; len(out) > 0 {
		t.Errorf("standard error got %q", out)
	}
}
