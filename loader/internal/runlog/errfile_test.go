package runlog

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

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
