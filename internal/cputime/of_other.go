//go:build !unix

package cputime

import "time"

// Of runs f and returns the wall time it took: CPU time cannot be
// read here (no getrusage).
func Of(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}
