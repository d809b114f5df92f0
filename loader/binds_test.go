package loader

import (
	"testing"

	"github.com/cqlload/cqlload/schema"
)

// TestPlanBindsEveryMarkerOnce: whatever the columns are called, each
// field fills markers of its own and the write timestamp one of its own.
// Columns named as a bind name would be ("[timestamp]", "t[0]" beside a
// tuple t) used to share a marker with it, leaving the other null.
func TestPlanBindsEveryMarkerOnce(t *testing.T) {
	typ := func(s string) *schema.Type {
		ty, err := schema.ParseType(s)
		if err != nil {
			t.Fatal(err)
		}
		return ty
	}
	col := func(name, ty string, kind schema.ColumnKind) *schema.Column {
		return &schema.Column{Name: name, Type: typ(ty), Kind: kind}
	}
	tests := []struct {
		name string
		cols []*schema.Column
	}{
		{"timestamp and ttl", []*schema.Column{
			col("k", "int", schema.PartitionKey), col("[timestamp]", "bigint", schema.Regular),
			col("[ttl]", "int", schema.Regular), col("USING TIMESTAMP", "int", schema.Regular),
			col("timestamp", "int", schema.Regular),
		}},
		{"tuple elements", []*schema.Column{
			col("k", "int", schema.PartitionKey), col("t", "tuple<int, text>", schema.Regular),
			col("t[0]", "int", schema.Regular), col("t[1]", "text", schema.Regular),
			col("[timestamp]", "text", schema.Regular),
		}},
		{"tuple key", []*schema.Column{
			col("k", "frozen<tuple<int, int>>", schema.PartitionKey), col("k[0]", "int", schema.Clustering),
			col("k[1]", "int", schema.Regular),
		}},
		{"counter with tuple key", []*schema.Column{
			col("k", "frozen<tuple<int, int>>", schema.PartitionKey), col("k[0]", "counter", schema.Regular),
			col("k[1]", "counter", schema.Regular), col("[timestamp]", "counter", schema.Regular),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tbl, err := schema.NewTable("ks", "t", tt.cols)
			if err != nil {
				t.Fatal(err)
			}
			o := DefaultOptions()
			p, err := newPlan(tbl, tbl.Columns, noUsing, &o)
			if err != nil {
				t.Fatal(err)
			}
			owner := make([]string, p.nbind)
			claim := func(b int, who string) {
				if b < 0 || b >= p.nbind {
					t.Fatalf("%s: bind %d out of %d", who, b, p.nbind)
				}
				if owner[b] != "" {
					t.Fatalf("bind %d filled by both %s and %s (statement %s)", b, owner[b], who, p.stmt)
				}
				owner[b] = who
			}
			for _, pf := range p.fields {
				for j := range max(pf.tuple, 1) {
					claim(pf.bind+j, "column "+pf.col.Name)
				}
			}
			if tbl.Counter != (p.tsBind < 0) {
				t.Fatalf("tsBind %d for a counter table %v", p.tsBind, tbl.Counter)
			}
			if p.tsBind >= 0 {
				claim(p.tsBind, "the write timestamp")
			}
			for b, who := range owner {
				if who == "" {
					t.Errorf("bind %d filled by nothing (statement %s)", b, p.stmt)
				}
			}
			for i, c := range tbl.PartitionKey {
				if p.pk[i] != p.fields[c.Index].bind {
					t.Errorf("routing key part %d at bind %d, column %s at %d", i, p.pk[i], c.Name, p.fields[c.Index].bind)
				}
			}
		})
	}
}
