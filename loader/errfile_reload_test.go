package loader

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestErrFileReloadsWithSkipRows: an error file loads again, once fixed,
// with the command that wrote it, SKIPROWS included: after its header it
// holds a placeholder record for each skipped row, which the reload
// skips instead of the first rejected rows.
func TestErrFileReloadsWithSkipRows(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.t (k int PRIMARY KEY, v text);`, nil)
	for _, tc := range []struct {
		name     string
		header   bool
		skipRows int
	}{
		{"header, skip 2", true, 2},
		{"no header, skip 1", false, 1},
		{"header, no skip", true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var in strings.Builder
			if tc.header {
				in.WriteString("k,v\n")
			}
			for i := range tc.skipRows {
				fmt.Fprintf(&in, "junk line %d\n", i)
			}
			for i := range 20 {
				if i%4 == 1 {
					fmt.Fprintf(&in, "x%d,fix me\n", i)
				} else {
					fmt.Fprintf(&in, "%d,ok\n", i)
				}
			}
			path := filepath.Join(dir, "in.csv")
			if err := os.WriteFile(path, []byte(in.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			o := testOptions(t, c, "t", path)
			o.Dialect.Header, o.Dialect.SkipRows = tc.header, tc.skipRows
			o.ErrFile = filepath.Join(dir, "first.err")
			s, err := runLoad(t, o)
			if err != nil {
				t.Fatal(err)
			}
			if s.RowsWritten != 15 || s.RowsFailedParse != 5 {
				t.Fatalf("written %d, failed to parse %d: want 15 and 5", s.RowsWritten, s.RowsFailedParse)
			}
			data, err := os.ReadFile(o.ErrFile)
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Repeat("\"\"\n", tc.skipRows) + "x1,fix me\nx5,fix me\nx9,fix me\nx13,fix me\nx17,fix me\n"
			if tc.header {
				want = "k,v\n" + want
			}
			if string(data) != want {
				t.Fatalf("error file:\n%s\nwant:\n%s", data, want)
			}
			// Fixed, and loaded with the same options.
			fixed := filepath.Join(dir, "fixed.csv")
			if err := os.WriteFile(fixed, []byte(strings.ReplaceAll(string(data), "x", "")), 0o644); err != nil {
				t.Fatal(err)
			}
			o2 := o
			o2.Files = []string{fixed}
			o2.ErrFile = filepath.Join(dir, "second.err")
			s2, err := runLoad(t, o2)
			if err != nil {
				t.Fatal(err)
			}
			if s2.RowsWritten != 5 || s2.RowsRead-s2.RowsSkipped != 5 {
				t.Fatalf("reload: written %d of %d read (%d skipped): want the 5 fixed rows", s2.RowsWritten, s2.RowsRead, s2.RowsSkipped)
			}
			// A placeholder is never a row: loaded without SKIPROWS, each
			// is a parse error.
			o3 := o2
			o3.Dialect.SkipRows = 0
			o3.ErrFile = filepath.Join(dir, "third.err")
			s3, err := runLoad(t, o3)
			if err != nil {
				t.Fatal(err)
			}
			if s3.RowsFailedParse != int64(tc.skipRows) || s3.RowsWritten != 5 {
				t.Fatalf("without SKIPROWS: %d parse errors, %d written: want %d and 5", s3.RowsFailedParse, s3.RowsWritten, tc.skipRows)
			}
		})
	}
}
