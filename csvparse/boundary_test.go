package csvparse

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// recordStarts returns the offsets where a whole-file parse of data
// starts its records, with the Reader (FuzzSplitConsistency holds the
// Splitter to the same records).
func recordStarts(t testing.TB, data []byte, d Dialect) []int64 {
	t.Helper()
	c := &Chunk{File: "f", Data: data, FirstLine: 1}
	if enc, _ := lookupEncoding(d.Encoding); enc == nil && bytes.HasPrefix(data, []byte("\ufeff")) {
		c.Data, c.Offset = data[3:], 3
	}
	var starts []int64
	r := NewReader(c, d)
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return starts
		}
		var pe *ParseError
		if err != nil && !errors.As(err, &pe) {
			t.Fatalf("Next: %v", err)
		}
		starts = append(starts, rec.Offset)
	}
}

// wantStart is FindRecordStart's answer from the record starts.
func wantStart(starts []int64, size, off int64) int64 {
	if off <= 0 {
		return 0
	}
	i, _ := slices.BinarySearch(starts, off)
	if i < len(starts) {
		return starts[i]
	}
	return size
}

func TestFindRecordStartCases(t *testing.T) {
	noEsc := dialect(func(d *Dialect) { d.Escape = 0 })
	escIsQuote := dialect(func(d *Dialect) { d.Escape = '"' })
	semi := dialect(func(d *Dialect) { d.Delimiter, d.Quote, d.Escape = ';', '\'', '^' })
	for _, tc := range []struct {
		name string
		in   string
		d    Dialect
		// off → want; "|" in in marks nothing, offsets are explicit.
		cases map[int64]int64
	}{
		{"plain", "a,b\nc,d\n", DefaultDialect(), map[int64]int64{0: 0, 1: 4, 3: 4, 4: 4, 5: 8, 8: 8}},
		{"right after a newline", "ab\ncd\nef", DefaultDialect(), map[int64]int64{3: 3, 6: 6, 7: 8}},
		{"on a delimiter", "a,b\nc,d\n", DefaultDialect(), map[int64]int64{1: 4, 5: 8}},
		{"multi-line quoted", "x,\"a\nb\nc\"\ny\n", DefaultDialect(), map[int64]int64{1: 10, 4: 10, 5: 10, 6: 10, 9: 10, 10: 10, 11: 12}},
		{"boundary inside a quoted field", "\"a,b\nc,d\ne\"\nz\n", DefaultDialect(), map[int64]int64{1: 12, 5: 12, 7: 12, 12: 12}},
		{"doubled quotes", "\"a\"\"\nb\"\"\",c\nd\n", DefaultDialect(), map[int64]int64{2: 12, 5: 12, 6: 12, 12: 12}},
		{"doubled quotes no escape", "\"a\"\"\nb\"\"\",c\nd\n", noEsc, map[int64]int64{2: 12, 5: 12, 12: 12}},
		{"backslash-escaped quote", "\"a\\\"\nb\",c\nd\n", DefaultDialect(), map[int64]int64{2: 10, 5: 10, 10: 10}},
		// Without an escape, `\"` closes the field: the LF after it ends
		// the record.
		{"backslash is data without escape", "\"a\\\"\nb\",c\nd\n", noEsc, map[int64]int64{2: 5, 5: 5, 6: 10}},
		{"escape equal to quote", "\"a\\\"\nb\",c\nd\n", escIsQuote, map[int64]int64{2: 5, 6: 10}},
		{"escaped line feed outside quotes", "a\\\nb,c\nd\n", DefaultDialect(), map[int64]int64{1: 7, 3: 7, 7: 7}},
		{"escaped backslash before newline", "a\\\\\nb\n", DefaultDialect(), map[int64]int64{1: 4, 4: 4, 5: 6}},
		{"CRLF", "a,b\r\nc,d\r\n\r\ne\r\n", DefaultDialect(), map[int64]int64{1: 5, 3: 5, 4: 5, 5: 5, 6: 12, 10: 12, 11: 12, 12: 12, 13: 15}},
		{"lone CR", "a\rb\r\rc", DefaultDialect(), map[int64]int64{1: 2, 2: 2, 3: 5, 4: 5, 5: 5}},
		{"CR inside quotes", "\"a\rb\"\rc\n", DefaultDialect(), map[int64]int64{1: 6, 3: 6, 6: 6}},
		{"blank lines", "a\n\n\n\nb\n\n", DefaultDialect(), map[int64]int64{1: 5, 2: 5, 4: 5, 5: 5, 6: 8, 7: 8}},
		{"header line", "id,name\n1,\"x\ny\"\n2,z\n", dialect(func(d *Dialect) { d.Header = true }), map[int64]int64{1: 8, 8: 8, 11: 16, 16: 16, 17: 20}},
		{"bare quote in unquoted field", "12\" pipe,x\n\"a\nb\"\nc\n", DefaultDialect(), map[int64]int64{1: 11, 3: 11, 11: 11, 12: 17, 14: 17}},
		{"text after closing quote", "\"ab\"c\nd,\"e\n\"\n", DefaultDialect(), map[int64]int64{1: 6, 6: 6, 7: 13}},
		{"escape after closing quote", "\"ab\"\\\nx\ny\n", DefaultDialect(), map[int64]int64{1: 8, 6: 8, 8: 8, 9: 10}},
		{"unclosed quote", "a\n\"b\nc\nd\n", DefaultDialect(), map[int64]int64{1: 2, 3: 9, 8: 9}},
		{"BOM", "\ufeffa\nb\n", DefaultDialect(), map[int64]int64{1: 3, 2: 3, 3: 3, 4: 5}},
		{"other dialect", "'a;b\n^'';c\nd\n", semi, map[int64]int64{1: 11, 5: 11, 11: 11}},
		{"other dialect malformed", "'a;b\n^'';c\nd\n", dialect(func(d *Dialect) { d.Delimiter, d.Quote = ';', '\'' }), map[int64]int64{1: 13, 5: 13}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.in)
			starts := recordStarts(t, data, tc.d)
			size := int64(len(data))
			for off, want := range tc.cases {
				if w := wantStart(starts, size, off); w != want {
					t.Fatalf("table says %d → %d, the parser starts records at %v", off, want, starts)
				}
			}
			// Every offset, with the real windows and tiny ones (which
			// take the speculative path even in a short input).
			for off := int64(-1); off <= size+1; off++ {
				want := wantStart(starts, size, off)
				for _, w := range [][2]int64{{boundaryWindowMin, boundaryWindowMax}, {1, 2}, {2, 8}, {4, 64}} {
					got, err := findRecordStart(bytes.NewReader(data), size, off, tc.d, -1, w[0], w[1])
					if err != nil || got != want {
						t.Fatalf("off %d window %v: got %d, %v; want %d (records at %v)", off, w, got, err, want, starts)
					}
				}
			}
		})
	}
}

func TestFindRecordStartUnsplittable(t *testing.T) {
	data := []byte("a,b\nc,d\n")
	for _, enc := range []string{"utf-16", "utf-16le", "UTF-16BE", "ebcdic"} {
		d := dialect(func(d *Dialect) { d.Encoding = enc })
		if Splittable(d) {
			t.Errorf("Splittable(%s) = true", enc)
		}
		_, err := FindRecordStart(bytes.NewReader(data), int64(len(data)), 3, d)
		var be *BoundaryError
		if !errors.As(err, &be) || be.Offset != 3 || !errors.Is(err, ErrNotSplittable) {
			t.Errorf("%s: err = %v", enc, err)
		}
	}
	for _, enc := range []string{"", "utf-8", "latin-1", "cp1252", "Windows-1252"} {
		if !Splittable(dialect(func(d *Dialect) { d.Encoding = enc })) {
			t.Errorf("Splittable(%s) = false", enc)
		}
	}
	// A UTF-8 file with a UTF-16 BOM is read as UTF-16.
	bom := []byte("\xff\xfea\x00\n\x00")
	if _, err := FindRecordStart(bytes.NewReader(bom), int64(len(bom)), 2, DefaultDialect()); !errors.Is(err, ErrNotSplittable) {
		t.Errorf("UTF-16 BOM: err = %v", err)
	}
	// Offset 0 is always the start.
	if p, err := FindRecordStart(bytes.NewReader(bom), int64(len(bom)), 0, DefaultDialect()); p != 0 || err != nil {
		t.Errorf("offset 0: %d, %v", p, err)
	}
}

func TestFindRecordStartLatin1(t *testing.T) {
	// Latin-1 bytes above 0x7f decode to two UTF-8 bytes; offsets are in
	// the file, which is what a byte range reads.
	d := dialect(func(d *Dialect) { d.Encoding = "latin-1" })
	data := []byte("\xe9,\"\xe9\n\xef\xbb\xbf\"\n\xe9\xe9\n")
	want := []int64{0, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 13, 13, 13}
	for off := range int64(len(data) + 1) {
		got, err := findRecordStart(bytes.NewReader(data), int64(len(data)), off, d, -1, 1, 4)
		if err != nil || got != want[off] {
			t.Errorf("off %d: %d, %v; want %d", off, got, err, want[off])
		}
	}
}

// TestFindRecordStartUndecidable: with a limit on how far back to read,
// a quote-free stretch longer than it cannot be decided, and the error
// names the offset; a decided answer is always the right one.
func TestFindRecordStartUndecidable(t *testing.T) {
	data := []byte("\"q\"\n" + strings.Repeat("abc,def\n", 100))
	size := int64(len(data))
	starts := recordStarts(t, data, DefaultDialect())
	undecided := 0
	for off := int64(1); off < size; off++ {
		got, err := findRecordStart(bytes.NewReader(data), size, off, DefaultDialect(), 64, 8, 64)
		if err != nil {
			var be *BoundaryError
			if !errors.As(err, &be) || be.Offset != off || !errors.Is(err, ErrUndecidable) {
				t.Fatalf("off %d: %v", off, err)
			}
			if !strings.Contains(err.Error(), fmt.Sprint(off)) {
				t.Fatalf("error %q does not name the offset", err)
			}
			undecided++
			continue
		}
		if want := wantStart(starts, size, off); got != want {
			t.Fatalf("off %d: %d, want %d", off, got, want)
		}
	}
	if undecided == 0 {
		t.Fatal("no offset was undecidable within 64 bytes")
	}
	// Without the limit each is decided.
	for off := int64(1); off < size; off++ {
		got, err := findRecordStart(bytes.NewReader(data), size, off, DefaultDialect(), -1, 8, 64)
		if want := wantStart(starts, size, off); err != nil || got != want {
			t.Fatalf("off %d: %d, %v; want %d", off, got, err, want)
		}
	}
}

// trickyField returns a field, quoted or not, meant to confuse a
// boundary search: line breaks, delimiters and quotes inside quotes,
// escapes, bare quotes, text after a closing quote.
func trickyField(r *rand.Rand, d Dialect) string {
	q, del := string(d.Quote), string(d.Delimiter)
	esc := "\\"
	if d.Escape != 0 {
		esc = string(d.Escape)
	}
	parts := []string{"a", "bc", "12", "é", " ", del, "\n", "\r\n", "\r", q + q, esc + q, esc + esc, esc, esc + "\n", q, "x" + q + "y"}
	var b strings.Builder
	n := r.IntN(6)
	switch r.IntN(10) {
	case 0, 1, 2, 3: // quoted
		b.WriteString(q)
		for range n {
			p := parts[r.IntN(len(parts))]
			if p == q && r.IntN(4) != 0 {
				p = q + q
			}
			b.WriteString(p)
		}
		b.WriteString(q)
		if r.IntN(20) == 0 { // malformed: text after the closing quote
			b.WriteString([]string{"junk", esc + "\n", esc + del, esc, "x" + q, q + "\n"}[r.IntN(6)])
		}
	case 4: // empty
	default: // unquoted, possibly with escapes and bare quotes
		for range n {
			p := []string{"a", "bc", "12", " ", esc + del, esc + "\n", "x" + q, esc + q, esc + esc, "é"}[r.IntN(10)]
			b.WriteString(p)
		}
	}
	return b.String()
}

func trickyCSV(r *rand.Rand, d Dialect, records int) []byte {
	var b strings.Builder
	if r.IntN(8) == 0 {
		b.WriteString("\ufeff")
	}
	for i := range records {
		fields := 1 + r.IntN(5)
		for j := range fields {
			if j > 0 {
				b.WriteByte(d.Delimiter)
			}
			b.WriteString(trickyField(r, d))
		}
		if i == records-1 && r.IntN(3) == 0 {
			break // no final line break
		}
		b.WriteString([]string{"\n", "\n", "\r\n", "\r", "\n\n", "\r\n\r\n"}[r.IntN(6)])
	}
	if r.IntN(40) == 0 {
		b.WriteString(string(d.Quote) + "unclosed\n,\n")
	}
	return []byte(b.String())
}

// rangeRec is a record as compared across ranges: line numbers and
// offsets differ by design.
type rangeRec struct {
	Raw    string
	Fields []string
	Quoted []bool
	Err    error
}

// parseSplitter reads data with a Splitter, as a loader reads one range.
func parseSplitter(t testing.TB, data []byte, d Dialect) []rangeRec {
	t.Helper()
	return parseSource(t, memSource("f", data, false), d)
}

// parseSource reads src with a Splitter in small blocks.
func parseSource(t testing.TB, src Source, d Dialect) []rangeRec {
	t.Helper()
	s := NewSplitter([]Source{src}, d, 3, 0)
	s.blockSize = 64
	var out []rangeRec
	eachChunk(t, s, func(c *Chunk) {
		r := NewReader(c, d)
		for {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			rr := rangeRec{Raw: string(rec.Raw)}
			var pe *ParseError
			if errors.As(err, &pe) {
				rr.Err = pe.Err
			} else {
				for i, f := range rec.Fields {
					rr.Fields = append(rr.Fields, string(f))
					rr.Quoted = append(rr.Quoted, rec.Quoted[i])
				}
			}
			out = append(out, rr)
		}
	})
	return out
}

// TestFindRecordStartRanges is the property the splits rely on: cut a
// file at random offsets, move each cut to FindRecordStart, and the
// ranges parsed on their own yield exactly the whole file's records.
func TestFindRecordStartRanges(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 1))
	iters := 400
	if testing.Short() {
		iters = 50
	}
	for it := range iters {
		d := fuzzDialect(uint8(r.IntN(64)))
		d.MaxRecordBytes = []int{0, 64}[r.IntN(2)]
		data := trickyCSV(r, d, 1+r.IntN(60))
		if bytes.HasPrefix(data, []byte("\xff\xfe")) || bytes.HasPrefix(data, []byte("\xfe\xff")) {
			continue
		}
		size := int64(len(data))
		want := parseSplitter(t, data, d)
		windows := [][2]int64{{1, 4}, {8, 64}, {boundaryWindowMin, boundaryWindowMax}}[r.IntN(3)]
		cuts := []int64{0}
		for range r.IntN(8) {
			cuts = append(cuts, r.Int64N(size+1))
		}
		slices.Sort(cuts)
		starts := make([]int64, 0, len(cuts)+1)
		for _, off := range cuts {
			p, err := findRecordStart(bytes.NewReader(data), size, off, d, -1, windows[0], windows[1])
			if err != nil {
				t.Fatalf("iteration %d, off %d: %v", it, off, err)
			}
			starts = append(starts, p)
		}
		starts = append(starts, size)
		ends := append(slices.Clone(cuts[1:]), size)
		var got, until []rangeRec
		for i := range len(starts) - 1 {
			a, b := starts[i], starts[i+1]
			if a > b {
				t.Fatalf("iteration %d: starts %v not in order", it, starts)
			}
			got = append(got, parseSplitter(t, data[a:b], d)...)
			// The same range read to the end of the file but stopped
			// at the first record that begins at or after the raw cut,
			// as a --split process ends its range.
			if end := ends[i]; a < end {
				src := memSource("f", data[a:], false)
				src.Until = end - a
				until = append(until, parseSource(t, src, d)...)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("iteration %d (dialect %+v), input %q cut at %v → %v:\ngot  %+v\nwant %+v", it, d, data, cuts, starts, got, want)
		}
		if !reflect.DeepEqual(until, want) {
			t.Fatalf("iteration %d (dialect %+v), input %q cut at %v → %v, ranges ended by Until:\ngot  %+v\nwant %+v", it, d, data, cuts, starts, until, want)
		}
	}
}

// TestFindRecordStartLarge exercises the real windows on a file longer
// than the largest one: quoted fields spread far apart, and no quotes
// at all.
func TestFindRecordStartLarge(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 3))
	d := DefaultDialect()
	var b bytes.Buffer
	for b.Len() < 3*boundaryWindowMax {
		fmt.Fprintf(&b, "%d,plain text,%d\n", r.Int64(), r.IntN(1000))
		if r.IntN(20000) == 0 {
			b.WriteString("7,\"a quoted\nfield, with \"\"quotes\"\"\",8\n")
		}
	}
	plain := bytes.ReplaceAll(b.Bytes(), []byte(`"`), []byte("'"))
	for _, data := range [][]byte{b.Bytes(), plain, append([]byte("\"h\"\n"), plain...)} {
		starts := recordStarts(t, data, d)
		size := int64(len(data))
		for range 20 {
			off := r.Int64N(size)
			got, err := FindRecordStart(bytes.NewReader(data), size, off, d)
			if want := wantStart(starts, size, off); err != nil || got != want {
				t.Fatalf("off %d: %d, %v; want %d", off, got, err, want)
			}
		}
	}
}

// BenchmarkFindRecordStart reports the bytes a search reads per second
// (SetBytes is the offset), for an offset deep in a file: quoted text
// fields every few rows decide within the first window; a file without
// quotes, or with quotes only in its header, needs the quote search of
// the prefix; a file whose only quoted fields are empty ("") is never
// decided by a window and walks from the start.
func BenchmarkFindRecordStart(b *testing.B) {
	d := DefaultDialect()
	rows := benchRows(1_000_000, true) // about 100 MB
	plain := bytes.ReplaceAll(rows, []byte(`"`), []byte("'"))
	for _, bc := range []struct {
		name string
		data []byte
	}{
		{"quoted", rows},
		{"noquotes", plain},
		{"headerquoted", append([]byte("\"h\"\n"), plain...)},
		// Only empty quoted fields: undecidable locally, the walk.
		{"emptyquoted", bytes.ReplaceAll(bytes.ReplaceAll(rows, []byte(`"`), nil), []byte(","), []byte(`,"",`))[:len(rows)/4]},
	} {
		b.Run(bc.name, func(b *testing.B) {
			size := int64(len(bc.data))
			off := size * 9 / 10
			b.SetBytes(off)
			for b.Loop() {
				if _, err := FindRecordStart(bytes.NewReader(bc.data), size, off, d); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestFindRecordStartLongRecordAndReadErrors: a record far longer than
// a read block after the offset, and a file shorter than its size.
func TestFindRecordStartLongRecordAndReadErrors(t *testing.T) {
	long := []byte("a,b\n" + strings.Repeat("x", 3*boundaryReadBlock) + "\nz\n")
	size := int64(len(long))
	for _, off := range []int64{2, 5, boundaryReadBlock, size - 3, size - 2} {
		got, err := FindRecordStart(bytes.NewReader(long), size, off, DefaultDialect())
		if want := wantStart(recordStarts(t, long, DefaultDialect()), size, off); err != nil || got != want {
			t.Fatalf("off %d: %d, %v; want %d", off, got, err, want)
		}
	}
	short := []byte("a,\"b\nc\"\nd\n")
	for _, off := range []int64{1, 5, 9} {
		_, err := FindRecordStart(bytes.NewReader(short), 100, off, DefaultDialect())
		var be *BoundaryError
		if !errors.As(err, &be) || be.Offset != off || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("off %d of a short file: %v", off, err)
		}
	}
}

func TestSplittableFile(t *testing.T) {
	utf16 := dialect(func(d *Dialect) { d.Encoding = "utf-16" })
	latin1 := dialect(func(d *Dialect) { d.Encoding = "latin-1" })
	for _, tc := range []struct {
		name string
		data string
		size int64
		d    Dialect
		want bool
	}{
		{"a.csv", "a,b\n", 4, DefaultDialect(), true},
		{"a.csv", "", 0, DefaultDialect(), true},
		{"a.csv", "a", 1, DefaultDialect(), true},
		{"a.csv", "\ufeffa\n", 5, DefaultDialect(), true},
		{"-", "a,b\n", -1, DefaultDialect(), false},
		{"a.csv.gz", "a,b\n", 4, DefaultDialect(), false},
		{"a.CSV.ZST", "a,b\n", 4, DefaultDialect(), false},
		{"a.zstd", "a,b\n", 4, DefaultDialect(), false},
		{"a.csv", "\x1f\x8b\x08\x00", 4, DefaultDialect(), false},
		{"a.csv", "\x28\xb5\x2f\xfd", 4, DefaultDialect(), false},
		{"a.csv.bz2", "a,b\n", 4, DefaultDialect(), false},
		{"a.csv", "\xff\xfea\x00", 4, DefaultDialect(), false},
		{"a.csv", "\xff\xfea\x00", 4, latin1, true},
		{"a.csv", "a,b\n", 4, utf16, false},
	} {
		got, err := SplittableFile(tc.name, strings.NewReader(tc.data), tc.size, tc.d)
		if err != nil || got != tc.want {
			t.Errorf("SplittableFile(%q, %q, %d, %s) = %v, %v; want %v", tc.name, tc.data, tc.size, tc.d.Encoding, got, err, tc.want)
		}
	}
	if _, err := SplittableFile("a.csv", strings.NewReader("ab"), 10, DefaultDialect()); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("short file: %v", err)
	}
}

func TestHeaderEnd(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"", 0},
		{"\n\n", 2},
		{"id,name\n1,x\n", 8},
		{"\ufeffid,name\n1,x\n", 11},
		{"\n\r\nid,\"na\nme\"\r\n\r\n1,x\n", 17},
		{"id,name", 7},
		{"\ufeff", 3},
	} {
		got, err := HeaderEnd(strings.NewReader(tc.in), int64(len(tc.in)), DefaultDialect())
		if err != nil || got != tc.want {
			t.Errorf("HeaderEnd(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
		// It is where the second record starts.
		starts := recordStarts(t, []byte(tc.in), DefaultDialect())
		want := int64(len(tc.in))
		if len(starts) > 1 {
			want = starts[1]
		}
		if got != want {
			t.Errorf("HeaderEnd(%q) = %d, second record at %d", tc.in, got, want)
		}
	}
	if _, err := HeaderEnd(strings.NewReader("a"), 5, DefaultDialect()); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("short file: %v", err)
	}
}

// TestRecordStartsShareMemo: searches that share what earlier ones
// proved (RecordStarts) answer as fresh ones do, whatever the order of
// the offsets, and on a file without quotes read its prefix once.
func TestRecordStartsShareMemo(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 1))
	for it := range 300 {
		d := fuzzDialect(uint8(r.IntN(64)))
		var data []byte
		if it%2 == 0 {
			data = trickyCSV(r, d, 1+r.IntN(60))
		} else {
			// Quotes now and then among long stretches without any,
			// which is where the memo is used.
			var b bytes.Buffer
			for i := range 200 + r.IntN(200) {
				if r.IntN(40) == 0 {
					fmt.Fprintf(&b, "%d,%c%d,x%c\n", i, d.Quote, i, d.Quote)
				} else {
					fmt.Fprintf(&b, "%d,plain%d\n", i, i)
				}
			}
			data = b.Bytes()
		}
		if bytes.HasPrefix(data, []byte("\xff\xfe")) || bytes.HasPrefix(data, []byte("\xfe\xff")) {
			continue
		}
		size := int64(len(data))
		windows := [][2]int64{{1, 4}, {8, 64}}[r.IntN(2)]
		fs := newFileSearch(bytes.NewReader(data))
		for range 12 {
			off := r.Int64N(size + 1)
			want, werr := findRecordStart(bytes.NewReader(data), size, off, d, -1, windows[0], windows[1])
			got, gerr := findRecordStartIn(&fs, size, off, d, -1, windows[0], windows[1])
			if got != want || (werr == nil) != (gerr == nil) {
				t.Fatalf("iteration %d, off %d: with the memo %d, %v; fresh %d, %v", it, off, got, gerr, want, werr)
			}
		}
	}

	// A file without quotes: the second, nearer end reads nothing the
	// first did not.
	var b bytes.Buffer
	for i := range 200000 {
		fmt.Fprintf(&b, "%d,plain%d\n", i, i)
	}
	data := b.Bytes()
	size := int64(len(data))
	cr := &countingReaderAt{r: bytes.NewReader(data)}
	rs := NewRecordStarts(cr, size, DefaultDialect())
	if _, err := rs.At(size * 3 / 4); err != nil {
		t.Fatal(err)
	}
	first := cr.n
	if _, err := rs.At(size / 2); err != nil {
		t.Fatal(err)
	}
	// Its window, read twice, and the walk to the record start: a few
	// windows, not the megabytes of the prefix.
	if more := cr.n - first; more > 4*boundaryWindowMin {
		t.Errorf("the second search read %d more bytes, want a few windows (%d each) at most", more, boundaryWindowMin)
	}
	if first < size/2 {
		t.Errorf("the first search read %d bytes of a %d-byte prefix without quotes", first, size*3/4)
	}
}

// countingReaderAt counts the bytes read through it.
type countingReaderAt struct {
	r io.ReaderAt
	n int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n += int64(n)
	return n, err
}

// TestFindRecordStartFile: searches of an *os.File, streamed as the
// loader streams a local file, agree with searches of the same bytes in
// memory, and see a quote opened tens of MiB before the offset, on
// either side of a scan block's edge.
func TestFindRecordStartFile(t *testing.T) {
	d := DefaultDialect()
	data, q, quotedEnd := longQuotedField(t)
	size := int64(len(data))
	f, _ := openTemp(t, data)

	// The window before an offset is boundaryWindowMin bytes when it
	// holds no quote; the scan then takes blocks back from its start,
	// doubling from boundaryReadBlock to boundaryStreamMax. Put the quote
	// on either side of the edges of the blocks from the fourth on that
	// end inside the quoted field.
	var offs []int64
	edge, block := int64(0), int64(boundaryReadBlock)
	for k := 1; q+edge < quotedEnd; k++ {
		edge += block
		block = min(2*block, boundaryStreamMax)
		for delta := int64(-1); k >= 4 && delta <= 1; delta++ {
			if off := q + edge + boundaryWindowMin + delta; off < quotedEnd {
				offs = append(offs, off)
			}
		}
	}
	if len(offs) < 6 {
		t.Fatalf("only %d offsets at block edges", len(offs))
	}
	r := rand.New(rand.NewPCG(7, 8))
	for range 6 {
		offs = append(offs, r.Int64N(size))
	}
	for _, off := range offs {
		rs := NewRecordStarts(f, size, d)
		rs.OpenRange = func(o, n int64) (io.ReadCloser, error) {
			return io.NopCloser(io.NewSectionReader(f, o, n)), nil
		}
		got, err := rs.At(off)
		want, werr := FindRecordStart(bytes.NewReader(data), size, off, d)
		if err != nil || werr != nil || got != want {
			t.Fatalf("off %d: from the file %d, %v; from memory %d, %v", off, got, err, want, werr)
		}
		if off > q && off < quotedEnd && got != quotedEnd {
			t.Fatalf("off %d inside the quoted field: %d, want its record's end %d", off, got, quotedEnd)
		}
		if off > q+quotedRun && rs.Searched() < off-q-boundaryWindowMin {
			t.Fatalf("off %d: searched %d bytes, fewer than the stretch back to the quote", off, rs.Searched())
		}
	}
}

// openTemp writes data to a temporary file and opens it for reading,
// until the test ends.
func openTemp(t *testing.T, data []byte) (*os.File, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data.csv")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f, path
}

// quotedRun is a stretch of longQuotedField's quoted field: it runs past
// twice that.
const quotedRun = 16 << 20

// longQuotedField is a file whose quoted field, opened on a page's last
// byte (q), runs tens of MiB without a quote, so that a search inside it
// must find that quote; quotedEnd is where the record after it begins.
func longQuotedField(t *testing.T) (data []byte, q, quotedEnd int64) {
	t.Helper()
	var b bytes.Buffer
	q = 5*4096 - 1
	for int64(b.Len()) < q-2-40 {
		fmt.Fprintf(&b, "%d,plain\n", b.Len())
	}
	b.WriteString(strings.Repeat("y", int(q)-2-1-b.Len()) + "\n")
	b.WriteString("7,\"")
	for b.Len() < 2*quotedRun+boundaryWindowMax {
		b.WriteString("inside the quoted field, no quote here\n")
	}
	b.WriteString("\",8\n")
	quotedEnd = int64(b.Len())
	for b.Len() < int(quotedEnd)+1<<20 {
		fmt.Fprintf(&b, "%d,after\n", b.Len())
	}
	data = b.Bytes()
	if data[q] != '"' || q%4096 != 4095 {
		t.Fatalf("the quote is not where the test put it")
	}
	return data, q, quotedEnd
}

// TestLastInReadsInPieces: a block larger than the scan buffer is read a
// buffer at a time, backwards, and gives the same last quote as a scan
// of it whole.
func TestLastInReadsInPieces(t *testing.T) {
	data := bytes.Repeat([]byte("x"), 3*boundaryReadBlock+5000)
	fs := newFileSearch(bytes.NewReader(data))
	f := &boundaryFinder{fs: &fs, quote: '"'}
	for _, tc := range []struct {
		quotes []int
		lo, hi int64
	}{
		{nil, 0, int64(len(data))},
		{[]int{10}, 0, int64(len(data))},                              // in the last piece read
		{[]int{10, 2*boundaryReadBlock + 7}, 3, int64(len(data)) - 1}, // the later one wins
		{[]int{len(data) - 1}, 0, int64(len(data))},
		{[]int{boundaryReadBlock}, boundaryReadBlock, boundaryReadBlock + 1},
	} {
		for i := range data {
			data[i] = 'x'
		}
		for _, q := range tc.quotes {
			data[q] = '"'
		}
		got, err := f.lastIn(tc.lo, tc.hi)
		if want := lastIndexByte(data[tc.lo:tc.hi], '"'); err != nil || got != want {
			t.Errorf("quotes %v in [%d, %d): %d, %v; want %d", tc.quotes, tc.lo, tc.hi, got, err, want)
		}
	}
}

// readSizes keeps the longest Read its reader was asked for.
type readSizes struct {
	r       io.Reader
	longest *int
}

func (s readSizes) Read(p []byte) (int, error) {
	*s.longest = max(*s.longest, len(p))
	return s.r.Read(p)
}

// TestRecordStartsStreamed: with OpenRange, a search scans a long prefix
// through a few streams of doubling size rather than a ReadAt per MiB,
// and finds what reads find.
func TestRecordStartsStreamed(t *testing.T) {
	d := DefaultDialect()
	data, q, quotedEnd := longQuotedField(t)
	size := int64(len(data))
	for _, tc := range []struct {
		off     int64
		bounded bool // whether the reads are bounded as below
	}{
		{q + 2*quotedRun, true},
		{q + quotedRun + 5, true},
		{size - 1, true},
		// A window that holds only the closing quote does not decide:
		// the walk from the start, exact but through ReadAt.
		{quotedEnd - 1, false},
		{quotedEnd + 1000, false},
	} {
		off := tc.off
		cr := &countingReaderAt{r: bytes.NewReader(data)}
		rs := NewRecordStarts(cr, size, d)
		var opens int
		var streamed int64
		longest := new(int)
		rs.OpenRange = func(o, n int64) (io.ReadCloser, error) {
			opens++
			streamed += n
			return io.NopCloser(readSizes{bytes.NewReader(data[o : o+n]), longest}), nil
		}
		got, err := rs.At(off)
		want, werr := FindRecordStart(bytes.NewReader(data), size, off, d)
		if err != nil || werr != nil || got != want {
			t.Fatalf("off %d: streamed %d, %v; read %d, %v", off, got, err, want, werr)
		}
		if off < quotedEnd && got != quotedEnd {
			t.Fatalf("off %d inside the quoted field: %d, want %d", off, got, quotedEnd)
		}
		if !tc.bounded {
			continue
		}
		// Back to the quote, 1 MiB then doubling: log2 of the prefix in
		// MiB, and at most twice the prefix.
		prefix := off - q
		if maxOpens := bits.Len64(uint64(prefix/boundaryReadBlock)) + 1; opens > maxOpens || opens == 0 && prefix > boundaryWindowMax {
			t.Errorf("off %d: %d streams for a %d-byte prefix, want 1 to %d", off, opens, prefix, maxOpens)
		}
		if streamed > 2*prefix+boundaryReadBlock {
			t.Errorf("off %d: streamed %d bytes for a %d-byte prefix", off, streamed, prefix)
		}
		// ReadAt: the windows, and the walk to the record start.
		if cr.n > 4*boundaryWindowMax+got-off {
			t.Errorf("off %d: %d bytes through ReadAt besides the streams, want a few windows and the %d bytes to the record start", off, cr.n, got-off)
		}
		// Each read fits the scan buffer, so that the scan finds it in
		// the core's cache (see fileSearch).
		if *longest > boundaryScanBuffer {
			t.Errorf("off %d: a read of %d bytes from a stream, want at most %d", off, *longest, boundaryScanBuffer)
		}
		if rs.Searched() < cr.n+streamed/2 {
			t.Errorf("off %d: Searched %d, below what was read (%d) and streamed (%d)", off, rs.Searched(), cr.n, streamed)
		}
	}
}

// holeReaderAt fails every read that touches [lo, hi), as a disk with a
// bad stretch would.
type holeReaderAt struct {
	r      io.ReaderAt
	lo, hi int64
}

var errHole = errors.New("input/output error")

func (h holeReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off < h.hi && off+int64(len(p)) > h.lo {
		return 0, errHole
	}
	return h.r.ReadAt(p, off)
}

// TestRecordStartsReadErrors: a search that cannot read what it must,
// the window (a file cut short) or the prefix behind it (an I/O error),
// through streams or reads, fails with that error rather than decide
// from what it could not read.
func TestRecordStartsReadErrors(t *testing.T) {
	d := DefaultDialect()
	data := bytes.Repeat([]byte("plain,row\n"), 1_200_000) // 12 MB, no quote
	f, _ := openTemp(t, data)
	size := int64(len(data))
	cut := io.NewSectionReader(f, 0, size-2000)
	// The window before off grows to boundaryWindowMax (4 MiB) in a
	// file without quotes; the scan reads what lies before it.
	hole := holeReaderAt{f, 2 << 20, 3 << 20}
	for _, tc := range []struct {
		name     string
		r        io.ReaderAt
		streamed bool
		want     error
	}{
		{"window cut short, streamed", cut, true, io.ErrUnexpectedEOF},
		{"window cut short, read", cut, false, io.ErrUnexpectedEOF},
		{"prefix unreadable, streamed", hole, true, errHole},
		{"prefix unreadable, read", hole, false, errHole},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := NewRecordStarts(tc.r, size, d)
			if tc.streamed {
				rs.OpenRange = func(o, n int64) (io.ReadCloser, error) {
					return io.NopCloser(io.NewSectionReader(tc.r, o, n)), nil
				}
			}
			off := size - 1000
			if got, err := rs.At(off); !errors.Is(err, tc.want) {
				t.Fatalf("At(%d): %d, %v; want %v", off, got, err, tc.want)
			}
		})
	}
}

// TestUntilNeedsRawOffsets: a stream the Splitter transcodes or
// decompresses cannot be ended at an offset of its bytes.
func TestUntilNeedsRawOffsets(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("a,b\nc,d\n"))
	zw.Close()
	latin1 := DefaultDialect()
	latin1.Encoding = "latin-1"
	for _, c := range []struct {
		name string
		data []byte
		d    Dialect
		ok   bool
	}{
		{"plain.csv", []byte("a,b\nc,d\n"), DefaultDialect(), true},
		{"plain.csv", []byte("a,b\nc,d\n"), latin1, false},
		{"plain.csv.gz", gz.Bytes(), DefaultDialect(), false},
	} {
		if RawOffsets(c.d) != (c.d.Encoding != latin1.Encoding) {
			t.Errorf("RawOffsets(%q) = %v", c.d.Encoding, RawOffsets(c.d))
		}
		src := memSource(c.name, c.data, false)
		src.Until = 2
		s := NewSplitter([]Source{src}, c.d, 10, 0)
		ch, err := s.Next()
		switch {
		case c.ok && (err != nil || ch.Records != 1):
			t.Errorf("%s %q: %v, want the first record only", c.name, c.d.Encoding, err)
		case !c.ok && (err == nil || !strings.Contains(err.Error(), "Until")):
			t.Errorf("%s %q: %v, want an error naming Until", c.name, c.d.Encoding, err)
		}
	}
}

// TestRecordStartsCheck: the right start at any offset is accepted; with
// the whole prefix to read, no other is. Within a limit that leaves the
// state open, a file without quotes still accepts only the right start:
// a quoted state there never closes.
func TestRecordStartsCheck(t *testing.T) {
	check := func(t *testing.T, name string, data []byte, d Dialect, maxBack int64) {
		t.Helper()
		size := int64(len(data))
		starts := recordStarts(t, data, d)
		for off := int64(1); off < size; off++ {
			want := wantStart(starts, size, off)
			// The right start, the next records', one byte on, and the end.
			cands := []int64{want, want + 1, size}
			i, _ := slices.BinarySearch(starts, want+1)
			cands = append(cands, starts[i:min(len(starts), i+2)]...)
			for _, c := range cands {
				ok, err := NewRecordStarts(bytes.NewReader(data), size, d).Check(off, c, maxBack)
				if err != nil {
					t.Fatalf("%s, off %d, start %d: %v", name, off, c, err)
				}
				if ok != (c == want) {
					t.Fatalf("%s, off %d: start %d accepted %v; the right one is %d", name, off, c, ok, want)
				}
			}
		}
	}
	plain := []byte("\"q\"\n" + strings.Repeat("abc,def\n", 40) + "\n\nlast,x")
	check(t, "no quotes, a limit", plain, DefaultDialect(), 16)
	check(t, "no quotes, no limit", plain, DefaultDialect(), -1)
	r := rand.New(rand.NewPCG(16, 1))
	iters := 20 // make check: 60
	if full {
		iters = 60
	}
	for it := range iters {
		d := fuzzDialect(uint8(r.IntN(64)))
		data := trickyCSV(r, d, 1+r.IntN(30))
		if bytes.HasPrefix(data, []byte("\xff\xfe")) || bytes.HasPrefix(data, []byte("\xfe\xff")) {
			continue
		}
		check(t, fmt.Sprintf("tricky %d", it), data, d, -1)
	}
}

// TestRecordStartsLongQuotedFields: in a file of long multi-line quoted
// fields with no quote inside, each search goes back from quote to quote
// to the file's start. The searches of one file keep what they proved
// (the starts they found, and that no record starts between a cut and
// the start found for it), so a plan's many cuts, asked nearest first,
// read the file about once, not once a cut, even when several fall in
// one field; and they find the starts a fresh search finds.
func TestRecordStartsLongQuotedFields(t *testing.T) {
	for _, tc := range []struct {
		name              string
		fieldLines, cuts  int
		quotedEvery, recs int
	}{
		{"fields of 170 KB, 10 cuts", 12_000, 10, 3, 60},
		{"fields of 1.2 MB, several cuts in each", 80_000, 24, 10, 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			b.WriteString("k,s,n\n")
			for k := range tc.recs {
				if k%tc.quotedEvery == 0 {
					fmt.Fprintf(&b, "%d,\"G%d\n", k, k)
					for i := range tc.fieldLines {
						fmt.Fprintf(&b, "%d,fake,1\n", 1_000_000+k*100_000+i)
					}
					b.WriteString("\",1\n")
				} else {
					fmt.Fprintf(&b, "%d,plain%d,1\n", k, k)
				}
			}
			data := b.Bytes()
			size := int64(len(data))
			cr := &countingReaderAt{r: bytes.NewReader(data)}
			rs := NewRecordStarts(cr, size, DefaultDialect())
			for i := 1; i <= tc.cuts; i++ { // the nearest first, as a plan asks
				off := size * int64(i) / int64(tc.cuts+1)
				got, err := rs.At(off)
				if err != nil {
					t.Fatal(err)
				}
				want, err := FindRecordStart(bytes.NewReader(data), size, off, DefaultDialect())
				if err != nil || got != want {
					t.Fatalf("cut %d at %d: %d, a fresh search %d (%v)", i, off, got, want, err)
				}
			}
			// About once: a walk's buffers double, so it may read as
			// much again past the start it finds, and the first search
			// reads its windows; what must not happen is a read of the
			// prefix, or of a field, for every cut (8.6 times here before).
			if cr.n > 3*size {
				t.Errorf("%d cuts read %d bytes of a %d-byte file (%.1f times), want about once", tc.cuts, cr.n, size, float64(cr.n)/float64(size))
			}
			t.Logf("%d cuts read %.2f times the file", tc.cuts, float64(cr.n)/float64(size))
		})
	}
}
