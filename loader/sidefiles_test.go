package loader

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cqlload/cqlload/internal/wholefile"
	"github.com/cqlload/cqlload/loader/internal/runlog"
)

// TestSideFilesNotThroughLinks: a link planted at the name of each file a
// run writes beside its error file and its checkpoint leaves the file it
// names untouched, and the run either goes on (the link is moved aside or
// removed as an earlier run's file would be) or fails naming the link.
// Before, the locks and the checkpoint's temporary file were opened
// through such a link and truncated what it named.
func TestSideFilesNotThroughLinks(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.c (k int PRIMARY KEY, n counter);`, nil)
	for _, tc := range []struct {
		planted string // ERRFILE… or CK…, the side file's name
		refused bool   // the run fails, naming the link
	}{
		{planted: "ERRFILE"},
		{planted: "ERRFILE.log"},
		{planted: "ERRFILE.2"},
		{planted: "ERRFILE.lock", refused: true},
		{planted: "CK.lock", refused: true},
		{planted: "CK.sent"},
		{planted: "CK.tmp"},
		{planted: ".CK.tmp"},
	} {
		t.Run(tc.planted, func(t *testing.T) {
			dir := t.TempDir()
			path := writeCSV(t, "in.csv", 20, func(i int) string {
				if i%5 == 0 {
					return fmt.Sprintf("x%d,1\n", i) // a bad key: rejected
				}
				return fmt.Sprintf("%d,1\n", i)
			})
			o := testOptions(t, c, "c", path)
			o.ErrFile = filepath.Join(dir, "rows.err")
			o.Resume = filepath.Join(dir, "ck.json")
			victim := filepath.Join(t.TempDir(), "victim")
			if err := os.WriteFile(victim, []byte("precious\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			name := strings.NewReplacer("ERRFILE", "rows.err", "CK", "ck.json").Replace(tc.planted)
			link := filepath.Join(dir, name)
			if err := os.Symlink(victim, link); err != nil {
				t.Fatal(err)
			}
			s, err := runLoad(t, o)
			if got, rerr := os.ReadFile(victim); rerr != nil || string(got) != "precious\n" {
				t.Errorf("the linked file holds %q (%v), want it untouched", got, rerr)
			}
			if tc.refused {
				if !errors.Is(err, wholefile.ErrLink) || !strings.Contains(err.Error(), link) {
					t.Fatalf("Run: %v, want an error naming the link %s", err, link)
				}
				if s.RowsRead != 0 {
					t.Errorf("%d rows read by a run that could not lock its files", s.RowsRead)
				}
				return
			}
			if err != nil || s.RowsWritten != 16 || s.RowsFailedParse != 4 {
				t.Fatalf("Run: %v; %d written, %d rejected, want 16 and 4", err, s.RowsWritten, s.RowsFailedParse)
			}
			if b, err := os.ReadFile(o.ErrFile); err != nil || strings.Count(string(b), "\n") != 4 {
				t.Errorf("the error file holds %q (%v), want the 4 rejected rows", b, err)
			}
		})
	}
}

// TestNewSideFilesPrivate: the files a run creates that hold users' rows
// or say what was sent (error files, their log, the checkpoint, the
// counter journal) are 0600; one that existed keeps its mode.
func TestNewSideFilesPrivate(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.c (k int PRIMARY KEY, n counter);`, nil)
	dir := t.TempDir()
	path := writeCSV(t, "in.csv", 10, func(i int) string {
		if i == 3 {
			return "x,1\n"
		}
		return fmt.Sprintf("%d,1\n", i)
	})
	o := testOptions(t, c, "c", path)
	o.ErrFile = filepath.Join(dir, "rows.err")
	o.Resume = filepath.Join(dir, "ck.json")
	if _, err := runLoad(t, o); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{o.ErrFile, o.ErrFile + ".log", o.Resume} {
		if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v (%v), want mode 0600", filepath.Base(p), st.Mode(), err)
		}
	}
	// A checkpoint rewritten keeps a mode the user gave it.
	if err := os.Chmod(o.Resume, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := (&runlog.Checkpoint{Version: runlog.Version}).Save(o.Resume, nil); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(o.Resume); err != nil || st.Mode().Perm() != 0o640 {
		t.Errorf("rewritten checkpoint: %v (%v), want its mode 0640 kept", st.Mode(), err)
	}
}

// TestDefaultErrFileName: the default ERRFILE is one file in the working
// directory, readable, whatever a quoted keyspace or table name holds.
func TestDefaultErrFileName(t *testing.T) {
	for _, tc := range []struct{ ks, table, want string }{
		{"ks", "t", "import_ks_t.err"},
		{"Ks", "Mixed_Case9", "import_Ks_Mixed_Case9.err"},
		{"ks", "a/../../x", "import_ks_a_____x.err"},
		{"ks", `a\..\x`, "import_ks_a___x.err"},
		{"ks", "..", "import_ks__.err"},
		{"..", "...", "import____..err"},
		{"ks", "\x1b[2Jclear", "import_ks__[2Jclear.err"},
		{"ks", "tab\there\nnl\x7f", "import_ks_tab_here_nl_.err"},
		{"ks", `c:x*y?"<>|`, "import_ks_c_x_y_____.err"},
		{"ks", "naïve été", "import_ks_naïve été.err"},
		{"ks", "bad\xffutf8", "import_ks_bad_utf8.err"},
		{"ks", "\u202eevil", "import_ks_\u202eevil.err"},
	} {
		got := defaultErrFileName(&Options{Keyspace: tc.ks, Table: tc.table})
		if got != tc.want {
			t.Errorf("%q.%q: %q, want %q", tc.ks, tc.table, got, tc.want)
		}
		if filepath.Base(got) != got || strings.Contains(got, "..") && !strings.HasSuffix(got, "..err") {
			t.Errorf("%q.%q: %q is not one file name in the working directory", tc.ks, tc.table, got)
		}
	}
}

// TestMissingTableKeepsEarlierErrFiles: a run whose table does not exist
// fails before it moves the earlier run's error files aside or writes a
// checkpoint.
func TestMissingTableKeepsEarlierErrFiles(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.t (k int PRIMARY KEY, v text);`, nil)
	for _, resume := range []bool{false, true} {
		t.Run(fmt.Sprintf("resume=%v", resume), func(t *testing.T) {
			dir := t.TempDir()
			path := writeCSV(t, "in.csv", 3, func(i int) string { return fmt.Sprintf("%d,v\n", i) })
			o := testOptions(t, c, "missing", path)
			o.ErrFile = filepath.Join(dir, "rows.err")
			earlier := map[string]string{o.ErrFile: "1,earlier\n", o.ErrFile + ".log": "in.csv:1: earlier\n"}
			if resume {
				o.Resume = filepath.Join(dir, "ck.json") // none yet: a run from the start
			}
			for p, b := range earlier {
				if err := os.WriteFile(p, []byte(b), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			l, err := New(o)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := l.Run(t.Context()); err == nil || !strings.Contains(err.Error(), "missing") {
				t.Fatalf("Run: %v, want an error naming the missing table", err)
			}
			for p, b := range earlier {
				if got, err := os.ReadFile(p); err != nil || string(got) != b {
					t.Errorf("%s holds %q (%v), want the earlier run's %q", filepath.Base(p), got, err, b)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "ck.json")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a checkpoint was written (%v)", err)
			}
			if kept, _ := filepath.Glob(o.ErrFile + ".2*"); len(kept) > 0 {
				t.Errorf("earlier error files moved aside: %q", kept)
			}
		})
	}
}
