//go:build !unix

package ceiling

import (
	"errors"
	"time"
)

// CPUTime is the user and system CPU this process has used: the bench
// measures it with getrusage, which only Unix systems have.
func CPUTime() (time.Duration, error) {
	return 0, errors.New("CPU time: getrusage is not available on this system")
}
