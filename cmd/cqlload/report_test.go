package main

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cqlload/cqlload/loader"
)

// TestBarFrameIsWhole: each progress bar frame shows the rows written
// and the percent done of one moment. The description drew its own
// frame first, so the percent beside it was the one of the draw before
// (a finished load of 20,000 rows showed "20000 rows written … 0%").
func TestBarFrameIsWhole(t *testing.T) {
	o := loader.DefaultOptions()
	o.Hosts, o.Keyspace, o.Table, o.Files = []string{"127.0.0.1"}, "ks", "t", []string{"in.csv"}
	l, err := loader.New(o)
	if err != nil {
		t.Fatal(err)
	}
	// The bar draws from a goroutine of its own too (its spinner).
	out := &lockedBuffer{}
	r := startReporter(l, "bar", time.Hour, out)
	defer r.stop(false)
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
