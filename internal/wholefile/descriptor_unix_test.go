//go:build unix

package wholefile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteToOwnDescriptor: a path naming one of the process's
// descriptors (`--summary-json /dev/stdout >> job.log`) is written
// through it, at the end of what the file holds, and neither Write nor
// Discard replaces or removes the file behind it: resolving the path
// would have led to the file itself.
func TestWriteToOwnDescriptor(t *testing.T) {
	log := filepath.Join(t.TempDir(), "job.log")
	if err := os.WriteFile(log, []byte("earlier line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	before, err := os.Stat(log)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fmt.Sprintf("/dev/fd/%d", f.Fd()), fmt.Sprintf("/proc/self/fd/%d", f.Fd())} {
		if _, err := os.Stat(path); err != nil {
			continue // no /proc here
		}
		if err := Write(path, []byte("via "+path+"\n"), (*os.File).Sync, 0o644); err != nil {
			t.Fatalf("Write(%s): %v", path, err)
		}
		if err := Discard(path); err != nil {
			t.Fatalf("Discard(%s): %v", path, err)
		}
	}
	after, err := os.Stat(log)
	if err != nil || !os.SameFile(before, after) {
		t.Fatalf("the file behind the descriptor was replaced or removed: %v", err)
	}
	got, _ := os.ReadFile(log)
	if !strings.HasPrefix(string(got), "earlier line\nvia /dev/fd/") {
		t.Errorf("the file holds %q, want its earlier line, then what was written", got)
	}
	if _, err := f.WriteString("the descriptor still works\n"); err != nil {
		t.Errorf("the descriptor was closed: %v", err)
	}
}

// TestDescriptor: which paths name a descriptor, and what is refused.
func TestDescriptor(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for _, tc := range []struct {
		path string
		own  bool
		err  string
	}{
		{"/dev/stdout", true, ""},
		{"/dev/./stderr", true, ""},
		{fmt.Sprintf("/dev/fd/%d", w.Fd()), true, ""},
		{fmt.Sprintf("/dev/fd/%d", r.Fd()), true, "not open for writing"},
		{"/dev/fd/1000000", true, "not open"},
		{"/dev/null", false, ""},
		{"/dev/fd/x", false, ""},
		{"out.json", false, ""},
	} {
		f, own, err := Descriptor(tc.path)
		if f != nil {
			f.Close()
		}
		if own != tc.own || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("Descriptor(%s) = %v, %v; want %v and an error saying %q", tc.path, own, err, tc.own, tc.err)
		}
	}
}
