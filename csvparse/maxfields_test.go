package csvparse

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"
)

// TestReaderMaxFields: past MaxFields+1 fields a record's fields are
// counted, not kept, on every path the Reader parses by (plain lines,
// quotes, escapes, quoted line breaks, CRLF), and the count is exact.
func TestReaderMaxFields(t *testing.T) {
	esc := func(d *Dialect) { d.Escape = '\\' }
	tests := []struct {
		name  string
		mod   func(*Dialect)
		input string // its first record is the one checked
		max   int
		count int
		kept  []string
	}{
		{"plain, over", nil, "a,b,c,d,e\nx,y\n", 2, 5, f("a", "b", "c")},
		{"plain, exactly", nil, "a,b\nx\n", 2, 2, f("a", "b")},
		{"plain, one over", nil, "a,b,c\nx\n", 2, 3, f("a", "b", "c")},
		{"plain, under", nil, "a\nx\n", 3, 1, f("a")},
		{"no limit", nil, "a,b,c,d\n", 0, 4, f("a", "b", "c", "d")},
		{"empty fields", nil, ",,,,,,,,,\n", 1, 10, f("", "")},
		{"CRLF", nil, "a,b,c,d\r\nx\r\n", 1, 4, f("a", "b")},
		{"no final line break", nil, "a,b,c,d", 1, 4, f("a", "b")},
		{"quoted past the cap", nil, `a,b,"c,d","e""f",g` + "\nx\n", 1, 5, f("a", "b")},
		{"quoted line break past the cap", nil, "a,b,\"c\nd\",e\nx\n", 1, 4, f("a", "b")},
		{"quoted before the cap", nil, `"a,1","b""2",c,d` + "\n", 1, 4, f("a,1", `b"2`)},
		{"escape past the cap", esc, `a,b,c\,d,e` + "\n", 1, 4, f("a", "b")},
		{"escape in a kept field", esc, `a\,1,b,c` + "\n", 1, 3, f("a,1", "b")},
		{"escaped quoted past the cap", esc, `a,b,"c\"d",e` + "\n", 1, 4, f("a", "b")},
		{"lone CR ends it", nil, "a,b,c,d\rx,y\n", 1, 4, f("a", "b")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := dialect(tt.mod)
			r := NewReader(&Chunk{Data: []byte(tt.input), FirstLine: 1}, d)
			r.MaxFields = tt.max
			rec, err := r.Next()
			if err != nil {
				t.Fatal(err)
			}
			if rec.FieldCount != tt.count {
				t.Errorf("FieldCount = %d, want %d", rec.FieldCount, tt.count)
			}
			var got []string
			for _, b := range rec.Fields {
				got = append(got, string(b))
			}
			if strings.Join(got, "|") != strings.Join(tt.kept, "|") || len(rec.Quoted) != len(rec.Fields) {
				t.Errorf("Fields = %q (%d quoted flags), want %q", got, len(rec.Quoted), tt.kept)
			}
			// The record ends where it would without the limit.
			full := NewReader(&Chunk{Data: []byte(tt.input), FirstLine: 1}, d)
			whole, err := full.Next()
			if err != nil {
				t.Fatal(err)
			}
			if whole.FieldCount != tt.count || len(whole.Fields) != tt.count {
				t.Errorf("without a limit: %d fields (FieldCount %d), want %d", len(whole.Fields), whole.FieldCount, tt.count)
			}
			for {
				a, errA := r.Next()
				b, errB := full.Next()
				if (errA == io.EOF) != (errB == io.EOF) {
					t.Fatalf("the records after differ: %v, %v", errA, errB)
				}
				if errA == io.EOF {
					break
				}
				if a.Line != b.Line || !bytes.Equal(a.Raw, b.Raw) {
					t.Fatalf("next record: line %d %q, want line %d %q", a.Line, a.Raw, b.Line, b.Raw)
				}
			}
		})
	}
}

// TestReaderMaxFieldsMemory: a record of delimiters under the record
// size limit costs memory for the fields kept, not for every field.
func TestReaderMaxFieldsMemory(t *testing.T) {
	const n = 1 << 20 // fields
	for _, tc := range []struct{ name, field string }{
		{"commas", ""},
		{"quoted empties", `""`},   // the quote-aware path
		{"doubled quotes", `""""`}, // fields unescaped into the buffer
	} {
		t.Run(tc.name, func(t *testing.T) {
			line := strings.Repeat(tc.field+",", n-1) + tc.field + "\n"
			data := []byte(line)
			r := NewReader(&Chunk{Data: data, FirstLine: 1}, DefaultDialect())
			r.MaxFields = 3
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			rec, err := r.Next()
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			if rec.FieldCount != n || len(rec.Fields) != 4 {
				t.Fatalf("FieldCount %d with %d fields kept, want %d and 4", rec.FieldCount, len(rec.Fields), n)
			}
			// Without the limit this is about 70 MB.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<10 {
				t.Errorf("reading a record of %d fields allocated %d bytes, want at most 64 KiB", n, alloc)
			}
		})
	}
}

// TestHeaderMaxFields: of a header with more fields than
// Splitter.MaxHeaderFields only MaxHeaderFields+1 names are kept, and
// HeaderFields says how many it had; a header within it is whole.
func TestHeaderMaxFields(t *testing.T) {
	const n = 1 << 20
	for _, tc := range []struct {
		name, header string
		max          int
		kept, count  int
	}{
		{"line of commas", strings.Repeat(",", n-1), 3, 4, n},
		{"quoted names", strings.Repeat(`"a,b",`, n-1) + `"a,b"`, 2, 3, n},
		{"within", "k, v ,w", 3, 3, 3},
		{"no limit", "k,v,w,x", 0, 4, 4},
	} {
		d := dialect(func(d *Dialect) { d.Header = true })
		s := NewSplitter([]Source{memSource("h.csv", []byte(tc.header+"\n1,2\n"), false)}, d, 10, 0)
		s.MaxHeaderFields = tc.max
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		c, err := s.Next()
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(c.Header) != tc.kept || c.HeaderFields != tc.count {
			t.Errorf("%s: %d names kept, HeaderFields %d; want %d and %d", tc.name, len(c.Header), c.HeaderFields, tc.kept, tc.count)
		}
		if tc.name == "within" && strings.Join(c.Header, "|") != "k|v|w" {
			t.Errorf("%s: header %q", tc.name, c.Header)
		}
		// The input's blocks are the bulk; per name it was about 100 bytes.
		if alloc := after.TotalAlloc - before.TotalAlloc; tc.count == n && alloc > 4*uint64(len(tc.header)) {
			t.Errorf("%s: reading a header of %d fields allocated %d bytes", tc.name, n, alloc)
		}
	}
}
