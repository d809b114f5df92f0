//go:build unix

package wholefile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWriteMode: a file that exists keeps its mode through a rewrite; a
// new one gets the mode asked for, less the umask.
func TestWriteMode(t *testing.T) {
	for _, tc := range []struct {
		name string
		old  os.FileMode // 0: no file before
		perm os.FileMode
		want os.FileMode
	}{
		{name: "new private", perm: 0o600, want: 0o600},
		{name: "new shared", perm: 0o644, want: 0o644 &^ umask(t)},
		{name: "kept private", old: 0o600, perm: 0o644, want: 0o600},
		{name: "kept group", old: 0o640, perm: 0o600, want: 0o640},
		{name: "kept open", old: 0o666, perm: 0o600, want: 0o666},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f.json")
			if tc.old != 0 {
				if err := os.WriteFile(path, []byte("old"), tc.old); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(path, tc.old); err != nil { // past the umask
					t.Fatal(err)
				}
			}
			for range 2 {
				if err := Write(path, []byte("new"), nil, tc.perm); err != nil {
					t.Fatal(err)
				}
				fi, err := os.Stat(path)
				if err != nil {
					t.Fatal(err)
				}
				if got := fi.Mode().Perm(); got != tc.want {
					t.Errorf("mode %v, want %v", got, tc.want)
				}
			}
		})
	}
}

// umask is the process's umask, read from a file created with 0777.
func umask(t *testing.T) os.FileMode {
	p := filepath.Join(t.TempDir(), "umask")
	if err := os.WriteFile(p, nil, 0o777); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return 0o777 &^ fi.Mode().Perm()
}
