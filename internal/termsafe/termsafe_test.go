package termsafe

import (
	"strings"
	"testing"
)

func TestName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"data/rows.csv", "data/rows.csv"},
		{"s3://bucket/2024 exports/naïve.csv", "s3://bucket/2024 exports/naïve.csv"},
		{"\x1b[2Jrows.csv", `"\x1b[2Jrows.csv"`},
		{"a\rb", `"a\rb"`},
		{"line\nbreak", `"line\nbreak"`},
		{"tab\there", `"tab\there"`},
		{"bell\a", `"bell\a"`},
		{"del\x7f", `"del\x7f"`},
		{"c1\u009b2J", `"c1\u009b2J"`},
		{"rlo\u202etxt.csv", `"rlo\u202etxt.csv"`},
		{"bad\xffutf8", `"bad\xffutf8"`},
		{"", ""},
	} {
		if got := Name(tc.in); got != tc.want {
			t.Errorf("Name(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestWriter(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain line\n", "plain line\n"},
		{"\rProcessed: 1 rows\t(100%)\n", "\rProcessed: 1 rows\t(100%)\n"},
		{"cqlload: \x1b[2J.csv: no such file\n", "cqlload: \\x1b[2J.csv: no such file\n"},
		{"bell\a del\x7f c1\u009b naïve\n", "bell\\a del\\x7f c1\\u009b naïve\n"},
	} {
		var b strings.Builder
		n, err := Writer(&b).Write([]byte(tc.in))
		if err != nil || n != len(tc.in) {
			t.Errorf("Write(%q): %d, %v", tc.in, n, err)
		}
		if b.String() != tc.want {
			t.Errorf("Write(%q) wrote %q, want %q", tc.in, b.String(), tc.want)
		}
	}
}
