package loader

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
func FuzzParseColumns(f *testing.F) {
	for _, s := range []string{`a, "B,c", "q""q"`, "Val,val", `"[timestamp]","t[0]"`, "ünï", "a--b", `"x" y`, ",", `""`, "my col"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if cols, err := ParseColumns(in); err == nil {
			for _, c := range cols {
				if _, quoted := schema.UnquoteIdent(c); !quoted && (c != strings.ToLower(c) || !bareIdent(c)) {
					t.Fatalf("ParseColumns(%q) gave %q, neither quoted nor a lower-case identifier", in, c)
				}
			}
			again, err := ParseColumns(strings.Join(cols, ","))
			if err != nil || !reflect.DeepEqual(again, cols) {
				t.Fatalf("ParseColumns(%q) = %q, which reads back as %q, %v", in, cols, again, err)
			}
		}
		if names, err := parseNames(in); err == nil {
			again, err := parseNames(strings.Join(names, ","))
			if err != nil || !reflect.DeepEqual(again, names) {
				t.Fatalf("parseNames(%q) = %q, which reads back as %q, %v", in, names, again, err)
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
		if got, err := ParseColumns(list); err != nil || !reflect.DeepEqual(got, quoted) {
			t.Fatalf("ParseColumns(%q) = %q, %v; want %q", list, got, err, quoted)
		}
		if got, err := parseNames(list); err != nil || !reflect.DeepEqual(got, quoted) {
			t.Fatalf("parseNames(%q) = %q, %v; want %q", list, got, err, quoted)
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

// FuzzHeaderColumns: a header of any names, in a table of any column
// names, maps each field to the column of exactly its name when there is
// one, and to no other column equal to it but for case when there are
// two; a mapping it gives always makes a plan.
func FuzzHeaderColumns(f *testing.F) {
	for _, s := range [][3]string{
		{"Val\nval", "k,Val,val", ""}, {"Val\nval", "k,VAL", ""}, {"Val\nval", "k,VAL,val", "VAL"},
		{"[timestamp]\nt[0]", "k,t[0],[timestamp]", ""}, {"a,b\nq\"q", "k\na,b", `"a,b"`}, {"x", "K,X", "x"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, names, header, skip string) {
		cols := []*schema.Column{{Name: "k", Type: &schema.Type{Kind: schema.KindInt}, Kind: schema.PartitionKey}}
		seen := map[string]bool{"k": true}
		for _, n := range strings.Split(names, "\n") {
			if !seen[n] {
				seen[n] = true
				cols = append(cols, &schema.Column{Name: n, Type: &schema.Type{Kind: schema.KindInt}})
			}
		}
		tbl, err := schema.NewTable("ks", "t", cols)
		if err != nil {
			t.Fatal(err)
		}
		o := DefaultOptions()
		if err := o.SetOption("SKIPCOLS", skip); err != nil {
			return
		}
		fields := strings.Split(header, "\n")
		l := &Loader{table: tbl, opts: o}
		got, err := l.fileColumns(true, fields)
		if err != nil {
			return
		}
		if len(got) != len(fields) {
			t.Fatalf("%d columns for %d fields", len(got), len(fields))
		}
		for i, c := range got {
			if c == nil {
				continue
			}
			if c.Name == fields[i] {
				continue
			}
			var ambiguous int
			for _, other := range tbl.Columns {
				if other.Name == fields[i] {
					t.Fatalf("field %q mapped to %q, not to the column of its exact name", fields[i], c.Name)
				}
				if strings.EqualFold(other.Name, fields[i]) {
					ambiguous++
				}
			}
			if ambiguous > 1 {
				t.Fatalf("field %q mapped to %q, one of %d columns equal to it but for case", fields[i], c.Name, ambiguous)
			}
		}
		if _, err := newPlan(tbl, got, &o); err != nil {
			var dup bool
			for i := range got {
				for j := range i {
					dup = dup || got[i] != nil && got[i] == got[j]
				}
			}
			if !dup && !strings.Contains(err.Error(), "missing from the input") {
				t.Fatalf("mapping %v makes no plan: %v", got, err)
			}
		}
	})
}
