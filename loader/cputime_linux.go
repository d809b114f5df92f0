//go:build linux

package loader

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// cpuOf runs f on one OS thread and returns the CPU time that thread
// spent, user and system. The process's CPU over the same span would
// also count other goroutines' work, chiefly the collector's first cycle
// over what start-up allocated: on a 20 ms search that doubled the
// figure from run to run. Work f hands to other goroutines (an object
// store's HTTP transport) is not counted.
func cpuOf(f func()) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before := threadCPU()
	f()
	return threadCPU() - before
}

func threadCPU() time.Duration {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_THREAD, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
