//go:build !unix

package loader

import "time"

// cpuOf runs f and returns the wall time it took: CPU time cannot be
// read here (no getrusage).
func cpuOf(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}
