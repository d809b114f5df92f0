package runlog

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cqlload/cqlload/csvparse"
)

// TestNumberedFilesOfAGlobName: the numbered error files of an ERRFILE
// whose name holds a glob's special characters are found (a glob of the
// name missed rej[1].err.2, and a fresh run wrote over it), and the split
// error files of another load (ERRFILE.0, ERRFILE.1) are not taken for
// them.
func TestNumberedFilesOfAGlobName(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "rej[1].err")
	for _, n := range []string{"", ".0", ".1", ".2", ".3", ".10", ".log", ".2x", ".20261204_101500"} {
		if err := os.WriteFile(base+n, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e := &ErrFiles{path: base}
	// .0 and .1 are the error files of splits 0 and 1 of another load.
	if got, want := e.numberedFiles(), []string{base + ".10", base + ".2", base + ".3"}; !slices.Equal(got, want) {
		t.Errorf("numberedFiles() = %v, want %v", got, want)
	}
}

// TestRemoveFileLeavesDirectory: defence in depth: the removal of stale
// error files leaves a directory at the name (the loader refuses such
// paths before a run begins).
func TestRemoveFileLeavesDirectory(t *testing.T) {
	emptyDir := t.TempDir()
	if err := removeFile(emptyDir); err == nil {
		t.Error("removeFile removed a directory")
	}
}

// TestErrFileNeverOpensWhatItDidNotCreate: a file or a link that appears
// at an error file's name after the run moved the earlier ones aside is
// left alone, and the write that would have used it fails naming it;
// one a checkpoint records is reopened, but never through a link.
func TestErrFileNeverOpensWhatItDidNotCreate(t *testing.T) {
	for _, tc := range []struct {
		name    string
		at      string // "ERRFILE" or "ERRFILE.log"
		link    bool   // a link to the victim, else the victim's own name
		resumed bool   // the checkpoint records bytes of the file
		want    string
	}{
		{name: "link at the error file", at: "ERRFILE", link: true, want: "appeared after the run moved"},
		{name: "file at the error file", at: "ERRFILE", want: "appeared after the run moved"},
		{name: "link at the log", at: "ERRFILE.log", link: true, want: "appeared after the run moved"},
		{name: "link at a resumed error file", at: "ERRFILE", link: true, resumed: true, want: "symbolic link"},
		{name: "link at a resumed log", at: "ERRFILE.log", link: true, resumed: true, want: "symbolic link"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "rows.err")
			at := strings.Replace(tc.at, "ERRFILE", path, 1)
			victim := at
			if tc.link {
				victim = filepath.Join(dir, "victim")
				if err := os.Symlink(victim, at); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(victim, []byte("precious\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			e := NewErrFiles(path, csvparse.DefaultDialect())
			h := e.FileFor("")
			if tc.resumed {
				e.sizes[h] = int64(len("precious\n"))
				e.logSize = e.sizes[h]
				if tc.at == "ERRFILE" {
					e.logSize = 0
				} else {
					e.sizes[h] = 0
				}
			}
			err := e.Write([]Row{{Kind: "parse error", Where: "in.csv:1", Reason: "bad", Raw: []byte("x,1\n"), Header: h}})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), at) {
				t.Fatalf("write: %v, want an error naming %s: %q", err, at, tc.want)
			}
			if got, err := os.ReadFile(victim); err != nil || string(got) != "precious\n" {
				t.Errorf("the file at the name holds %q (%v), want it untouched", got, err)
			}
			_ = e.Close()
		})
	}
}

// TestErrorFilePerHeader: rows go to the error file of their input's
// header, each file starting with its own header line; a header without
// rejected rows gets no file at all.
func TestErrorFilePerHeader(t *testing.T) {
	dir := t.TempDir()
	e := NewErrFiles(filepath.Join(dir, "rows.err"), csvparse.DefaultDialect())
	a, b, c := e.FileFor("id,a,b"), e.FileFor("id,b,a"), e.FileFor("id,c")
	if a != 0 || b != 1 || c != 2 || e.FileFor("id,b,a") != 1 {
		t.Fatalf("numbering %d %d %d", a, b, c)
	}
	err := e.Write([]Row{
		{Kind: "parse error", Where: "1.csv:2", Reason: "bad", Raw: []byte("x,A,B"), Header: a},
		{Kind: "parse error", Where: "2.csv:5", Reason: "bad", Raw: []byte("y,B,A"), Header: b},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"rows.err":   "id,a,b\nx,A,B\n",
		"rows.err.2": "id,b,a\ny,B,A\n",
	} {
		got, err := os.ReadFile(filepath.Join(dir, path))
		if err != nil || string(got) != want {
			t.Fatalf("%s: %q (%v), want %q", path, got, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "rows.err.3")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("rows.err.3 exists for a header without rejected rows (%v)", err)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "rows.err.log"))
	if !strings.Contains(string(log), "2.csv:5: parse error: bad [in "+filepath.Join(dir, "rows.err.2")+"]") {
		t.Fatalf("log does not say which file holds the row:\n%s", log)
	}
	if got := e.Used(); len(got) != 2 {
		t.Fatalf("used %v", got)
	}
}

// TestKeepErrFiles: a fresh run renames the error files an earlier run
// left (ERRFILE, its log, its numbered files), all with one suffix, as
// cqlsh renames ERRFILE; a second run in the same second gets _2.
func TestKeepErrFiles(t *testing.T) {
	dir := t.TempDir()
	e := NewErrFiles(filepath.Join(dir, "rows.err"), csvparse.DefaultDialect())
	at := time.Date(2026, 12, 4, 20, 17, 43, 0, time.Local)
	if kept, err := e.Keep(at); err != nil || kept != nil {
		t.Fatalf("nothing to keep: %v, %v", kept, err)
	}
	write := func() {
		for _, n := range []string{"rows.err", "rows.err.log", "rows.err.2", "rows.errata"} {
			if err := os.WriteFile(filepath.Join(dir, n), []byte(n), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	write()
	kept, err := e.Keep(at)
	want := []string{"rows.err.20261204_201743", "rows.err.log.20261204_201743", "rows.err.2.20261204_201743"}
	if err != nil || len(kept) != len(want) {
		t.Fatalf("kept %v (%v), want %v", kept, err, want)
	}
	for i, w := range want {
		if kept[i] != filepath.Join(dir, w) {
			t.Errorf("kept %s, want %s", kept[i], w)
		}
		// The content moved with the name.
		if b, err := os.ReadFile(filepath.Join(dir, w)); err != nil || !strings.HasPrefix(w, string(b)) {
			t.Errorf("%s holds %q (%v)", w, b, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "rows.errata")); err != nil {
		t.Errorf("a file that is not an error file was moved: %v", err)
	}
	write()
	again, err := e.Keep(at)
	if err != nil || len(again) != 3 || again[0] != filepath.Join(dir, "rows.err.20261204_201743_2") {
		t.Fatalf("the same second again: %v (%v)", again, err)
	}
}
