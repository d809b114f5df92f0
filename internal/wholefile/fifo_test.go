//go:build unix

package wholefile

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestWriteToPipe: a named pipe (as /dev/stdout may be) is written to, not
// replaced by a file, and Discard leaves it.
func TestWriteToPipe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	// Opened for reading first, without blocking, so that the writer's
	// open does not wait for a reader.
	r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := Write(path, []byte("new"), (*os.File).Sync, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Discard(path); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the pipe is gone or replaced: %v, %v", fi, err)
	}
	got, err := io.ReadAll(r)
	if err != nil || string(got) != "new" {
		t.Errorf("read %q (%v) from the pipe, want %q", got, err, "new")
	}
}
