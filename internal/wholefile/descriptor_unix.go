//go:build unix

package wholefile

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Descriptor returns, when path names one of this process's own
// descriptors (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N), a
// duplicate of it to write to, and true. Output then goes where the
// shell pointed the descriptor: at its offset, or appended with >>.
// Opening the path instead would open the file behind it anew, so that a
// replace (Write's rename) or a truncate would take the place of a file
// the shell was appending to. The error says when the descriptor is not
// open, or not for writing. The caller closes the duplicate.
func Descriptor(path string) (*os.File, bool, error) {
	fd, ok := descriptorOf(path)
	if !ok {
		return nil, false, nil
	}
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return nil, true, fmt.Errorf("descriptor %d is not open: %w", fd, err)
	}
	if flags&unix.O_ACCMODE == unix.O_RDONLY {
		return nil, true, fmt.Errorf("descriptor %d is not open for writing", fd)
	}
	dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, true, fmt.Errorf("descriptor %d: %w", fd, err)
	}
	return os.NewFile(uintptr(dup), path), true, nil
}

// IsDescriptor reports whether path names one of the process's own
// descriptors, open or not (see Descriptor).
func IsDescriptor(path string) bool {
	_, ok := descriptorOf(path)
	return ok
}

// descriptorOf reads the descriptor number out of path.
func descriptorOf(path string) (int, bool) {
	path = filepath.Clean(path)
	switch path {
	case "/dev/stdout":
		return 1, true
	case "/dev/stderr":
		return 2, true
	}
	for _, dir := range []string{"/dev/fd/", "/proc/self/fd/"} {
		if n, ok := strings.CutPrefix(path, dir); ok {
			fd, err := strconv.Atoi(n)
			return fd, err == nil && fd >= 0
		}
	}
	return 0, false
}
