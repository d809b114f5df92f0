package schema

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Each fuzz target feeds arbitrary text to the converters of one family.
// A converter must not panic; when it accepts the text, the driver must be
// able to decode the bytes, and the value formatted back as cqlsh COPY TO
// writes it must convert to the same bytes. Seeds live in
// testdata/fuzz/<target>.

func fuzzRoundTrip(t *testing.T, types []string, pick uint8, in string) {
	fuzzRoundTripWith(t, DefaultFormats(), types, pick, in)
}

func fuzzRoundTripWith(t *testing.T, f Formats, types []string, pick uint8, in string) {
	typ := mustType(t, types[int(pick)%len(types)])
	conv, err := NewConverter(typ, f)
	if err != nil {
		t.Fatal(err)
	}
	out, err := conv(nil, []byte(in))
	if v := Verbatim(typ, f); v != nil && v([]byte(in)) && (err != nil || string(out) != in) {
		t.Fatalf("%s %q passes Verbatim, but converts to %x, %v", typ, in, out, err)
	}
	if err != nil {
		if _, ok := err.(*ConvertError); !ok {
			t.Fatalf("%s %q: error %T is not a *ConvertError: %v", typ, in, err, err)
		}
		return
	}
	if _, err := decode(typ, out); err != nil {
		t.Fatalf("%s %q: driver cannot decode %x: %v", typ, in, out, err)
	}
	text, err := cqlshFormatter{escapes: f.CqlshEscapes}.format(typ, out, false)
	if err != nil {
		t.Fatalf("%s %q: format %x: %v", typ, in, out, err)
	}
	again, err := conv(nil, []byte(text))
	if err != nil {
		t.Fatalf("%s %q -> %x -> %q: %v", typ, in, out, text, err)
	}
	if !bytes.Equal(again, out) {
		t.Fatalf("%s %q -> %x -> %q -> %x", typ, in, out, text, again)
	}
}

var (
	fuzzNumberTypes    = []string{"tinyint", "smallint", "int", "bigint", "counter", "varint", "float", "double", "decimal"}
	fuzzTimeTypes      = []string{"timestamp", "date", "time", "duration"}
	fuzzCqlshTextTypes = []string{"text", "ascii", "list<text>", "map<text, ascii>"}
	fuzzOtherTypes     = []string{"text", "ascii", "boolean", "blob", "uuid", "timeuuid", "inet"}
	fuzzNestedTypes    = []string{
		"list<int>", "set<text>", "map<text, int>", "map<int, frozen<list<text>>>",
		"list<frozen<map<time, inet>>>", "tuple<int, text, timestamp>", "frozen<address>",
		"frozen<person>", "vector<float, 3>", "vector<text, 2>", "list<double>",
		"map<timestamp, frozen<tuple<date, duration>>>", "set<frozen<list<blob>>>",
	}
)

func FuzzNumbers(f *testing.F) {
	for i, s := range []string{"0", "-128", "32767", "2147483648", "-9223372036854775808", "1e39", "1.5", "-0.0", "NaN", "1E+2", "123456789012345678901234567890", " 7 "} {
		f.Add(uint8(i), s)
	}
	f.Fuzz(func(t *testing.T, pick uint8, in string) { fuzzRoundTrip(t, fuzzNumberTypes, pick, in) })
}

func FuzzTimes(f *testing.F) {
	for i, s := range []string{"2020-01-02 03:04:05+0000", "2020-01-02T03:04:05.123456Z", "1969-12-31", "-1", "23:59:59.999999999", "1h30m", "P1Y2M3DT4H5M6S", "-P2W", "P0001-02-03T04:05:06", "2020-02-29+05:30"} {
		f.Add(uint8(i), s)
	}
	f.Fuzz(func(t *testing.T, pick uint8, in string) { fuzzRoundTrip(t, fuzzTimeTypes, pick, in) })
}

func FuzzOther(f *testing.F) {
	for i, s := range []string{"hello", "plain", "True", "0xCAFE", "01234567-89ab-cdef-0123-456789abcdef", "d2177dd0-eaa2-11de-a572-001b779c76e3", "::ffff:1.2.3.4", "é", "false"} {
		f.Add(uint8(i), s)
	}
	f.Fuzz(func(t *testing.T, pick uint8, in string) { fuzzRoundTrip(t, fuzzOtherTypes, pick, in) })
}

func FuzzNested(f *testing.F) {
	for i, s := range []string{
		"[1, 2, 3]", "{'a', 'it''s'}", `{"k": 1}`, "{1: ['x'], 2: []}",
		"[{10:00:00: ::1}]", "(1, 'a', '2020-01-02 00:00:00.000000+0000')", "{street: 'Main', no: 3}",
		`{name: 'Ann', home: {no: 1}, Nick: ''}`, "[1.5, 2, 3]", "['a', 'b']", "[NaN, -Infinity]",
		"{'2020-01-01': (2020-01-01, 1h)}", "{[0x01], []}",
	} {
		f.Add(uint8(i), s)
	}
	f.Fuzz(func(t *testing.T, pick uint8, in string) { fuzzRoundTrip(t, fuzzNestedTypes, pick, in) })
}

// FuzzCqlshText round-trips text through cqlsh COPY TO's text escapes.
func FuzzCqlshText(f *testing.F) {
	for i, s := range []string{`C:\\temp`, `a\nb`, `\x00\xa0`, "['a\\\\b', 'c''d']", `tab\there`} {
		f.Add(uint8(i), s)
	}
	formats := DefaultFormats()
	formats.CqlshEscapes = true
	f.Fuzz(func(t *testing.T, pick uint8, in string) {
		fuzzRoundTripWith(t, formats, fuzzCqlshTextTypes, pick, in)
	})
}

// FuzzParseType checks that a parsed type prints as text that parses to
// the same type.
func FuzzParseType(f *testing.F) {
	for _, s := range []string{"int", "frozen<map<text, list<int>>>", "vector<float, 3>", `frozen<"Address">`, "tuple<int, 'x.Y'>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		typ, err := ParseType(s)
		if err != nil {
			return
		}
		again, err := ParseType(typ.String())
		if err != nil {
			t.Fatalf("%q -> %q: %v", s, typ.String(), err)
		}
		if again.String() != typ.String() {
			t.Fatalf("%q -> %q -> %q", s, typ.String(), again.String())
		}
	})
}

// TestFuzzSeedsConvert makes sure the committed seeds are values that
// convert, so that every fuzz run starts from round trips that exercise
// each type rather than from rejected text.
func TestFuzzSeedsConvert(t *testing.T) {
	escapes := DefaultFormats()
	escapes.CqlshEscapes = true
	families := map[string]struct {
		types   []string
		formats Formats
	}{
		"FuzzNumbers":   {fuzzNumberTypes, DefaultFormats()},
		"FuzzTimes":     {fuzzTimeTypes, DefaultFormats()},
		"FuzzOther":     {fuzzOtherTypes, DefaultFormats()},
		"FuzzNested":    {fuzzNestedTypes, DefaultFormats()},
		"FuzzCqlshText": {fuzzCqlshTextTypes, escapes},
		"FuzzFormats":   {fuzzFormatsTypes, europeanFormats()},
	}
	for target, fam := range families {
		types := fam.types
		files, err := filepath.Glob(filepath.Join("testdata", "fuzz", target, "*"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no seeds (%v)", target, err)
		}
		covered := map[string]bool{}
		for _, file := range files {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
			if len(lines) != 3 || lines[0] != "go test fuzz v1" {
				t.Fatalf("%s: not a two-value corpus file", file)
			}
			pick, err1 := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "byte("), ")"))
			in, err2 := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[2], "string("), ")"))
			if err1 != nil || err2 != nil || len(pick) != 1 {
				t.Fatalf("%s: cannot read values: %v %v", file, err1, err2)
			}
			typ := types[int(pick[0])%len(types)]
			covered[typ] = true
			conv, err := NewConverter(mustType(t, typ), fam.formats)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := conv(nil, []byte(in)); err != nil {
				t.Errorf("%s: seed %s %q does not convert: %v", file, typ, in, err)
			}
		}
		for _, typ := range types {
			if !covered[typ] {
				t.Errorf("%s: no seed for %s", target, typ)
			}
		}
	}
}

// FuzzFormats round-trips values through cqlsh's value-format options:
// DECIMALSEP ",", THOUSANDSSEP ".", BOOLSTYLE "yes,no" and a DATETIMEFORMAT
// with names and fractions, formatted back as COPY TO writes them with the
// same options.
func FuzzFormats(f *testing.F) {
	for i, s := range []string{"1.234.567", "-9.223.372.036.854.775.808", "12.345.678.901.234.567.890", "1.234,5", "-0,25", "1.000,50", "YES", "Thu 02 Jan 2020 03:04:05,5 +0100"} {
		f.Add(uint8(i), s)
	}
	f.Fuzz(func(t *testing.T, pick uint8, in string) {
		fuzzFormatsRoundTrip(t, pick, in)
	})
}

var fuzzFormatsTypes = []string{"int", "bigint", "varint", "double", "float", "decimal", "boolean", "timestamp"}

func europeanFormats() Formats {
	f := DefaultFormats()
	f.DecimalSep, f.ThousandsSep = ",", "."
	f.BoolStyle = [2]string{"yes", "no"}
	f.DateTimeFormat = "%a %d %b %Y %H:%M:%S,%f %z"
	return f
}

func fuzzFormatsRoundTrip(t *testing.T, pick uint8, in string) {
	f := europeanFormats()
	typ := mustType(t, fuzzFormatsTypes[int(pick)%len(fuzzFormatsTypes)])
	conv, err := NewConverter(typ, f)
	if err != nil {
		t.Fatal(err)
	}
	out, err := conv(nil, []byte(in))
	if err != nil {
		return
	}
	text, err := formatWithFormats(typ, out, f)
	if err != nil {
		t.Fatalf("%s %q: format %x: %v", typ, in, out, err)
	}
	again, err := conv(nil, []byte(text))
	if err != nil {
		t.Fatalf("%s %q -> %x -> %q: %v", typ, in, out, text, err)
	}
	if !bytes.Equal(again, out) {
		t.Fatalf("%s %q -> %x -> %q -> %x", typ, in, out, text, again)
	}
}

// FuzzAnyType converts arbitrary text into arbitrary parsed types, so that
// unusual nestings (vectors of vectors, tuple map keys, …) meet hostile
// values: no panic, and what converts round-trips as in the other targets.
func FuzzAnyType(f *testing.F) {
	f.Add("vector<text, 2>", "['a', '']")
	f.Add("map<frozen<tuple<int, text>>, frozen<set<date>>>", "{(1, 'a'): {2020-01-01}}")
	f.Add("frozen<list<frozen<map<duration, blob>>>>", "[{1h: 0x00}]")
	f.Add("tuple<tinyint, smallint, varint, decimal, float>", "(1, 2, 3, 4.5, 6e7)")
	f.Fuzz(func(t *testing.T, typ, in string) {
		parsed, err := ParseType(typ)
		if err != nil || hasUnresolved(parsed, 0) {
			return
		}
		conv, err := NewConverter(parsed, DefaultFormats())
		if err != nil {
			return
		}
		out, err := conv(nil, []byte(in))
		if err != nil {
			return
		}
		if _, err := decode(parsed, out); err != nil {
			t.Fatalf("%s %q: driver cannot decode %x: %v", parsed, in, out, err)
		}
		text, err := cqlshFormatter{}.format(parsed, out, false)
		if err != nil {
			t.Fatalf("%s %q: format %x: %v", parsed, in, out, err)
		}
		again, err := conv(nil, []byte(text))
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("%s %q -> %x -> %q -> %x, %v", parsed, in, out, text, again, err)
		}
	})
}

// hasUnresolved reports types the fuzz target cannot use: UDTs (which need
// a keyspace), custom types and, as the test's decoder cannot build Go
// values for them, vectors nested in any other type.
func hasUnresolved(t *Type, depth int) bool {
	if depth > 8 {
		return true
	}
	switch t.Kind {
	case KindUDT, KindCustom:
		return true
	}
	for _, e := range t.Elems {
		if e.Kind == KindVector || hasUnresolved(e, depth+1) {
			return true
		}
	}
	return false
}

// TestAnyTypeSeedsConvert keeps FuzzAnyType's seeds valid values.
func TestAnyTypeSeedsConvert(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzAnyType", "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no seeds (%v)", err)
	}
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
		if len(lines) != 3 {
			t.Fatalf("%s: not a two-value corpus file", file)
		}
		typ, err1 := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "string("), ")"))
		in, err2 := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[2], "string("), ")"))
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v %v", file, err1, err2)
		}
		conv, err := NewConverter(mustType(t, typ), DefaultFormats())
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if _, err := conv(nil, []byte(in)); err != nil {
			t.Errorf("%s: seed %s %q does not convert: %v", file, typ, in, err)
		}
	}
}
