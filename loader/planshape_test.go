package loader

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cqlload/cqlload/schema"
)

// TestPlanStatementByColumns: a plan's statement names its columns in
// the table's order, so files whose headers hold the same columns in
// any order share one statement (prepared once: Loader.planFor shares
// its caches by text), and each field still binds its own column.
// Before, the statement followed the file's order: every order was one
// more statement, prepared with its batch forms on every node.
func TestPlanStatementByColumns(t *testing.T) {
	typ := func(s string) *schema.Type {
		ty, err := schema.ParseType(s)
		if err != nil {
			t.Fatal(err)
		}
		return ty
	}
	tbl, err := schema.NewTable("ks", "t", []*schema.Column{
		{Name: "k", Type: typ("int"), Kind: schema.PartitionKey},
		{Name: "a", Type: typ("tuple<int, text>")},
		{Name: "b", Type: typ("tuple<int, int, int>")},
		{Name: "v", Type: typ("text")},
	})
	if err != nil {
		t.Fatal(err)
	}
	col := func(n string) *schema.Column {
		c, ok := tbl.Column(n)
		if !ok {
			t.Fatalf("no column %s", n)
		}
		return c
	}
	// Binds in table order: k 0, a 1-2, b 3-5, v 6 (then the timestamp).
	bindOf := map[string]int{"k": 0, "a": 1, "b": 3, "v": 6}
	tupleOf := map[string]int{"a": 0, "b": 1}
	o := DefaultOptions()
	var first string
	for _, header := range [][]string{
		{"k", "a", "b", "v"},
		{"v", "b", "k", "a"},
		{"b", "k", "v", "a"},
		{"a", "v", "k", "b"},
	} {
		var file []*schema.Column
		for _, n := range header {
			file = append(file, col(n))
		}
		p, err := newPlan(tbl, file, noUsing, &o)
		if err != nil {
			t.Fatal(err)
		}
		if first == "" {
			first = p.stmt
		}
		if p.stmt != first {
			t.Errorf("header %v: statement %q, want the first header's %q", header, p.stmt, first)
		}
		for i, n := range header {
			f := p.fields[i]
			if f.col.Name != n || f.bind != bindOf[n] {
				t.Errorf("header %v: field %d (%s) binds %d, want %d", header, i, f.col.Name, f.bind, bindOf[n])
			}
			if ti, ok := tupleOf[n]; ok && (f.tupleIdx != ti || p.tuples[ti].bind != bindOf[n]) {
				t.Errorf("header %v: tuple %s is tuple %d at bind %d, want %d at %d", header, n, f.tupleIdx, p.tuples[f.tupleIdx].bind, ti, bindOf[n])
			}
		}
		// A null b: the statement writes b as null, whatever the file's order.
		stmt, _ := p.nullTupleRow(make([]any, p.nbind), 1<<tupleOf["b"])
		if !strings.Contains(strings.ReplaceAll(stmt, " ", ""), "VALUES(?,(?,?),null,?") {
			t.Errorf("header %v: null b gives %q", header, stmt)
		}
	}
	// Other columns: another statement.
	p, err := newPlan(tbl, []*schema.Column{col("v"), col("k")}, noUsing, &o)
	if err != nil {
		t.Fatal(err)
	}
	if p.stmt == first || !strings.Contains(p.stmt, "(k,v)") {
		t.Errorf("columns k, v: statement %q", p.stmt)
	}
	// Loader.planFor: a plan per file, one cache per statement text.
	ho := DefaultOptions()
	ho.Dialect.Header = true
	l := &Loader{table: tbl, opts: ho, plans: map[int]*plan{}}
	var plans []*plan
	for i, h := range [][]string{{"k", "a", "b", "v"}, {"v", "b", "k", "a"}, {"k", "v"}, {"v", "k"}} {
		p, err := l.planFor(i, fmt.Sprintf("%d.csv", i), h, len(h))
		if err != nil {
			t.Fatal(err)
		}
		plans = append(plans, p)
	}
	if plans[0] == plans[1] || plans[0].cache != plans[1].cache || plans[2].cache != plans[3].cache || plans[0].cache == plans[2].cache {
		t.Errorf("caches %p %p %p %p: want the first two shared, the last two shared, and the pairs apart",
			plans[0].cache, plans[1].cache, plans[2].cache, plans[3].cache)
	}
	if len(l.stmts) != 2 {
		t.Errorf("%d statements cached, want 2", len(l.stmts))
	}
}
