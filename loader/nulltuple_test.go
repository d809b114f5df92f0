package loader

import (
	"strings"
	"testing"

	"github.com/cqlload/cqlload/schema"
)

// TestNullTupleRow: a row whose top-level tuple columns are null gets a
// statement that writes them as the literal null (or leaves them out, with
// NULLMODE unset) and its values without their element markers.
func TestNullTupleRow(t *testing.T) {
	typ := func(s string) *schema.Type {
		ty, err := schema.ParseType(s)
		if err != nil {
			t.Fatal(err)
		}
		return ty
	}
	cols := []*schema.Column{
		{Name: "k", Type: typ("int"), Kind: schema.PartitionKey},
		{Name: "a", Type: typ("tuple<int, text>")},
		{Name: "b", Type: typ("tuple<int, int, int>")},
		{Name: "v", Type: typ("text")},
	}
	tbl, err := schema.NewTable("ks", "t", cols)
	if err != nil {
		t.Fatal(err)
	}
	file := []*schema.Column{tbl.Columns[0], cols[1], cols[2], cols[3]}
	tests := []struct {
		name     string
		mode     NullMode
		mask     uint64
		stmt     []string // fragments in order
		notStmt  string
		keepVals []int // positions of the full row's values kept
	}{
		{"a null", NullWrite, 1, []string{"(k,a,b,v)", "VALUES (?,null,(?,?,?),?)"}, "", []int{0, 3, 4, 5, 6, 7}},
		{"b null", NullWrite, 2, []string{"(k,a,b,v)", "VALUES (?,(?,?),null,?)"}, "", []int{0, 1, 2, 6, 7}},
		{"both null", NullWrite, 3, []string{"VALUES (?,null,null,?)"}, "", []int{0, 6, 7}},
		{"a unset", NullUnset, 1, []string{"(k,b,v)", "VALUES (?,(?,?,?),?)"}, "a", []int{0, 3, 4, 5, 6, 7}},
	}
	for _, tt := range tests {
		o := DefaultOptions()
		o.NullMode = tt.mode
		p, err := newPlan(tbl, file, noUsing, &o)
		if err != nil {
			t.Fatal(err)
		}
		if p.nbind != 8 || len(p.tuples) != 2 {
			t.Fatalf("%s: %d binds, %d tuples; want 8 (k, a×2, b×3, v, timestamp), 2", tt.name, p.nbind, len(p.tuples))
		}
		vals := make([]any, p.nbind)
		for i := range vals {
			vals[i] = i
		}
		stmt, got := p.nullTupleRow(vals, tt.mask)
		rest := strings.ReplaceAll(stmt, " ", "")
		for _, f := range tt.stmt {
			i := strings.Index(rest, strings.ReplaceAll(f, " ", ""))
			if i < 0 {
				t.Fatalf("%s: statement %q lacks %q", tt.name, stmt, f)
			}
			rest = rest[i:]
		}
		if tt.notStmt != "" && strings.Contains(strings.ReplaceAll(stmt, " ", ""), ","+tt.notStmt+",") {
			t.Errorf("%s: statement %q still names %s", tt.name, stmt, tt.notStmt)
		}
		if strings.Count(stmt, "?") != len(got) {
			t.Errorf("%s: %d markers in %q, %d values", tt.name, strings.Count(stmt, "?"), stmt, len(got))
		}
		for i, want := range tt.keepVals {
			if i >= len(got) || got[i] != want {
				t.Fatalf("%s: values %v, want positions %v", tt.name, got, tt.keepVals)
			}
		}
		if again, _ := p.nullTupleRow(vals, tt.mask); again != stmt {
			t.Errorf("%s: cached statement differs: %q, %q", tt.name, again, stmt)
		}
	}
}
