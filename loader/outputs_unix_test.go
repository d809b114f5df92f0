//go:build unix

package loader

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOutputsNotFiles: ERRFILE, --resume or a split plan that names a
// directory or a named pipe (or a device: /dev/null) is refused before
// the run removes or replaces anything, and the path is left as it was.
func TestOutputsNotFiles(t *testing.T) {
	dir := t.TempDir()
	emptyDir, fifo := filepath.Join(dir, "empty"), filepath.Join(dir, "fifo")
	if err := os.Mkdir(emptyDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(in, []byte("1,a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A descriptor that leads to a regular file: replacing the file
	// through it would take the place of whatever the shell opened.
	held, err := os.Create(filepath.Join(dir, "held"))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	fd := fmt.Sprintf("/dev/fd/%d", held.Fd())
	base := DefaultOptions()
	base.Keyspace, base.Table, base.Files, base.Hosts = "ks", "t", []string{in}, []string{"127.0.0.1"}
	for _, tc := range []struct {
		name string
		set  func(o *Options)
		want string
	}{
		{"error file is a directory", func(o *Options) { o.ErrFile = emptyDir }, "ERRFILE " + emptyDir + " is a directory"},
		{"error file is a named pipe", func(o *Options) { o.ErrFile = fifo }, "ERRFILE " + fifo + " is a named pipe"},
		{"checkpoint is a named pipe", func(o *Options) { o.ErrFile, o.Resume = filepath.Join(dir, "e.err"), fifo }, "--resume " + fifo + " is a named pipe"},
		{"/dev/null", func(o *Options) { o.ErrFile = os.DevNull }, "ERRFILE " + os.DevNull + " is a device"},
		{"checkpoint is a descriptor", func(o *Options) { o.ErrFile, o.Resume = filepath.Join(dir, "e.err"), fd }, "--resume " + fd + " is a descriptor of this process"},
	} {
		o := base
		tc.set(&o)
		_, err := New(o)
		var ke *OutputKindError
		if !errors.As(err, &ke) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	o := base
	o.SplitIndex, o.SplitCount = 0, 2
	if _, err := WriteSplitPlan(context.Background(), o, emptyDir); !errors.As(err, new(*OutputKindError)) {
		t.Errorf("a split plan over a directory: %v", err)
	}
	if st, err := os.Stat(emptyDir); err != nil || !st.IsDir() {
		t.Errorf("the directory is gone (%v)", err)
	}
	if st, err := os.Stat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe is gone (%v)", err)
	}
}
