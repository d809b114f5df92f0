// Package wholefile replaces a file whole or not at all: the files a
// scheduler or a resumed run reads back (checkpoints, split plans,
// summaries) must never be found half written.
package wholefile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces path's content with b. It writes a temporary file
// beside it, syncs it with sync (nil: not synced), renames it over path
// and syncs the directory, so that a reader, or a crash, finds the old
// content or the new, never a torn file. On failure path is as it was and
// the temporary file is gone; the error is the failed step's, unwrapped.
//
// A file that exists keeps its mode (a user who made a checkpoint 0600,
// or a summary 0640 for a group, finds it so after every rewrite); a new
// one gets perm, less the umask.
//
// The temporary file has a fresh random name and is created exclusively
// (O_EXCL), so nothing planted at a name the run would use (a link at
// path+".tmp") is ever opened: a fixed name opened with O_TRUNC let such a
// link truncate and overwrite whatever file it named.
//
// When path is a symbolic link, the file it names is replaced, not the
// link. A path that names one of the process's descriptors (/dev/stdout:
// see Descriptor) is written through it, and one that names something
// other than a regular file (a device, a named pipe) cannot be replaced:
// b is written to it as it is.
func Write(path string, b []byte, sync func(*os.File) error, perm os.FileMode) error {
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
		return os.WriteFile(path, b, perm)
	}
	keepMode := os.FileMode(0)
	if fi, err := os.Stat(path); err == nil {
		keepMode = fi.Mode().Perm()
	}
	f, err := CreateTemp(filepath.Dir(path), filepath.Base(path), perm)
	if err != nil {
		return err
	}
	tmp := f.Name()
	if keepMode != 0 {
		err = f.Chmod(keepMode)
	}
	if err == nil {
		_, err = f.Write(b)
	}
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

// CreateTemp creates a new file in dir named base+".tmp"+a random
// suffix, with perm less the umask. It is os.CreateTemp but for the mode:
// os.CreateTemp's is always 0600, and a new summary must get the mode any
// other new file of the user's gets. O_EXCL makes the create fail, rather
// than follow, when a link or a file is already at the name.
func CreateTemp(dir, base string, perm os.FileMode) (*os.File, error) {
	var rnd [6]byte
	for try := 0; ; try++ {
		_, _ = rand.Read(rnd[:]) // crypto/rand.Read never fails
		name := filepath.Join(dir, "."+base+".tmp"+hex.EncodeToString(rnd[:]))
		f, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
		if errors.Is(err, fs.ErrExist) && try < 100 {
			continue
		}
		return f, err
	}
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
