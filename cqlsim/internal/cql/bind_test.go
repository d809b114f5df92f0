package cql

import (
	"encoding/hex"
	"strings"
	"testing"
)

func TestMarkerReceivers(t *testing.T) {
	tests := []struct {
		typ, lit string
		want     string // "index:type:name" joined by "; ", or "!error"
	}{
		{"int", "?", "0:int:c"},
		{"int", ":x", "0:int:c"},
		{"int", "(int)?", "0:int:c"},
		{"int", "5", ""},
		{"tuple<int, text>", "(?, ?)", "0:int:c[0]; 1:text:c[1]"},
		{"tuple<int, frozen<tuple<text, blob>>>", "(1, (?, ?))", "0:text:c[1][0]; 1:blob:c[1][1]"},
		{"list<int>", "[?, 1, ?]", "0:int:value(c); 1:int:value(c)"},
		{"set<text>", "{?}", "0:text:value(c)"},
		{"map<text, int>", "{?: ?, 'k': :v}", "0:text:key(c); 1:int:value(c); 2:int:value(c)"},
		{"vector<float, 2>", "[?, ?]", "0:float:value(c); 1:float:value(c)"},
		{"frozen<addr>", "{street: ?, zip: ?}", "0:text:c.street; 1:int:c.zip"},
		{"frozen<addr>", "{nope: ?}", "!unknown field 'nope'"},
		{"int", "[?]", "!invalid list literal [?] for c of type int"},
		{"tuple<int>", "(?, ?)", "!invalid tuple literal"},
		{"map<text, int>", "{}", ""},
		{"timestamp", "toTimestamp(?)", "!bind markers as arguments of totimestamp() are not supported"},
	}
	for _, tc := range tests {
		var got []string
		err := MarkerReceivers(testType(t, tc.typ), "c", literal(t, tc.lit), func(m *BindMarker, typ *Type, name string) {
			got = append(got, strings.Join([]string{string(rune('0' + m.Index)), typ.String(), name}, ":"))
		})
		if strings.HasPrefix(tc.want, "!") {
			if err == nil || !strings.Contains(err.Error(), tc.want[1:]) {
				t.Errorf("MarkerReceivers(%s, %s) error = %v, want %q", tc.typ, tc.lit, err, tc.want[1:])
			}
			continue
		}
		if err != nil {
			t.Errorf("MarkerReceivers(%s, %s): %v", tc.typ, tc.lit, err)
			continue
		}
		if s := strings.Join(got, "; "); s != tc.want {
			t.Errorf("MarkerReceivers(%s, %s) = %q, want %q", tc.typ, tc.lit, s, tc.want)
		}
	}
}

func TestEncodeBound(t *testing.T) {
	one, two := unhex(t, "00000001"), unhex(t, "00000002")
	tests := []struct {
		typ, lit string
		values   [][]byte
		want     string
	}{
		{"int", "?", [][]byte{one}, "00000001"},
		{"int", "?", [][]byte{nil}, ""},
		{"tuple<int, int>", "(?, ?)", [][]byte{one, nil}, "00000004 00000001 ffffffff"},
		{"tuple<int, text>", "(?, 'x')", [][]byte{two}, "00000004 00000002 00000001 78"},
		{"set<int>", "{?, ?, 1}", [][]byte{two, one}, "00000002 00000004 00000001 00000004 00000002"},
		{"map<int, int>", "{?: :v}", [][]byte{one, two}, "00000001 00000004 00000001 00000004 00000002"},
		{"frozen<addr>", "{zip: ?}", [][]byte{two}, "ffffffff 00000004 00000002"},
		{"list<int>", "[?]", [][]byte{nil}, "!null is not supported inside collections"},
		{"int", "?", [][]byte{unhex(t, "0001")}, "!bound value 0: invalid int value"},
		{"tuple<int, int>", "(?, ?)", [][]byte{one}, "!no value bound for marker ? (index 1 of 1)"},
	}
	for _, tc := range tests {
		got, err := EncodeBound(testType(t, tc.typ), literal(t, tc.lit), tc.values)
		if strings.HasPrefix(tc.want, "!") {
			if err == nil || !strings.Contains(err.Error(), tc.want[1:]) {
				t.Errorf("EncodeBound(%s, %s) = %x, %v; want error %q", tc.typ, tc.lit, got, err, tc.want[1:])
			}
			continue
		}
		if err != nil {
			t.Errorf("EncodeBound(%s, %s): %v", tc.typ, tc.lit, err)
			continue
		}
		if want := strings.ReplaceAll(tc.want, " ", ""); hex.EncodeToString(got) != want {
			t.Errorf("EncodeBound(%s, %s) = %x, want %s", tc.typ, tc.lit, got, want)
		}
	}
	// Without values, markers are refused as by EncodeTerm.
	if _, err := EncodeBound(testType(t, "int"), literal(t, "?"), nil); err == nil {
		t.Error("EncodeBound with no values accepted a marker")
	}
}
