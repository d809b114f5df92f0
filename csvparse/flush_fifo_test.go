//go:build unix

package csvparse

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestFlushSlowFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal("mkfifo:", err)
	}
	srcs, err := Sources([]string{path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if srcs[0].Size != -1 {
		t.Fatalf("FIFO source has Size %d, want -1", srcs[0].Size)
	}
	checkSlowProducer(t, srcs[0], func() (io.WriteCloser, error) {
		return os.OpenFile(path, os.O_WRONLY, 0)
	})
}
