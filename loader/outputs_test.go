package loader

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/cqlload/cqlload/csvparse"
	"github.com/cqlload/cqlload/source"
)

func TestCheckOutputs(t *testing.T) {
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	for _, f := range []string{"in.csv", "part.00", "part.01", "e.err.log", "ck.sent", "other.csv"} {
		if err := os.WriteFile(at(f), []byte("1,a\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(at("in.csv"), at("hard.err")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(at("in.csv"), at("sym.json")); err != nil {
		t.Fatal(err)
	}
	obj := func(name string, size int64) source.Object {
		return source.Object{Source: csvparse.Source{Name: name, Size: size}}
	}
	tests := []struct {
		name    string
		inputs  []source.Object
		opts    Options
		clashes string // the output named, "" for none
	}{
		{"apart", []source.Object{obj(at("in.csv"), 4)}, Options{ErrFile: at("e.err"), Resume: at("ck"), RateFile: at("rate")}, ""},
		{"error file", []source.Object{obj(at("other.csv"), 4), obj(at("in.csv"), 4)}, Options{ErrFile: at("in.csv")}, at("in.csv")},
		{"error file, another spelling", []source.Object{obj(at("in.csv"), 4)}, Options{ErrFile: dir + "/./in.csv"}, dir + "/./in.csv"},
		{"numbered error files", []source.Object{obj(at("part.01"), 4)}, Options{ErrFile: at("part")}, at("part.01")},
		{"not numbered: .csv", []source.Object{obj(at("in.csv"), 4)}, Options{ErrFile: at("in")}, ""},
		{"error log", []source.Object{obj(at("e.err.log"), 4)}, Options{ErrFile: at("e.err")}, at("e.err.log")},
		{"hard link", []source.Object{obj(at("in.csv"), 4)}, Options{ErrFile: at("hard.err")}, at("hard.err")},
		{"counter journal", []source.Object{obj(at("ck.sent"), 4)}, Options{ErrFile: at("e.err"), Resume: at("ck")}, at("ck.sent")},
		{"rate file", []source.Object{obj(at("in.csv"), 4)}, Options{ErrFile: at("e.err"), RateFile: at("in.csv")}, at("in.csv")},
		{"the caller's", []source.Object{obj(at("in.csv"), 4)}, Options{ErrFile: at("e.err"), OtherOutputs: []Output{{"--summary-json", at("sym.json")}}}, at("sym.json")},
		{"standard input", []source.Object{obj("-", -1)}, Options{ErrFile: "-"}, ""},
		{"object in storage", []source.Object{obj("s3://b/in.csv", 4)}, Options{ErrFile: "s3://b/in.csv"}, ""},
	}
	for _, tc := range tests {
		err := checkOutputs(tc.inputs, outputFiles(&tc.opts))
		var ie *InputClashError
		switch {
		case tc.clashes == "" && err != nil:
			t.Errorf("%s: %v, want no clash", tc.name, err)
		case tc.clashes != "" && (!errors.As(err, &ie) || ie.Output != tc.clashes):
			t.Errorf("%s: %v, want a clash naming %s", tc.name, err, tc.clashes)
		}
	}
}

// TestReloadErrorFile: the fixed error file loads again with the same
// command, as the README promises, though with the default ERRFILE it is
// the run's own error file: the run's rejected rows go to
// import_ks_t.retry.err, and the input is left as it was. A given
// ERRFILE that is the input is still refused.
func TestReloadErrorFile(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.re (k int PRIMARY KEY, v text);`, nil)
	dir := t.TempDir()
	t.Chdir(dir)
	path := writeCSV(t, "rows.csv", 100, func(i int) string {
		if i%10 == 0 {
			return fmt.Sprintf("x%d,bad\n", i)
		}
		return fmt.Sprintf("%d,v\n", i)
	})
	o := testOptions(t, c, "re", path)
	o.ErrFile = "" // the default, in the working directory
	s, err := runLoad(t, o)
	if err != nil || s.RowsFailedParse != 10 || s.ErrFile != "import_ks_re.err" {
		t.Fatalf("first run: %v, %d parse errors in %q", err, s.RowsFailedParse, s.ErrFile)
	}
	before, err := os.ReadFile("import_ks_re.err")
	if err != nil {
		t.Fatal(err)
	}
	o.Files = []string{"import_ks_re.err"}
	for _, want := range []string{"import_ks_re.retry.err", "import_ks_re.retry.err"} {
		s, err = runLoad(t, o)
		if err != nil || s.RowsFailedParse != 10 || s.ErrFile != want {
			t.Fatalf("reload: %v, %d parse errors in %q, want them in %s", err, s.RowsFailedParse, s.ErrFile, want)
		}
		if now, _ := os.ReadFile("import_ks_re.err"); string(now) != string(before) {
			t.Fatalf("the reloaded error file changed:\n%s", now)
		}
	}
	// Loading the retry file in turn: the default is free again, and the
	// earlier import_ks_re.err is kept under another name.
	o.Files = []string{"import_ks_re.retry.err"}
	if s, err = runLoad(t, o); err != nil || s.ErrFile != "import_ks_re.err" || len(s.PreviousErrFiles) == 0 {
		t.Fatalf("reload of the retry file: %v, rows in %q, earlier files kept as %q", err, s.ErrFile, s.PreviousErrFiles)
	}
	// Both the default and .retry.err are inputs: .retry2.err.
	o.Files = []string{"import_ks_re.err", "import_ks_re.retry.err"}
	if s, err = runLoad(t, o); err != nil || s.ErrFile != "import_ks_re.retry2.err" {
		t.Fatalf("reload of both: %v, rows in %q", err, s.ErrFile)
	}
	o.ErrFile = "import_ks_re.err"
	o.Files = []string{"import_ks_re.err"}
	if _, err := runLoad(t, o); !errors.As(err, new(*InputClashError)) {
		t.Fatalf("a given ERRFILE that is the input: %v", err)
	}
}

// TestListedOwnFilesLeftOut: a directory or a glob that lists the run's
// own files (its error files and logs, those earlier runs left and kept,
// its checkpoint) does not load them. Before, `cqlload --table ks.t .`
// run a second time loaded the first run's error log as data, and a log
// line with one comma became a row of this two-column table.
func TestListedOwnFilesLeftOut(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.lo (a text PRIMARY KEY, b text);`, nil)
	sess := session(t, c)
	dir := t.TempDir()
	t.Chdir(dir)
	var rows strings.Builder
	for i := range 100 {
		if i%10 == 0 {
			fmt.Fprintf(&rows, "x%d,y,z\n", i) // three fields: "expected 2 fields, found 3"
		} else {
			fmt.Fprintf(&rows, "k%d,v%d\n", i, i)
		}
	}
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("rows.csv", rows.String())
	tableKeys := func() []string {
		t.Helper()
		var keys []string
		var a string
		it := sess.Query(`SELECT a FROM ks.lo`).Iter()
		for it.Scan(&a) {
			keys = append(keys, a)
		}
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
		sort.Strings(keys)
		return keys
	}

	o := testOptions(t, c, "lo", ".")
	o.ErrFile = "" // the default, in the directory loaded
	o.Resume = "ck.json"
	for run := 1; run <= 3; run++ {
		if run > 1 {
			os.Remove("ck.json") // a fresh run each time, beside the last one's checkpoint
			write("ck.json.tmp", "{")
		}
		s, err := runLoad(t, o)
		if err != nil || s.RowsRead != 100 || s.RowsWritten != 90 || s.RowsFailedParse != 10 {
			t.Fatalf("run %d: %v; %d read, %d written, %d failed to parse: want rows.csv alone, left out %q",
				run, err, s.RowsRead, s.RowsWritten, s.RowsFailedParse, s.InputsLeftOut)
		}
		// The second run lists the first's error file, its log and the
		// checkpoint's temporary file; the third also what the second kept.
		want := map[int]int{1: 0, 2: 3, 3: 5}[run]
		if len(s.InputsLeftOut) != want {
			t.Errorf("run %d left out %q, want %d files", run, s.InputsLeftOut, want)
		}
		if keys := tableKeys(); len(keys) != 90 {
			t.Fatalf("run %d: the table holds %d rows, want the input's 90: %q", run, len(keys), keys)
		}
	}
	// A completed checkpoint in the directory: the same inputs, so
	// nothing to do (before, its listing made them differ).
	if s, err := runLoad(t, o); err != nil || !s.NothingToDo {
		t.Fatalf("the completed run again: %v, nothing to do %v, left out %q", err, s.NothingToDo, s.InputsLeftOut)
	}

	// A glob the user aims at other error files, those of a split load,
	// loads them: they are not this (unsplit) run's.
	os.Remove("ck.json")
	write("import_ks_lo.0.err", "s0,v\n")
	write("import_ks_lo.1.err", "s1,v\n")
	o.Files, o.Resume = []string{"import_ks_lo.*.err"}, ""
	if s, err := runLoad(t, o); err != nil || s.RowsWritten != 2 || len(s.InputsLeftOut) != 0 {
		t.Fatalf("a glob of a split load's error files: %v, %d written, left out %q", err, s.RowsWritten, s.InputsLeftOut)
	}
	// A split run leaves out every split's error files.
	o.Files, o.SplitIndex, o.SplitCount = []string{"."}, 0, 2
	s, err := runLoad(t, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"import_ks_lo.0.err", "import_ks_lo.1.err"} {
		if !slices.ContainsFunc(s.InputsLeftOut, func(e string) bool { return strings.HasPrefix(e, f+" ") }) {
			t.Errorf("split 0/2 did not leave out %s: %q", f, s.InputsLeftOut)
		}
	}
	// Nothing but the run's own files: an error, not an empty load.
	sub := filepath.Join(dir, "only")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(sub, "import_ks_lo.err"), "k1,v\n")
	o = testOptions(t, c, "lo", sub)
	o.ErrFile = filepath.Join(sub, "import_ks_lo.err")
	l, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "no input left") {
		t.Fatalf("a directory of the run's own files: %v", err)
	}
	if keys := tableKeys(); slices.ContainsFunc(keys, func(k string) bool { return !strings.HasPrefix(k, "k") && !strings.HasPrefix(k, "s") }) {
		t.Errorf("the table holds rows no input has: %q", keys)
	}
}
