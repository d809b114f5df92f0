//go:build unix

package wholefile

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// openNoFollow lets the kernel refuse the link: O_NOFOLLOW leaves no
// moment between a check and the open for a link to appear in.
func openNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	// O_NONBLOCK: a named pipe planted at the name must not hold the
	// open up; OpenNoFollow refuses it once open.
	f, err := os.OpenFile(path, flag|unix.O_NOFOLLOW|unix.O_NONBLOCK, perm)
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EMLINK) { // EMLINK: FreeBSD's, NetBSD's
		return nil, fmt.Errorf("%s %w", path, ErrLink)
	}
	return f, err
}
