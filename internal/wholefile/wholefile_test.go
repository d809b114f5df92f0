package wholefile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	full := errors.New("no space left on device")
	for _, tc := range []struct {
		name    string
		old     string // "" for no file before
		dirAt   bool   // path is a directory: the rename fails
		sync    func(*os.File) error
		wantErr bool
	}{
		{name: "new file", sync: (*os.File).Sync},
		{name: "replaces", old: "old", sync: (*os.File).Sync},
		{name: "no sync", old: "old"},
		{name: "sync fails", old: "old", sync: func(*os.File) error { return full }, wantErr: true},
		{name: "rename fails", dirAt: true, sync: (*os.File).Sync, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f.json")
			if tc.old != "" {
				if err := os.WriteFile(path, []byte(tc.old), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tc.dirAt {
				if err := os.Mkdir(path, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			err := Write(path, []byte("new"), tc.sync)
			if (err != nil) != tc.wantErr {
				t.Fatalf("Write: %v, want an error: %v", err, tc.wantErr)
			}
			if tc.sync != nil && tc.wantErr && !tc.dirAt && !errors.Is(err, full) {
				t.Errorf("error %v, want the sync's", err)
			}
			if _, err := os.Stat(path + ".tmp"); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the temporary file is left: %v", err)
			}
			if tc.dirAt {
				return
			}
			want := "new"
			if tc.wantErr {
				want = tc.old
			}
			if got, err := os.ReadFile(path); err != nil || string(got) != want {
				t.Errorf("file holds %q (%v), want %q", got, err, want)
			}
		})
	}
}

// TestWriteThroughLink: the file a link names is replaced; the link stays
// a link (a rename over it would have made it a file of its own).
func TestWriteThroughLink(t *testing.T) {
	dir := t.TempDir()
	real, link := filepath.Join(dir, "real.json"), filepath.Join(dir, "link.json")
	if err := os.WriteFile(real, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if err := Write(link, []byte("new"), (*os.File).Sync); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link is no longer a link: %v, %v", fi, err)
	}
	if got, err := os.ReadFile(real); err != nil || string(got) != "new" {
		t.Errorf("the linked file holds %q (%v), want %q", got, err, "new")
	}
	if err := Discard(link); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(real); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Discard left the linked file: %v", err)
	}
}

// TestDiscard removes a regular file, and is quiet when there is none.
func TestDiscard(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := Discard(path); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("Discard left the file: %v", err)
		}
	}
}
