//go:build unix

package cqlsim

import (
	"runtime"
	"syscall"
	"time"
)

// resourceUsage is the process's CPU time and peak RSS from getrusage.
func resourceUsage() (user, system, maxRSSMiB float64) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, 0, 0
	}
	rss := float64(ru.Maxrss) / 1024 // KiB on Linux and the BSDs
	if runtime.GOOS == "darwin" {
		rss /= 1024 // bytes on macOS
	}
	return time.Duration(ru.Utime.Nano()).Seconds(), time.Duration(ru.Stime.Nano()).Seconds(), rss
}
