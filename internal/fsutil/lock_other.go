//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd || windows)

package fsutil

import "os"

// TryLock: on systems cqlload is not released for, runs are not locked
// against each other.
func TryLock(*os.File) (bool, error) { return true, nil }

// Unlock removes the lock file and closes it.
func Unlock(f *os.File) {
	_ = os.Remove(f.Name())
	_ = f.Close()
}
