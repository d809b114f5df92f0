package loader

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSmallFilesGathered loads 2,000 small files, whose chunks the
// converters batch together: a key written by several files holds the
// last file's row (later rows win across files as within one), a file
// with its columns in another order (another plan) and a file with no
// rows load among them, and each rejected row is in the error file with
// its own file and line.
func TestSmallFilesGathered(t *testing.T) {
	c := startCluster(t, 3, 1, `CREATE TABLE ks.s (k int PRIMARY KEY, v text);`, nil)
	dir := t.TempDir()
	const files, perFile, keys = 2000, 5, 500
	bad := 0
	for f := range files {
		var b strings.Builder
		swapped := f == 1234
		if swapped {
			b.WriteString("v,k\n")
		} else {
			b.WriteString("k,v\n")
		}
		if f != 777 { // a file of no rows
			for r := range perFile {
				k := (f*perFile + r) % keys
				if swapped {
					fmt.Fprintf(&b, "f%04d,%d\n", f, k)
				} else {
					fmt.Fprintf(&b, "%d,f%04d\n", k, f)
				}
			}
		}
		if f%100 == 99 {
			b.WriteString("notanint,x\n") // line 7: rejected
			bad++
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%04d.csv", f)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	o := testOptions(t, c, "s", dir)
	o.Dialect.Header = true
	s, err := runLoad(t, o)
	if err != nil {
		t.Fatal(err)
	}
	want := int64((files - 1) * perFile)
	if s.RowsWritten != want || s.RowsFailedParse != int64(bad) || s.Files != files {
		t.Fatalf("written %d, rejected %d, files %d; want %d, %d, %d", s.RowsWritten, s.RowsFailedParse, s.Files, want, bad, files)
	}
	t.Logf("%d requests for %d rows", s.Requests, s.RowsWritten)
	// Key k was last written by the last file whose rows cover it.
	last := map[int]int{}
	for f := range files {
		if f == 777 {
			continue
		}
		for r := range perFile {
			last[(f*perFile+r)%keys] = f
		}
	}
	sess := session(t, c)
	for k, f := range last {
		var v string
		if err := sess.Query(`SELECT v FROM ks.s WHERE k = ?`, k).Scan(&v); err != nil || v != fmt.Sprintf("f%04d", f) {
			t.Fatalf("k=%d: v=%q (%v), want f%04d, the last file's", k, v, err, f)
		}
	}
	log, err := os.ReadFile(s.ErrLog)
	if err != nil {
		t.Fatal(err)
	}
	for f := 99; f < files; f += 100 {
		if where := fmt.Sprintf("f%04d.csv:7:", f); !strings.Contains(string(log), where) {
			t.Errorf("the error log names no row at %s\n%s", where, log)
		}
	}
	rejected, err := os.ReadFile(s.ErrFile)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(rejected), "notanint,x\n"); got != bad {
		t.Errorf("the error file holds %d rejected rows, want %d", got, bad)
	}
}
