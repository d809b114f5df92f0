package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cqlload/cqlload/loader"
)

// TestPrintReasons: the first shownReasons reasons, each with its first
// row and its rows, then one line for the rest pointing to the log.
func TestPrintReasons(t *testing.T) {
	reasons := func(n int) []loader.Reason {
		var rs []loader.Reason
		for i := range n {
			rs = append(rs, loader.Reason{Reason: fmt.Sprintf("reason %d", i), First: fmt.Sprintf("in.csv:%d", i+2), Rows: int64(i + 1)})
		}
		return rs
	}
	files := loader.Summary{ErrFiles: []string{"t.err"}, ErrLog: "t.err.log"}
	for _, tc := range []struct {
		name    string
		reasons []loader.Reason
		other   int64
		want    []string // the lines, in order
	}{
		{"none", nil, 0, nil},
		{"one row", reasons(1), 0, []string{"in.csv:2: reason 0 (1 row)"}},
		{"all shown", reasons(2), 0, []string{"in.csv:2: reason 0 (1 row)", "in.csv:3: reason 1 (2 rows)"}},
		{"more than shown", reasons(7), 0, []string{
			"in.csv:2: reason 0 (1 row)", "in.csv:3: reason 1 (2 rows)", "in.csv:4: reason 2 (3 rows)",
			"in.csv:5: reason 3 (4 rows)", "in.csv:6: reason 4 (5 rows)",
			"… and 2 more reasons for 13 rows: see t.err and t.err.log",
		}},
		{"a long reason cut", []loader.Reason{{Reason: strings.Repeat("é", 200), First: "in.csv:2", Rows: 3}}, 0, []string{
			"in.csv:2: " + strings.Repeat("é", 150) + "… (in full in t.err.log) (3 rows)",
		}},
		{"more than the summary keeps", reasons(6), 40, []string{
			"in.csv:2: reason 0 (1 row)", "in.csv:3: reason 1 (2 rows)", "in.csv:4: reason 2 (3 rows)",
			"in.csv:5: reason 3 (4 rows)", "in.csv:6: reason 4 (5 rows)",
			"… and more reasons for 46 rows: see t.err and t.err.log",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := files
			s.Reasons, s.OtherReasonRows = tc.reasons, tc.other
			var b strings.Builder
			printReasons(&b, s)
			var got []string
			if out := strings.TrimSuffix(b.String(), "\n"); out != "" {
				got = strings.Split(out, "\n")
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("printed:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
