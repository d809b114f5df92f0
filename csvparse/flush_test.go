package csvparse

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"reflect"
	"testing"
	"time"
)

// slowParts is what a slow producer writes, with a pause after each part
// but the last. The first part ends in the middle of a quoted field that
// holds a line break, so a cut there would make two records of one.
var slowParts = []string{
	"a,1\nb,2\nc,3\nd,\"multi\n",
	"line\",4\ne,5\n",
	"f,6\n",
}

var slowRecords = []rec{
	{Line: 1, Fields: f("a", "1")},
	{Line: 2, Fields: f("b", "2")},
	{Line: 3, Fields: f("c", "3")},
	{Line: 4, Fields: f("d", "multi\nline", "4")},
	{Line: 6, Fields: f("e", "5")},
	{Line: 7, Fields: f("f", "6")},
}

// produce writes parts to the writer open returns, pausing between them;
// it sends the time of each write after the first on wrote.
func produce(t *testing.T, open func() (io.WriteCloser, error), parts []string, pause time.Duration, wrote chan<- time.Time) {
	defer close(wrote)
	w, err := open()
	if err != nil {
		t.Error(err)
		return
	}
	defer w.Close()
	for i, p := range parts {
		if i > 0 {
			time.Sleep(pause)
			wrote <- time.Now()
		}
		if _, err := io.WriteString(w, p); err != nil {
			t.Error(err)
			return
		}
	}
}

// checkSlowProducer reads src while a producer writes slowParts into it
// with pauses of 3 s: the records before a pause come out within
// FlushInterval + 1 s of it, before the producer writes on, and all come
// out once, whole, on their lines.
func checkSlowProducer(t *testing.T, src Source, open func() (io.WriteCloser, error)) {
	const interval = 500 * time.Millisecond
	const pause = 3 * time.Second
	d := DefaultDialect()
	s := NewSplitter([]Source{src}, d, 0, 0)
	defer s.Close()
	s.FlushInterval = interval
	wrote := make(chan time.Time, len(slowParts))
	start := time.Now()
	go produce(t, open, slowParts, pause, wrote)

	var got []rec
	var chunks []*Chunk
	var total int
	for _, p := range slowParts {
		total += len(p)
	}
	for {
		c, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		recs := readChunk(t, c, d)
		if len(recs) != c.Records {
			t.Fatalf("chunk %d: Records = %d, Reader yields %d", c.Seq, c.Records, len(recs))
		}
		if len(chunks) == 0 {
			// The first part was written right at start.
			if c.Records != 3 {
				t.Fatalf("first chunk has %d records, want the 3 written before the pause", c.Records)
			}
			if el := now.Sub(start); el > interval+time.Second {
				t.Errorf("first chunk came %v after its records were written, want at most %v", el, interval+time.Second)
			}
			select {
			case at := <-wrote:
				t.Errorf("first chunk came %v after the producer wrote on", now.Sub(at))
			default:
			}
			if c.LastOfFile {
				t.Errorf("first chunk is LastOfFile")
			}
		}
		for i := range recs {
			recs[i].Raw, recs[i].Quoted = "", nil
		}
		got = append(got, recs...)
		chunks = append(chunks, c)
	}
	for range wrote { // the producer is done
	}
	if !reflect.DeepEqual(got, slowRecords) {
		t.Errorf("records:\n%+v\nwant\n%+v", got, slowRecords)
	}
	if len(chunks) < 3 {
		t.Errorf("%d chunks, want at least one per pause and one after", len(chunks))
	}
	for i, c := range chunks {
		if c.Seq != int64(i) || c.LastOfFile != (i == len(chunks)-1) {
			t.Errorf("chunk %d: Seq %d, LastOfFile %v", i, c.Seq, c.LastOfFile)
		}
	}
	if n := sumInput(chunks); n != int64(total) {
		t.Errorf("InputBytes add up to %d, want %d", n, total)
	}
}

func pipeSource() (Source, *io.PipeWriter) {
	pr, pw := io.Pipe()
	return Source{Name: "-", Size: -1, Open: func() (io.ReadCloser, error) { return pr, nil }}, pw
}

func TestFlushSlowPipe(t *testing.T) {
	src, pw := pipeSource()
	checkSlowProducer(t, src, func() (io.WriteCloser, error) { return pw, nil })
}

// TestFlushDisabled: with FlushInterval 0 the splitter waits for the
// chunk to fill or the input to end, as before.
func TestFlushDisabled(t *testing.T) {
	src, pw := pipeSource()
	s := NewSplitter([]Source{src}, DefaultDialect(), 0, 0)
	defer s.Close()
	s.FlushInterval = 0
	wrote := make(chan time.Time, 1)
	go produce(t, func() (io.WriteCloser, error) { return pw, nil }, []string{"a\nb\n", "c\n"}, 1500*time.Millisecond, wrote)
	c, err := s.Next()
	if err != nil {
		t.Fatal(err)
	}
	if c.Records != 3 || !c.LastOfFile {
		t.Errorf("chunk has %d records, LastOfFile %v; want all 3 in one", c.Records, c.LastOfFile)
	}
	for range wrote {
	}
}

// TestFlushGzipPipe: a gzip stream over a pipe, paused inside a member
// and between members, loads whole (it is not cut early).
func TestFlushGzipPipe(t *testing.T) {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	_, _ = io.WriteString(zw, "a,1\nb,2\n")
	_ = zw.Close()
	zw = gzip.NewWriter(&z)
	_, _ = io.WriteString(zw, "c,3\nd,4\n")
	_ = zw.Close()
	gz := z.String()
	first := len(gz) / 2
	src, pw := pipeSource()
	s := NewSplitter([]Source{src}, DefaultDialect(), 0, 0)
	s.FlushInterval = 100 * time.Millisecond
	s.VerifyBuffer = 16 // stream the members, so the decoder waits on the pipe
	wrote := make(chan time.Time, 2)
	go produce(t, func() (io.WriteCloser, error) { return pw, nil }, []string{gz[:first], gz[first : first+5], gz[first+5:]}, 400*time.Millisecond, wrote)
	_, got := split(t, s, DefaultDialect())
	for range wrote {
	}
	var fields [][]string
	for _, r := range got {
		fields = append(fields, r.Fields)
	}
	want := [][]string{f("a", "1"), f("b", "2"), f("c", "3"), f("d", "4")}
	if !reflect.DeepEqual(fields, want) {
		t.Errorf("records %q, want %q", fields, want)
	}
}

// blockedReader blocks in Read until release is closed, and Close does
// not end that: stdin behaves so.
type blockedReader struct{ release chan struct{} }

func (b blockedReader) Read([]byte) (int, error) {
	<-b.release
	return 0, io.EOF
}

func TestCloseDoesNotWaitForBlockedRead(t *testing.T) {
	t.Run("pipe", func(t *testing.T) {
		src, pw := pipeSource()
		s := NewSplitter([]Source{src}, DefaultDialect(), 0, 0)
		s.FlushInterval = 100 * time.Millisecond
		go func() { _, _ = io.WriteString(pw, "a,1\n") }()
		if c, err := s.Next(); err != nil || c.Records != 1 {
			t.Fatalf("Next: %v, %v; want the one record", c, err)
		}
		closeWithin(t, s)
		// Closing the pipe ended the reading goroutine's Read.
		if _, err := pw.Write([]byte("b\n")); !errors.Is(err, io.ErrClosedPipe) {
			t.Errorf("writing after Close: %v, want io.ErrClosedPipe", err)
		}
	})
	t.Run("stdin-like", func(t *testing.T) {
		b := blockedReader{release: make(chan struct{})}
		defer close(b.release)
		src := Source{Name: "-", Size: -1, Open: func() (io.ReadCloser, error) {
			return io.NopCloser(io.MultiReader(bytes.NewReader([]byte("a,1\n")), b)), nil
		}}
		s := NewSplitter([]Source{src}, DefaultDialect(), 0, 0)
		s.FlushInterval = 100 * time.Millisecond
		if c, err := s.Next(); err != nil || c.Records != 1 {
			t.Fatalf("Next: %v, %v; want the one record", c, err)
		}
		closeWithin(t, s)
		if _, err := s.Next(); err == nil || err == io.EOF {
			t.Errorf("Next after Close: %v, want an error", err)
		}
	})
}

func closeWithin(t *testing.T, s *Splitter) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- s.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Close hangs on a source blocked in Read")
	}
}

// TestRegularFilesReadDirectly: a source of known size gets no reading
// goroutine, so nothing changes for files.
func TestRegularFilesReadDirectly(t *testing.T) {
	in, err := openInput(memSource("a", []byte("a\n"), false), nil, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if in.async != nil {
		t.Error("a source of known size is read through an asyncReader")
	}
	src, pw := pipeSource()
	go func() {
		_, _ = io.WriteString(pw, "a\n")
		_ = pw.Close()
	}()
	in, err = openInput(src, nil, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if in.async == nil {
		t.Error("a source of unknown size is read directly")
	}
}
