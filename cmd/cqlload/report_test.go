package main

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cqlload/cqlload/loader"
)

// TestBarFrameIsWhole: each progress bar frame shows the rows written
// and the percent done of one moment. The description drew its own
// frame first, so the percent beside it was the one of the draw before
// (a finished load of 20,000 rows showed "20000 rows written … 0%").
func TestBarFrameIsWhole(t *testing.T) {
	r, out := barReporter(t)
	for _, p := range []loader.Progress{
		{RowsWritten: 100, BytesDone: 25, BytesTotal: 100, Elapsed: time.Second},
		{RowsWritten: 300, BytesDone: 75, BytesTotal: 100, Elapsed: 2 * time.Second},
	} {
		r.draw(p, out)
		frames := strings.Split(strings.TrimRight(out.String(), " \r"), "\r")
		last := frames[len(frames)-1]
		for _, want := range []string{fmt.Sprintf("%d rows written", p.RowsWritten), fmt.Sprintf("%d%%", 100*p.BytesDone/p.BytesTotal)} {
			if !strings.Contains(last, want) {
				t.Errorf("last frame %q lacks %q", last, want)
			}
		}
	}
}

// barReporter starts a bar reporter of a loader that is never run,
// drawing only when the test calls draw, into a buffer.
func barReporter(t *testing.T) (*reporter, *lockedBuffer) {
	t.Helper()
	o := loader.DefaultOptions()
	o.Hosts, o.Keyspace, o.Table, o.Files = []string{"127.0.0.1"}, "ks", "t", []string{"in.csv"}
	l, err := loader.New(o)
	if err != nil {
		t.Fatal(err)
	}
	// The bar draws from a goroutine of its own too (its spinner).
	out := &lockedBuffer{}
	r := startReporter(l, "bar", time.Hour, out)
	t.Cleanup(func() { r.stop(false) })
	return r, out
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestBarFitsEightyColumns: a frame wider than the terminal wraps, and
// each redraw then starts a new line, so that an 80-column terminal
// filled with copies of the bar. Frames now fit in 80 columns, with the
// large figures of a long load, keeping the rows written and the percent.
func TestBarFitsEightyColumns(t *testing.T) {
	r, out := barReporter(t)
	p := loader.Progress{RowsWritten: 123456789, RowsFailedParse: 1234, BytesDone: 50, BytesTotal: 100, Elapsed: 100 * time.Second}
	r.draw(p, out)
	for _, frame := range strings.Split(out.String(), "\r") {
		frame = strings.TrimRight(frame, " ")
		if n := utf8.RuneCountInString(frame); n > 80 {
			t.Errorf("a frame of %d columns: %q", n, frame)
		}
	}
	frames := strings.Split(strings.TrimRight(out.String(), " \r"), "\r")
	last := frames[len(frames)-1]
	for _, want := range []string{"123456789 rows written", "50%"} {
		if !strings.Contains(last, want) {
			t.Errorf("last frame %q lacks %q", last, want)
		}
	}
}

func TestFitParts(t *testing.T) {
	parts := []string{"100 rows written", "5 rows/s", "0 rejected"}
	for _, tc := range []struct {
		room int
		want string
	}{
		{100, "100 rows written, 5 rows/s, 0 rejected"},
		{38, "100 rows written, 5 rows/s, 0 rejected"},
		{37, "100 rows written, 5 rows/s"},
		{26, "100 rows written, 5 rows/s"},
		{25, "100 rows written"},
		{0, "100 rows written"}, // the first part whatever the room
	} {
		if got := fitParts(tc.room, parts); got != tc.want {
			t.Errorf("fitParts(%d) = %q, want %q", tc.room, got, tc.want)
		}
	}
}

// TestHintsShownOnce: a hint given while loading (the input's token
// order) is written in the log at the next report, each once, above the
// bar.
func TestHintsShownOnce(t *testing.T) {
	r, out := barReporter(t)
	var given []string
	r.given = func() []string { return given }
	r.showHints(out)
	if strings.Contains(out.String(), "Hint:") {
		t.Fatalf("no hint given, shown %q", out.String())
	}
	given = []string{"lines 1–40000 of a.csv went to one replica set at a time"}
	r.showHints(out)
	r.draw(loader.Progress{RowsWritten: 1, Elapsed: time.Second}, out)
	given = append(given, "second")
	r.showHints(out)
	r.showHints(out)
	if got := strings.Count(out.String(), "Hint: lines 1–40000 of a.csv"); got != 1 {
		t.Errorf("the first hint shown %d times: %q", got, out.String())
	}
	if got := strings.Count(out.String(), "Hint: second\n"); got != 1 {
		t.Errorf("the second hint shown %d times: %q", got, out.String())
	}
}
