//go:build unix && !linux

package loader

import (
	"syscall"
	"time"
)

// cpuOf runs f and returns the CPU time the process spent meanwhile,
// user and system: there is no per-thread figure here, so other
// goroutines' work is counted too.
func cpuOf(f func()) time.Duration {
	before := processCPU()
	f()
	return processCPU() - before
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
