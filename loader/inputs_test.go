package loader

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestSplitPlanOfDirectory: a split plan of a directory that holds error
// files of earlier split runs is made without them, as the splits leave
// them out, so the splits take the plan and load every row once. Before,
// the plan counted them among the inputs and every split refused it as
// made for other inputs.
func TestSplitPlanOfDirectory(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.sp (k int PRIMARY KEY, v text);`, nil)
	dir := t.TempDir()
	t.Chdir(dir)
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	const rows = 3000
	for i := range rows {
		fmt.Fprintf(&b, "%d,value %d\n", i, i)
	}
	files := map[string]string{
		"rows.csv": b.String(),
		// An earlier split run's rejected row and its log, in the data
		// directory where the error files were sent.
		"import_ks_sp.1.err":     "x,bad\n",
		"import_ks_sp.1.err.log": "rows.csv:7:1: parse error: column k: invalid int \"x\": not a number\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(data, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts := func(i int, plan string) Options {
		o := testOptions(t, c, "sp", data)
		o.ErrFile = filepath.Join(data, "import_ks_sp.err")
		o.SplitIndex, o.SplitCount, o.SplitSize, o.SplitPlan = i, 3, 8<<10, plan
		return o
	}
	plan := filepath.Join(dir, "plan.json")
	if _, err := WriteSplitPlan(context.Background(), opts(0, ""), plan); err != nil {
		t.Fatal(err)
	}
	var written int64
	for i := range 3 {
		s, err := runLoad(t, opts(i, plan))
		if err != nil {
			t.Fatalf("split %d: %v", i, err)
		}
		if len(s.InputsLeftOut) != 2 {
			t.Errorf("split %d left out %q, want the two error files", i, s.InputsLeftOut)
		}
		written += s.RowsWritten
	}
	if written != rows {
		t.Errorf("the splits wrote %d rows, want %d", written, rows)
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
			fmt.Fprintf(&rows, "x%d,y,z\n", i) // three fields: "3 fields, expected 2"
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
		}
		s, err := runLoad(t, o)
		if err != nil || s.RowsRead != 100 || s.RowsWritten != 90 || s.RowsFailedParse != 10 {
			t.Fatalf("run %d: %v; %d read, %d written, %d failed to parse: want rows.csv alone, left out %q",
				run, err, s.RowsRead, s.RowsWritten, s.RowsFailedParse, s.InputsLeftOut)
		}
		// The second run lists the first's error file and its log; the
		// third also what the second kept.
		want := map[int]int{1: 0, 2: 2, 3: 4}[run]
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
	// A link in the directory to another of the run's files, by identity.
	linked := filepath.Join(dir, "linked")
	if err := os.Mkdir(linked, 0o755); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(linked, "rows.csv"), "k1,v\n")
	summary := filepath.Join(dir, "summary.json")
	write(summary, "{}")
	if err := os.Symlink(summary, filepath.Join(linked, "s.csv")); err != nil {
		t.Fatal(err)
	}
	o = testOptions(t, c, "lo", linked)
	o.OtherOutputs = []Output{{Option: "--summary-json", Path: summary}}
	if s, err := runLoad(t, o); err != nil || s.RowsRead != 1 || len(s.InputsLeftOut) != 1 || !strings.HasSuffix(s.InputsLeftOut[0], "s.csv (--summary-json)") {
		t.Fatalf("a link to the summary: %v, %d read, left out %q", err, s.RowsRead, s.InputsLeftOut)
	}
	if keys := tableKeys(); slices.ContainsFunc(keys, func(k string) bool { return !strings.HasPrefix(k, "k") && !strings.HasPrefix(k, "s") }) {
		t.Errorf("the table holds rows no input has: %q", keys)
	}
}
