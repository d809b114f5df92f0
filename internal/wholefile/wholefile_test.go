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
