package stall

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

// TestStallClock: gaps between the ticker's notes longer than stallMin
// are stalls, counted from when the next note was due, and a gap still
// open when the clock is read counts too.
func TestStallClock(t *testing.T) {
	const s = int64(time.Second)
	ms := func(n int64) int64 { return n * int64(time.Millisecond) }
	for _, tc := range []struct {
		name     string
		notes    []int64 // the ticker's notes, unix ns
		from, to int64
		stalled  time.Duration
	}{
		{"ticking", []int64{s, s + ms(100), s + ms(200), s + ms(300)}, s, s + ms(300), 0},
		{"the scheduler's delay", []int64{s, s + ms(500)}, s, s + ms(500), 0},
		{"a stop", []int64{s, s + ms(100), 5 * s}, s, 5 * s, 3800 * time.Millisecond},
		{"a stop, in part", []int64{s, s + ms(100), 5 * s}, 3 * s, 5 * s, 2 * time.Second},
		{"before the span", []int64{s, 5 * s, 5*s + ms(100)}, 5*s + ms(50), 5*s + ms(100), 0},
		{"going on when read", []int64{s, s + ms(100)}, s, 4 * s, 2800 * time.Millisecond},
		{"two stops", []int64{s, 3 * s, 3*s + ms(100), 6 * s}, 0, 6 * s, 1900*time.Millisecond + 2800*time.Millisecond},
		{"never started", nil, s, 9 * s, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c Clock
			for _, n := range tc.notes {
				c.note(n)
			}
			got := c.stalled(tc.from, tc.to)
			if got != tc.stalled {
				t.Errorf("stalled = %v, want %v", got, tc.stalled)
			}
			if c.Touched(tc.from, tc.to) != (got > 0) {
				t.Errorf("touched = %v with %v stalled", !(got > 0), got)
			}
			if run := c.Running(tc.from, tc.to); run != time.Duration(tc.to-tc.from)-got {
				t.Errorf("running = %v", run)
			}
		})
	}
}

// TestAttemptTimeout: an attempt's timeout closes the sender's context
// with an error the loader takes for the driver's timeout, unless the
// process was stalled while it waited: then it is put off by at least
// stallGrace. Disarmed, the context is open again for the next attempt,
// and the run's end closes it for good.
func TestAttemptsTimeout(t *testing.T) {
	run, end := context.WithCancel(context.Background())
	defer end()
	var stalls Clock
	a := NewAttempts(run, &stalls, gocql.ErrTimeoutNoResponse)
	defer a.Close()

	waitDone := func(within time.Duration) bool {
		t := time.NewTimer(within)
		defer t.Stop()
		select {
		case <-a.Done():
			return true
		case <-t.C:
		}
		select {
		case <-a.Done():
			return true
		default:
			return false
		}
	}

	a.Arm(time.Now(), 50*time.Millisecond)
	if !waitDone(2 * time.Second) {
		t.Fatal("the timeout did not close the context")
	}
	if err := a.Err(); !errors.Is(err, gocql.ErrTimeoutNoResponse) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Err = %v, want the driver's timeout and a deadline", err)
	}
	a.Disarm()
	if a.Err() != nil || waitDone(0) {
		t.Fatal("disarmed, the context is still closed")
	}

	// Sent 800 ms ago with 900 ms to wait, of which 600 ms the process
	// did not run: due in 100 ms by the wall clock, put off to 1 s.
	start := time.Now().Add(-800 * time.Millisecond)
	stalls.note(start.UnixNano())
	stalls.note(start.Add(700 * time.Millisecond).UnixNano())
	stop := stalls.Start() // the ticker, or the process would seem stalled from here on
	defer stop()
	a.Arm(start, 900*time.Millisecond)
	if waitDone(500 * time.Millisecond) {
		t.Fatalf("the attempt timed out after a stall without its grace: %v", a.Err())
	}
	if !waitDone(3 * time.Second) {
		t.Fatal("the put-off timeout never closed the context")
	}
	if err := a.Err(); err == nil || !strings.Contains(err.Error(), "(timeout: 900ms)") {
		t.Errorf("Err = %v, want it to give the timeout the attempt was given", err)
	}
	a.Disarm()

	a.Arm(time.Now(), time.Hour)
	end()
	if !waitDone(2*time.Second) || !errors.Is(a.Err(), context.Canceled) {
		t.Fatalf("the run's end did not end the attempt: %v", a.Err())
	}
	a.Disarm()
	if !waitDone(0) {
		t.Fatal("after the run's end, disarm opened the context again")
	}
}

// TestPacerSkipsStalls: INGESTRATE's schedule catches up on the rows that
// fell due while the cluster was slow, but moves on by a spell in which
// cqlload itself did not run: nothing was due from a stopped process,
// and catching up would send the spell's rows at once.
func TestPacerSkipsStalls(t *testing.T) {
	for _, tc := range []struct {
		name    string
		stopped bool
	}{
		{"the cluster was slow", false},
		{"cqlload was stopped", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stalls Clock
			p := NewPacer(1000, &stalls)
			if _, err := p.Wait(context.Background(), 100); err != nil {
				t.Fatal(err)
			}
			t0 := time.Now()
			time.Sleep(700 * time.Millisecond) // 700 rows fall due
			if tc.stopped {
				// 600 ms of it with the process stopped.
				stalls.note(t0.UnixNano())
				stalls.note(t0.Add(700 * time.Millisecond).UnixNano())
			}
			start := time.Now()
			due, err := p.Wait(context.Background(), 500)
			if err != nil {
				t.Fatal(err)
			}
			waited := time.Since(start)
			if tc.stopped {
				// 100 rows due, 400 more to wait for.
				if waited < 250*time.Millisecond || !due.After(start) {
					t.Errorf("waited %v for rows due %v from the call: the stop's rows were sent to catch up", waited, due.Sub(start))
				}
				return
			}
			if waited > 150*time.Millisecond || !due.Before(start) {
				t.Errorf("waited %v for rows due %v from the call: the schedule did not catch up", waited, due.Sub(start))
			}
		})
	}
}
