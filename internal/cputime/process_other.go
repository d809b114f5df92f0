//go:build !unix

package cputime

import (
	"errors"
	"time"
)

// Process is the user and system CPU this process has used: it is
// measured with getrusage, which only Unix systems have.
func Process() (time.Duration, error) {
	return 0, errors.New("CPU time: getrusage is not available on this system")
}
