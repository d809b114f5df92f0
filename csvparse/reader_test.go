package csvparse

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

// rec is a Record copied out of the Reader, plus its error, for
// comparing.
type rec struct {
	Line   int64
	Raw    string
	Fields []string
	Quoted []bool
	Err    string // ParseError text, "" if none
}

func copyRecord(r *Record, err error) rec {
	out := rec{Line: r.Line, Raw: string(r.Raw)}
	if err != nil {
		out.Err = err.Error()
		return out // fields are best effort after an error
	}
	for i, f := range r.Fields {
		out.Fields = append(out.Fields, string(f))
		out.Quoted = append(out.Quoted, r.Quoted[i])
	}
	return out
}

// readChunk parses c to the end, failing the test on anything but io.EOF
// or a *ParseError.
func readChunk(t testing.TB, c *Chunk, d Dialect) []rec {
	t.Helper()
	var out []rec
	r := NewReader(c, d)
	for {
		record, err := r.Next()
		if err == io.EOF {
			return out
		}
		var pe *ParseError
		if err != nil && !errors.As(err, &pe) {
			t.Fatalf("Next: %v is not a *ParseError", err)
		}
		if record == nil {
			t.Fatalf("Next returned a nil record with %v", err)
		}
		out = append(out, copyRecord(record, err))
	}
}

func dialect(mod func(*Dialect)) Dialect {
	d := DefaultDialect()
	if mod != nil {
		mod(&d)
	}
	return d
}

func f(fields ...string) []string { return fields }
func q(quoted ...bool) []bool     { return quoted }

func TestReader(t *testing.T) {
	noEscape := func(d *Dialect) { d.Escape = 0 }
	tests := []struct {
		name string
		in   string
		d    func(*Dialect)
		want []rec
	}{
		{"simple", "a,b,c\n1,2,3\n", nil, []rec{
			{1, "a,b,c", f("a", "b", "c"), q(false, false, false), ""},
			{2, "1,2,3", f("1", "2", "3"), q(false, false, false), ""},
		}},
		{"no final newline", "a,b\n1,2", nil, []rec{
			{1, "a,b", f("a", "b"), q(false, false), ""},
			{2, "1,2", f("1", "2"), q(false, false), ""},
		}},
		{"crlf", "a,b\r\n1,2\r\n", nil, []rec{
			{1, "a,b", f("a", "b"), q(false, false), ""},
			{2, "1,2", f("1", "2"), q(false, false), ""},
		}},
		{"cr before end of input ends the record", "a,b\r", nil, []rec{
			{1, "a,b", f("a", "b"), q(false, false), ""},
		}},
		{"quoted newline", "1,\"x\ny\",3\n4,5,6\n", nil, []rec{
			{1, "1,\"x\ny\",3", f("1", "x\ny", "3"), q(false, true, false), ""},
			{3, "4,5,6", f("4", "5", "6"), q(false, false, false), ""},
		}},
		{"quoted crlf is data", "\"x\r\ny\"\r\nz\r\n", nil, []rec{
			{1, "\"x\r\ny\"", f("x\r\ny"), q(true), ""},
			{3, "z", f("z"), q(false), ""},
		}},
		{"lone cr ends a record outside quotes, is data inside", "\"a\rb\",c\rd\n", nil, []rec{
			{1, "\"a\rb\",c", f("a\rb", "c"), q(true, false), ""},
			{2, "d", f("d"), q(false), ""},
		}},
		{"cr-only line ends", "a,b\rc,\"d\"\r\re\\\rf\r", nil, []rec{
			{1, "a,b", f("a", "b"), q(false, false), ""},
			{2, "c,\"d\"", f("c", "d"), q(false, true), ""},
			{4, "e\\\rf", f("e\rf"), q(false), ""},
		}},
		{"blank lines skipped but counted", "\n\na\n\r\n\nb\n\n", nil, []rec{
			{3, "a", f("a"), q(false), ""},
			{6, "b", f("b"), q(false), ""},
		}},
		{"spaces kept", " a , \" b \" \n", nil, []rec{
			{1, " a , \" b \" ", f(" a ", " \" b \" "), q(false, false), ""},
		}},
		{"empty fields", ",,\n\"\",x,\"\"\n", nil, []rec{
			{1, ",,", f("", "", ""), q(false, false, false), ""},
			{2, "\"\",x,\"\"", f("", "x", ""), q(true, false, true), ""},
		}},
		{"doubled quotes", `"say ""hi""",""""` + "\n", nil, []rec{
			{1, `"say ""hi""",""""`, f(`say "hi"`, `"`), q(true, true), ""},
		}},
		{"doubled quotes without escape", `"say ""hi"""` + "\n", noEscape, []rec{
			{1, `"say ""hi"""`, f(`say "hi"`), q(true), ""},
		}},
		{"escaped quote and backslash", `"say \"hi\"","a\\b",\\` + "\n", nil, []rec{
			{1, `"say \"hi\"","a\\b",\\`, f(`say "hi"`, `a\b`, `\`), q(true, true, false), ""},
		}},
		{"escape before other characters is kept", `"C:\temp",C:\temp\x` + "\n", nil, []rec{
			{1, `"C:\temp",C:\temp\x`, f(`C:\temp`, `C:\temp\x`), q(true, false), ""},
		}},
		{"escape outside quotes", `a\,b,\"c` + "\n", nil, []rec{
			{1, `a\,b,\"c`, f("a,b", `"c`), q(false, false), ""},
		}},
		{"escaped newline continues the record", "a\\\nb,c\nd\n", nil, []rec{
			{1, "a\\\nb,c", f("a\nb", "c"), q(false, false), ""},
			{3, "d", f("d"), q(false), ""},
		}},
		{"escaped cr before lf is data", "a\\\r\nb\n", nil, []rec{
			{1, "a\\\r", f("a\r"), q(false), ""},
			{2, "b", f("b"), q(false), ""},
		}},
		{"dangling escape at the end is literal", `ab\`, nil, []rec{
			{1, `ab\`, f(`ab\`), q(false), ""},
		}},
		{"escape disabled: backslashes are data", `"C:\dir\",x` + "\n" + `a\,b` + "\n", noEscape, []rec{
			{1, `"C:\dir\",x`, f(`C:\dir\`, "x"), q(true, false), ""},
			{2, `a\,b`, f(`a\`, "b"), q(false, false), ""},
		}},
		{"same input with escape: the quote is escaped and never closes", `"C:\dir\",x` + "\n" + `a\,b` + "\n", nil, []rec{
			{1, `"C:\dir\",x` + "\n" + `a\,b` + "\n", nil, nil, "line 1, column 1: " + ErrQuote.Error()},
		}},
		{"bare quote is data", `12" pipe,x` + "\n", nil, []rec{
			{1, `12" pipe,x`, f(`12" pipe`, "x"), q(false, false), ""},
		}},
		{"bare quote with StrictQuotes", `12" pipe,x` + "\nok\n", func(d *Dialect) { d.StrictQuotes = true }, []rec{
			{1, `12" pipe,x`, nil, nil, "line 1, column 3: " + ErrBareQuote.Error()},
			{2, "ok", f("ok"), q(false), ""},
		}},
		{"text after closing quote", "\"ab\"c,d\n1,2\n", nil, []rec{
			{1, "\"ab\"c,d", nil, nil, "line 1, column 5: " + ErrQuote.Error()},
			{2, "1,2", f("1", "2"), q(false, false), ""},
		}},
		{"error column counts characters", "é,\"é\"x\n", nil, []rec{
			{1, "é,\"é\"x", nil, nil, "line 1, column 6: " + ErrQuote.Error()},
		}},
		{"error line inside a multi-line record", "1,\"a\nb\"x\n", nil, []rec{
			{1, "1,\"a\nb\"x", nil, nil, "line 2, column 3: " + ErrQuote.Error()},
		}},
		{"unterminated quote runs to the end", "a,\"bc\nd,e\n", nil, []rec{
			{1, "a,\"bc\nd,e\n", nil, nil, "line 1, column 3: " + ErrQuote.Error()},
		}},
		{"closing quote then crlf", "\"a\"\r\n\"b\"\r", nil, []rec{
			{1, "\"a\"", f("a"), q(true), ""},
			{2, "\"b\"", f("b"), q(true), ""},
		}},
		{"quote not at field start after escape", `\""x"` + "\n", nil, []rec{
			{1, `\""x"`, f(`""x"`), q(false), ""},
		}},
		{"pipe delimiter, single quote", "a|'b|c'|'it''s'\n", func(d *Dialect) { d.Delimiter, d.Quote = '|', '\'' }, []rec{
			{1, "a|'b|c'|'it''s'", f("a", "b|c", "it's"), q(false, true, true), ""},
		}},
		{"tab delimiter", "a\tb,c\t\"d\te\"\n", func(d *Dialect) { d.Delimiter = '\t' }, []rec{
			{1, "a\tb,c\t\"d\te\"", f("a", "b,c", "d\te"), q(false, false, true), ""},
		}},
		{"escape equal to quote means doubling", `"a""b"` + "\n", func(d *Dialect) { d.Escape = '"' }, []rec{
			{1, `"a""b"`, f(`a"b`), q(true), ""},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := readChunk(t, &Chunk{Data: []byte(tt.in), FirstLine: 1}, dialect(tt.d))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got\n%#v\nwant\n%#v", got, tt.want)
			}
		})
	}
}

func TestParseErrorMessage(t *testing.T) {
	tests := []struct {
		err  *ParseError
		want string
	}{
		{&ParseError{File: "data.csv", Line: 12, Column: 7, Err: ErrQuote}, `data.csv:12:7: extraneous or missing " in quoted field`},
		{&ParseError{Line: 3, Column: 1, Err: ErrRecordTooLong}, "line 3, column 1: " + ErrRecordTooLong.Error()},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
		if !errors.Is(tt.err, tt.err.Err) {
			t.Errorf("errors.Is(%v, %v) = false", tt.err, tt.err.Err)
		}
	}
	r := NewReader(&Chunk{File: "x.csv", FirstLine: 40, Data: []byte("ok\n\"a\"b\n")}, DefaultDialect())
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	_, err := r.Next()
	var pe *ParseError
	if !errors.As(err, &pe) || pe.File != "x.csv" || pe.Line != 41 || pe.Column != 4 || !errors.Is(err, ErrQuote) {
		t.Fatalf("got %#v, want x.csv line 41 column 4 ErrQuote", err)
	}
	if got := string(r.Raw()); got != `"a"b` {
		t.Errorf("Raw() = %q, want %q", got, `"a"b`)
	}
}

func TestFieldPos(t *testing.T) {
	r := NewReader(&Chunk{FirstLine: 10, Data: []byte("x\na,\"b\nc\",éd,e\n")}, DefaultDialect())
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	record, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		line int64
		col  int
	}{{11, 1}, {11, 3}, {12, 4}, {12, 7}}
	if len(record.Fields) != len(want) {
		t.Fatalf("got %d fields, want %d", len(record.Fields), len(want))
	}
	for i, w := range want {
		line, col := record.FieldPos(i)
		if line != w.line || col != w.col {
			t.Errorf("FieldPos(%d) = %d:%d, want %d:%d", i, line, col, w.line, w.col)
		}
		if got := record.FieldColumn(i); got != w.col {
			t.Errorf("FieldColumn(%d) = %d, want %d", i, got, w.col)
		}
	}
}

func TestReaderAllocations(t *testing.T) {
	row := `12345,"quoted, with comma","say ""hi""",esc\,aped,plain text here,2024-01-02 03:04:05` + "\n"
	data := []byte(strings.Repeat(row, 2000))
	r := NewReader(&Chunk{Data: data, FirstLine: 1}, DefaultDialect())
	for range 10 { // let the buffers grow
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
	}
	allocs := testing.AllocsPerRun(1000, func() {
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Next allocates %.1f times per record, want 0", allocs)
	}
}

func TestReaderTooLongChunk(t *testing.T) {
	r := NewReader(&Chunk{File: "big.csv", FirstLine: 7, Data: []byte(`"abc`), Records: 1, TooLong: true}, DefaultDialect())
	record, err := r.Next()
	if !errors.Is(err, ErrRecordTooLong) || record == nil || string(record.Raw) != `"abc` || record.Line != 7 {
		t.Fatalf("got %v, %v; want the truncated record with ErrRecordTooLong", record, err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("second Next: %v, want io.EOF", err)
	}
}

func TestReaderDefaultsAndOutOfRangeField(t *testing.T) {
	r := NewReader(&Chunk{Data: []byte("a,b\n")}, DefaultDialect()) // FirstLine unset
	record, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	if record.Line != 1 {
		t.Errorf("Line = %d, want 1 when FirstLine is unset", record.Line)
	}
	for _, i := range []int{-1, 2} {
		if line, col := record.FieldPos(i); line != 1 || col != 1 {
			t.Errorf("FieldPos(%d) = %d:%d, want the record start 1:1", i, line, col)
		}
	}
}
