package schema

import (
	"strings"
	"testing"
	"time"
)

var benchCases = []struct {
	name, typ, in string
}{
	{"text", "text", "a typical short text value"},
	{"ascii", "ascii", "plain ascii"},
	{"int", "int", "123456"},
	{"bigint", "bigint", "-1234567890123"},
	{"varint", "varint", "123456789012345678901234567890"},
	{"double", "double", "3.141592653589793"},
	{"double/short", "double", "5313.22"},
	{"float", "float", "2.5"},
	{"decimal", "decimal", "12345.6789"},
	{"boolean", "boolean", "False"},
	{"blob", "blob", "0x0123456789abcdef0123456789abcdef"},
	{"uuid", "uuid", "01234567-89ab-cdef-0123-456789abcdef"},
	{"timeuuid", "timeuuid", "d2177dd0-eaa2-11de-a572-001b779c76e3"},
	{"inet", "inet", "192.168.1.20"},
	{"timestamp/format", "timestamp", "2020-01-02 03:04:05+0000"},
	{"timestamp/copyto", "timestamp", "2020-01-02 03:04:05.123000+0000"},
	{"timestamp/iso", "timestamp", "2020-01-02T03:04:05.123Z"},
	{"timestamp/millis", "timestamp", "1577934245123"},
	{"date", "date", "2020-01-02"},
	{"time", "time", "12:34:56.789"},
	{"duration", "duration", "1h30m"},
	{"list<int>", "list<int>", "[1, 2, 3, 4, 5]"},
	{"set<text>", "set<text>", "{'a', 'b', 'c'}"},
	{"map<text,int>", "map<text, int>", "{'a': 1, 'b': 2}"},
	{"tuple", "tuple<int, text>", "(1, 'x')"},
	{"udt", "frozen<address>", "{street: 'Main', no: 3, tags: {'a'}}"},
	{"vector<float,8>", "vector<float, 8>", "[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]"},
}

func BenchmarkConverters(b *testing.B) {
	for _, bc := range benchCases {
		b.Run(bc.name, func(b *testing.B) {
			conv, err := NewConverter(mustType(b, bc.typ), DefaultFormats())
			if err != nil {
				b.Fatal(err)
			}
			in := []byte(bc.in)
			dst := make([]byte, 0, 256)
			b.ReportAllocs()
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				if _, err := conv(dst[:0], in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestConvertersDoNotAllocate holds the hot-path promise: a converter
// appending into a buffer with room allocates nothing, for scalars and
// typical composite values, with cqlsh's default formats and with European
// separators and a zone.
func TestConvertersDoNotAllocate(t *testing.T) {
	eu := DefaultFormats()
	eu.DecimalSep, eu.ThousandsSep = ",", "."
	eu.DateTimeFormat = "%d.%m.%Y %H:%M:%S"
	eu.CqlshEscapes = true
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	eu.TimeZone = paris
	cases := append([]struct{ name, typ, in string }{}, benchCases...)
	cases = append(cases,
		struct{ name, typ, in string }{"eu int", "int", "1.234.567"},
		struct{ name, typ, in string }{"eu double", "double", "-1.234,5"},
		struct{ name, typ, in string }{"eu decimal", "decimal", "1.234,50"},
		struct{ name, typ, in string }{"eu timestamp", "timestamp", "02.01.2020 03:04:05"},
		struct{ name, typ, in string }{"escaped text", "text", `a\\b\nc`},
	)
	for _, bc := range cases {
		typ := mustType(t, bc.typ)
		if typ.Kind == KindVarint {
			continue // numbers beyond int64 need math/big
		}
		f := DefaultFormats()
		if strings.HasPrefix(bc.name, "eu") || strings.HasPrefix(bc.name, "escaped") {
			f = eu
		}
		conv, err := NewConverter(typ, f)
		if err != nil {
			t.Fatal(err)
		}
		in := []byte(bc.in)
		dst := make([]byte, 0, 256)
		allocs := testing.AllocsPerRun(100, func() {
			if _, err := conv(dst[:0], in); err != nil {
				t.Fatalf("%s %q: %v", bc.typ, bc.in, err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s %s %q: %v allocations per conversion, want 0", bc.name, bc.typ, bc.in, allocs)
		}
	}
}

// BenchmarkNarrowRow converts the six fields of a typical narrow row, the
// unit of the loader's CPU budget per row.
func BenchmarkNarrowRow(b *testing.B) {
	benchRow(b, []struct{ typ, in string }{
		{"uuid", "01234567-89ab-cdef-0123-456789abcdef"},
		{"timestamp", "2020-01-02 03:04:05.123000+0000"},
		{"int", "42"},
		{"text", "a short text value"},
		{"double", "3.25"},
		{"boolean", "True"},
	})
}

// BenchmarkRichRow converts a row of make bench's rich dataset: a list, a
// set, a map and a UDT in cqlsh's literal syntax, and a timestamp.
func BenchmarkRichRow(b *testing.B) {
	benchRow(b, []struct{ typ, in string }{
		{"bigint", "123456"},
		{"list<text>", "['sutlrfv', 'bcb', 'cydjldw']"},
		{"set<int>", "{455, 462, 469, 476}"},
		{"map<text, int>", "{'a': 89241, 'b': 78603, 'c': 63253}"},
		{"frozen<address>", "{street: '617 Hill Rd', no: 15877, tags: {'x', 'y'}}"},
		{"timestamp", "2024-05-10 22:17:31.896+0000"},
	})
}

func benchRow(b *testing.B, row []struct{ typ, in string }) {
	convs := make([]Converter, len(row))
	fields := make([][]byte, len(row))
	n := 0
	for i, f := range row {
		c, err := NewConverter(mustType(b, f.typ), DefaultFormats())
		if err != nil {
			b.Fatal(err)
		}
		convs[i], fields[i] = c, []byte(f.in)
		n += len(f.in)
	}
	dst := make([]byte, 0, 512)
	b.ReportAllocs()
	b.SetBytes(int64(n))
	for b.Loop() {
		out := dst[:0]
		for i, c := range convs {
			var err error
			if out, err = c(out, fields[i]); err != nil {
				b.Fatal(err)
			}
		}
	}
}
