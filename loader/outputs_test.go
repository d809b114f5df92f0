package loader

import (
	"errors"
	"os"
	"path/filepath"
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
