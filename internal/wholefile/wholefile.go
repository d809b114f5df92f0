// Package wholefile replaces a file whole or not at all: the files a
// scheduler or a resumed run reads back (checkpoints, split plans,
// summaries) must never be found half written.
package wholefile

import (
	"os"
	"path/filepath"
)

// Write replaces path's content with b. It writes path+".tmp", syncs it
// with sync (nil: not synced), renames it over path and syncs the
// directory, so that a reader, or a crash, finds the old content or the
// new, never a torn file. On failure path is as it was and the temporary
// file is gone; the error is the failed step's, unwrapped.
func Write(path string, b []byte, sync func(*os.File) error) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil && sync != nil {
		err = sync(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp) // a disk that filled up: the old file stands
		return err
	}
	if dir, err := os.Open(filepath.Dir(path)); err == nil {
		_ = dir.Sync() // the rename's durability; not every file system supports it
		dir.Close()
	}
	return nil
}
