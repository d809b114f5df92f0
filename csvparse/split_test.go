package csvparse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// memSource serves data as a file of known size; oneByte makes every
// Read return a single byte, so refills happen at every position.
func memSource(name string, data []byte, oneByte bool) Source {
	return Source{Name: name, Size: int64(len(data)), Open: func() (io.ReadCloser, error) {
		var r io.Reader = bytes.NewReader(data)
		if oneByte {
			r = iotest.OneByteReader(r)
		}
		return io.NopCloser(r), nil
	}}
}

// split runs a Splitter to the end and checks the invariants every run
// must keep; it returns the chunks and their records.
func split(t testing.TB, s *Splitter, d Dialect) ([]*Chunk, []rec) {
	t.Helper()
	var chunks []*Chunk
	var recs []rec
	eachChunk(t, s, func(c *Chunk) {
		if c.Seq != int64(len(chunks)) {
			t.Fatalf("chunk %d has Seq %d", len(chunks), c.Seq)
		}
		got := readChunk(t, c, d)
		if len(got) != c.Records {
			t.Fatalf("chunk %d: Records = %d, Reader yields %d", c.Seq, c.Records, len(got))
		}
		if c.Records > 0 && got[0].Line != c.FirstLine {
			t.Fatalf("chunk %d: FirstLine = %d, first record on line %d", c.Seq, c.FirstLine, got[0].Line)
		}
		chunks = append(chunks, c)
		recs = append(recs, got...)
	})
	if _, err := s.Next(); err != io.EOF {
		t.Fatalf("Next after io.EOF: %v", err)
	}
	return chunks, recs
}

// eachChunk calls f with every chunk of s, in order, failing the test on
// an error.
func eachChunk(t testing.TB, s *Splitter, f func(*Chunk)) {
	t.Helper()
	for {
		c, err := s.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		f(c)
	}
}

func sumInput(chunks []*Chunk) (n int64) {
	for _, c := range chunks {
		n += c.InputBytes
	}
	return n
}

var splitInputs = []string{
	"",
	"\n\n\r\n",
	"a",
	"a,b,c\n1,2,3\n",
	"a,b\r\n1,2\r\n\r\n3,4",
	"\ufeffh1,h2\n\"x\ny\",2\n\n\n3,\"4\r\n\"\n",
	"1,\"say \"\"hi\"\"\",\\\"q\n\"bad\"x,2\n5,6\n",
	"a\\\nb,c\nd,\"e\\\"\nf\"\n\"g\"\r\n",
	"x,\"unterminated\n1,2\n3,4\n",
	"\"a\"\r\n\"b\"\r",
	"12\" pipe,\"\"\n,,\n\"\"\"\"\n",
	strings.Repeat("0123456789,\"quoted,\nfield\",x\\,y\n\n", 7),
	// Escapes near line breaks in lines without quotes, where the
	// splitter's fast path looks only at the byte before the LF.
	"a\\\\\nb\\\r\nc\\\rd\ne\\,f\\\\g\n^\n|\n",
}

// TestSplitMatchesOneChunk cuts each input at every record count and
// refills the buffer at every byte, and checks the records equal one
// Reader over the whole input.
func TestSplitMatchesOneChunk(t *testing.T) {
	dialects := map[string]Dialect{
		"default":  DefaultDialect(),
		"noescape": dialect(func(d *Dialect) { d.Escape = 0 }),
		"pipe":     dialect(func(d *Dialect) { d.Delimiter, d.Quote, d.Escape = '|', '\'', '^' }),
	}
	for dn, d := range dialects {
		for i, in := range splitInputs {
			data := strings.TrimPrefix(in, "\ufeff")
			want := readChunk(t, &Chunk{File: "in.csv", Data: []byte(data), FirstLine: 1}, d)
			for k := 1; k <= len(want)+1; k++ {
				for _, block := range []int{1, 5, defaultBlockSize} {
					name := fmt.Sprintf("%s/%d/k=%d/block=%d", dn, i, k, block)
					s := NewSplitter([]Source{memSource("in.csv", []byte(in), block < 10)}, d, k, 0)
					s.blockSize = block
					chunks, got := split(t, s, d)
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("%s: got\n%#v\nwant\n%#v", name, got, want)
					}
					if n := sumInput(chunks); n != int64(len(in)) {
						t.Errorf("%s: InputBytes add up to %d, want %d", name, n, len(in))
					}
					if last := chunks[len(chunks)-1]; !last.LastOfFile {
						t.Errorf("%s: last chunk not LastOfFile", name)
					}
					for _, c := range chunks {
						if c.Records > k {
							t.Errorf("%s: chunk %d has %d records", name, c.Seq, c.Records)
						}
						if !c.TooLong && !bytes.HasPrefix([]byte(in[c.Offset:]), c.Data) {
							t.Errorf("%s: chunk %d Data is not the input at Offset %d", name, c.Seq, c.Offset)
						}
						r := NewReader(c, d)
						for record, err := r.Next(); err != io.EOF; record, err = r.Next() {
							if !strings.HasPrefix(in[record.Offset:], string(record.Raw)) {
								t.Errorf("%s: record on line %d: Raw is not the input at Offset %d", name, record.Line, record.Offset)
							}
						}
					}
				}
			}
		}
	}
}

func TestMaxChunkBytes(t *testing.T) {
	var in strings.Builder
	for i := range 50 {
		fmt.Fprintf(&in, "%d,%s\n", i, strings.Repeat("x", i%13))
	}
	in.WriteString(strings.Repeat("y", 100) + "\n")
	d := DefaultDialect()
	s := NewSplitter([]Source{memSource("in.csv", []byte(in.String()), false)}, d, 1000, 40)
	chunks, recs := split(t, s, d)
	if len(recs) != 51 {
		t.Fatalf("got %d records, want 51", len(recs))
	}
	for _, c := range chunks {
		if len(c.Data) > 40 && c.Records != 1 {
			t.Errorf("chunk %d: %d bytes in %d records, limit 40", c.Seq, len(c.Data), c.Records)
		}
	}
}

func TestHeaderSkipMaxPerFile(t *testing.T) {
	files := []string{
		" id , name \nskip1\nskip2\na,1\nb,2\nc,3\n",
		"id,name\r\nskip\r\n\r\n",                       // fewer records than SkipRows
		"\n\nid,\"na\nme\"\nskip1\nskip2\nd,4\n\ne,5\n", // blank lines before the header
		"",
	}
	var srcs []Source
	for i, s := range files {
		srcs = append(srcs, memSource(fmt.Sprintf("f%d.csv", i), []byte(s), false))
	}
	d := dialect(func(d *Dialect) { d.Header, d.SkipRows, d.MaxRows = true, 2, 2 })
	for _, k := range []int{1, 2, 3, 100} {
		s := NewSplitter(srcs, d, k, 0)
		chunks, _ := split(t, s, d)
		type perFile struct {
			header  []string
			records []string
			skipped int
			lasts   int
			input   int64
		}
		got := make([]perFile, len(files))
		for _, c := range chunks {
			p := &got[c.Source]
			if c.File != srcs[c.Source].Name {
				t.Errorf("chunk File %q, want %q", c.File, srcs[c.Source].Name)
			}
			p.header = c.Header
			p.skipped += c.Skipped
			p.input += c.InputBytes
			if c.LastOfFile {
				p.lasts++
			}
			for _, r := range readChunk(t, c, d) {
				p.records = append(p.records, fmt.Sprintf("%d:%s", r.Line, r.Raw))
			}
		}
		want := []perFile{
			{[]string{"id", "name"}, []string{"4:a,1", "5:b,2"}, 2, 1, int64(len(files[0]))},
			{[]string{"id", "name"}, nil, 1, 1, int64(len(files[1]))},
			{[]string{"id", "na\nme"}, []string{"7:d,4", "9:e,5"}, 2, 1, int64(len(files[2]))},
			{nil, nil, 0, 1, 0},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("k=%d: got\n%#v\nwant\n%#v", k, got, want)
		}
	}
}

func TestMaxRowsZeroAndUnlimited(t *testing.T) {
	in := []byte("a\nb\nc\n")
	for _, tt := range []struct {
		maxRows, want int
	}{{0, 0}, {1, 1}, {3, 3}, {4, 3}, {-1, 3}} {
		d := dialect(func(d *Dialect) { d.MaxRows = tt.maxRows })
		chunks, recs := split(t, NewSplitter([]Source{memSource("x", in, false)}, d, 2, 0), d)
		if len(recs) != tt.want {
			t.Errorf("MaxRows %d: %d records, want %d", tt.maxRows, len(recs), tt.want)
		}
		if n := sumInput(chunks); n != int64(len(in)) {
			t.Errorf("MaxRows %d: InputBytes sum %d, want %d", tt.maxRows, n, len(in))
		}
	}
}

func TestEmptyFilesYieldOneChunk(t *testing.T) {
	for _, in := range []string{"", "\n\r\n\n", "\ufeff", "h1,h2\n"} {
		d := dialect(func(d *Dialect) { d.Header = true })
		chunks, _ := split(t, NewSplitter([]Source{memSource("x", []byte(in), false)}, d, 10, 0), d)
		if len(chunks) != 1 || chunks[0].Records != 0 || !chunks[0].LastOfFile || chunks[0].InputBytes != int64(len(in)) {
			t.Errorf("%q: got %+v, want one empty last chunk", in, chunks)
		}
	}
}

func TestBOMOffset(t *testing.T) {
	in := "\ufeffa\nb\n"
	d := DefaultDialect()
	chunks, recs := split(t, NewSplitter([]Source{memSource("x", []byte(in), false)}, d, 1, 0), d)
	if len(recs) != 2 || recs[0].Raw != "a" {
		t.Fatalf("records %#v, want a and b", recs)
	}
	if chunks[0].Offset != 3 || chunks[1].Offset != 5 {
		t.Errorf("offsets %d, %d, want 3, 5 (the BOM counts)", chunks[0].Offset, chunks[1].Offset)
	}
}

func TestRecordTooLongWhileSkippingOrInHeader(t *testing.T) {
	in := []byte("\"xxxxx\nxx\"\nok\n") // the quoted field runs over the limit
	d := dialect(func(d *Dialect) { d.MaxRecordBytes = 8; d.SkipRows = 1 })
	chunks, recs := split(t, NewSplitter([]Source{memSource("x", in, false)}, d, 10, 0), d)
	if len(recs) != 1 || recs[0].Raw != "ok" || recs[0].Line != 3 || chunks[0].Skipped != 1 {
		t.Errorf("got %#v, want the long record skipped and ok read on line 3", recs)
	}
}

// TestHeaderTooLong: a header over the limit is handed out as the file's
// one record, TooLong and HeaderTooLong, and the file ends there; the
// files after it are read.
func TestHeaderTooLong(t *testing.T) {
	for _, tc := range []struct{ name, header string }{
		{"unquoted", strings.Repeat("h,", 20)},
		{"quoted line breaks", "\"xxxxx\nxx\nxxxxxxxxxx\",b"},
		{"never closed", "\"xxxxxxxxxxxxxxxxxxxx\nx,y\n"},
	} {
		for _, gz := range []bool{false, true} {
			bad := tc.header + "\n1,2\n3,4\n"
			data, file := []byte(bad), "bad.csv"
			if gz {
				data, file = gzipped(t, bad), "bad.csv.gz"
			}
			d := dialect(func(d *Dialect) { d.MaxRecordBytes = 8; d.Header = true })
			s := NewSplitter([]Source{memSource(file, data, false), memSource("good.csv", []byte("a,b\n5,6\n"), false)}, d, 10, 0)
			var got []string
			eachChunk(t, s, func(c *Chunk) {
				defer c.Release()
				if c.TooLong {
					if !c.HeaderTooLong || c.File != file || c.Records != 1 || !c.LastOfFile || c.FirstLine != 1 || c.KeptBytes != c.RecordBytes {
						t.Errorf("%s (gz %v): long chunk %+v, want the header of %s, the file's last", tc.name, gz, c, file)
					}
					if _, err := NewReader(c, d).Next(); !errors.Is(err, ErrRecordTooLong) {
						t.Errorf("%s (gz %v): %v, want ErrRecordTooLong", tc.name, gz, err)
					}
					got = append(got, "long header")
					return
				}
				for _, r := range readChunk(t, c, d) {
					got = append(got, c.File+":"+r.Raw)
				}
			})
			if strings.Join(got, "|") != "long header|good.csv:5,6" {
				t.Errorf("%s (gz %v): got %q, want the long header, then good.csv's row", tc.name, gz, got)
			}
		}
	}
}

func TestSplitterErrors(t *testing.T) {
	boom := errors.New("disk on fire")
	failing := func(name string, r io.Reader) Source {
		return Source{Name: name, Size: -1, Open: func() (io.ReadCloser, error) { return io.NopCloser(r), nil }}
	}
	tests := []struct {
		name string
		src  Source
		d    Dialect
		want string
	}{
		{"open", Source{Name: "gone.csv", Open: func() (io.ReadCloser, error) { return nil, boom }}, DefaultDialect(), "gone.csv: disk on fire"},
		{"read", failing("bad.csv", io.MultiReader(strings.NewReader("a,b\n"), iotest.ErrReader(boom))), DefaultDialect(), "bad.csv: disk on fire"},
		{"gzip", memSource("bad.csv.gz", []byte("not gzip at all"), false), DefaultDialect(), "bad.csv.gz: gzip:"},
		{"header", memSource("h.csv", []byte("\"a\"x,b\n1,2\n"), false), dialect(func(d *Dialect) { d.Header = true }), "h.csv:1:4: " + ErrQuote.Error()},
		{"dialect", memSource("x", nil, false), dialect(func(d *Dialect) { d.Quote = ',' }), "DELIMITER and QUOTE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewSplitter([]Source{tt.src, memSource("next.csv", []byte("1\n"), false)}, tt.d, 1, 0)
			var err error
			for err == nil {
				_, err = s.Next()
			}
			if err == io.EOF || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
			if _, again := s.Next(); again != err {
				t.Errorf("error is not final: then %v", again)
			}
		})
	}
}

func TestTotalBytesAndClose(t *testing.T) {
	a := memSource("a", []byte("1\n2\n"), false)
	b := memSource("b", []byte("3\n"), false)
	if got := NewSplitter([]Source{a, b}, DefaultDialect(), 1, 0).TotalBytes(); got != 6 {
		t.Errorf("TotalBytes = %d, want 6", got)
	}
	stdin := Source{Name: "-", Size: -1, Open: a.Open}
	if got := NewSplitter([]Source{a, stdin}, DefaultDialect(), 1, 0).TotalBytes(); got != -1 {
		t.Errorf("TotalBytes with stdin = %d, want -1", got)
	}
	s := NewSplitter([]Source{a, b}, DefaultDialect(), 1, 0)
	if _, err := s.Next(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Next(); err == nil || err == io.EOF {
		t.Errorf("Next after Close: %v, want an error", err)
	}
}

// TestChunkDataSurvivesLaterReads holds on to every chunk (as slow
// workers would) and checks none changes while the splitter reads on.
func TestChunkDataSurvivesLaterReads(t *testing.T) {
	var in strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&in, "%d,\"%s\"\n", i, strings.Repeat("v", i%50))
	}
	d := DefaultDialect()
	s := NewSplitter([]Source{memSource("x", []byte(in.String()), false)}, d, 7, 0)
	s.blockSize = 4096
	var chunks []*Chunk
	var copies []string
	eachChunk(t, s, func(c *Chunk) {
		chunks = append(chunks, c)
		copies = append(copies, string(c.Data))
	})
	var all strings.Builder
	for i, c := range chunks {
		if string(c.Data) != copies[i] {
			t.Fatalf("chunk %d changed after later reads", i)
		}
		all.Write(c.Data)
	}
	if all.String() != in.String() {
		t.Errorf("chunks do not add up to the input")
	}
}

// A chunk keeps its whole block alive, so a small file must not get a
// full-size block.
func TestSmallFilesGetSmallBlocks(t *testing.T) {
	s := NewSplitter([]Source{memSource("tiny.csv", []byte("a,b\n"), false)}, DefaultDialect(), 10, 0)
	f, err := s.openSource(0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.in.Close()
	if len(f.buf) > 2*4+4096 {
		t.Errorf("first block of a 4-byte file is %d bytes", len(f.buf))
	}
	big := NewSplitter([]Source{memSource("big.csv", make([]byte, 3*defaultBlockSize), false)}, DefaultDialect(), 10, 0)
	if f, err = big.openSource(0); err != nil {
		t.Fatal(err)
	}
	defer f.in.Close()
	if len(f.buf) != defaultBlockSize {
		t.Errorf("first block of a large file is %d bytes, want %d", len(f.buf), defaultBlockSize)
	}
}

// Released chunks hand their blocks back for later input; chunks not yet
// released must never see their bytes change, whatever the order of
// release.
func TestReleasedBlocksAreReused(t *testing.T) {
	var in strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&in, "%d,\"%s\"\n", i, strings.Repeat("v", i%50))
	}
	const block = 4096
	blocksFilled := in.Len() / block
	for _, window := range []int{1, 3, 40} {
		t.Run(fmt.Sprint("window=", window), func(t *testing.T) {
			d := DefaultDialect()
			s := NewSplitter([]Source{memSource("x", []byte(in.String()), false)}, d, 7, 0)
			s.blockSize = block
			rng := rand.New(rand.NewPCG(1, uint64(window)))
			type held struct {
				c    *Chunk
				copy string
			}
			var open []held
			got := make([]string, 0, 500)
			release := func(i int) {
				h := open[i]
				if string(h.c.Data) != h.copy {
					t.Fatalf("chunk %d changed before its release", h.c.Seq)
				}
				h.c.Release()
				h.c.Release() // a second call does nothing
				if h.c.Data != nil {
					t.Fatalf("chunk %d: Data kept after Release", h.c.Seq)
				}
				open = append(open[:i], open[i+1:]...)
			}
			eachChunk(t, s, func(c *Chunk) {
				got = append(got, string(c.Data))
				open = append(open, held{c, string(c.Data)})
				if len(open) > window {
					release(rng.IntN(len(open)))
				}
			})
			for len(open) > 0 {
				release(len(open) - 1)
			}
			if strings.Join(got, "") != in.String() {
				t.Fatal("chunks do not add up to the input")
			}
			// Each open chunk pins at most one block besides the one being
			// read; the rest must come from recycling.
			if limit := window + 2; s.blocksMade > limit {
				t.Errorf("%d blocks allocated for %d blocks of input with %d chunks held; want at most %d",
					s.blocksMade, blocksFilled, window, limit)
			}
		})
	}
}

// Without Release every block is new, so the reuse test above measures
// something.
func TestUnreleasedBlocksAreNotReused(t *testing.T) {
	data := []byte(strings.Repeat("abc,def\n", 4000))
	s := NewSplitter([]Source{memSource("x", data, false)}, DefaultDialect(), 7, 0)
	s.blockSize = 4096
	var chunks []*Chunk
	eachChunk(t, s, func(c *Chunk) { chunks = append(chunks, c) })
	if want := len(data) / 4096; s.blocksMade < want {
		t.Errorf("%d blocks for %d bytes of unreleased chunks; want at least %d", s.blocksMade, len(data), want)
	}
	var all []byte
	for _, c := range chunks {
		all = append(all, c.Data...)
	}
	if !bytes.Equal(all, data) {
		t.Error("unreleased chunks changed")
	}
}

// Chunks capped at half a block (as the loader caps them) leave a chunk
// in progress of about half a block to move at each refill; the block it
// moves to must still be a standard, recyclable one.
func TestHalfBlockChunksReuseBlocks(t *testing.T) {
	var in strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&in, "%d,%s\n", i, strings.Repeat("x", i%60))
	}
	const block = 4096
	s := NewSplitter([]Source{memSource("x", []byte(in.String()), false)}, DefaultDialect(), 100000, block/2)
	s.blockSize = block
	var got strings.Builder
	eachChunk(t, s, func(c *Chunk) {
		got.Write(c.Data)
		c.Release()
	})
	if got.String() != in.String() {
		t.Fatal("chunks do not add up to the input")
	}
	if limit := 3; s.blocksMade > limit {
		t.Errorf("%d blocks allocated for %d bytes read in %d-byte blocks, chunks released at once; want at most %d",
			s.blocksMade, in.Len(), block, limit)
	}
}

// With a cap on chunk bytes, blocks hold two chunks of the cap each, so
// chunks still in use pin half as many blocks, and no chunk is cut short.
func TestBlockHoldsTwoCappedChunks(t *testing.T) {
	var in strings.Builder
	for i := range 4000 {
		fmt.Fprintf(&in, "%d,%s\n", i, strings.Repeat("y", 20+i%40))
	}
	const limit = 2048
	s := NewSplitter([]Source{memSource("x", []byte(in.String()), false)}, DefaultDialect(), 100000, limit)
	var chunks []*Chunk
	eachChunk(t, s, func(c *Chunk) { chunks = append(chunks, c) }) // none released
	var got strings.Builder
	for _, c := range chunks[:len(chunks)-1] {
		got.Write(c.Data)
		if len(c.Data) < limit-100 {
			t.Errorf("chunk %d is %d bytes, cap %d: cut short", c.Seq, len(c.Data), limit)
		}
	}
	got.Write(chunks[len(chunks)-1].Data)
	if got.String() != in.String() {
		t.Fatal("chunks do not add up to the input")
	}
	if want := (len(chunks)+1)/2 + 1; s.blocksMade > want {
		t.Errorf("%d blocks for %d chunks held; want at most %d", s.blocksMade, len(chunks), want)
	}
}

// The splitter marks chunks of plain lines and records where each line
// ends; anything else (a quote, a lone CR, a final line without LF)
// clears the mark.
func TestPlainChunks(t *testing.T) {
	tests := []struct {
		in    string
		plain []bool // per chunk of 2 records
	}{
		{"a,b\nc,d\r\n\ne,f\ng,h\n", []bool{true, true}},
		{"a,b\n\"c\",d\ne,f\ng,h\n", []bool{false, true}},
		{"a,b\nc\rd\ne,f\n", []bool{false, true}},
		{"a,b\nc,d\ne,f", []bool{true, false}},
		{"a\\\nb\nc\n", []bool{false}},
	}
	for _, tt := range tests {
		s := NewSplitter([]Source{memSource("p", []byte(tt.in), false)}, DefaultDialect(), 2, 0)
		chunks, _ := split(t, s, DefaultDialect())
		if len(chunks) != len(tt.plain) {
			t.Fatalf("%q: %d chunks, want %d", tt.in, len(chunks), len(tt.plain))
		}
		for i, c := range chunks {
			if c.plain != tt.plain[i] {
				t.Errorf("%q chunk %d: plain %v, want %v", tt.in, i, c.plain, tt.plain[i])
				continue
			}
			if !c.plain {
				continue
			}
			if len(c.ends) != c.Records {
				t.Fatalf("%q chunk %d: %d ends for %d records", tt.in, i, len(c.ends), c.Records)
			}
			for k, e := range c.ends {
				if e < 1 || int(e) > len(c.Data) || c.Data[e-1] != '\n' || k > 0 && e <= c.ends[k-1] {
					t.Errorf("%q chunk %d: ends %v do not fall after LFs of %q", tt.in, i, c.ends, c.Data)
				}
			}
		}
	}
}

// A plain line cut by a read is still plain: the scanner looks at the
// whole record again once its line end is read, so the chunk keeps the
// Reader's plain path. Records trickling in a byte at a time, and one
// longer than plainRetryBytes, stop being retried and are read right.
func TestPlainChunksAcrossReads(t *testing.T) {
	var in bytes.Buffer
	for i := range 200 {
		fmt.Fprintf(&in, "%d,%s\n", i, strings.Repeat("x", i%37))
	}
	data := in.Bytes()
	pieces := func(n int) Source {
		return Source{Name: "p", Size: int64(len(data)), Open: func() (io.ReadCloser, error) {
			return io.NopCloser(&pieceReader{r: bytes.NewReader(data), n: n}), nil
		}}
	}
	for _, n := range []int{5, 16, 100, 4096} {
		s := NewSplitter([]Source{pieces(n)}, DefaultDialect(), 10, 0)
		chunks, recs := split(t, s, DefaultDialect())
		if len(recs) != 200 {
			t.Fatalf("reads of %d bytes: %d records, want 200", n, len(recs))
		}
		for i, c := range chunks {
			// A record longer than maxPlainRetries reads is not retried
			// to the end; a record of n bytes or more a read, and every
			// one of the larger reads, is.
			if !c.plain && n >= 16 {
				t.Errorf("reads of %d bytes: chunk %d (%q) not plain", n, i, c.Data)
			}
		}
	}
	long := append([]byte("1,"+strings.Repeat("y", plainRetryBytes+10)+"\n"), data...)
	s := NewSplitter([]Source{{Name: "l", Size: int64(len(long)), Open: func() (io.ReadCloser, error) {
		return io.NopCloser(&pieceReader{r: bytes.NewReader(long), n: 1000}), nil
	}}}, DefaultDialect(), 10, 0)
	if _, recs := split(t, s, DefaultDialect()); len(recs) != 201 || len(recs[0].Fields[1]) != plainRetryBytes+10 {
		t.Fatalf("long line: %d records", len(recs))
	}
}

// pieceReader returns at most n bytes a Read.
type pieceReader struct {
	r io.Reader
	n int
}

func (p *pieceReader) Read(b []byte) (int, error) { return p.r.Read(b[:min(len(b), p.n)]) }

// TestSkipRowsMaxRowsOneInput: with one input MAXROWS counts the skipped
// records, as cqlsh's readers do; with several it applies to each file
// after its SKIPROWS.
func TestSkipRowsMaxRowsOneInput(t *testing.T) {
	in := []byte("a\nb\nc\nd\ne\nf\ng\nh\n")
	tests := []struct {
		files, skip, max int
		wantPerFile      int
	}{
		{1, 3, 4, 1},
		{1, 3, 3, 0},
		{1, 3, 2, 0},
		{1, 3, -1, 5},
		{1, 0, 4, 4},
		{1, 3, 20, 5},
		{2, 3, 4, 4},
		{2, 3, 1, 1},
		{3, 2, -1, 6},
	}
	for _, tt := range tests {
		var srcs []Source
		for i := 0; i < tt.files; i++ {
			srcs = append(srcs, memSource(fmt.Sprintf("f%d", i), in, false))
		}
		d := dialect(func(d *Dialect) { d.SkipRows, d.MaxRows = tt.skip, tt.max })
		for _, k := range []int{1, 3, 100} {
			chunks, recs := split(t, NewSplitter(srcs, d, k, 0), d)
			if want := tt.files * tt.wantPerFile; len(recs) != want {
				t.Errorf("%d files, SKIPROWS %d, MAXROWS %d, chunks of %d: %d records, want %d", tt.files, tt.skip, tt.max, k, len(recs), want)
			}
			if n := sumInput(chunks); n != int64(tt.files*len(in)) {
				t.Errorf("%d files, SKIPROWS %d, MAXROWS %d: InputBytes sum %d, want %d", tt.files, tt.skip, tt.max, n, tt.files*len(in))
			}
		}
	}
}
