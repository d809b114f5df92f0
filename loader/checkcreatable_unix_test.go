//go:build unix

package loader

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckCreatable: a path is checked where the run will write it. A
// file to create is probed in its directory (and in that of the file a
// link names); a device or a pipe, written as it is, is checked for
// writing, since its directory (/dev, /dev/fd) takes no new files.
func TestCheckCreatable(t *testing.T) {
	dir := t.TempDir()
	_, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "sub", "target.json"), filepath.Join(dir, "link.json")); err != nil {
		t.Fatal(err)
	}
	type tc struct {
		name, path string
		err        string // a part of the error; "" for none
	}
	tests := []tc{
		{"a new file", filepath.Join(dir, "out.json"), ""},
		{"a link to a file yet to be", filepath.Join(dir, "link.json"), ""},
		{"a missing directory", filepath.Join(dir, "none", "out.json"), "cannot create files in " + filepath.Join(dir, "none")},
		{"a directory", filepath.Join(dir, "sub"), "is a directory"},
		{"a device", os.DevNull, ""},
		{"an open descriptor", fmt.Sprintf("/dev/fd/%d", w.Fd()), ""},
	}
	// A link to a file in a directory that takes no new files: the
	// summary's temporary copy would go there, so the link's own
	// directory taking files is not enough. /proc has such files.
	if proc, err := filepath.EvalSymlinks("/proc/self/status"); err == nil {
		link := filepath.Join(dir, "proc.json")
		if err := os.Symlink(proc, link); err != nil {
			t.Fatal(err)
		}
		tests = append(tests, tc{"a link to a file where none can be created", link, "cannot create files in " + filepath.Dir(proc)})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckCreatable(tc.path)
			switch {
			case tc.err == "" && err != nil:
				t.Errorf("CheckCreatable(%s) = %v, want nil", tc.path, err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("CheckCreatable(%s) = %v, want an error saying %q", tc.path, err, tc.err)
			}
		})
	}
}
