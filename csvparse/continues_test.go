package csvparse

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestContinuesKeepsLeadingFEFF: only a file's own first bytes can be a
// byte order mark. A source that continues a file (a range cut from its
// middle) and happens to start with EF BB BF starts with data: U+FEFF
// opening its first record's first field. Cut at record starts into such
// ranges, a file whose records all begin with U+FEFF reads as it does
// whole, where only the file's first three bytes are dropped.
func TestContinuesKeepsLeadingFEFF(t *testing.T) {
	var b strings.Builder
	b.WriteString("\ufeff") // the file's BOM
	for i := range 200 {
		fmt.Fprintf(&b, "\ufeff%d,\"v\n%d\"\n", i, i)
	}
	data := []byte(b.String())
	d := DefaultDialect()
	fields := func(srcs []Source) [][]string {
		t.Helper()
		var out [][]string
		_, recs := split(t, NewSplitter(srcs, d, 7, 0), d)
		for _, r := range recs {
			if r.Err != "" {
				t.Fatalf("line %d: %s", r.Line, r.Err)
			}
			out = append(out, r.Fields)
		}
		return out
	}
	whole := fields([]Source{memSource("whole", data, false)})
	if len(whole) != 200 || whole[0][0] != "\ufeff0" || whole[1][0] != "\ufeff1" {
		t.Fatalf("whole file: %d records, first fields %q, %q", len(whole), whole[0][0], whole[1][0])
	}
	r := bytes.NewReader(data)
	for _, n := range []int{2, 3, 7, 50} {
		var srcs []Source
		from := int64(0)
		for k := 1; k <= n; k++ {
			to, err := FindRecordStart(r, int64(len(data)), int64(len(data))*int64(k)/int64(n), d)
			if err != nil {
				t.Fatal(err)
			}
			if to == from {
				continue
			}
			src := memSource(fmt.Sprintf("x@%d", from), data[from:to], k%2 == 0)
			src.Continues = from > 0
			if from > 0 && !bytes.HasPrefix(data[from:to], []byte("\ufeff")) {
				t.Fatalf("range at %d does not start with EF BB BF", from)
			}
			srcs = append(srcs, src)
			from = to
		}
		if got := fields(srcs); !reflect.DeepEqual(got, whole) {
			t.Errorf("%d ranges: records differ from the whole file's:\n%q\n%q", n, got[:min(len(got), 5)], whole[:5])
		}
	}
	// Without Continues a source's leading EF BB BF is its BOM.
	got := fields([]Source{memSource("x", []byte("\ufeffa\n\ufeffb\n"), false)})
	if want := [][]string{{"a"}, {"\ufeffb"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	src := memSource("x@9", []byte("\ufeffa\n\ufeffb\n"), false)
	src.Continues = true
	got = fields([]Source{src})
	if want := [][]string{{"\ufeffa"}, {"\ufeffb"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("continuing: got %q, want %q", got, want)
	}
}

// TestContinuesIgnoresMagic: a range inside a file that starts with bytes
// a compressor's magic or a UTF-16 BOM begins with is read as the text
// it is; at a file's start the same bytes say what the file is.
func TestContinuesIgnoresMagic(t *testing.T) {
	tests := []struct {
		name string
		data string
	}{
		{"zstd magic", "(\xb5/\xfd,x\nb,y\n"},
		{"gzip magic", "\x1f\x8b,x\nb,y\n"},
		{"UTF-16 LE BOM", "\xff\xfe,x\nb,y\n"},
		{"UTF-16 BE BOM", "\xfe\xff,x\nb,y\n"},
	}
	d := DefaultDialect()
	// read returns the records' fields, nil if any record is an error.
	read := func(t *testing.T, src Source) [][]string {
		var out [][]string
		_, recs := split(t, NewSplitter([]Source{src}, d, 7, 0), d)
		for _, r := range recs {
			if r.Err != "" {
				return nil
			}
			out = append(out, r.Fields)
		}
		return out
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := memSource("f.csv@100", []byte(tc.data), false)
			src.Continues = true
			got := read(t, src)
			first := tc.data[:strings.IndexByte(tc.data, ',')]
			want := [][]string{{first, "x"}, {"b", "y"}}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("continuing: got %q, want %q", got, want)
			}
			// At a file's start: decompressed (an error here) or
			// decoded as UTF-16, not read as this text.
			s := NewSplitter([]Source{memSource("f.csv", []byte(tc.data), false)}, d, 7, 0)
			var atStart [][]string
			for {
				c, err := s.Next()
				if err != nil {
					break
				}
				for _, r := range readChunk(t, c, d) {
					atStart = append(atStart, r.Fields)
				}
			}
			if reflect.DeepEqual(atStart, want) {
				t.Errorf("at a file's start the bytes were read as text: %q", atStart)
			}
		})
	}
}
