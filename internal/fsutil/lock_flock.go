//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package fsutil

import (
	"errors"
	"os"
	"syscall"
)

// TryLock takes f's exclusive flock without waiting; false if another
// open file holds it.
func TryLock(f *os.File) (bool, error) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		case errors.Is(err, syscall.EINTR):
			continue
		}
		return false, err
	}
}

// Unlock removes the lock file while still holding its lock, so that a
// run that opened it meanwhile finds it gone (the locker checks that the
// file it locked is still at its name) rather than locking a file a
// third run would not see, then closes it, which releases the lock.
func Unlock(f *os.File) {
	_ = os.Remove(f.Name())
	_ = f.Close()
}
