package schema

import (
	"testing"
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

// TestScalarConvertersDoNotAllocate holds the hot-path promise: a scalar
// converter appending into a buffer with room allocates nothing.
func TestScalarConvertersDoNotAllocate(t *testing.T) {
	for _, bc := range benchCases {
		typ := mustType(t, bc.typ)
		if typ.Kind == KindVarint || typ.Kind >= KindList {
			continue // big numbers and composite values may allocate
		}
		conv, err := NewConverter(typ, DefaultFormats())
		if err != nil {
			t.Fatal(err)
		}
		in := []byte(bc.in)
		dst := make([]byte, 0, 256)
		allocs := testing.AllocsPerRun(100, func() {
			if _, err := conv(dst[:0], in); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s %q: %v allocations per conversion, want 0", bc.typ, bc.in, allocs)
		}
	}
}
