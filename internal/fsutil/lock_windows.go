//go:build windows

package fsutil

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// lockOffset is where the locked byte lies, far past the holder text:
// Windows locks are mandatory, and a run that finds the lock taken reads
// that text.
const lockOffset = 1 << 32

// TryLock takes an exclusive lock on one byte of f without waiting;
// false if another process holds it.
func TryLock(f *os.File) (bool, error) {
	ol := windows.Overlapped{Offset: uint32(lockOffset & 0xffffffff), OffsetHigh: uint32(lockOffset >> 32)}
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, windows.ERROR_LOCK_VIOLATION):
		return false, nil
	}
	return false, err
}

// Unlock closes f, which releases the lock, then removes the file. An
// open file cannot be removed on Windows, so a run that has it open
// meanwhile keeps it, and one that opens it later creates it anew.
func Unlock(f *os.File) {
	_ = f.Close()
	_ = os.Remove(f.Name())
}
