package loader

import (
	"strings"
	"testing"

	"github.com/cqlload/cqlload/schema"
)

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
		got, _, err := l.fileColumns(true, fields)
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
		if _, err := newPlan(tbl, got, noUsing, &o); err != nil {
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
