package loader

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cqlload/cqlload/csvparse"
	"github.com/cqlload/cqlload/source"
)

func TestCheckOutputs(t *testing.T) {
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	for _, f := range []string{"in.csv", "part.00", "part.01", "part.2", "e.err.log", "ck.sent", "other.csv"} {
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
		{"numbered error files", []source.Object{obj(at("part.01"), 4), obj(at("part.2"), 4)}, Options{ErrFile: at("part")}, at("part.2")},
		{"not numbered: .csv", []source.Object{obj(at("in.csv"), 4)}, Options{ErrFile: at("in")}, ""},
		{"error log", []source.Object{obj(at("e.err.log"), 4)}, Options{ErrFile: at("e.err")}, at("e.err.log")},
		{"hard link", []source.Object{obj(at("in.csv"), 4)}, Options{ErrFile: at("hard.err")}, at("hard.err")},
		{"counter journal", []source.Object{obj(at("ck.sent"), 4)}, Options{ErrFile: at("e.err"), Resume: at("ck")}, at("ck.sent")},
		{"rate file", []source.Object{obj(at("in.csv"), 4)}, Options{ErrFile: at("e.err"), RateFile: at("in.csv")}, at("in.csv")},
		{"histogram log", []source.Object{obj(at("in.csv"), 4)}, Options{ErrFile: at("e.err"), HistogramLog: at("in.csv")}, at("in.csv")},
		{"the caller's", []source.Object{obj(at("in.csv"), 4)}, Options{ErrFile: at("e.err"), OtherOutputs: []Output{{"--summary-json", at("sym.json")}}}, at("sym.json")},
		{"standard input", []source.Object{obj("-", -1)}, Options{ErrFile: "-"}, ""},
		{"object in storage", []source.Object{obj("s3://b/in.csv", 4)}, Options{ErrFile: "s3://b/in.csv"}, ""},
		// As the CLI's -e "COPY … FROM 'file:///…'" names it: the same
		// file as a path, which a fresh run would rename away.
		{"error file, as a file URL", []source.Object{obj("file://"+at("in.csv"), 4)}, Options{ErrFile: at("in.csv")}, at("in.csv")},
		{"numbered error file, as a file URL", []source.Object{obj("file://"+at("part.2"), 4)}, Options{ErrFile: at("part")}, "file://" + at("part.2")},
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
// command, as docs/failures.md promises, though with the default ERRFILE it is
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

// TestCheckDistinct: two outputs of different options that are one file
// are refused before anything is written (a summary given ERRFILE's path
// replaced the rejected rows with the JSON); outputs written as they
// are may share a device or a descriptor.
func TestCheckDistinct(t *testing.T) {
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	if err := os.WriteFile(at("sum.json"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(at("sum.json"), at("link.json")); err != nil {
		t.Fatal(err)
	}
	summary := func(p string) []Output { return []Output{{"--summary-json", p}} }
	tests := []struct {
		name       string
		opts       Options
		what, path string // the clash reported; "" for none
	}{
		{"apart", Options{ErrFile: at("e.err"), Resume: at("ck"), RateFile: at("rate"), HistogramLog: at("h.hlog"), OtherOutputs: summary(at("sum.json"))}, "", ""},
		{"summary on the error file", Options{ErrFile: at("e.err"), OtherOutputs: summary(at("e.err"))}, "ERRFILE", at("e.err")},
		{"summary on the error log", Options{ErrFile: at("e.err"), OtherOutputs: summary(at("e.err.log"))}, "ERRFILE", at("e.err.log")},
		{"summary on a numbered error file", Options{ErrFile: at("e.err"), OtherOutputs: summary(at("e.err.3"))}, "ERRFILE", at("e.err.3")},
		{"not numbered", Options{ErrFile: at("e.err"), OtherOutputs: summary(at("e.err.json"))}, "", ""},
		{"checkpoint on the error file", Options{ErrFile: at("e.err"), Resume: at("e.err")}, "ERRFILE", at("e.err")},
		{"rate file and histogram log", Options{ErrFile: at("e.err"), RateFile: at("r.txt"), HistogramLog: dir + "/./r.txt"}, "RATEFILE", at("r.txt")},
		{"through a link", Options{ErrFile: at("e.err"), RateFile: at("link.json"), OtherOutputs: summary(at("sum.json"))}, "RATEFILE", at("link.json")},
		{"both to standard output", Options{ErrFile: at("e.err"), RateFile: "/dev/stdout", OtherOutputs: summary("/dev/stdout")}, "", ""},
		{"both to a device", Options{ErrFile: at("e.err"), RateFile: os.DevNull, HistogramLog: os.DevNull}, "", ""},
	}
	for _, tc := range tests {
		err := checkDistinct(outputFiles(&tc.opts))
		var ce *OutputClashError
		switch {
		case tc.what == "" && err != nil:
			t.Errorf("%s: %v, want no clash", tc.name, err)
		case tc.what != "" && (!errors.As(err, &ce) || ce.What != tc.what || ce.Path != tc.path):
			t.Errorf("%s: %v, want a clash of %s %s", tc.name, err, tc.what, tc.path)
		}
	}
	// New refuses them, before anything is written.
	o := DefaultOptions()
	o.Keyspace, o.Table, o.Files, o.Hosts = "ks", "t", []string{at("in.csv")}, []string{"127.0.0.1"}
	o.ErrFile, o.OtherOutputs = at("new.err"), summary(at("new.err"))
	if _, err := New(o); !errors.As(err, new(*OutputClashError)) {
		t.Errorf("New with the summary on the error file: %v, want an OutputClashError", err)
	}
	if _, err := os.Stat(at("new.err")); !os.IsNotExist(err) {
		t.Errorf("New left %s behind (%v)", at("new.err"), err)
	}
}
