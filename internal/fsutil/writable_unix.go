//go:build unix

package fsutil

import "golang.org/x/sys/unix"

// Writable reports whether this process may open path for writing,
// without opening it: opening a named pipe for writing waits for a
// reader.
func Writable(path string) error {
	return unix.Access(path, unix.W_OK)
}
