package loader

import (
	"strings"
	"testing"

	"github.com/cqlload/cqlload/csvparse"
)

func TestSplitSearchHint(t *testing.T) {
	const gb = 1 << 30
	ranges := func(sizes ...int64) []csvparse.Source {
		var out []csvparse.Source
		for _, n := range sizes {
			out = append(out, csvparse.Source{Size: n})
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		searched int64
		sources  []csvparse.Source
		want     string // in the hint; "" for none
	}{
		{"small search", gb / 2, ranges(gb / 100), ""},
		{"search near its own size", 3 * gb, ranges(gb), ""},
		{"big search, small range", 7 * gb, ranges(gb), "7.5 GB of the input before them, 7 times its own 1.1 GB"},
		{"names the plan", 7 * gb, ranges(gb), "--write-split-plan"},
		{"ranges add up", 10 * gb, ranges(gb, gb, gb), ""},
		{"nothing of its own", 5 * gb, ranges(0), ""},
	} {
		got := splitSearchHint(tc.searched, tc.sources)
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
