package cqlscan

import (
	"reflect"
	"strings"
	"testing"
)

// TestParseSkipCols: SKIPCOLS splits on commas outside double quotes;
// bare names stay as written, quoted ones in their quotes.
func TestParseSkipCols(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  string
	}{
		{"a, B ,,c", []string{"a", "B", "c"}, ""},
		{`"x,y", Val`, []string{`"x,y"`, "Val"}, ""},
		{` "q""q" ,t[0], [timestamp], my col`, []string{`"q""q"`, "t[0]", "[timestamp]", "my col"}, ""},
		{`a"b, c`, []string{`a"b`, "c"}, ""},
		{"", nil, ""},
		{`"x" y`, nil, `expected , after the quoted name "x"`},
		{`"x`, nil, "unterminated quoted name"},
		// White space is read by rune, as the trimming of bare names
		// reads it: U+0085 and U+00A0 are blanks before a quoted name;
		// a lone byte 0x85 or 0xA0 is part of a name.
		{"\u0085\"x\"\u00a0, b", []string{`"x"`, "b"}, ""},
		{"\u0085\"", nil, "unterminated quoted name"},
		{"\x85a,\xa0\"b\"", []string{"\x85a", "\xa0\"b\""}, ""},
	}
	for _, tc := range tests {
		got, err := Names(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Names(%q) = %q, %v; want an error with %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Names(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}
