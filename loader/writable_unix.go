//go:build unix

package loader

import "golang.org/x/sys/unix"

// writable reports whether this process may open path for writing,
// without opening it: opening a named pipe for writing waits for a
// reader.
func writable(path string) error {
	return unix.Access(path, unix.W_OK)
}
