package csvparse

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// chunkView is what a chunk says of its records, without its buffers.
type chunkView struct {
	Source, Records, Skipped int
	FirstLine, Offset        int64
	Data                     string
	Last                     bool
}

func viewOf(c *Chunk) chunkView {
	return chunkView{c.Source, c.Records, c.Skipped, c.FirstLine, c.Offset, string(c.Data), c.LastOfFile}
}

// TestInterleave: read W at a time, every source hands out the same chunks
// in the same order as read one after another; the chunks are numbered
// in the order handed out, which is fixed (a second reading gives the
// same), a chunk from each source being read in turn.
func TestInterleave(t *testing.T) {
	d := DefaultDialect()
	rows := func(n, from int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%d,\"v\n%d\"\n", from+i, i)
		}
		return b.String()
	}
	inputs := []string{rows(23, 0), rows(1, 100), "", rows(40, 200), "\n\n", rows(7, 300), rows(16, 400)}
	sources := func() []Source {
		var out []Source
		for i, in := range inputs {
			out = append(out, memSource(fmt.Sprintf("f%d", i), []byte(in), i%2 == 0))
		}
		return out
	}
	read := func(w int) []chunkView {
		s := NewSplitter(sources(), d, 5, 0)
		s.Interleave = w
		var out []chunkView
		chunks, _ := split(t, s, d) // checks Seq, Records and FirstLine
		for _, c := range chunks {
			out = append(out, viewOf(c))
		}
		return out
	}
	bySource := func(cs []chunkView) map[int][]chunkView {
		m := map[int][]chunkView{}
		for _, c := range cs {
			m[c.Source] = append(m[c.Source], c)
		}
		return m
	}
	one := read(1)
	for _, w := range []int{0, 2, 3, 7, 50} {
		got := read(w)
		if fmt.Sprint(bySource(got)) != fmt.Sprint(bySource(one)) {
			t.Errorf("Interleave %d: the sources' chunks differ from reading them one after another", w)
		}
		if again := read(w); fmt.Sprint(again) != fmt.Sprint(got) {
			t.Errorf("Interleave %d: a second reading handed out the chunks in another order", w)
		}
		// Round robin: while sources remain open, consecutive chunks come
		// from different sources whenever more than one is being read.
		if w >= 2 && len(got) > 1 && got[0].Source == got[1].Source {
			t.Errorf("Interleave %d: the first two chunks are both from source %d", w, got[0].Source)
		}
		if w <= 1 {
			if fmt.Sprint(got) != fmt.Sprint(one) {
				t.Errorf("Interleave %d: not the sequential reading", w)
			}
		}
	}
	// Source 3 (40 records, 8 chunks) and source 6 (16 records) are read
	// side by side with W = 7: source 6's first chunk comes before
	// source 3's last.
	got := read(7)
	first6, last3 := -1, -1
	for i, c := range got {
		if c.Source == 6 && first6 < 0 {
			first6 = i
		}
		if c.Source == 3 {
			last3 = i
		}
	}
	if first6 < 0 || first6 > last3 {
		t.Errorf("Interleave 7: source 6 starts at chunk %d, after source 3 ended at %d", first6, last3)
	}
}

// TestInterleaveInputError: a source that fails ends the reading after
// its whole records, as when read alone; the chunks of the others handed
// out before are whole.
func TestInterleaveInputError(t *testing.T) {
	d := DefaultDialect()
	good := memSource("good", []byte(strings.Repeat("1,2\n", 50)), false)
	bad := Source{Name: "bad", Size: -1, Open: func() (io.ReadCloser, error) {
		return io.NopCloser(io.MultiReader(strings.NewReader("3,4\n5,6\n"), errReader{})), nil
	}}
	s := NewSplitter([]Source{good, bad}, d, 5, 0)
	s.Interleave = 2
	s.FlushInterval = 0
	var fromBad int
	var err error
	for {
		var c *Chunk
		c, err = s.Next()
		if err != nil {
			break
		}
		if c.Source == 1 {
			fromBad += c.Records
		}
	}
	var ie *InputError
	if !errors.As(err, &ie) || ie.File != "bad" {
		t.Fatalf("error %v, want an *InputError naming bad", err)
	}
	if fromBad != 2 {
		t.Errorf("%d records of bad handed out, want its 2 whole ones", fromBad)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, fmt.Errorf("disk on fire") }

// TestFirstLine: a range that continues a file counts its lines from
// Source.FirstLine, with or without the header put before it.
func TestFirstLine(t *testing.T) {
	data := "1,\"a\nb\"\n2,c\n"
	for _, tc := range []struct {
		name string
		src  Source
		d    Dialect
	}{
		{"continues", Source{Name: "r", Size: int64(len(data)), Continues: true, FirstLine: 41, Open: open(data)}, DefaultDialect()},
		{"after a header", Source{Name: "r", Size: int64(len(data) + 4), HeaderBytes: 4, FirstLine: 41, Open: open("h,v\n" + data)},
			dialect(func(d *Dialect) { d.Header = true })},
	} {
		s := NewSplitter([]Source{tc.src}, tc.d, 10, 0)
		_, recs := split(t, s, tc.d)
		if len(recs) != 2 || recs[0].Line != 41 || recs[1].Line != 43 {
			t.Errorf("%s: records %+v, want lines 41 and 43", tc.name, recs)
		}
	}
}

func open(s string) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(s)), nil }
}
