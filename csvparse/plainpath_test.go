package csvparse

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestSpecialByteAtEveryPosition puts a quote, an escape, a lone CR or a
// CRLF at every position of a line long enough for the vectorised
// searches' wide paths, and checks the fields, read through the Splitter
// (whose chunks take the plain path) and by a Reader alone: the byte
// that rules the plain path out must be found wherever it sits.
func TestSpecialByteAtEveryPosition(t *testing.T) {
	const width = 100
	for _, tc := range []struct {
		name, special string
		// want gives the records' fields for a line a + special + b.
		want func(a, b string) [][]string
	}{
		{"quote", `"`, func(a, b string) [][]string { return [][]string{{a + `"` + b, "tail"}, {"next"}} }},
		{"escaped delimiter", `\,`, func(a, b string) [][]string { return [][]string{{a + "," + b, "tail"}, {"next"}} }},
		{"escape", `\x`, func(a, b string) [][]string { return [][]string{{a + `\x` + b, "tail"}, {"next"}} }}, // an escape before an ordinary byte is kept
		{"lone CR", "\r", func(a, b string) [][]string { return [][]string{{a}, {b, "tail"}, {"next"}} }},
		{"delimiter", ",", func(a, b string) [][]string { return [][]string{{a, b, "tail"}, {"next"}} }},
	} {
		for p := 1; p < width; p++ {
			a, b := strings.Repeat("a", p), strings.Repeat("b", width-p)
			data := a + tc.special + b + ",tail\r\nnext\n"
			want := tc.want(a, b)
			d := DefaultDialect()
			d.Escape = '\\'
			whole := fieldsOf(readChunk(t, &Chunk{Data: []byte(data), FirstLine: 1}, d))
			_, recs := split(t, NewSplitter([]Source{memSource("f", []byte(data), false)}, d, 10, 0), d)
			split := fieldsOf(recs)
			for what, got := range map[string][][]string{"Reader": whole, "Splitter": split} {
				if !slices.EqualFunc(got, want, slices.Equal) {
					t.Fatalf("%s at %d, %s: got %q, want %q", tc.name, p, what, got, want)
				}
			}
		}
	}
}

func fieldsOf(recs []rec) [][]string {
	out := make([][]string, len(recs))
	for i, r := range recs {
		if r.Err != "" {
			out[i] = []string{fmt.Sprintf("error: %s", r.Err)}
			continue
		}
		out[i] = r.Fields
	}
	return out
}
