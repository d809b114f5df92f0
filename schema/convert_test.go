package schema

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/gocql/gocql"
)

// testKeyspace holds the user-defined types the tests use, as the driver's
// metadata gives them.
func testKeyspace() *gocql.KeyspaceMetadata {
	return &gocql.KeyspaceMetadata{
		Name: "ks",
		Types: map[string]*gocql.TypeMetadata{
			"address": {Keyspace: "ks", Name: "address",
				FieldNames: []string{"street", "no", "tags"},
				FieldTypes: []string{"text", "int", "frozen<set<text>>"}},
			"person": {Keyspace: "ks", Name: "person",
				FieldNames: []string{"name", "home", "Nick", "home town"},
				FieldTypes: []string{"text", "frozen<address>", "text", "text"}},
		},
	}
}

// mustType parses a type and resolves user-defined types from testKeyspace.
func mustType(t testing.TB, s string) *Type {
	t.Helper()
	typ, err := ParseType(s)
	if err != nil {
		t.Fatalf("ParseType(%q): %v", s, err)
	}
	r := udtResolver{ks: testKeyspace(), done: map[string]*Type{}}
	if err := r.resolve(typ, 0); err != nil {
		t.Fatalf("resolve %q: %v", s, err)
	}
	return typ
}

type convCase struct {
	typ  string
	in   string
	want string // decoded by the driver, see decode
}

func runConvCases(t *testing.T, f Formats, cases []convCase) {
	t.Helper()
	for _, tc := range cases {
		typ := mustType(t, tc.typ)
		conv, err := NewConverter(typ, f)
		if err != nil {
			t.Fatalf("NewConverter(%s): %v", tc.typ, err)
		}
		prefix := []byte{0xAA}
		out, err := conv(prefix, []byte(tc.in))
		if err != nil {
			t.Errorf("%s %q: unexpected error: %v", tc.typ, tc.in, err)
			continue
		}
		if out[0] != 0xAA {
			t.Errorf("%s %q: converter overwrote dst", tc.typ, tc.in)
		}
		got, err := decode(typ, out[1:])
		if err != nil {
			t.Errorf("%s %q: driver cannot decode %x: %v", tc.typ, tc.in, out[1:], err)
			continue
		}
		if got != tc.want {
			t.Errorf("%s %q = %s, want %s", tc.typ, tc.in, got, tc.want)
		}
	}
}

type errCase struct {
	typ, in, want string
}

func runErrCases(t *testing.T, f Formats, cases []errCase) {
	t.Helper()
	for _, tc := range cases {
		typ := mustType(t, tc.typ)
		conv, err := NewConverter(typ, f)
		if err != nil {
			t.Fatalf("NewConverter(%s): %v", tc.typ, err)
		}
		dst := []byte{1, 2, 3}
		out, err := conv(dst, []byte(tc.in))
		if err == nil {
			t.Errorf("%s %q: no error, got %x", tc.typ, tc.in, out)
			continue
		}
		var ce *ConvertError
		if !errors.As(err, &ce) {
			t.Errorf("%s %q: error %T is not a *ConvertError", tc.typ, tc.in, err)
		}
		if err.Error() != tc.want {
			t.Errorf("%s %q:\n got error %s\nwant error %s", tc.typ, tc.in, err, tc.want)
		}
		if len(out) != 3 {
			t.Errorf("%s %q: dst has %d bytes after an error, want 3", tc.typ, tc.in, len(out))
		}
	}
}

func TestScalarValues(t *testing.T) {
	runConvCases(t, DefaultFormats(), []convCase{
		{"text", "hello", "hello"},
		{"text", "", ""},
		{"text", "héllo, wörld ✓", "héllo, wörld ✓"},
		{"varchar", "x", "x"},
		{"ascii", "plain", "plain"},
		{"int", "0", "0"},
		{"int", "42", "42"},
		{"int", "-42", "-42"},
		{"int", "+7", "7"},
		{"int", " 12 ", "12"},
		{"int", "2147483647", "2147483647"},
		{"int", "-2147483648", "-2147483648"},
		{"int", "007", "7"},
		{"int", "1_000_000", "1000000"}, // Python's digit groups, as cqlsh reads them
		{"varint", "1_000_000_000_000_000_000_000", "1000000000000000000000"},
		{"double", "1_000.000_5", "1000.0005"},
		{"decimal", "1_0.5_0", "10.50"},
		{"tinyint", "127", "127"},
		{"tinyint", "-128", "-128"},
		{"smallint", "32767", "32767"},
		{"smallint", "-32768", "-32768"},
		{"bigint", "9223372036854775807", "9223372036854775807"},
		{"bigint", "-9223372036854775808", "-9223372036854775808"},
		{"counter", "-5", "-5"},
		{"varint", "0", "0"},
		{"varint", "127", "127"},
		{"varint", "128", "128"},
		{"varint", "-128", "-128"},
		{"varint", "-129", "-129"},
		{"varint", "123456789012345678901234567890", "123456789012345678901234567890"},
		{"varint", "-123456789012345678901234567890", "-123456789012345678901234567890"},
		{"varint", "-9223372036854775809", "-9223372036854775809"},
		{"varint", strings.Repeat("9", 4300), strings.Repeat("9", 4300)},
		{"decimal", "-0." + strings.Repeat("0", 4000) + strings.Repeat("1", 4300), "-0." + strings.Repeat("0", 4000) + strings.Repeat("1", 4300)},
		{"varint", "18446744073709551616", "18446744073709551616"},
		{"float", "1.5", "1.5"},
		{"float", "-0.25", "-0.25"},
		{"float", "3.4028235e38", "3.4028235e+38"},
		{"float", "NaN", "NaN"},
		{"float", "Infinity", "+Inf"},
		{"float", "-Infinity", "-Inf"},
		{"float", "inf", "+Inf"},
		{"float", "1e-50", "0"},
		{"double", "3.141592653589793", "3.141592653589793"},
		{"double", "1e308", "1e+308"},
		{"double", ".5", "0.5"},
		{"double", "5.", "5"},
		{"double", "-1.5E-3", "-0.0015"},
		{"double", "nan", "NaN"},
		{"double", "-infinity", "-Inf"},
		{"double", "12", "12"},
		{"decimal", "1.50", "1.50"},
		{"decimal", "-0.001", "-0.001"},
		{"decimal", "100", "100"},
		{"decimal", "1E+2", "100"},
		{"decimal", "1.5e-3", "0.0015"},
		{"decimal", "12345678901234567890.123456789", "12345678901234567890.123456789"},
		{"decimal", "-12345678901234567890.5", "-12345678901234567890.5"},
		{"boolean", "True", "true"},
		{"boolean", "true", "true"},
		{"boolean", "FALSE", "false"},
		{"blob", "0x", "0x"},
		{"blob", "0x00ff10", "0x00ff10"},
		{"blob", "0XABcd", "0xabcd"},
		{"blob", "0x01 02\t03 ", "0x010203"}, // blanks between bytes, as bytes.fromhex skips them
		{"uuid", "01234567-89ab-cdef-0123-456789abcdef", "01234567-89ab-cdef-0123-456789abcdef"},
		{"uuid", "0123456789ABCDEF0123456789ABCDEF", "01234567-89ab-cdef-0123-456789abcdef"},
		{"uuid", "{01234567-89ab-cdef-0123-456789abcdef}", "01234567-89ab-cdef-0123-456789abcdef"},
		{"uuid", "urn:uuid:01234567-89ab-cdef-0123-456789abcdef", "01234567-89ab-cdef-0123-456789abcdef"},
		{"uuid", "0123-4567-89ab-cdef-0123-4567-89ab-cdef", "01234567-89ab-cdef-0123-456789abcdef"},
		{"uuid", "0123456789ab-cdef-0123-456789abcde-f", "01234567-89ab-cdef-0123-456789abcdef"},
		{"timeuuid", "d2177dd0-eaa2-11de-a572-001b779c76e3", "d2177dd0-eaa2-11de-a572-001b779c76e3"},
		{"inet", "127.0.0.1", "127.0.0.1"},
		{"inet", "::1", "::1"},
		{"inet", "2001:db8::8a2e:370:7334", "2001:db8::8a2e:370:7334"},
		{"inet", "::ffff:10.0.0.1", "10.0.0.1"},
	})
}

func TestScalarErrors(t *testing.T) {
	runErrCases(t, DefaultFormats(), []errCase{
		{"int", "12x", `invalid int "12x": not a number`},
		{"int", "", `invalid int "": empty value`},
		{"int", "  ", `invalid int "  ": empty value`},
		{"int", "-", `invalid int "-": not a number`},
		{"int", "1__0", `invalid int "1__0": not a number`},
		{"int", "_10", `invalid int "_10": not a number`},
		{"int", "10_", `invalid int "10_": not a number`},
		{"double", "1_.5", `invalid double "1_.5": not a number`},
		{"int", "1.5", `invalid int "1.5": not an integer`},
		{"int", "1e3", `invalid int "1e3": not an integer`},
		{"int", "NaN", `invalid int "NaN": not a number`},
		{"int", "3000000000", `int 3000000000 out of range [-2147483648, 2147483647]`},
		{"int", "-2147483649", `int -2147483649 out of range [-2147483648, 2147483647]`},
		{"int", "99999999999999999999999", `int 99999999999999999999999 out of range [-2147483648, 2147483647]`},
		{"tinyint", "128", `tinyint 128 out of range [-128, 127]`},
		{"smallint", "-32769", `smallint -32769 out of range [-32768, 32767]`},
		{"bigint", "9223372036854775808", `bigint 9223372036854775808 out of range [-9223372036854775808, 9223372036854775807]`},
		{"counter", "1,000", `invalid counter "1,000": not a number`},
		{"varint", "12a", `invalid varint "12a": not a number`},
		{"float", "1e39", `float 1e39 out of range [-3.4028235e+38, 3.4028235e+38]`},
		{"double", "1e400", `double 1e400 out of range [-1.7976931348623157e+308, 1.7976931348623157e+308]`},
		{"double", "0x10", `invalid double "0x10": not a number`},
		{"double", "1,5", `invalid double "1,5": not a number`},
		{"double", "abc", `invalid double "abc": not a number`},
		{"decimal", "NaN", `invalid decimal "NaN": NaN and Infinity are not decimal values`},
		{"decimal", "1.2.3", `invalid decimal "1.2.3": not a number`},
		{"decimal", "1e", `invalid decimal "1e": not a number`},
		{"decimal", "1e99999999999", `invalid decimal "1e99999999999": exponent out of range`},
		{"varint", strings.Repeat("9", 4301), `invalid varint "` + strings.Repeat("9", 64) + `…": more than 4300 digits`},
		{"decimal", "0." + strings.Repeat("1", 4301), `invalid decimal "0.` + strings.Repeat("1", 62) + `…": more than 4300 digits`},
		{"boolean", "yes", `invalid boolean "yes": not a boolean`},
		{"boolean", "", `invalid boolean "": not a boolean`},
		{"boolean", "1", `invalid boolean "1": not a boolean`},
		{"blob", "abcd", `invalid blob "abcd": a blob must be 0x followed by hex digits`},
		{"blob", "0xabc", `invalid blob "0xabc": after 0x, not pairs of hex digits`},
		{"blob", "0xzz", `invalid blob "0xzz": after 0x, not pairs of hex digits`},
		{"blob", "0x0 1", `invalid blob "0x0 1": after 0x, not pairs of hex digits`},
		{"uuid", "01234567-89ab-cdef-0123-456789abcde", `invalid uuid "01234567-89ab-cdef-0123-456789abcde": not a UUID`},
		{"uuid", "0123456789ab-cdef-0123-456789abcdef0", `invalid uuid "0123456789ab-cdef-0123-456789abcdef0": not a UUID`},
		{"uuid", "", `invalid uuid "": not a UUID`},
		{"uuid", "g1234567-89ab-cdef-0123-456789abcdef", `invalid uuid "g1234567-89ab-cdef-0123-456789abcdef": not a UUID`},
		{"timeuuid", "01234567-89ab-4def-8123-456789abcdef", `invalid timeuuid "01234567-89ab-4def-8123-456789abcdef": version 4 UUID, a timeuuid must be version 1`},
		{"inet", "1.2.3", `invalid inet "1.2.3": not an IPv4 or IPv6 address`},
		{"inet", "010.0.0.1", `invalid inet "010.0.0.1": not an IPv4 or IPv6 address`},
		{"inet", "0x7f.0.0.1", `invalid inet "0x7f.0.0.1": not an IPv4 or IPv6 address`},
		{"inet", "localhost", `invalid inet "localhost": not an IPv4 or IPv6 address`},
		{"inet", "fe80::1%eth0", `invalid inet "fe80::1%eth0": not an IPv4 or IPv6 address`},
		{"ascii", "héllo", `invalid ascii "héllo": not ASCII`},
		{"text", "a\xffb", `invalid text "a\xffb": not valid UTF-8`},
	})
}

func TestNumberFormats(t *testing.T) {
	eu := DefaultFormats()
	eu.DecimalSep, eu.ThousandsSep = ",", "."
	runConvCases(t, eu, []convCase{
		{"int", "1.234.567", "1234567"},
		{"bigint", "-1.000", "-1000"},
		{"varint", "123.456.789.012.345.678.901.234", "123456789012345678901234"},
		{"double", "1.234,5", "1234.5"},
		{"float", "0,25", "0.25"},
		{"decimal", "1.000,50", "1000.50"},
		{"double", "1.5", "15"}, // "." is the thousands separator here, as in cqlsh
	})
	runErrCases(t, eu, []errCase{
		{"int", "1..000", `invalid int "1..000": not a number`},
		{"int", ".100", `invalid int ".100": not a number`},
		{"int", "100.", `invalid int "100.": not a number`},
		{"int", "1,5", `invalid int "1,5": not an integer`},
	})
	us := DefaultFormats()
	us.ThousandsSep = ","
	runConvCases(t, us, []convCase{
		{"int", "1,000", "1000"},
		{"double", "1,234.5", "1234.5"},
		{"decimal", "-1,234.50", "-1234.50"},
	})
}

func TestBoolStyle(t *testing.T) {
	f := DefaultFormats()
	f.BoolStyle = [2]string{"Oui", "Non"}
	runConvCases(t, f, []convCase{
		{"boolean", "oui", "true"},
		{"boolean", "NON", "false"},
	})
	runErrCases(t, f, []errCase{
		{"boolean", "True", `invalid boolean "True": not a boolean`},
	})
}

func TestErrorValueTruncated(t *testing.T) {
	conv, err := NewConverter(mustType(t, "int"), DefaultFormats())
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("é", 100)
	_, err = conv(nil, []byte(long))
	var ce *ConvertError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v is not a ConvertError", err)
	}
	if want := strings.Repeat("é", 32) + "…"; ce.Value != want {
		t.Errorf("Value = %q, want %q", ce.Value, want)
	}
	if !errors.Is(err, errNotNumber) {
		t.Errorf("errors.Is(err, errNotNumber) = false for %v", err)
	}
}

func TestSerializedBytes(t *testing.T) {
	// A few exact encodings, independent of the driver.
	// The varint, decimal and duration cases were checked against the
	// DataStax Python driver's cqltypes serializers.
	cases := []struct{ typ, in, hex string }{
		{"varint", "-123456789012345678901234567890", "fe7116f0093c8c1f11b1c0f52e"},
		{"varint", "18446744073709551616", "010000000000000000"},
		{"varint", "-9223372036854775809", "ff7fffffffffffffff"},
		{"decimal", "-12345678901234567890.5", "00000001f94eb1607ed0c993c7"},
		{"duration", "1y2mo3w4d5h6m7s8ms9us10ns", "1c32fc2168cdf9d664"},
		{"duration", "-P0001-02-03T04:05:06", "1b05fc1ac003cfe7ff"},
		{"duration", "9223372036854775807ns", "0000fffffffffffffffffe"},
		{"duration", "-178956970y8mo", "f0ffffffff0000"},
		{"int", "1", "00000001"},
		{"int", "-1", "ffffffff"},
		{"bigint", "256", "0000000000000100"},
		{"varint", "128", "0080"},
		{"varint", "-129", "ff7f"},
		{"varint", "255", "00ff"},
		{"varint", "-1", "ff"},
		{"decimal", "1.50", "00000002" + "0096"},
		{"decimal", "1E+2", "fffffffe" + "01"},
		{"date", "1970-01-01", "80000000"},
		{"duration", "1mo2d3ns", "020406"},
		{"duration", "-1mo", "010000"},
		{"vector<float, 2>", "[1, 2]", "3f80000040000000"},
		{"vector<text, 2>", "['a', 'bc']", "01610262" + "63"},
		{"list<int>", "[1]", "00000001" + "00000004" + "00000001"},
		{"tuple<int, text>", "(1, null)", "00000004" + "00000001" + "ffffffff"},
		{"double", "NaN", "7ff8000000000000"},
		{"double", "-nan", "7ff8000000000000"},
		{"float", "+NaN", "7fc00000"},
		{"double", "-Infinity", "fff0000000000000"},
		{"float", "1.5", "3fc00000"},
	}
	for _, tc := range cases {
		conv, err := NewConverter(mustType(t, tc.typ), DefaultFormats())
		if err != nil {
			t.Fatal(err)
		}
		out, err := conv(nil, []byte(tc.in))
		if err != nil {
			t.Errorf("%s %q: %v", tc.typ, tc.in, err)
			continue
		}
		if got := hex.EncodeToString(out); got != tc.hex {
			t.Errorf("%s %q = %s, want %s", tc.typ, tc.in, got, tc.hex)
		}
	}
}

func TestCqlshEscapes(t *testing.T) {
	f := DefaultFormats()
	f.CqlshEscapes = true
	runConvCases(t, f, []convCase{
		{"text", `C:\\temp\\new`, `C:\temp\new`},
		{"text", `two\nlines\r\n\ttab`, "two\nlines\r\n\ttab"},
		{"text", `nul\x00 del\x7f nbsp\xa0`, "nul\x00 del\x7f nbsp\u00a0"},
		{"text", `plain`, `plain`},
		{"text", `unknown \q and \x4 kept`, `unknown \q and \x4 kept`},
		{"text", `ends with \`, `ends with \`},
		{"ascii", `a\\b\n`, "a\\b\n"},
		{"list<text>", `['a\\b', 'c\nd', 'it''s']`, "[a\\b c\nd it's]"},
	})
	runErrCases(t, f, []errCase{
		{"ascii", `\xe9`, `invalid ascii "\\xe9": not ASCII`},
		{"text", "\xff\\n", `invalid text "\xff\\n": not valid UTF-8`},
	})
	// Off (cqlsh COPY FROM's behaviour): the text is stored as written.
	runConvCases(t, DefaultFormats(), []convCase{
		{"text", `C:\\temp\n`, `C:\\temp\n`},
	})
}

func TestVerbatim(t *testing.T) {
	escapes := DefaultFormats()
	escapes.CqlshEscapes = true
	tests := []struct {
		typ     string
		f       Formats
		field   string
		want    bool
		hasFunc bool
	}{
		{"text", DefaultFormats(), "plain words", true, true},
		{"text", DefaultFormats(), "ünïcode", true, true},
		{"text", DefaultFormats(), "bad \xff utf8", false, true},
		{"text", DefaultFormats(), `back\slash`, true, true},
		{"text", escapes, `back\slash`, false, true},
		{"text", escapes, "no escapes", true, true},
		{"varchar", DefaultFormats(), "x", true, true},
		{"ascii", DefaultFormats(), "plain", true, true},
		{"ascii", DefaultFormats(), "ünïcode", false, true},
		{"ascii", escapes, `a\tb`, false, true},
		{"blob", DefaultFormats(), "0x00", false, false},
		{"int", DefaultFormats(), "1", false, false},
		{"list<text>", DefaultFormats(), "['a']", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.typ+"/"+tt.field, func(t *testing.T) {
			typ := mustType(t, tt.typ)
			v := Verbatim(typ, tt.f)
			if (v != nil) != tt.hasFunc {
				t.Fatalf("Verbatim(%s) = %v, want a check: %v", tt.typ, v != nil, tt.hasFunc)
			}
			if v == nil {
				return
			}
			if got := v([]byte(tt.field)); got != tt.want {
				t.Fatalf("check(%q) = %v, want %v", tt.field, got, tt.want)
			}
			conv, err := NewConverter(typ, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			out, err := conv(nil, []byte(tt.field))
			if tt.want && (err != nil || string(out) != tt.field) {
				t.Fatalf("a verbatim field converts to %q, %v", out, err)
			}
		})
	}
}

// TestParseUUIDCanonical: the canonical form's fast path reads what the
// general loop reads, and refuses what it refuses, whichever byte of the
// 36 is changed to whatever.
func TestParseUUIDCanonical(t *testing.T) {
	base := "123e4567-E89b-12d3-a456-42661417400f"
	check := func(s string) {
		var fast, loose [16]byte
		okFast := parseUUID([]byte(s), &fast)
		okLoose := parseUUIDLoose([]byte(s), &loose)
		if okFast != okLoose || okFast && fast != loose {
			t.Fatalf("%q: canonical path %v %x, general %v %x", s, okFast, fast, okLoose, loose)
		}
	}
	check(base)
	for i := range len(base) {
		for _, c := range []byte("-0aFgG/:@`{ \x00\xff") {
			b := []byte(base)
			b[i] = c
			check(string(b))
		}
	}
	var u [16]byte
	if !parseUUID([]byte(base), &u) || u != [16]byte{0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3, 0xa4, 0x56, 0x42, 0x66, 0x14, 0x17, 0x40, 0x0f} {
		t.Fatalf("%q read as %x", base, u)
	}
}
