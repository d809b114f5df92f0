package schema

import (
	"errors"
	"strings"
	"testing"
)

// fuzzTable is a table whose columns are named by the lines of names
// (repeats dropped), after a key column k.
func fuzzTable(t *testing.T, names string) *Table {
	cols := []*Column{{Name: "k", Type: &Type{Kind: KindInt}, Kind: PartitionKey}}
	seen := map[string]bool{"k": true}
	for _, n := range strings.Split(names, "\n") {
		if !seen[n] {
			seen[n] = true
			cols = append(cols, &Column{Name: n, Type: &Type{Kind: KindInt}})
		}
	}
	tb, err := NewTable("ks", "t", cols)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// FuzzNamed: in a table of any column names, a header name finds the
// column of exactly that name when there is one; otherwise its quoted
// form's or the only column equal to it but for case; two such columns
// are an error naming them, none ErrNoColumn. Every column is found by
// its own name, and by its name as a quoted identifier.
func FuzzNamed(f *testing.F) {
	for _, s := range [][2]string{
		{"Val\nval", "VAL"}, {"Val\nval", "Val"}, {"[timestamp]\nt[0]", "T[0]"}, {`"q"` + "\nq", `"q"`},
		{"a,b\nA,B", "a,B"}, {"ünï\nÜNÏ", "üNï"}, {"K", "k"}, {"ſ\ns", "S"}, {"", `""`},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, names, name string) {
		tb := fuzzTable(t, names)
		for _, c := range tb.Columns {
			if got, err := tb.Named(c.Name); got != c {
				t.Fatalf("Named(%q) = %v, %v; want its own column", c.Name, got, err)
			}
			if got, err := tb.Ident(`"` + strings.ReplaceAll(c.Name, `"`, `""`) + `"`); got != c {
				t.Fatalf("Ident of %q quoted = %v, %v; want its own column", c.Name, got, err)
			}
		}
		var folded []*Column
		for _, c := range tb.Columns {
			if strings.EqualFold(c.Name, name) {
				folded = append(folded, c)
			}
		}
		exact := tb.exact(name)
		var quoted *Column
		if u, ok := UnquoteIdent(name); ok {
			quoted = tb.exact(u)
		}
		got, err := tb.Named(name)
		var ae *AmbiguousError
		switch {
		case exact != nil:
			if got != exact {
				t.Fatalf("Named(%q) = %v, %v; want the column of exactly that name", name, got, err)
			}
		case quoted != nil:
			if got != quoted {
				t.Fatalf("Named(%q) = %v, %v; want the column it names as a quoted identifier", name, got, err)
			}
		case len(folded) == 1:
			if got != folded[0] {
				t.Fatalf("Named(%q) = %v, %v; want the one column equal but for case, %q", name, got, err, folded[0].Name)
			}
		case len(folded) > 1:
			if got != nil || !errors.As(err, &ae) || len(ae.Columns) != len(folded) {
				t.Fatalf("Named(%q) = %v, %v; want an error naming the %d columns equal but for case", name, got, err, len(folded))
			}
		default:
			if got != nil || !errors.Is(err, ErrNoColumn) {
				t.Fatalf("Named(%q) = %v, %v; want ErrNoColumn", name, got, err)
			}
		}
		if got, err := tb.Ident(name); err == nil && got == nil {
			t.Fatalf("Ident(%q): no column and no error", name)
		}
	})
}
