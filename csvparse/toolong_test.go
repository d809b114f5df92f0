package csvparse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
)

// whole is a record as the loader sees it: a TooLong chunk's record is
// read whole through OpenRecord.
type whole struct {
	Line    int64
	Raw     string
	TooLong bool
}

// wholeRecords runs s to the end and returns every record, checking what
// a TooLong chunk must hold: one record, a ParseError with
// ErrRecordTooLong at its first line and column 1, Data the first bytes
// of what OpenRecord streams (MaxRecordBytes of them, or all if fewer),
// KeptBytes its length. Chunks are released once read, as the loader
// does. The records are whole when s keeps them whole (KeepTooLong < 0).
func wholeRecords(t *testing.T, s *Splitter, d Dialect) []whole {
	t.Helper()
	var out []whole
	eachChunk(t, s, func(c *Chunk) {
		defer c.Release()
		if !c.TooLong {
			for _, r := range readChunk(t, c, d) {
				out = append(out, whole{r.Line, r.Raw, false})
			}
			return
		}
		if c.Records != 1 {
			t.Fatalf("TooLong chunk with %d records", c.Records)
		}
		rd := NewReader(c, d)
		_, err := rd.Next()
		var pe *ParseError
		if !errors.As(err, &pe) || !errors.Is(err, ErrRecordTooLong) || pe.Line != c.FirstLine || pe.Column != 1 || pe.File != c.File {
			t.Fatalf("TooLong chunk: Reader error %v, want ErrRecordTooLong at %s:%d:1", err, c.File, c.FirstLine)
		}
		if _, err := rd.Next(); err != io.EOF {
			t.Fatalf("TooLong chunk: second record %v", err)
		}
		rc, err := c.OpenRecord()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		if err != nil {
			t.Fatal(err)
		}
		if err := rc.Close(); err != nil {
			t.Fatal(err)
		}
		if int64(len(b)) != c.KeptBytes || s.KeepTooLong < 0 && c.KeptBytes != c.RecordBytes {
			t.Fatalf("OpenRecord streamed %d bytes, KeptBytes %d, RecordBytes %d", len(b), c.KeptBytes, c.RecordBytes)
		}
		if want := min(d.maxRecord(), len(b)); len(c.Data) != want || !bytes.HasPrefix(b, c.Data) {
			t.Fatalf("TooLong Data (%d bytes) is not the record's first %d bytes", len(c.Data), want)
		}
		out = append(out, whole{c.FirstLine, string(b), true})
	})
	return out
}

func TestRecordTooLong(t *testing.T) {
	long := "\"" + strings.Repeat("x", 30) + "\n" + strings.Repeat("y,", 10) + "\""
	tests := []struct {
		name string
		in   string
		want []whole
	}{
		{"middle, quoted line breaks", "a,b\n" + long + ",1\nc,d\ne,f\n", []whole{
			{1, "a,b", false}, {2, long + ",1", true}, {4, "c,d", false}, {5, "e,f", false}}},
		{"at the start", long + "\nc,d\n", []whole{{1, long, true}, {3, "c,d", false}}},
		{"at the end without line break", "a,b\n" + long, []whole{{1, "a,b", false}, {2, long, true}}},
		{"at the end with line break", "a,b\n" + long + "\n\n", []whole{{1, "a,b", false}, {2, long, true}}},
		{"crlf", "a,b\r\n" + strings.ReplaceAll(long, "\n", "\r\n") + "\r\n\r\nc,d\r\n", []whole{
			{1, "a,b", false}, {2, strings.ReplaceAll(long, "\n", "\r\n"), true}, {5, "c,d", false}}},
		{"cr only", "a,b\r" + long + "\rc,d\r", []whole{{1, "a,b", false}, {2, long, true}, {4, "c,d", false}}},
		{"unbalanced quote runs to the end", "a,b\n\"open,1\n2,2\n3,3\n4,4\n5,5\n", []whole{
			{1, "a,b", false}, {2, "\"open,1\n2,2\n3,3\n4,4\n5,5\n", true}}},
		{"two in a row", long + "\n" + long + "\nz\n", []whole{{1, long, true}, {3, long, true}, {5, "z", false}}},
		{"unquoted long line", strings.Repeat("u", 40) + "\nz\n", []whole{{1, strings.Repeat("u", 40), true}, {2, "z", false}}},
		// 16 bytes with the line break is within the limit; 17 is not.
		{"at the limit", strings.Repeat("v", 15) + "\n" + strings.Repeat("w", 16) + "\n" + strings.Repeat("e", 16),
			[]whole{{1, strings.Repeat("v", 15), false}, {2, strings.Repeat("w", 16), true}, {3, strings.Repeat("e", 16), false}}},
	}
	d := dialect(func(d *Dialect) { d.MaxRecordBytes = 16 })
	for _, tt := range tests {
		for _, gz := range []bool{false, true} {
			for _, k := range []int{1, 3, 100} {
				for _, block := range []int{1, 7, defaultBlockSize} {
					name := fmt.Sprintf("%s/gz=%v/k=%d/block=%d", tt.name, gz, k, block)
					data, file := []byte(tt.in), "x.csv"
					if gz {
						data, file = gzipped(t, tt.in), "x.csv.gz"
					}
					s := NewSplitter([]Source{memSource(file, data, block == 1)}, d, k, 0)
					s.blockSize = block
					s.SpillDir = t.TempDir()
					got := wholeRecords(t, s, d)
					if fmt.Sprint(got) != fmt.Sprint(tt.want) {
						t.Errorf("%s: got\n%+v\nwant\n%+v", name, got, tt.want)
					}
				}
			}
		}
	}
}

// tallRecordFile builds rows 0..n-1 of "i,text\n", row bad holding a
// quoted field of size bytes in lines of 100.
func tallRecordFile(n, bad, size int, crlf bool) (data []byte, long string) {
	nl := "\n"
	if crlf {
		nl = "\r\n"
	}
	line := strings.Repeat("z", 99) + nl
	field := strings.Repeat(line, size/len(line))
	var b strings.Builder
	for i := range n {
		if i == bad {
			long = fmt.Sprintf("%d,\"%s\"", i, field)
			b.WriteString(long + nl)
			continue
		}
		fmt.Fprintf(&b, "%d,row %d%s", i, i, nl)
	}
	return []byte(b.String()), long
}

// A 20 MB multi-line quoted field among 1,000 rows is one record too
// long, streamed back byte for byte; the 999 others are read on their
// true lines.
func TestRecordTooLong20MB(t *testing.T) {
	const rows, bad = 1000, 400
	for _, crlf := range []bool{false, true} {
		data, long := tallRecordFile(rows, bad, 20<<20, crlf)
		longLines := int64(strings.Count(long, "\n"))
		d := DefaultDialect()
		s := NewSplitter([]Source{memSource("tall.csv", data, false)}, d, DefaultChunkRecords, 0)
		s.SpillDir = t.TempDir()
		s.KeepTooLong = -1
		got := wholeRecords(t, s, d)
		if len(got) != rows {
			t.Fatalf("crlf=%v: %d records, want %d", crlf, len(got), rows)
		}
		for i, r := range got {
			line := int64(i + 1)
			if i > bad {
				line += longLines
			}
			switch {
			case i == bad && (!r.TooLong || r.Raw != long || r.Line != line):
				t.Fatalf("crlf=%v: the long record is %d bytes on line %d, TooLong %v; want the original %d bytes on line %d",
					crlf, len(r.Raw), r.Line, r.TooLong, len(long), line)
			case i != bad && (r.TooLong || r.Raw != fmt.Sprintf("%d,row %d", i, i) || r.Line != line):
				t.Fatalf("crlf=%v: record %d is %+v, want row %d on line %d", crlf, i, r, i, line)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if ents, _ := os.ReadDir(s.SpillDir); len(ents) != 0 {
			t.Errorf("spill files left: %v", ents)
		}
	}
}

// Past the limit a record is not kept in memory: the blocks the splitter
// allocates for a 20 MB record stay a few times the limit and the block
// size, whatever the record's length.
func TestRecordTooLongMemory(t *testing.T) {
	const limit, block = 256 << 10, 64 << 10
	for _, size := range []int{2 << 20, 20 << 20} {
		data, long := tallRecordFile(100, 50, size, false)
		d := dialect(func(d *Dialect) { d.MaxRecordBytes = limit })
		s := NewSplitter([]Source{memSource("tall.csv", data, false)}, d, 10, 0)
		s.blockSize = block
		s.SpillDir = t.TempDir()
		s.KeepTooLong = -1
		got := wholeRecords(t, s, d)
		if len(got) != 100 || got[50].Raw != long {
			t.Fatalf("size %d: %d records, the long one intact: %v", size, len(got), len(got) > 50 && got[50].Raw == long)
		}
		if bound := int64(8 * limit); s.blockBytes > bound {
			t.Errorf("size %d: %d bytes of blocks allocated for a record of %d; want at most %d", size, s.blockBytes, len(long), bound)
		}
	}
}

// Release and Close remove the spill file: OpenRecord fails afterwards
// and the spill directory is empty.
func TestRecordTooLongSpillLifetime(t *testing.T) {
	in := "\"" + strings.Repeat("q", 100) + "\"\nok\n\"" + strings.Repeat("r", 100) + "\"\n"
	d := dialect(func(d *Dialect) { d.MaxRecordBytes = 10 })
	dir := t.TempDir()
	s := NewSplitter([]Source{memSource("x", []byte(in), false)}, d, 1, 0)
	s.SpillDir = dir
	var long []*Chunk
	eachChunk(t, s, func(c *Chunk) {
		if c.TooLong {
			long = append(long, c)
		} else if _, err := c.OpenRecord(); err == nil {
			t.Error("OpenRecord on a chunk of ordinary records: no error")
		}
	})
	if len(long) != 2 {
		t.Fatalf("%d TooLong chunks, want 2", len(long))
	}
	long[0].Release()
	if _, err := long[0].OpenRecord(); err == nil {
		t.Error("OpenRecord after Release: no error")
	}
	if _, err := long[1].OpenRecord(); err != nil {
		t.Errorf("OpenRecord of the other chunk: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := long[1].OpenRecord(); err == nil {
		t.Error("OpenRecord after Splitter.Close: no error")
	}
	long[1].Release() // after Close: does nothing, no panic
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("spill files left: %v", ents)
	}
}

// TestRecordTooLongUnclosed: a record over the limit that runs to the end
// of the input inside a quoted field is reported as an unclosed quote; one
// whose quotes close is reported as long, without blaming a quote.
func TestRecordTooLongUnclosed(t *testing.T) {
	d := dialect(func(d *Dialect) { d.MaxRecordBytes = 16 })
	long := "\"" + strings.Repeat("x", 30) + "\n" + strings.Repeat("y", 30) + "\""
	for _, c := range []struct {
		name, in string
		unclosed bool
	}{
		{"closed, in the middle", "a,b\n" + long + ",1\nc,d\n", false},
		{"closed, at the end", "a,b\n" + long, false},
		{"unquoted", strings.Repeat("u", 40) + "\nz\n", false},
		{"never closed", "a,b\n\"open,1\n2,2\n3,3\n4,4\n5,5\n", true},
		{"never closed, after an escaped quote", "a,b\n\"open \"\" ,1\n2,2\n3,3\n4,4\n5,5", true},
	} {
		for _, gz := range []bool{false, true} {
			data, file := []byte(c.in), "x.csv"
			if gz {
				data, file = gzipped(t, c.in), "x.csv.gz"
			}
			s := NewSplitter([]Source{memSource(file, data, false)}, d, 100, 0)
			s.SpillDir = t.TempDir()
			var errs []error
			eachChunk(t, s, func(ch *Chunk) {
				defer ch.Release()
				if !ch.TooLong {
					return
				}
				_, err := NewReader(ch, d).Next()
				errs = append(errs, err)
			})
			if len(errs) != 1 || !errors.Is(errs[0], ErrRecordTooLong) {
				t.Fatalf("%s (gz %v): errors %v, want one ErrRecordTooLong", c.name, gz, errs)
			}
			if got := strings.Contains(errs[0].Error(), "never closed"); got != c.unclosed {
				t.Errorf("%s (gz %v): %v; want it to blame an unclosed quote: %v", c.name, gz, errs[0], c.unclosed)
			}
		}
	}
}
