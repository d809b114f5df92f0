package runlog

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cqlload/cqlload/csvparse"
)

// TestErrFilesOpenBounded: however many headers have error files and in
// whatever order their rows come, at most maxOpenErrFiles are open at
// once, every file is synced before it is closed, each ends up with its
// header and its rows in order, and the lengths a checkpoint records are
// the files' lengths, so that a resumed run (restore) appends where the
// stopped one left off.
func TestErrFilesOpenBounded(t *testing.T) {
	for _, tc := range []struct {
		name    string
		headers int
		order   func(round, headers int) []int // headers of one write's rows
	}{
		{"few headers", 3, func(r, n int) []int { return []int{r % n, (r + 1) % n} }},
		{"one header a write, round robin", 40, func(r, n int) []int { return []int{r % n} }},
		{"every header in each write", 40, func(r, n int) []int {
			var hs []int
			for h := range n {
				hs = append(hs, (h*7+r)%n)
			}
			return hs
		}},
		{"one header hot, the rest in turn", 40, func(r, n int) []int { return []int{0, 1 + r%(n-1), 0} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "rows.err")
			want := make([][]string, tc.headers)
			newFiles := func() *ErrFiles {
				e := NewErrFiles(path, csvparse.DefaultDialect())
				e.Sync = func(*os.File) error { return nil } // TestErrFilesClosedAreSynced checks the syncs
				return e
			}
			e := newFiles()
			for h := range tc.headers {
				if i := e.FileFor(fmt.Sprintf("k,h%d", h)); i != h {
					t.Fatalf("header %d has file %d", h, i)
				}
				want[h] = []string{fmt.Sprintf("k,h%d", h)}
			}
			write := func(e *ErrFiles, rounds, from int) {
				for r := from; r < from+rounds; r++ {
					var rows []Row
					for j, h := range tc.order(r, tc.headers) {
						raw := fmt.Sprintf("r%d.%d,x", r, j)
						rows = append(rows, Row{Kind: "parse error", Where: "in.csv:1", Reason: "bad", Raw: []byte(raw), Header: h})
						want[h] = append(want[h], raw)
					}
					if err := e.Write(rows); err != nil {
						t.Fatal(err)
					}
					open := 0
					for _, f := range e.files {
						if f != nil {
							open++
						}
					}
					if open > maxOpenErrFiles || open != e.nopen {
						t.Fatalf("round %d: %d error files open (counted %d), at most %d", r, open, e.nopen, maxOpenErrFiles)
					}
				}
			}
			write(e, 100, 0)
			state, logSize := e.State()
			// A resumed run: error files reopened at their recorded
			// lengths.
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			e2 := newFiles()
			if err := e2.Restore(state, logSize); err != nil {
				t.Fatal(err)
			}
			write(e2, 50, 100)
			state, _ = e2.State()
			if err := e2.Close(); err != nil {
				t.Fatal(err)
			}
			for h, st := range state {
				data, err := os.ReadFile(st.Path)
				if err != nil {
					if len(want[h]) == 1 {
						continue // no row: no file
					}
					t.Fatal(err)
				}
				if got := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n"); strings.Join(got, "|") != strings.Join(want[h], "|") {
					t.Fatalf("%s holds %q, want %q", st.Path, got, want[h])
				}
				if st.Bytes != int64(len(data)) {
					t.Errorf("%s: %d bytes recorded, %d in the file", st.Path, st.Bytes, len(data))
				}
			}
		})
	}
}

// TestErrFilesClosedAreSynced: a file closed to make room is synced
// first, so rows a write appended are durable even when the write's own
// sync skips the file it no longer holds open.
func TestErrFilesClosedAreSynced(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rows.err")
	e := NewErrFiles(path, csvparse.DefaultDialect())
	syncs := map[string]int{}
	e.Sync = func(f *os.File) error {
		syncs[f.Name()]++
		return nil
	}
	var rows []Row
	for h := range maxOpenErrFiles + 5 {
		e.FileFor(fmt.Sprintf("k,h%d", h))
		rows = append(rows, Row{Kind: "parse error", Where: "in.csv:1", Reason: "bad", Raw: []byte("x"), Header: h})
	}
	if err := e.Write(rows); err != nil {
		t.Fatal(err)
	}
	for h := range maxOpenErrFiles + 5 {
		if syncs[e.name(h)] != 1 {
			t.Errorf("%s synced %d times, want once", e.name(h), syncs[e.name(h)])
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
}
