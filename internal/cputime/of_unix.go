//go:build unix && !linux

package cputime

import "time"

// Of runs f and returns the CPU time the process spent meanwhile,
// user and system: there is no per-thread figure here, so other
// goroutines' work is counted too.
func Of(f func()) time.Duration {
	before := processCPU()
	f()
	return processCPU() - before
}

// processCPU is Process, 0 when it cannot be read.
func processCPU() time.Duration {
	d, _ := Process()
	return d
}
