// Package stall keeps the clocks that leave out the spells in which the
// process itself did not run (Ctrl-Z, SIGSTOP, a paused VM, CPU
// starvation), and the timers that run on them: Clock notices the spells,
// Pacer keeps INGESTRATE's schedule and moves it on over them, Attempts
// times a sender's requests out on running time. The loader uses them to
// judge the cluster (its silence, a node's, a batch's retry window) by
// what it could have heard.
package stall

import (
	"sync"
	"sync/atomic"
	"time"
)

// Clock notices the spells in which the process itself did not run:
// stopped (Ctrl-Z, SIGSTOP, docker pause's cgroup freezer), its VM paused
// by its host, or starved of CPU. A node's answers wait in the socket
// meanwhile, so such a spell says nothing of the cluster; the clocks that
// judge the cluster (how long no node has answered, a node's silence, a
// batch's retry window) run on the process's running time (Running), or
// a stopped loader would take the cluster it could not hear for a silent
// one, and abort a run it had only paused. (A machine suspended to memory
// stops the monotonic clock as well, which Go's timers run on: nothing
// fires early there.)
//
// A ticker notes the time every stallTick; a gap of more than stallMin
// between two notes is a stall. A stall still going on when a clock is
// read (the ticker has not run since the process woke) counts too.
type Clock struct {
	// lastTick is the ticker's last note (unix ns); 0 before start.
	lastTick atomic.Int64
	// lastEnd is when the latest stall ended (unix ns): the fast test
	// of whether one touched a span.
	lastEnd atomic.Int64

	mu     sync.Mutex
	stalls [16]stall // the latest, in a ring
	next   int
}

// A stall is a spell [from, to) in unix ns in which the process did not run.
type stall struct{ from, to int64 }

const (
	stallTick = 100 * time.Millisecond
	// stallMin is the longest gap between two notes that is taken for
	// the scheduler's ordinary delays on a busy machine.
	stallMin = 500 * time.Millisecond
)

// Start notes the time every stallTick until the returned stop is called.
func (c *Clock) Start() (stop func()) {
	c.note(time.Now().UnixNano())
	return Every(stallTick, func() { c.note(time.Now().UnixNano()) })
}

// Every runs f every d on its own goroutine until stop is called; stop
// waits for a running f to return. The loader's periodic checks use it
// as the clock does.
func Every(d time.Duration, f func()) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				f()
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}

// note is the ticker's: a gap since the last note longer than stallMin
// is recorded as a stall, from when the next note was due.
func (c *Clock) note(now int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	last := c.lastTick.Swap(now)
	if last == 0 || time.Duration(now-last) <= stallMin {
		return
	}
	c.stalls[c.next] = stall{from: last + int64(stallTick), to: now}
	c.next = (c.next + 1) % len(c.stalls)
	c.lastEnd.Store(now)
}

// Touched reports whether a stall, ended or going on, touched the span
// from from to now (unix ns): two atomic loads, for every request.
func (c *Clock) Touched(from, now int64) bool {
	if c.lastEnd.Load() > from {
		return true
	}
	last := c.lastTick.Load()
	return last != 0 && time.Duration(now-last) > stallMin
}

// stalled is how much of the span from from to now (unix ns) the process
// spent stalled.
func (c *Clock) stalled(from, now int64) time.Duration {
	if !c.Touched(from, now) {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var sum int64
	add := func(s stall) {
		if lo, hi := max(s.from, from), min(s.to, now); hi > lo {
			sum += hi - lo
		}
	}
	for _, s := range c.stalls {
		add(s)
	}
	if last := c.lastTick.Load(); last != 0 && time.Duration(now-last) > stallMin {
		add(stall{from: last + int64(stallTick), to: now})
	}
	return time.Duration(sum)
}

// Running is how long the process ran from from to now (unix ns): the
// span less its stalls.
func (c *Clock) Running(from, now int64) time.Duration {
	return time.Duration(now-from) - c.stalled(from, now)
}
