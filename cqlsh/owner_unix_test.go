//go:build unix

package cqlsh

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// statAs is a file's FileInfo whose owner is uid: a file another user
// owns cannot be made without root, so the test changes what Stat says.
type statAs struct {
	os.FileInfo
	st syscall.Stat_t
}

func (s statAs) Sys() any { return &s.st }

// TestOwnedByOther: a credentials file another user owns is not used,
// whatever its mode; one's own is. Tests run as root in CI, where no
// real file is another's unless made so.
func TestOwnedByOther(t *testing.T) {
	path := filepath.Join(t.TempDir(), "credentials")
	if err := os.WriteFile(path, []byte("[PlainTextAuthProvider]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if ownedByOther(fi) {
		t.Errorf("a file this process made is taken for another user's")
	}
	st := *fi.Sys().(*syscall.Stat_t)
	st.Uid = uint32(os.Getuid() + 1)
	if !ownedByOther(statAs{fi, st}) {
		t.Errorf("a file of uid %d is taken for this process's (uid %d)", st.Uid, os.Getuid())
	}
}
