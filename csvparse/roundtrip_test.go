package csvparse

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// TestCqlshCopyToRoundTrip loads a file written by Python's csv module
// with the dialect cqlsh COPY TO uses by default (quote '"', escape '\',
// doublequote off, CRLF), next to the values it was written from: what
// cqlsh exports must load back unchanged.
func TestCqlshCopyToRoundTrip(t *testing.T) {
	data, err := os.ReadFile("testdata/cqlsh_copy_to.csv")
	if err != nil {
		t.Fatal(err)
	}
	js, err := os.ReadFile("testdata/cqlsh_copy_to.json")
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	if err := json.Unmarshal(js, &rows); err != nil {
		t.Fatal(err)
	}
	d := dialect(func(d *Dialect) { d.Header = true })
	for _, k := range []int{1, 4, 100} {
		chunks, recs := split(t, NewSplitter([]Source{memSource("export.csv", data, false)}, d, k, 0), d)
		if !reflect.DeepEqual(chunks[0].Header, rows[0]) {
			t.Errorf("header %q, want %q", chunks[0].Header, rows[0])
		}
		var got [][]string
		for _, r := range recs {
			if r.Err != "" {
				t.Fatalf("line %d: %s", r.Line, r.Err)
			}
			got = append(got, r.Fields)
		}
		if !reflect.DeepEqual(got, rows[1:]) {
			t.Errorf("k=%d: got\n%q\nwant\n%q", k, got, rows[1:])
		}
	}
}
