// Package wholefile replaces a file whole or not at all: the files a
// scheduler or a resumed run reads back (checkpoints, split plans,
// summaries) must never be found half written.
package wholefile

import (
	"os"
	"path/filepath"
)

// Write replaces path's content with b. It writes a temporary file
// beside it, syncs it with sync (nil: not synced), renames it over path
// and syncs the directory, so that a reader, or a crash, finds the old
// content or the new, never a torn file. On failure path is as it was and
// the temporary file is gone; the error is the failed step's, unwrapped.
//
// When path is a symbolic link, the file it names is replaced, not the
// link. A path that names one of the process's descriptors (/dev/stdout:
// see Descriptor) is written through it, and one that names something
// other than a regular file (a device, a named pipe) cannot be replaced:
// b is written to it as it is.
func Write(path string, b []byte, sync func(*os.File) error) error {
	if f, ok, err := Descriptor(path); ok {
		if err != nil {
			return err
		}
		_, err = f.Write(b)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	path, regular := target(path)
	if !regular {
		return os.WriteFile(path, b, 0o644)
	}
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

// Discard removes the regular file at path (the one a symbolic link
// there names), such as an earlier run's file that a failed Write left in
// place; a device, a pipe, and the file behind one of the process's
// descriptors stay.
func Discard(path string) error {
	if IsDescriptor(path) {
		return nil
	}
	path, regular := target(path)
	if !regular {
		return nil
	}
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

// target is the file to replace for path, the one a link names when path
// is a link, and whether it is a regular file or none yet.
func target(path string) (string, bool) {
	if t, err := filepath.EvalSymlinks(path); err == nil {
		path = t
	}
	fi, err := os.Stat(path)
	return path, err != nil || fi.Mode().IsRegular()
}
