package csvparse

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSources(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"a.csv":     "a\n",
		"b.csv":     "bb\n",
		"c.txt":     "ccc\n",
		"sub/d.csv": "dddd\n",
		".hidden":   "not data\n",
		"x,y.csv":   "comma\n",
		"e,f/g.csv": "in a comma dir\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	j := func(p string) string { return filepath.Join(dir, p) }
	for link, target := range map[string]string{
		"links/cur.csv":     "../a.csv",    // a file through a link: read
		"links/sub":         "../sub",      // a directory through a link: not read
		"broken/gone.csv":   "../nope.csv", // a link to nothing: an error
		"links/.hidden.csv": "../b.csv",    // hidden: left out
	} {
		if err := os.MkdirAll(filepath.Dir(j(link)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, j(link)); err != nil {
			t.Fatal(err)
		}
	}
	type src struct {
		Name string
		Size int64
		Body string
	}
	tests := []struct {
		name  string
		specs []string
		want  []src
		err   string
	}{
		{"file", []string{j("a.csv")}, []src{{j("a.csv"), 2, "a\n"}}, ""},
		{"comma list with spaces", []string{j("b.csv") + " , " + j("a.csv")}, []src{{j("b.csv"), 3, "bb\n"}, {j("a.csv"), 2, "a\n"}}, ""},
		{"explicit hidden glob", []string{j(".h*")}, []src{{j(".hidden"), 9, "not data\n"}}, ""},
		{"glob sorted, directories and hidden files left out", []string{j("*")}, []src{{j("a.csv"), 2, "a\n"}, {j("b.csv"), 3, "bb\n"}, {j("c.txt"), 4, "ccc\n"}, {j("x,y.csv"), 6, "comma\n"}}, ""},
		{"file name with a comma is one file", []string{j("x,y.csv")}, []src{{j("x,y.csv"), 6, "comma\n"}}, ""},
		{"directory name with a comma is one directory", []string{j("e,f")}, []src{{j("e,f/g.csv"), 15, "in a comma dir\n"}}, ""},
		{"comma list when the whole spec is no file", []string{j("a.csv") + "," + j("x,y.csv")}, nil, j("x") + ": no such file"},
		{"comma list of existing files", []string{j("a.csv") + "," + j("b.csv")}, []src{{j("a.csv"), 2, "a\n"}, {j("b.csv"), 3, "bb\n"}}, ""},
		{"glob in a list", []string{j("*.csv") + "," + j("sub/*.csv")}, []src{{j("a.csv"), 2, "a\n"}, {j("b.csv"), 3, "bb\n"}, {j("x,y.csv"), 6, "comma\n"}, {j("sub/d.csv"), 5, "dddd\n"}}, ""},
		{"directory: its files, not recursive", []string{dir}, []src{{j("a.csv"), 2, "a\n"}, {j("b.csv"), 3, "bb\n"}, {j("c.txt"), 4, "ccc\n"}, {j("x,y.csv"), 6, "comma\n"}}, ""},
		{"directory: a link to a file is read", []string{j("links")}, []src{{j("links/cur.csv"), 2, "a\n"}}, ""},
		{"directory: a link to nothing is an error", []string{j("broken")}, nil, j("broken/gone.csv") + ": a link to nothing, or unreadable: no such file"},
		{"stdin dash", []string{"-"}, []src{{"-", -1, "from stdin"}}, ""},
		{"stdin word, any case", []string{"StdIn"}, []src{{"StdIn", -1, "from stdin"}}, ""},
		{"several specs", []string{j("a.csv"), "STDIN"}, []src{{j("a.csv"), 2, "a\n"}, {"STDIN", -1, "from stdin"}}, ""},
		{"missing file", []string{j("nope.csv")}, nil, j("nope.csv") + ": no such file"},
		{"glob without match", []string{j("a.csv") + "," + j("*.tsv")}, nil, j("*.tsv") + ": no file matches"},
		{"all problems at once", []string{j("x.csv"), j("y*.csv")}, nil, j("y*.csv") + ": no file matches"},
		{"stdin twice", []string{"-", "stdin"}, nil, "stdin: standard input can be read only once"},
		{"nothing", []string{" , "}, nil, "no input files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Sources(tt.specs, strings.NewReader("from stdin"))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var gs []src
			for _, s := range got {
				rc, err := s.Open()
				if err != nil {
					t.Fatal(err)
				}
				b, err := io.ReadAll(rc)
				if err != nil {
					t.Fatal(err)
				}
				_ = rc.Close()
				gs = append(gs, src{s.Name, s.Size, string(b)})
			}
			if !reflect.DeepEqual(gs, tt.want) {
				t.Errorf("got %v, want %v", gs, tt.want)
			}
		})
	}
	if _, err := Sources([]string{"-"}, nil); err == nil {
		t.Error("stdin without a reader: no error")
	}
	// Listed: what a directory or a glob yields, not what is named.
	got, err := Sources([]string{j("a.csv"), j("sub"), j("b*")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var listed []bool
	for _, s := range got {
		listed = append(listed, s.Listed)
	}
	if want := []bool{false, true, true}; !reflect.DeepEqual(listed, want) {
		t.Errorf("listed %v, want %v", listed, want)
	}
}

func TestSourcesHomeAndFilesOnDisk(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	plain := "id,v\n1,a\n2,b\n"
	if err := os.WriteFile(filepath.Join(home, "a.csv"), []byte(plain), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "b.csv.gz"), gzipped(t, plain), 0o644); err != nil {
		t.Fatal(err)
	}
	srcs, err := Sources([]string{"~/a.csv", "~/b*"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(srcs) != 2 || srcs[0].Name != "~/a.csv" {
		t.Fatalf("sources %+v, want ~/a.csv and the gz", srcs)
	}
	d := dialect(func(d *Dialect) { d.Header = true })
	s := NewSplitter(srcs, d, 1, 0)
	chunks, recs := split(t, s, d)
	if len(recs) != 4 {
		t.Errorf("%d records, want 4", len(recs))
	}
	if got := sumInput(chunks); got != s.TotalBytes() || got <= int64(len(plain)) {
		t.Errorf("InputBytes add up to %d, TotalBytes %d", got, s.TotalBytes())
	}
}

// TestSourcesMissingMessage: a missing input is named once, with the
// cause, and stays an fs.ErrNotExist for callers that test for it.
func TestSourcesMissingMessage(t *testing.T) {
	name := filepath.Join(t.TempDir(), "nope.csv")
	_, err := Sources([]string{name}, nil)
	if want := name + ": no such file or directory"; err == nil || err.Error() != want || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("got %v, want %q (an fs.ErrNotExist)", err, want)
	}
}
