package cql

import (
	"encoding/hex"
	"reflect"
	"strings"
	"testing"
	"time"
)

// testTypes resolves type strings, with the UDT addr(street text, zip int) in keyspace ks.
func testType(t testing.TB, s string) *Type {
	t.Helper()
	typ, err := mustType(t, s).ResolveUDTs("ks", udtLookup(map[string]string{"ks.addr": "street text;zip int"}))
	if err != nil {
		t.Fatal(err)
	}
	return typ
}

// literal parses one CQL term.
func literal(t testing.TB, src string) Term {
	t.Helper()
	st, err := Parse("INSERT INTO t (a) VALUES (" + src + ")")
	if err != nil {
		t.Fatalf("literal %q: %v", src, err)
	}
	return st.(*Insert).Values[0]
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatalf("bad test hex %q", s)
	}
	return b
}

func TestEncodeTerm(t *testing.T) {
	tests := []struct {
		typ, lit string
		want     string // hex, or "!substring" of the expected error
	}{
		{"int", "42", "0000002a"}, {"int", "-1", "ffffffff"}, {"int", "2147483647", "7fffffff"},
		{"int", "2147483648", "!invalid int literal 2147483648: out of range"},
		{"int", "'x'", "!invalid STRING constant (x) for type int"},
		{"int", "1.5", "!invalid FLOAT constant"},
		{"bigint", "-2", "fffffffffffffffe"}, {"counter", "5", "0000000000000005"},
		{"smallint", "300", "012c"}, {"smallint", "40000", "!out of range"},
		{"tinyint", "-128", "80"}, {"tinyint", "128", "!out of range"},
		{"varint", "0", "00"}, {"varint", "127", "7f"}, {"varint", "128", "0080"}, {"varint", "256", "0100"},
		{"varint", "-1", "ff"}, {"varint", "-128", "80"}, {"varint", "-129", "ff7f"},
		{"varint", "123456789012345678901234567890", "018ee90ff6c373e0ee4e3f0ad2"},
		{"float", "1.5", "3fc00000"}, {"float", "3", "40400000"}, {"float", "NaN", "7fc00000"},
		{"float", "-Infinity", "ff800000"}, {"float", "1e39", "!out of range"},
		{"double", "1.5", "3ff8000000000000"}, {"double", "1e-3", "3f50624dd2f1a9fc"},
		{"double", "Infinity", "7ff0000000000000"}, {"double", "true", "!invalid BOOLEAN constant"},
		{"decimal", "1.50", "00000002 0096"}, {"decimal", "-1e3", "fffffffd ff"}, {"decimal", "0", "00000000 00"},
		{"decimal", "12.5E-1", "00000002 7d"},
		{"boolean", "true", "01"}, {"boolean", "FALSE", "00"}, {"boolean", "1", "!invalid INTEGER constant"},
		{"text", "'héllo'", "68c3a96c6c6f"}, {"varchar", "$$it's$$", "69742773"}, {"text", "''", ""},
		{"ascii", "'abc'", "616263"}, {"ascii", "'é'", "!non-ASCII"},
		{"blob", "0xCAFE", "cafe"}, {"blob", "0x", ""}, {"blob", "0xABC", "!odd length"}, {"blob", "'ab'", "!invalid STRING constant"},
		{"uuid", "123e4567-e89b-12d3-a456-426614174000", "123e4567e89b12d3a456426614174000"},
		{"timeuuid", "a1b2c3d4-0000-1000-8000-00000000cafe", "a1b2c3d4000010008000 00000000cafe"},
		{"timeuuid", "123e4567-e89b-42d3-a456-426614174000", "!not a version 1 uuid"},
		{"uuid", "'123e4567-e89b-12d3-a456-426614174000'", "!invalid STRING constant"},
		{"inet", "'127.0.0.1'", "7f000001"}, {"inet", "'::1'", "00000000000000000000000000000001"},
		{"inet", "'::ffff:1.2.3.4'", "00000000000000000000ffff01020304"}, {"inet", "'localhost'", "!unable to make inet address"},
		{"timestamp", "'2024-01-02 03:04:05.678+0000'", "0000018cc820db2e"},
		{"timestamp", "'2024-01-02T03:04:05.678Z'", "0000018cc820db2e"},
		{"timestamp", "'2024-01-02 03:04:05.678'", "0000018cc820db2e"},
		{"timestamp", "'2024-01-02T03:04:05Z'", "0000018cc820d888"},
		{"timestamp", "'2024-01-02 04:04:05+01:00'", "0000018cc820d888"},
		{"timestamp", "'2024-01-02 04:04:05+0100'", "0000018cc820d888"},
		{"timestamp", "'2024-01-02 02:04:05-0100'", "0000018cc820d888"},
		{"timestamp", "'2024-01-02'", "0000018cc7785000"}, {"timestamp", "'2024-01-02+0000'", "0000018cc7785000"},
		{"timestamp", "'2024-01-02 03:04'", "0000018cc820c500"}, {"timestamp", "'2024-01-02 03:04:05 +0000'", "0000018cc820d888"},
		{"timestamp", "'2024-01-02 03:04:05.1234567890'", "!fractional"},
		{"timestamp", "1704164645678", "0000018cc820db2e"}, {"timestamp", "'1704164645678'", "0000018cc820db2e"},
		{"timestamp", "-1", "ffffffffffffffff"},
		{"timestamp", "'yesterday'", "!invalid timestamp literal 'yesterday': unable to coerce 'yesterday' to a formatted date (long)"},
		{"timestamp", "'2024-01-02 03:04:05 UTC'", "0000018cc820d888"}, {"timestamp", "'2024-01-02T03:04:05 gmt'", "0000018cc820d888"},
		{"timestamp", "99999999999999999999", "!out of range"},
		{"timestamp", "'2024-13-01'", "!invalid timestamp literal"},
		{"date", "'2024-01-02'", "80004d0c"}, {"date", "'1970-01-01'", "80000000"}, {"date", "'1969-12-31'", "7fffffff"},
		{"date", "2147483648", "80000000"}, {"date", "'2147483649'", "80000001"},
		{"date", "'2023-02-29'", "!unable to coerce '2023-02-29' to a formatted date"}, {"date", "4294967296", "!out of range"},
		{"date", "'2024-1-2'", "!unable to coerce"}, {"date", "'-5877641-06-23'", "00000000"}, {"date", "'-5877641-06-22'", "!out of the supported range"},
		{"time", "'03:04:05.123456789'", "00000a0ba4a8ff15"}, {"time", "'00:00:00'", "0000000000000000"},
		{"time", "1000", "00000000000003e8"}, {"time", "'24:00:00'", "!hour out of bounds"}, {"time", "'1:2'", "!unable to coerce '1:2' to a formatted time"}, {"time", "86400000000000", "!out of range"},
		{"duration", "1h30m", durHex(0, 0, 5400e9)},
		{"duration", "-P1D", durHex(0, -1, 0)}, {"duration", "P1Y2M3DT4H5M6S", durHex(14, 3, (4*3600+5*60+6)*1e9)},
		{"duration", "P2W", durHex(0, 14, 0)}, {"duration", "P0001-02-03T04:05:06", durHex(14, 3, (4*3600+5*60+6)*1e9)},
		{"duration", "1mo2d3ms4us5ns", durHex(1, 2, 3004005)}, {"duration", "'1h'", "!invalid STRING constant"},
		{"duration", "9223372036854775807ns", durHex(0, 0, 1<<63-1)}, {"duration", "2562048h", "!out of range"},
		{"duration", "9223372036854775807ns1ns", "!out of range"}, {"duration", "2147483648mo", "!32 bits"},
		{"duration", "99999999999999999999y", "!invalid duration"},
		{"list<int>", "[1, 2]", "00000002 00000004 00000001 00000004 00000002"},
		{"list<int>", "[]", "00000000"},
		{"list<int>", "[1, null]", "!null is not supported inside collections"},
		{"set<int>", "{3, 1, 3}", "00000002 00000004 00000001 00000004 00000003"},
		{"set<text>", "{}", "00000000"},
		{"map<text, int>", "{'b': 2, 'a': 1}", "00000002 00000001 61 00000004 00000001 00000001 62 00000004 00000002"},
		{"map<text, int>", "{'a': 1, 'a': 2}", "00000001 00000001 61 00000004 00000002"},
		{"map<text, int>", "{}", "00000000"},
		{"frozen<list<frozen<set<int>>>>", "[{1}]", "00000001 0000000c 00000001 00000004 00000001"},
		{"tuple<int, text>", "(1, 'a')", "00000004 00000001 00000001 61"},
		{"tuple<int, text>", "(1, null)", "00000004 00000001 ffffffff"},
		{"tuple<int, text>", "(1, 'a', 2)", "!too many elements"},
		{"frozen<addr>", "{street: 'x', zip: 5}", "00000001 78 00000004 00000005"},
		{"frozen<addr>", "{zip: 5}", "ffffffff 00000004 00000005"},
		{"frozen<addr>", "{'zip': 5}", "!invalid map literal {'zip': 5} for type frozen<addr>"},
		{"frozen<addr>", "{nope: 1}", "!unknown field 'nope'"},
		{"vector<float, 2>", "[1.0, 2.0]", "3f800000 40000000"},
		{"vector<float, 2>", "[1.0]", "!expected 2 elements, got 1"},
		{"vector<text, 2>", "['a', 'bc']", "01 61 02 6263"},
		{"'com.example.T'", "0x01", "01"},
		{"counter", "null", "!invalid null value for counter"},
		{"int", "?", "!bind marker ? cannot be encoded"},
		{"int", ":x", "!bind marker :x cannot be encoded"},
		{"int", "(int)42", "0000002a"},
		{"int", "[1]", "!invalid list literal [1] for type int"},
		{"int", "now()", "!function now() cannot produce a value of type int"},
	}
	for _, tc := range tests {
		typ := testType(t, tc.typ)
		got, err := EncodeTerm(typ, literal(t, tc.lit))
		if strings.HasPrefix(tc.want, "!") {
			if err == nil || !strings.Contains(err.Error(), tc.want[1:]) {
				t.Errorf("EncodeTerm(%s, %s) = %x, %v; want error containing %q", tc.typ, tc.lit, got, err, tc.want[1:])
			}
			continue
		}
		if err != nil {
			t.Errorf("EncodeTerm(%s, %s): %v", tc.typ, tc.lit, err)
			continue
		}
		if want := strings.ReplaceAll(tc.want, " ", ""); hex.EncodeToString(got) != want {
			t.Errorf("EncodeTerm(%s, %s) = %x, want %s", tc.typ, tc.lit, got, want)
		}
		if got == nil {
			t.Errorf("EncodeTerm(%s, %s) = nil (null), want a value", tc.typ, tc.lit)
		}
		if err := Validate(typ, got); err != nil {
			t.Errorf("Validate(%s, EncodeTerm(%s)) = %v", tc.typ, tc.lit, err)
		}
	}
}

// durHex is the expected serialized duration, built independently of
// appendVarint for the small values used in the tests (zig-zag then
// Cassandra's vint, whose first byte's leading ones count the extra bytes).
func durHex(months, days, nanos int64) string {
	var out []byte
	for _, v := range []int64{months, days, nanos} {
		z := uint64(v<<1) ^ uint64(v>>63)
		var enc []byte
		switch {
		case z < 1<<7:
			enc = []byte{byte(z)}
		default:
			n := 1
			for z >= 1<<(7*(n+1)) && n < 8 {
				n++
			}
			// n extra bytes; the first byte holds 7-n value bits.
			enc = make([]byte, n+1)
			for i := n; i >= 0; i-- {
				enc[i] = byte(z)
				z >>= 8
			}
			enc[0] |= ^byte(0xff >> n)
		}
		out = append(out, enc...)
	}
	return hex.EncodeToString(out)
}

func TestEncodeNull(t *testing.T) {
	for _, typ := range []string{"int", "text", "list<int>", "frozen<addr>", "duration"} {
		b, err := EncodeTerm(testType(t, typ), literal(t, "null"))
		if err != nil || b != nil {
			t.Errorf("EncodeTerm(%s, null) = %x, %v; want nil, nil", typ, b, err)
		}
	}
}

func TestEncodeFunctions(t *testing.T) {
	at := time.Date(2024, 1, 2, 3, 4, 5, 678_000_000, time.UTC)
	clock := func() time.Time { return at }
	tests := []struct {
		typ, lit, want string
	}{
		{"timestamp", "toTimestamp(now())", "0000018cc820db2e"},
		{"timestamp", "currentTimestamp()", "0000018cc820db2e"},
		{"timestamp", "'now'", "0000018cc820db2e"}, {"timestamp", "'NOW'", "0000018cc820db2e"},
		{"bigint", "toUnixTimestamp(now())", "0000018cc820db2e"},
		{"date", "currentDate()", "80004d0c"},
		{"date", "toDate(now())", "80004d0c"},
		{"time", "currentTime()", hex.EncodeToString(mustEncode(t, "time", "'03:04:05.678'"))},
	}
	for _, tc := range tests {
		got, err := encodeTerm(testType(t, tc.typ), literal(t, tc.lit), &encodeEnv{now: clock})
		if err != nil || hex.EncodeToString(got) != tc.want {
			t.Errorf("%s as %s = %x, %v; want %s", tc.lit, tc.typ, got, err, tc.want)
		}
	}
	for _, typ := range []string{"timeuuid", "uuid"} {
		u, err := encodeTerm(testType(t, typ), literal(t, "now()"), &encodeEnv{now: clock})
		if err != nil || len(u) != 16 || u[6]>>4 != 1 || u[8]>>6 != 2 {
			t.Fatalf("now() as %s = %x, %v", typ, u, err)
		}
		// 100ns intervals since 1582-10-15.
		if got, want := uuidTime(u), uint64(at.UnixNano()/100)+0x01B21DD213814000; got != want {
			t.Errorf("now() time = %d, want %d", got, want)
		}
	}
	a, _ := EncodeTerm(testType(t, "uuid"), literal(t, "uuid()"))
	b, _ := EncodeTerm(testType(t, "uuid"), literal(t, "uuid()"))
	if len(a) != 16 || a[6]>>4 != 4 || string(a) == string(b) {
		t.Errorf("uuid() = %x, %x: want distinct version 4 uuids", a, b)
	}
}

func mustEncode(t testing.TB, typ, lit string) []byte {
	t.Helper()
	b, err := EncodeTerm(testType(t, typ), literal(t, lit))
	if err != nil {
		t.Fatalf("EncodeTerm(%s, %s): %v", typ, lit, err)
	}
	return b
}

func TestValidate(t *testing.T) {
	tests := []struct {
		typ string
		hex string
		ok  bool
	}{
		{"int", "00000001", true}, {"int", "", true}, {"int", "000001", false}, {"int", "0000000001", false},
		{"bigint", "0000000000000001", true}, {"bigint", "", true}, {"bigint", "00000001", false},
		{"counter", "0000000000000001", true}, {"counter", "01", false},
		{"smallint", "0001", true}, {"smallint", "", false}, {"smallint", "000001", false},
		{"tinyint", "01", true}, {"tinyint", "", false}, {"tinyint", "0001", false},
		{"float", "3fc00000", true}, {"float", "", true}, {"float", "3fc0", false},
		{"double", "3ff8000000000000", true}, {"double", "", true}, {"double", "3ff80000", false},
		{"boolean", "01", true}, {"boolean", "00", true}, {"boolean", "", true}, {"boolean", "0001", false},
		{"decimal", "00000002 0096", true}, {"decimal", "", true}, {"decimal", "000002", false}, {"decimal", "00000000", true},
		{"varint", "00ff", true}, {"varint", "", true}, {"varint", "0000000000000000000001", true},
		{"text", "68c3a96c6c6f", true}, {"text", "", true}, {"text", "c3", false}, {"text", "ff", false}, {"varchar", "eda080", false},
		{"ascii", "616263", true}, {"ascii", "", true}, {"ascii", "6180", false},
		{"blob", "", true}, {"blob", "00ff", true},
		{"uuid", "123e4567e89b42d3a456426614174000", true}, {"uuid", "", true}, {"uuid", "123e4567e89b42d3a4564266141740", false},
		{"timeuuid", "a1b2c3d4000010008000 00000000cafe", true}, {"timeuuid", "", true},
		{"timeuuid", "123e4567e89b42d3a456426614174000", false}, {"timeuuid", "a1b2c3d40000100080", false},
		{"inet", "7f000001", true}, {"inet", "00000000000000000000000000000001", true}, {"inet", "", true},
		{"inet", "7f0000", false}, {"inet", "7f00000100", false},
		{"timestamp", "0000018cc820db2e", true}, {"timestamp", "", true}, {"timestamp", "00", false},
		{"date", "80000000", true}, {"date", "", false}, {"date", "800000", false},
		{"time", "0000000000000000", true}, {"time", "00004e94914effff", true},
		{"time", "00004e94914f0000", false}, {"time", "ffffffffffffffff", false}, {"time", "", false},
		{"duration", "000000", true}, {"duration", durHex(1, 2, 3), true}, {"duration", durHex(-1, -2, -3), true},
		{"duration", durHex(1, -2, 3), false}, {"duration", "0000", false}, {"duration", "", false},
		{"duration", "000000 00", true}, {"duration", "00 00 c0", false},
		{"duration", durHex(1<<31, 0, 0), false},
		{"list<int>", "00000000", true}, {"list<int>", "00000001 00000004 00000001", true},
		{"list<int>", "", false}, {"list<int>", "000000", false}, {"list<int>", "ffffffff", false},
		{"list<int>", "00000001 ffffffff", false}, {"list<int>", "00000001 00000004 000001", false},
		{"list<int>", "00000001 00000003 000001", false}, {"list<int>", "00000001 00000004 00000001 00", false},
		{"list<int>", "00000002 00000004 00000001", false},
		{"set<text>", "00000001 00000001 ff", false}, {"set<text>", "00000001 00000001 61", true},
		{"map<text, int>", "00000001 00000001 61 00000004 00000001", true},
		{"map<text, int>", "00000001 00000001 61", false}, {"map<text, int>", "00000001 00000001 61 00000002 0001", false},
		{"frozen<list<frozen<list<int>>>>", "00000001 0000000c 00000001 00000004 00000001", true},
		{"frozen<list<frozen<list<int>>>>", "00000001 0000000b 00000001 00000003 000001", false},
		{"tuple<int, text>", "00000004 00000001 00000001 61", true},
		{"tuple<int, text>", "00000004 00000001", true}, {"tuple<int, text>", "", true},
		{"tuple<int, text>", "ffffffff ffffffff", true},
		{"tuple<int, text>", "00000004 00000001 00000001 61 00000000", false},
		{"tuple<int, text>", "00000002 0001", false}, {"tuple<int, text>", "000000", false},
		{"tuple<int, text>", "00000004 000000", false},
		{"frozen<addr>", "00000001 78 00000004 00000005", true}, {"frozen<addr>", "ffffffff 00000004 00000005", true},
		{"frozen<addr>", "00000001 78 00000003 000005", false}, {"frozen<addr>", "00000001 ff", false},
		{"vector<float, 2>", "3f800000 40000000", true}, {"vector<float, 2>", "3f800000", false},
		{"vector<float, 2>", "", false}, {"vector<float, 2>", "3f800000 40000000 00", false},
		{"vector<text, 2>", "01 61 02 6263", true}, {"vector<text, 2>", "01 61 03 6263", false},
		{"vector<text, 2>", "01 61 02 6263 00", false}, {"vector<text, 2>", "01 ff 00", false},
		{"'com.example.T'", "00ff", true},
	}
	for _, tc := range tests {
		typ := testType(t, tc.typ)
		err := Validate(typ, unhex(t, tc.hex))
		if (err == nil) != tc.ok {
			t.Errorf("Validate(%s, %s) = %v, want ok=%v", tc.typ, tc.hex, err, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "invalid") {
			t.Errorf("Validate(%s, %s) error %q does not say what is invalid", tc.typ, tc.hex, err)
		}
	}
	if err := Validate(testType(t, "int"), nil); err != nil {
		t.Errorf("Validate(int, null) = %v", err)
	}
}

func TestValidateDoesNotAllocate(t *testing.T) {
	cases := []struct{ typ, lit string }{
		{"int", "1"}, {"text", "'héllo'"}, {"ascii", "'abc'"}, {"timeuuid", "a1b2c3d4-0000-1000-8000-00000000cafe"},
		{"duration", "1h30m"}, {"map<text, frozen<list<int>>>", "{'a': [1, 2], 'b': [3]}"},
		{"frozen<addr>", "{street: 'x', zip: 5}"}, {"tuple<int, text>", "(1, 'a')"}, {"vector<float, 2>", "[1.0, 2.0]"},
		{"vector<text, 2>", "['a', 'b']"}, {"time", "'01:02:03'"}, {"decimal", "1.5"},
	}
	for _, c := range cases {
		typ := testType(t, c.typ)
		b := mustEncode(t, c.typ, c.lit)
		if n := testing.AllocsPerRun(100, func() { _ = Validate(typ, b) }); n != 0 {
			t.Errorf("Validate(%s) allocates %.0f times per call", c.typ, n)
		}
	}
}

func TestCompareOrder(t *testing.T) {
	tests := []struct {
		typ  string
		lits []string // ascending
	}{
		{"int", []string{"-2147483648", "-5", "0", "3", "2147483647"}},
		{"bigint", []string{"-9223372036854775808", "-1", "0", "256", "9223372036854775807"}},
		{"smallint", []string{"-300", "-1", "0", "1", "300"}},
		{"tinyint", []string{"-128", "-1", "0", "127"}},
		{"varint", []string{"-100000000000000000000", "-129", "-1", "0", "1", "255", "100000000000000000000"}},
		{"decimal", []string{"-1e3", "-999.9", "-1.5", "-0.001", "0", "1e-300", "0.001", "0.0011", "0.999", "1", "1.000001", "1.5", "1.51",
			"999.99", "1e3", "1001", "99999999999999999999e-10", "1E+30", "1000000000000000000000000000001"}},
		{"float", []string{"-Infinity", "-1.5", "-0.0", "0.0", "1", "Infinity", "NaN"}},
		{"double", []string{"-Infinity", "-1e300", "-0.0", "0", "1e-300", "1.5", "Infinity", "NaN"}},
		{"text", []string{"''", "'A'", "'a'", "'ab'", "'b'", "'é'"}},
		{"ascii", []string{"''", "'A'", "'a'", "'ab'"}},
		{"blob", []string{"0x", "0x00", "0x0001", "0x01", "0xff"}},
		{"boolean", []string{"false", "true"}},
		{"timestamp", []string{"'1969-01-01'", "-1", "0", "'2024-01-01'", "'2024-01-01 00:00:00.001'"}},
		{"date", []string{"'1969-12-31'", "'1970-01-01'", "'2024-01-02'"}},
		{"time", []string{"'00:00:00'", "'00:00:00.000000001'", "'12:00:00'", "'23:59:59.999999999'"}},
		{"inet", []string{"'::1'", "'1.2.3.4'", "'10.0.0.1'", "'255.0.0.0'"}},
		{"uuid", []string{
			"00000001-0000-1000-8000-000000000000", // v1, early
			"00000000-0001-1000-8000-000000000000", // v1, later: time_mid outranks time_low
			"00000000-0000-1001-8000-000000000000", // v1, latest: time_hi
			"00000000-0000-4000-8000-000000000000", // v4 after every v1
			"ffffffff-0000-4000-8000-000000000000",
		}},
		{"timeuuid", []string{
			"ffffffff-ffff-1000-8000-000000000000",
			"00000000-0000-1001-8080-000000000000", // low bytes compare as signed bytes: 0x80 < 0x00
			"00000000-0000-1001-8000-000000000000",
			"00000000-0000-1001-0000-000000000000",
			"00000000-0000-1001-7f00-000000000000",
		}},
		{"frozen<list<int>>", []string{"[]", "[-1]", "[1]", "[1, 2]", "[2]"}},
		{"frozen<set<int>>", []string{"{}", "{1}", "{1, 2}", "{2}"}},
		{"frozen<map<int, text>>", []string{"{}", "{1: 'a'}", "{1: 'b'}", "{1: 'b', 2: 'a'}", "{2: 'a'}"}},
		{"tuple<int, text>", []string{"(-1, 'z')", "(1)", "(1, null)", "(1, 'a')", "(2, 'a')"}},
		{"frozen<addr>", []string{"{street: 'a'}", "{street: 'a', zip: 1}", "{street: 'b', zip: 0}"}},
		{"vector<float, 2>", []string{"[-1.0, 5.0]", "[1.0, 2.0]", "[1.0, 3.0]", "[2.0, 0.0]"}},
	}
	for _, tc := range tests {
		typ := testType(t, tc.typ)
		vals := make([][]byte, len(tc.lits))
		for i, l := range tc.lits {
			vals[i] = mustEncode(t, tc.typ, l)
		}
		for i := range vals {
			for j := range vals {
				want := cmpInt(i, j)
				if got := Compare(typ, vals[i], vals[j]); got != want {
					t.Errorf("Compare(%s, %s, %s) = %d, want %d", tc.typ, tc.lits[i], tc.lits[j], got, want)
				}
			}
		}
	}
	// Null and empty sort first; equal decimals of different scale are equal.
	intT := testType(t, "int")
	if Compare(intT, nil, []byte{}) != 0 || Compare(intT, []byte{}, mustEncode(t, "int", "-5")) != -1 {
		t.Error("empty int values must sort first")
	}
	decT := testType(t, "decimal")
	for _, pair := range [][2]string{{"1.5", "1.50"}, {"1e-5", "0.00001"}, {"123456789e-3", "123456.789"}, {"-1e3", "-1000.000"}, {"0", "0e10"}} {
		if c := Compare(decT, mustEncode(t, "decimal", pair[0]), mustEncode(t, "decimal", pair[1])); c != 0 {
			t.Errorf("Compare(decimal %s, %s) = %d, want 0", pair[0], pair[1], c)
		}
	}
}

func TestFormat(t *testing.T) {
	tests := []struct{ typ, lit, want string }{
		{"int", "-42", "-42"}, {"bigint", "9223372036854775807", "9223372036854775807"}, {"tinyint", "-1", "-1"},
		{"varint", "-129", "-129"}, {"decimal", "1.50", "1.50"}, {"decimal", "-0.001", "-0.001"}, {"decimal", "1e3", "1E+3"},
		{"float", "1.5", "1.5"}, {"double", "NaN", "NaN"}, {"double", "-Infinity", "-Infinity"},
		{"boolean", "true", "true"}, {"text", "'it''s'", "'it''s'"}, {"blob", "0xCAFE", "0xcafe"},
		{"uuid", "123e4567-e89b-12d3-a456-426614174000", "123e4567-e89b-12d3-a456-426614174000"},
		{"inet", "'127.0.0.1'", "'127.0.0.1'"}, {"inet", "'::1'", "'::1'"},
		{"timestamp", "'2024-01-02 03:04:05.678+0000'", "'2024-01-02T03:04:05.678Z'"},
		{"date", "'2024-01-02'", "'2024-01-02'"}, {"date", "'1969-12-31'", "'1969-12-31'"},
		{"time", "'03:04:05.123456789'", "'03:04:05.123456789'"},
		{"duration", "1h30m", "1h30m"}, {"duration", "-P1Y2M3DT4H", "-1y2mo3d4h"}, {"duration", "1ms500us", "1ms500us"},
		{"list<int>", "[1, 2]", "[1, 2]"}, {"set<text>", "{'b', 'a'}", "{'a', 'b'}"},
		{"map<text, int>", "{'a': 1}", "{'a': 1}"}, {"tuple<int, text>", "(1, null)", "(1, null)"},
		{"frozen<addr>", "{zip: 5}", "{street: null, zip: 5}"}, {"vector<float, 2>", "[1.0, 2.5]", "[1, 2.5]"},
		{"vector<text, 2>", "['a', 'b']", "['a', 'b']"},
	}
	for _, tc := range tests {
		if got := Format(testType(t, tc.typ), mustEncode(t, tc.typ, tc.lit)); got != tc.want {
			t.Errorf("Format(%s, %s) = %s, want %s", tc.typ, tc.lit, got, tc.want)
		}
	}
	big := make([]byte, 2000)
	big[0] = 1
	if got := Format(testType(t, "varint"), big); !strings.HasPrefix(got, "0x01") {
		t.Errorf("Format(varint of 2000 bytes) = %.20s…, want hex", got)
	}
	intT := testType(t, "int")
	for _, c := range []struct {
		b    []byte
		want string
	}{{nil, "null"}, {[]byte{}, "<empty>"}, {[]byte{1, 2}, "0x0102"}} {
		if got := Format(intT, c.b); got != c.want {
			t.Errorf("Format(int, %x) = %s, want %s", c.b, got, c.want)
		}
	}
}

func TestVint(t *testing.T) {
	tests := []struct {
		v    uint64
		want string
	}{
		{0, "00"}, {1, "01"}, {127, "7f"}, {128, "8080"}, {0x3fff, "bfff"}, {0x4000, "c04000"},
		{1<<56 - 1, "feffffffffffffff"}, {1 << 56, "ff0100000000000000"}, {1<<64 - 1, "ffffffffffffffffff"},
	}
	for _, tc := range tests {
		got := appendUvarint(nil, tc.v)
		if hex.EncodeToString(got) != tc.want {
			t.Errorf("appendUvarint(%d) = %x, want %s", tc.v, got, tc.want)
		}
		v, n, ok := readUvarint(got)
		if !ok || v != tc.v || n != len(got) {
			t.Errorf("readUvarint(%x) = %d, %d, %v", got, v, n, ok)
		}
	}
	for _, v := range []int64{0, 1, -1, 63, -64, 1 << 40, -1 << 63, 1<<63 - 1} {
		b := appendVarint(nil, v)
		if got, n, ok := readVarint(b); !ok || got != v || n != len(b) {
			t.Errorf("signed vint %d round trip = %d", v, got)
		}
	}
}

// TestVectorsOfOtherTypes covers every element type. Cassandra's VectorType
// lays out back to back only the elements of types whose
// valueLengthIfFixed is set (boolean, int, float, bigint, timestamp, double,
// uuid, timeuuid, and vectors of them); every other element, smallint,
// tinyint, date and time included, follows its unsigned vint length.
func TestVectorsOfOtherTypes(t *testing.T) {
	tests := []struct{ typ, lit, want string }{
		// Fixed-length: no lengths.
		{"vector<boolean, 2>", "[true, false]", "01 00"},
		{"vector<int, 2>", "[1, -1]", "00000001 ffffffff"},
		{"vector<float, 2>", "[1.0, 2.0]", "3f800000 40000000"},
		{"vector<bigint, 1>", "[2]", "0000000000000002"},
		{"vector<double, 1>", "[1.5]", "3ff8000000000000"},
		{"vector<timestamp, 1>", "[1000]", "00000000000003e8"},
		{"vector<uuid, 1>", "[123e4567-e89b-12d3-a456-426614174000]", "123e4567e89b12d3a456426614174000"},
		{"vector<timeuuid, 1>", "[50554d6e-29bb-11e5-b345-feff819cdc9f]", "50554d6e29bb11e5b345feff819cdc9f"},
		{"vector<vector<float, 2>, 2>", "[[1.0, 2.0], [3.0, 4.0]]", "3f800000 40000000 40400000 40800000"},
		// Variable-length: each element after its length.
		{"vector<smallint, 2>", "[1, 2]", "02 0001 02 0002"},
		{"vector<tinyint, 3>", "[1, -1, 0]", "01 01 01 ff 01 00"},
		{"vector<date, 1>", "['1970-01-01']", "04 80000000"},
		{"vector<time, 1>", "[1000]", "08 00000000000003e8"},
		{"vector<text, 2>", "['a', '']", "01 61 00"},
		{"vector<ascii, 1>", "['ab']", "02 6162"},
		{"vector<blob, 1>", "[0xcafe]", "02 cafe"},
		{"vector<varint, 1>", "[128]", "02 0080"},
		{"vector<decimal, 1>", "[1.5]", "05 00000001 0f"},
		{"vector<inet, 1>", "['127.0.0.1']", "04 7f000001"},
		{"vector<duration, 1>", "[1d]", "03 000200"},
		{"vector<frozen<list<int>>, 2>", "[[1], []]", "0c 00000001 00000004 00000001 04 00000000"},
		{"vector<frozen<set<int>>, 1>", "[{2}]", "0c 00000001 00000004 00000002"},
		{"vector<frozen<map<int, int>>, 1>", "[{1: 2}]", "14 00000001 00000004 00000001 00000004 00000002"},
		{"vector<frozen<tuple<int>>, 1>", "[(1)]", "08 00000004 00000001"},
		{"vector<vector<smallint, 1>, 2>", "[[1], [2]]", "03 02 0001 03 02 0002"},
	}
	for _, tc := range tests {
		typ := testType(t, tc.typ)
		got := mustEncode(t, tc.typ, tc.lit)
		if want := strings.ReplaceAll(tc.want, " ", ""); hex.EncodeToString(got) != want {
			t.Errorf("EncodeTerm(%s, %s) = %x, want %s", tc.typ, tc.lit, got, want)
		}
		if err := Validate(typ, got); err != nil {
			t.Errorf("Validate(%s, %x) = %v", tc.typ, got, err)
		}
		if err := Validate(typ, got[:len(got)-1]); err == nil {
			t.Errorf("Validate(%s) accepted a truncated value", tc.typ)
		}
		if f := Format(typ, got); strings.HasPrefix(f, "0x") {
			t.Errorf("Format(%s) = %s, want a literal", tc.typ, f)
		}
	}
	// Packed smallints, tinyints, dates and times are not what Cassandra reads.
	for _, tc := range []struct{ typ, hex string }{
		{"vector<smallint, 2>", "00010002"},
		{"vector<tinyint, 2>", "0102"},
		{"vector<date, 1>", "80000000"},
		{"vector<time, 1>", "00000000000003e8"},
	} {
		b, _ := hex.DecodeString(tc.hex)
		if err := Validate(testType(t, tc.typ), b); err == nil {
			t.Errorf("Validate(%s, %s) accepted elements without lengths", tc.typ, tc.hex)
		}
	}
}

func TestTermStringRoundTrip(t *testing.T) {
	for _, lit := range []string{
		"'it''s'", "-5", "1.5e3", "true", "null", "NaN", "-Infinity", "0xcafe",
		"123e4567-e89b-12d3-a456-426614174000", "1h30m", "?", ":name",
		"[1, 2]", "{'a', 'b'}", "{'k': [1]}", "(1, 'x', null)", "{street: 'x', \"Zip\": 5}", "{}",
		"totimestamp(now())", "(int)?",
	} {
		term := literal(t, lit)
		again := literal(t, TermString(term))
		if !reflect.DeepEqual(term, again) {
			t.Errorf("TermString(%s) = %s, which parses differently", lit, TermString(term))
		}
	}
}
