package cqlscan

import (
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/cqlload/cqlload/schema"
)

// FuzzParseColumns: the column list parser (COPY's list, --columns) and
// SKIPCOLS' never panic; what they accept reads back the same when
// written out again; and any names, each written as a quoted identifier,
// come back exactly, commas, quotes and all.
func FuzzColumns(f *testing.F) {
	for _, s := range []string{`a, "B,c", "q""q"`, "Val,val", `"[timestamp]","t[0]"`, "ünï", "a--b", `"x" y`, ",", `""`, "my col", "\u0085\"", "\xa0\"b\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if cols, err := Columns(in); err == nil {
			for _, c := range cols {
				if _, quoted := schema.UnquoteIdent(c); !quoted && (c != strings.ToLower(c) || !bareIdent(c)) {
					t.Fatalf("Columns(%q) gave %q, neither quoted nor a lower-case identifier", in, c)
				}
			}
			again, err := Columns(strings.Join(cols, ","))
			if err != nil || !reflect.DeepEqual(again, cols) {
				t.Fatalf("Columns(%q) = %q, which reads back as %q, %v", in, cols, again, err)
			}
		}
		if names, err := Names(in); err == nil {
			again, err := Names(strings.Join(names, ","))
			if err != nil || !reflect.DeepEqual(again, names) {
				t.Fatalf("Names(%q) = %q, which reads back as %q, %v", in, names, again, err)
			}
		}
		if !utf8.ValidString(in) {
			return
		}
		names := strings.Split(in, "\n")
		quoted := make([]string, len(names))
		for i, n := range names {
			quoted[i] = `"` + strings.ReplaceAll(n, `"`, `""`) + `"`
		}
		list := strings.Join(quoted, ", ")
		if got, err := Columns(list); err != nil || !reflect.DeepEqual(got, quoted) {
			t.Fatalf("Columns(%q) = %q, %v; want %q", list, got, err, quoted)
		}
		if got, err := Names(list); err != nil || !reflect.DeepEqual(got, quoted) {
			t.Fatalf("Names(%q) = %q, %v; want %q", list, got, err, quoted)
		}
	})
}

func bareIdent(s string) bool {
	for _, r := range s {
		if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return s != ""
}
