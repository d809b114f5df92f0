package stall

import (
	"context"
	"sync"
	"time"
)

// Attempts is a sender's context: the run's (the parent), and, while an
// attempt is armed, that attempt's timeout. The loader times attempts
// out itself, not the driver, so that the timeout counts the process's
// running time (Clock): a process stopped past the timeout (Ctrl-Z,
// docker pause) wakes with the answers to its requests waiting in
// their sockets, and the driver's own timer, which fires the moment the
// process runs again, would race them and usually win. Inserts would be
// sent again for nothing, and counter updates, which are not, left
// unknown although every one was applied and answered. Here a timeout
// that falls due after a stall is put off by the time the process did
// not run (at least stallGrace), and the answers are read meanwhile.
//
// One attempt at a time: a sender's requests go one after another. The
// Done channel is stable while an attempt is armed, which is when the
// driver selects on it; Disarm replaces it after a timeout closed it.
type Attempts struct {
	parent context.Context
	stalls *Clock
	// noAnswer is what a timed-out attempt's error also is (TimeoutError).
	noAnswer error
	// stopRun unregisters the parent's cancellation (context.AfterFunc).
	stopRun func() bool

	mu    sync.Mutex
	done  chan struct{}
	err   error
	ended bool // the run's context ended: done stays closed
	timer *time.Timer
	// The armed attempt: sent at start (unix ns; 0 when none), left
	// timeout of running time from then (less than given, once put off
	// after a stall); given is what it was given.
	start          int64
	timeout, given time.Duration
}

// stallGrace is the least time an attempt whose timeout fell due in a
// stall is given once the process runs again: its answer, if it came,
// is in the socket, read within milliseconds.
const stallGrace = time.Second

// NewAttempts returns a sender's context under parent, its attempts timed
// on stalls' running time. A timed-out attempt's error is noAnswer as well
// as a deadline (TimeoutError): the loader gives the driver's
// ErrTimeoutNoResponse, so that its error handling takes the two alike.
func NewAttempts(parent context.Context, stalls *Clock, noAnswer error) *Attempts {
	a := &Attempts{parent: parent, stalls: stalls, noAnswer: noAnswer, done: make(chan struct{})}
	a.timer = time.AfterFunc(time.Hour, a.fire)
	a.timer.Stop()
	a.stopRun = context.AfterFunc(parent, a.runEnded)
	return a
}

// Close releases the timer and the parent's registration.
func (a *Attempts) Close() {
	a.stopRun()
	a.timer.Stop()
}

func (a *Attempts) Deadline() (time.Time, bool) { return a.parent.Deadline() }
func (a *Attempts) Value(key any) any           { return a.parent.Value(key) }

func (a *Attempts) Done() <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.done
}

func (a *Attempts) Err() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err
}

// Arm starts an attempt sent at start that waits at most timeout of
// running time for its answer.
func (a *Attempts) Arm(start time.Time, timeout time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.start, a.timeout, a.given = start.UnixNano(), timeout, timeout
	a.timer.Reset(timeout)
}

// Disarm ends the attempt; after its timeout, the next one gets a Done
// channel not closed.
func (a *Attempts) Disarm() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.timer.Stop()
	a.start = 0
	if a.err != nil && !a.ended {
		a.done, a.err = make(chan struct{}), nil
	}
}

// fire is the timer's: the attempt's timeout is due unless the process
// spent some of it stalled, in which case it is put off.
func (a *Attempts) fire() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.start == 0 || a.err != nil {
		return // disarmed meanwhile, or the run ended
	}
	now := time.Now().UnixNano()
	if stalled := a.stalls.stalled(a.start, now); stalled > 0 {
		ran := time.Duration(now-a.start) - stalled
		a.timer.Reset(max(a.timeout-ran, stallGrace))
		// Counted once: the next firing looks at what comes after.
		a.start, a.timeout = now, max(a.timeout-ran, stallGrace)
		return
	}
	a.err = &TimeoutError{noAnswer: a.noAnswer, timeout: a.given}
	close(a.done)
}

// runEnded is the parent's cancellation: every attempt from now on ends
// at once, with the parent's error.
func (a *Attempts) runEnded() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ended = true
	if a.err == nil {
		a.err = a.parent.Err()
		close(a.done)
	} else {
		a.err = a.parent.Err()
	}
}
