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
			err := Write(path, []byte("new"), tc.sync, 0o644)
			if (err != nil) != tc.wantErr {
				t.Fatalf("Write: %v, want an error: %v", err, tc.wantErr)
			}
			if tc.sync != nil && tc.wantErr && !tc.dirAt && !errors.Is(err, full) {
				t.Errorf("error %v, want the sync's", err)
			}
			if tmps, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".f.json.tmp*")); len(tmps) > 0 {
				t.Errorf("the temporary file is left: %q", tmps)
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
	if err := Write(link, []byte("new"), (*os.File).Sync, 0o644); err != nil {
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

// TestWriteIgnoresPlantedLinks: links planted at the names a rewrite used
// to take (path.tmp) or at any temporary name's prefix leave the files
// they name untouched.
func TestWriteIgnoresPlantedLinks(t *testing.T) {
	for _, planted := range []string{"f.json.tmp", ".f.json.tmp"} {
		t.Run(planted, func(t *testing.T) {
			dir := t.TempDir()
			victim := filepath.Join(dir, "victim")
			if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(victim, filepath.Join(dir, planted)); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "f.json")
			if err := Write(path, []byte("new"), (*os.File).Sync, 0o644); err != nil {
				t.Fatal(err)
			}
			if got, err := os.ReadFile(victim); err != nil || string(got) != "precious" {
				t.Errorf("the linked file holds %q (%v), want it untouched", got, err)
			}
			if got, err := os.ReadFile(path); err != nil || string(got) != "new" {
				t.Errorf("%s holds %q (%v), want %q", path, got, err, "new")
			}
		})
	}
}

// TestCreateTempRefusesTakenNames: every name CreateTemp gives is new,
// and a file it creates never goes through a link (O_EXCL).
func TestCreateTempRefusesTakenNames(t *testing.T) {
	dir := t.TempDir()
	seen := map[string]bool{}
	for range 20 {
		f, err := CreateTemp(dir, "x", 0o600)
		if err != nil {
			t.Fatal(err)
		}
		if seen[f.Name()] {
			t.Errorf("%s given twice", f.Name())
		}
		seen[f.Name()] = true
		f.Close()
	}
}
