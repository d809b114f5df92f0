package source

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/cqlload/cqlload/csvparse"
)

func readAll(t *testing.T, open func() (io.ReadCloser, error)) []byte {
	t.Helper()
	rc, err := open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkObject reads o whole, in ranges and at offsets against data.
func checkObject(t *testing.T, o Object, data []byte) {
	t.Helper()
	if o.Size != int64(len(data)) {
		t.Fatalf("%s: size %d, want %d", o.Name, o.Size, len(data))
	}
	if got := readAll(t, o.Open); !bytes.Equal(got, data) {
		t.Fatalf("%s: read %d bytes, want the %d exact", o.Name, len(got), len(data))
	}
	n := int64(len(data))
	for _, s := range [][2]int64{{0, -1}, {0, 0}, {1, 5}, {n / 3, n / 3}, {n - 1, -1}, {n, -1}, {n / 2, 10 * n}} {
		got := readAll(t, func() (io.ReadCloser, error) { return o.OpenRange(s[0], s[1]) })
		end := n
		if s[1] >= 0 && s[0]+s[1] < n {
			end = s[0] + s[1]
		}
		if !bytes.Equal(got, data[s[0]:end]) {
			t.Fatalf("%s: OpenRange(%d, %d) differs", o.Name, s[0], s[1])
		}
	}
	if err := iotest.TestReader(io.NewSectionReader(o.ReaderAt, n-500, 500), data[n-500:]); err != nil {
		t.Fatalf("%s: ReaderAt: %v", o.Name, err)
	}
	p := make([]byte, 10)
	if m, err := o.ReaderAt.ReadAt(p, n-3); m != 3 || err != io.EOF || !bytes.Equal(p[:3], data[n-3:]) {
		t.Fatalf("%s: ReadAt across the end: %d, %v", o.Name, m, err)
	}
}

func names(objs []Object) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.Name)
	}
	return out
}

func TestMem(t *testing.T) {
	ctx := context.Background()
	b := memStore("memtest")
	data := payload(7, 100000)
	for _, k := range []string{"in/b.csv", "in/a.csv", "in/sub/c.csv", "in/.hidden", "top.csv", "in/", "in/sub/"} { // with folder markers
		b.put(k, data)
	}
	for _, tc := range []struct {
		url  string
		want string
	}{
		{"mem://memtest/in/*.csv", "mem://memtest/in/a.csv mem://memtest/in/b.csv"},
		{"mem://memtest/in/", "mem://memtest/in/a.csv mem://memtest/in/b.csv"},
		{"mem://memtest/in", "mem://memtest/in/a.csv mem://memtest/in/b.csv"},
		{"mem://memtest", "mem://memtest/top.csv"},
		{"mem://memtest/in/sub/c.csv", "mem://memtest/in/sub/c.csv"},
		{"mem://memtest/*/*/*.csv", "mem://memtest/in/sub/c.csv"},
		{"mem://memtest/in/x*", ""},
		{"mem://memtest/nope.csv", ""},
	} {
		objs, err := ExpandObjects(ctx, []string{tc.url}, nil)
		if tc.want == "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.url+": ") {
				t.Errorf("%s: err %v, want one naming the URL", tc.url, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.url, err)
		}
		if got := strings.Join(names(objs), " "); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.url, got, tc.want)
		}
	}
	objs, err := ExpandObjects(ctx, []string{"mem://memtest/in/a.csv"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkObject(t, objs[0], data)
}

func TestFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	data := payload(8, 70000)
	for _, name := range []string{"b.csv", "a.csv", ".hidden.csv", "sub/c.csv"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base := "file://" + filepath.ToSlash(dir)
	for _, tc := range []struct {
		url  string
		want []string
	}{
		{base + "/*.csv", []string{"a.csv", "b.csv"}},
		{base + "/", []string{"a.csv", "b.csv"}},
		{base, []string{"a.csv", "b.csv"}},
		{base + "/sub/c.csv", []string{"sub/c.csv"}},
		{base + "/*/c.csv", []string{"sub/c.csv"}},
		{base + "/.h*", []string{".hidden.csv"}},
		{base + "/x*.csv", nil},
		{base + "/none.csv", nil},
	} {
		objs, err := ExpandObjects(ctx, []string{tc.url}, nil)
		if tc.want == nil {
			if err == nil || !strings.HasPrefix(err.Error(), tc.url+": ") {
				t.Errorf("%s: err %v, want one naming the URL", tc.url, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.url, err)
		}
		got := names(objs)
		if len(got) != len(tc.want) {
			t.Fatalf("%s: %q, want %q", tc.url, got, tc.want)
		}
		for i, w := range tc.want {
			if filepath.Base(got[i]) != filepath.Base(w) || !strings.HasPrefix(got[i], base+"/") {
				t.Fatalf("%s: %q, want %q", tc.url, got, tc.want)
			}
		}
	}
	objs, err := ExpandObjects(ctx, []string{base + "/a.csv"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if objs[0].Name != base+"/a.csv" {
		t.Errorf("name %s", objs[0].Name)
	}
	checkObject(t, objs[0], data)
}

// TestLocal checks that local specs expand as csvparse.Sources expands
// them, with ranged access on top, and mix with URLs.
func TestLocal(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	data := payload(9, 50000)
	for _, name := range []string{"x.csv", "y.csv", "odd,name.csv"} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	memStore("localtest").put("m.csv", []byte("m\n"))
	x, y, odd := filepath.Join(dir, "x.csv"), filepath.Join(dir, "y.csv"), filepath.Join(dir, "odd,name.csv")
	for _, specs := range [][]string{
		{x},
		{dir},
		{filepath.Join(dir, "*.csv")},
		{x + ", " + y},
		{odd},
		{"-"},
		{x, "STDIN", y},
		{"", x, " , "},
	} {
		want, err := csvparse.Sources(specs, strings.NewReader("a\n"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := Expand(ctx, specs, strings.NewReader("a\n"))
		if err != nil {
			t.Fatalf("%q: %v", specs, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d sources, want %d", specs, len(got), len(want))
		}
		for i := range got {
			if got[i].Name != want[i].Name || got[i].Size != want[i].Size {
				t.Fatalf("%q: source %d is %s (%d), want %s (%d)", specs, i, got[i].Name, got[i].Size, want[i].Name, want[i].Size)
			}
		}
	}

	objs, err := ExpandObjects(ctx, []string{x + ", mem://localtest/m.csv", "-", y}, strings.NewReader("from stdin\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(names(objs), " "); got != x+" mem://localtest/m.csv - "+y {
		t.Fatalf("mixed: %s", got)
	}
	checkObject(t, objs[0], data)
	if objs[2].Size != -1 || objs[2].OpenRange != nil || objs[2].ReaderAt != nil {
		t.Errorf("stdin: size %d, ranged access %v", objs[2].Size, objs[2].OpenRange != nil)
	}
	if got := readAll(t, objs[2].Open); string(got) != "from stdin\n" {
		t.Errorf("stdin: %q", got)
	}
	if got := readAll(t, objs[1].Open); string(got) != "m\n" {
		t.Errorf("mem: %q", got)
	}

	for _, tc := range []struct {
		specs []string
		want  string
	}{
		{[]string{"-", "mem://localtest/m.csv", "stdin"}, "stdin: standard input can be read only once"},
		{[]string{"mem://localtest/m.csv,-,-"}, "-: standard input can be read only once"},
		{[]string{"-", "mem://localtest/m.csv", x + ", -"}, "-: standard input can be read only once"},
		{[]string{filepath.Join(dir, "none*.csv")}, "no file matches"},
		{[]string{"mem://localtest/none.csv", x}, "mem://localtest/none.csv: "},
		{nil, "no input files given"},
	} {
		_, err := Expand(ctx, tc.specs, strings.NewReader(""))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err %v, want %q", tc.specs, err, tc.want)
		}
	}
}

func TestIsURL(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want bool
	}{
		{"s3://b/k.csv", true},
		{"gs://b/k.csv", true},
		{"azblob://c/k.csv", true},
		{"file:///tmp/x.csv", true},
		{"mem://b/k", true},
		{"data/x.csv", false},
		{`C:\data\x.csv`, false},
		{"c://x", false},
		{"ftp://host/x.csv", false},
		{"-", false},
	} {
		if got := IsURL(tc.spec); got != tc.want {
			t.Errorf("IsURL(%q) = %v, want %v", tc.spec, got, tc.want)
		}
	}
}

func TestParseURL(t *testing.T) {
	for _, tc := range []struct {
		in, host, path, query string
	}{
		{"s3://b/data/part-?.csv", "b", "/data/part-?.csv", ""},
		{"s3://b/data/*.csv?endpoint=http://127.0.0.1:9000&region=x", "b", "/data/*.csv", "endpoint=http://127.0.0.1:9000&region=x"},
		{"s3://b/p?.csv?region=x", "b", "/p?.csv", "region=x"},
		{"s3://b/a#1.csv", "b", "/a#1.csv", ""},
		{"s3://b/a%2Cb.csv", "b", "/a,b.csv", ""},
	} {
		u, err := parseURL(tc.in)
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if u.Host != tc.host || u.Path != tc.path || u.RawQuery != tc.query {
			t.Errorf("%s: host %q path %q query %q", tc.in, u.Host, u.Path, u.RawQuery)
		}
	}
}

func TestLocalPath(t *testing.T) {
	for _, tc := range []struct {
		name, path string
		ok         bool
	}{
		{"in.csv", "in.csv", true},
		{"/data/in.csv", "/data/in.csv", true},
		{"file:///data/in.csv", "/data/in.csv", true},
		{"file:///data/a b#1.csv", "/data/a b#1.csv", true}, // names are decoded
		{"s3://bucket/in.csv", "", false},
		{"mem://b/in.csv", "", false},
		{`C:\data\in.csv`, `C:\data\in.csv`, true},
	} {
		if path, ok := LocalPath(tc.name); path != tc.path || ok != tc.ok {
			t.Errorf("LocalPath(%q) = %q, %v; want %q, %v", tc.name, path, ok, tc.path, tc.ok)
		}
	}
}
