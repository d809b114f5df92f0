package loader

import (
	"fmt"
	"testing"
)

// TestReasonsGroup: rows wrong in the same way count as one reason
// (their quoted values and numbers differ), shown with the first row's
// reason and place; a group given for a row (a bad header's full
// reason) is what it counts and shows under.
func TestReasonsGroup(t *testing.T) {
	type row struct{ reason, group, where string }
	for _, tc := range []struct {
		name string
		rows []row
		want []Reason
	}{
		{"values differ", []row{
			{`column k: invalid int "x1": not a number`, "", "a.csv:2:1"},
			{`column k: invalid int "x\"2": not a number`, "", "a.csv:3:1"},
		}, []Reason{{`column k: invalid int "x1": not a number`, "a.csv:2:1", 2}}},
		{"field counts differ", []row{
			{"expected 3 fields, found 1", "", "a.csv:2:1"},
			{"expected 3 fields, found 5", "", "b.csv:9:1"},
		}, []Reason{{"expected 3 fields, found 1", "a.csv:2:1", 2}}},
		{"columns differ", []row{
			{`column k: invalid int "x": not a number`, "", "a.csv:2:1"},
			{`column v: invalid int "x": not a number`, "", "a.csv:3:4"},
			{`column k: invalid int "y": not a number`, "", "a.csv:4:1"},
		}, []Reason{
			{`column k: invalid int "x": not a number`, "a.csv:2:1", 2},
			{`column v: invalid int "x": not a number`, "a.csv:3:4", 1},
		}},
		{"a bad header's rows, by its reason", []row{
			{headerRef, "the file's header does not fit the table: the header names columns that ks.t does not have: nme", "a.csv:2"},
			{headerRef, "the file's header does not fit the table: the header names columns that ks.t does not have: nme", "a.csv:3"},
			{headerRef, "the file's header does not fit the table: the header names columns that ks.t does not have: vle", "b.csv:2"},
		}, []Reason{
			{"the file's header does not fit the table: the header names columns that ks.t does not have: nme", "a.csv:2", 2},
			{"the file's header does not fit the table: the header names columns that ks.t does not have: vle", "b.csv:2", 1},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rt reasonTable
			for _, r := range tc.rows {
				rt.add(r.reason, r.group, r.where)
			}
			got, other := rt.snapshot()
			if fmt.Sprint(got) != fmt.Sprint(tc.want) || other != 0 {
				t.Errorf("reasons %v (other %d), want %v", got, other, tc.want)
			}
		})
	}
}

// TestReasonsBounded: past MaxReasons distinct reasons, rows are only
// counted, so a file whose every row is wrong its own way holds no more.
func TestReasonsBounded(t *testing.T) {
	var rt reasonTable
	for i := range MaxReasons + 50 {
		for range 2 {
			rt.add(fmt.Sprintf("reason %c%c", 'a'+i%26, 'a'+i/26), "", fmt.Sprintf("a.csv:%d", i+1))
		}
	}
	got, other := rt.snapshot()
	if len(got) != MaxReasons || other != 100 {
		t.Fatalf("%d reasons and %d other rows, want %d and 100", len(got), other, MaxReasons)
	}
	if got[0].Rows != 2 || got[0].First != "a.csv:1" {
		t.Errorf("first reason %+v", got[0])
	}
}

// TestMergeReasons: the splits' reasons add up as one run's would: one
// form is one reason, with the first split's first row.
func TestMergeReasons(t *testing.T) {
	a := []Reason{{`column k: invalid int "x": not a number`, "a.csv:2:1", 3}, {"expected 2 fields, found 1", "a.csv:9:1", 1}}
	b := []Reason{{`column k: invalid int "y": not a number`, "a.csv:700:1", 4}, {"insert error: Batch too large", "a.csv:800", 2}}
	got, other := MergeReasons([][]Reason{a, b}, []int64{5, 6})
	want := []Reason{{`column k: invalid int "x": not a number`, "a.csv:2:1", 7}, {"expected 2 fields, found 1", "a.csv:9:1", 1}, {"insert error: Batch too large", "a.csv:800", 2}}
	if fmt.Sprint(got) != fmt.Sprint(want) || other != 11 {
		t.Errorf("merged %v (other %d), want %v (other 11)", got, other, want)
	}
}
