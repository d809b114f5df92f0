//go:build linux

package cputime

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestCPUOf: Of counts the CPU of the thread that runs f, not the
// wall clock and not other goroutines' work.
func TestCPUOf(t *testing.T) {
	spin := func(d time.Duration) {
		for end := time.Now().Add(d); time.Now().Before(end); {
		}
	}
	start := time.Now()
	busy := Of(func() { spin(30 * time.Millisecond) })
	if wall := time.Since(start); busy <= 0 || busy > wall+time.Millisecond {
		t.Errorf("a 30 ms spin: %v of CPU in %v, want more than 0 and no more than the wall clock", busy, wall)
	}
	// Another goroutine burns CPU while f sleeps.
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		for !stop.Load() {
			runtime.Gosched()
		}
	}()
	idle := Of(func() { time.Sleep(50 * time.Millisecond) })
	stop.Store(true)
	<-done
	if idle > 10*time.Millisecond {
		t.Errorf("a 50 ms sleep beside a busy goroutine: %v of CPU, want the sleeping thread's alone (near 0)", idle)
	}
}
