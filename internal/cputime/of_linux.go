//go:build linux

package cputime

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// Of runs f on one OS thread and returns the CPU time that thread
// spent, user and system. The process's CPU over the same span would
// also count other goroutines' work, chiefly the collector's first cycle
// over what start-up allocated: on a 20 ms search that doubled the
// figure from run to run. Work f hands to other goroutines (an object
// store's HTTP transport) is not counted.
func Of(f func()) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before := threadCPU()
	f()
	return threadCPU() - before
}

// threadCPU reads the thread's CPU clock, which the scheduler keeps to
// the nanosecond. getrusage(RUSAGE_THREAD) derives user and system time
// from timer ticks and can move in whole 4 ms ticks, a fifth of a
// typical search.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
