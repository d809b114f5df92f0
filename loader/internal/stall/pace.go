package stall

import (
	"context"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Pacer sends rows on INGESTRATE's schedule: row i of the run is due at
// start + i/rate. A request waits until its rows are due; after a stall
// (a paused node, a full in-flight limit) the rows that fell due meanwhile
// go as fast as the cluster takes them until the run is back on schedule,
// as wrk2 and vegeta do, so the average rate never exceeds INGESTRATE.
//
// The schedule is also the clock of the corrected latency: a request is
// timed from when it was due, not from when it was sent, so a stall that
// held requests back shows in the percentiles instead of vanishing from
// them (coordinated omission). A token bucket that caps its burst would
// forget the rows it could not send and time the late ones from their
// late start; x/time/rate's bucket, given room for the whole run's rows
// and emptied at the start, is that schedule.
//
// A spell in which cqlload itself did not run (Clock: Ctrl-Z, docker
// pause) moves the schedule on by its length instead: nothing was due
// from a load generator that was stopped, and catching up would send the
// rows of the whole spell at once, far past INGESTRATE, to a cluster
// that had not been slow.
type Pacer struct {
	mu     sync.Mutex
	lim    *rate.Limiter
	rate   float64 // rows a second
	stalls *Clock
	last   int64 // unix ns of the last wait: stalls since are skipped
}

func NewPacer(rowsPerSec int, stalls *Clock) *Pacer {
	// Burst is the bucket's room: a whole day of rows, so that no row
	// ever falls off the schedule. The limiter starts full, so it is
	// emptied first.
	burst := int(min(float64(rowsPerSec)*86400, math.MaxInt32))
	lim := rate.NewLimiter(rate.Limit(rowsPerSec), burst)
	now := time.Now()
	lim.ReserveN(now, burst)
	return &Pacer{lim: lim, rate: float64(rowsPerSec), stalls: stalls, last: now.UnixNano()}
}

// Wait takes n rows from the schedule and waits until they are due. It
// returns when they were due: in the past when the run is behind.
func (p *Pacer) Wait(ctx context.Context, n int) (due time.Time, err error) {
	p.mu.Lock()
	now := time.Now()
	p.skipStalls(now)
	// The bucket holds the rows that fell due and were not sent: the
	// first of these n rows was due that long ago (or is due ahead, when
	// the bucket is in debt from earlier reservations).
	tokens := p.lim.TokensAt(now)
	r := p.lim.ReserveN(now, n)
	p.mu.Unlock()
	due = now.Add(time.Duration((float64(n) - tokens) / p.rate * float64(time.Second)))
	if !r.OK() {
		return due, context.Canceled // n beyond the burst: not for a batch of rows
	}
	d := r.DelayFrom(now)
	if d <= 0 {
		return due, nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return due, nil
	case <-ctx.Done():
		r.CancelAt(time.Now())
		return due, ctx.Err()
	}
}

// skipStalls takes out of the bucket the rows that fell due while the
// process was stalled since the last wait (all of them, or as many as
// the bucket holds). p.mu is held.
func (p *Pacer) skipStalls(now time.Time) {
	ns := now.UnixNano()
	stalled := p.stalls.stalled(p.last, ns)
	p.last = ns
	if stalled <= 0 {
		return
	}
	if n := int(min(stalled.Seconds()*p.rate, p.lim.TokensAt(now))); n > 0 {
		p.lim.ReserveN(now, n)
	}
}
