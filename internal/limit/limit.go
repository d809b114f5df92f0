package limit

import (
	"context"
	"math"
	"sync"
	"time"
)

// Outcome is what a released request tells the limiter.
type Outcome uint8

const (
	// Success: the request completed; its round-trip time is a latency
	// sample.
	Success Outcome = iota
	// Dropped: the node is saturated (Overloaded, write timeout, client
	// timeout). The limit is cut multiplicatively.
	Dropped
	// Ignore: any other error. The permit is returned and nothing is
	// learned.
	Ignore
)

// String returns the outcome's name.
func (o Outcome) String() string {
	switch o {
	case Success:
		return "success"
	case Dropped:
		return "dropped"
	case Ignore:
		return "ignore"
	}
	return "outcome(?)"
}

// Defaults applied to zero Config fields.
const (
	DefaultMax         = 128
	DefaultInitial     = 16
	DefaultMin         = 1
	DefaultBackoff     = 0.7
	DefaultFloorWindow = 10 * time.Second
	DefaultDropHold    = time.Second
)

// Tuning (see the package documentation).
const (
	// windowMin is the fewest fresh samples that close a window (and a
	// floor probe): the minimum RTT of fewer is the client's noise.
	windowMin = 64
	// A window whose minimum RTT exceeds queueRatio times the floor plus
	// queueSlack saw every request wait: a queue at the node. Below it
	// the limit grows by growStep of itself per window.
	queueRatio = 2
	queueSlack = 1500 * time.Microsecond
	growStep   = 0.125
	// growMin is the least a window grows the limit by: at a limit of a
	// few requests a whole one is too coarse a step.
	growMin = 0.25
	// ditherStep advances the dither that rounds a fractional limit up
	// in that fraction of windows (the golden ratio spreads them).
	ditherStep = 0.6180339887
	// stuckRatio, stuckSlack: more permits held than this times the
	// requests the window's completions account for (plus the slack)
	// means requests the node holds without answering.
	stuckRatio = 1.5
	stuckSlack = 2
	// stuckBackoff is the cut when the requests held grow.
	stuckBackoff = 0.9
	// ceilMargin: within DropHold of a drop the limit grows to at most
	// this fraction of the level dropped at.
	ceilMargin = 0.9
)

// Config configures a Limiter. Zero fields take the defaults above.
type Config struct {
	// Initial is the starting limit; it is clamped to [Min, Max].
	Initial int
	// Min is the lowest the limit ever goes (at least 1).
	Min int
	// Max is the ceiling (--max-in-flight); the limit never exceeds it.
	Max int
	// Fixed turns adaptation off: the limit stays at Max, Acquire and
	// Release only count requests in flight.
	Fixed bool
	// Backoff is the factor the limit is multiplied by on a drop, in
	// (0, 1).
	Backoff float64
	// FloorWindow is how long a latency floor stays valid without being
	// seen again before the limiter re-measures it.
	FloorWindow time.Duration
	// DropHold is how long after a drop the limit stays below the level
	// it was dropped at.
	DropHold time.Duration
	// Now is the clock; nil means time.Now. Tests inject a fake one.
	Now func() time.Time
}

// Limiter bounds the requests in flight to one node. It is safe for
// concurrent use.
type Limiter struct {
	now         func() time.Time
	fixed       bool
	min, max    float64
	backoff     float64
	floorWindow time.Duration
	dropHold    time.Duration
	pool        sync.Pool // of *waiter

	mu       sync.Mutex
	limit    float64 // the learned limit
	stuck    float64 // requests the node holds without answering, estimated
	cur      int     // the limit admission obeys (limit, or less while probing)
	inflight int
	head     *waiter // FIFO of blocked Acquire calls
	tail     *waiter
	nwait    int

	floor   time.Duration // lowest RTT seen recently; 0 until the first sample
	floorAt time.Time     // when floor was last seen

	winStart       time.Time     // samples of requests sent before this are stale
	winN           int           // fresh samples in the window
	winMin         time.Duration // their minimum RTT
	winSum         time.Duration // and the sum of their RTTs
	winMaxInflight int           // most requests in flight during the window
	dither         float64       // in [0, 1): rounds the limit up when below its fraction
	lastCut        time.Time     // drops of requests sent before this are old news
	cutSettled     bool          // in flight has fallen below the limit since the last cut
	ceil           float64       // learned limit at the last drop
	ceilUntil      time.Time     // growth stays below ceil·ceilMargin until then

	probing      bool
	probeDrained bool
	probeStart   time.Time
	probeN       int
	probeMin     time.Duration
}

type waiter struct {
	ch         chan struct{} // buffered 1: the grant never blocks
	prev, next *waiter
	queued     bool
}

// New returns a Limiter configured by cfg.
func New(cfg Config) *Limiter {
	if cfg.Max <= 0 {
		cfg.Max = DefaultMax
	}
	if cfg.Min <= 0 {
		cfg.Min = DefaultMin
	}
	if cfg.Min > cfg.Max {
		cfg.Min = cfg.Max
	}
	if cfg.Initial <= 0 {
		cfg.Initial = DefaultInitial
	}
	cfg.Initial = max(cfg.Min, min(cfg.Max, cfg.Initial))
	if cfg.Backoff <= 0 || cfg.Backoff >= 1 {
		cfg.Backoff = DefaultBackoff
	}
	if cfg.FloorWindow <= 0 {
		cfg.FloorWindow = DefaultFloorWindow
	}
	if cfg.DropHold <= 0 {
		cfg.DropHold = DefaultDropHold
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	l := &Limiter{
		now:         cfg.Now,
		fixed:       cfg.Fixed,
		min:         float64(cfg.Min),
		max:         float64(cfg.Max),
		backoff:     cfg.Backoff,
		floorWindow: cfg.FloorWindow,
		dropHold:    cfg.DropHold,
		limit:       float64(cfg.Initial),
		cutSettled:  true,
	}
	l.pool.New = func() any { return &waiter{ch: make(chan struct{}, 1)} }
	if l.fixed {
		l.limit = l.max
	}
	l.setCurLocked()
	l.winStart = l.now()
	return l
}

// Limit returns the number of requests currently allowed in flight.
func (l *Limiter) Limit() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cur
}

// InFlight returns the number of permits held.
func (l *Limiter) InFlight() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.inflight
}

// TryAcquire takes a permit if one is free and nobody is waiting for one.
func (l *Limiter) TryAcquire() bool {
	l.mu.Lock()
	ok := l.head == nil && l.inflight < l.cur
	if ok {
		l.takeLocked()
	}
	l.mu.Unlock()
	return ok
}

// Acquire blocks until a permit is free or ctx is done. Waiters are
// served in order. On error no permit is held.
func (l *Limiter) Acquire(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	l.mu.Lock()
	if l.head == nil && l.inflight < l.cur {
		l.takeLocked()
		l.mu.Unlock()
		return nil
	}
	w := l.pool.Get().(*waiter)
	l.pushLocked(w)
	l.mu.Unlock()

	select {
	case <-w.ch:
		l.pool.Put(w)
		return nil
	case <-ctx.Done():
	}
	l.mu.Lock()
	if w.queued {
		l.removeLocked(w)
		l.mu.Unlock()
		l.pool.Put(w)
		return ctx.Err()
	}
	// Granted while ctx ended: hand the permit on.
	<-w.ch
	l.inflight--
	l.grantLocked()
	l.mu.Unlock()
	l.pool.Put(w)
	return ctx.Err()
}

// Release returns a permit taken by Acquire or TryAcquire. rtt is the
// time from sending the request to its outcome (for a client timeout,
// the timeout), measured with the same clock as Config.Now; samples
// with rtt <= 0 teach nothing. o says what the outcome means: errors
// answered without doing the work (Unavailable, a rejected statement)
// must be Ignore, or their short RTT would pass for the latency floor.
// Release panics if no permit is held.
func (l *Limiter) Release(rtt time.Duration, o Outcome) {
	var now time.Time
	if !l.fixed {
		now = l.now()
	}
	l.mu.Lock()
	if l.inflight <= 0 {
		l.mu.Unlock()
		panic("limit: Release without a held permit")
	}
	l.inflight--
	if !l.cutSettled && l.inflight < l.cur {
		// Requests sent from now on see the cut limit.
		l.cutSettled, l.lastCut = true, now
	}
	if l.probing && !l.probeDrained && l.inflight <= l.cur {
		l.probeDrained, l.probeStart, l.probeN, l.probeMin = true, now, 0, 0
	}
	if !l.fixed && o != Ignore && rtt > 0 {
		l.learnLocked(now, rtt, o)
	}
	l.grantLocked()
	l.mu.Unlock()
}

func (l *Limiter) takeLocked() {
	l.inflight++
	if l.inflight > l.winMaxInflight {
		l.winMaxInflight = l.inflight
	}
}

func (l *Limiter) pushLocked(w *waiter) {
	w.queued = true
	w.next = nil
	w.prev = l.tail
	if l.tail != nil {
		l.tail.next = w
	} else {
		l.head = w
	}
	l.tail = w
	l.nwait++
}

func (l *Limiter) removeLocked(w *waiter) {
	if w.prev != nil {
		w.prev.next = w.next
	} else {
		l.head = w.next
	}
	if w.next != nil {
		w.next.prev = w.prev
	} else {
		l.tail = w.prev
	}
	w.prev, w.next, w.queued = nil, nil, false
	l.nwait--
}

// grantLocked hands free permits to waiters, oldest first.
func (l *Limiter) grantLocked() {
	for l.head != nil && l.inflight < l.cur {
		w := l.head
		l.removeLocked(w)
		l.takeLocked()
		w.ch <- struct{}{}
	}
}

func (l *Limiter) setCurLocked() {
	l.limit = math.Max(l.min, math.Min(l.max, l.limit))
	c := l.limit
	if l.probing {
		c = math.Max(l.min, c/4)
	}
	// Permits held by requests the node sits on do not load it: they
	// are admitted on top, or a node that times requests out would
	// starve the loader of permits until it does.
	c = math.Min(l.max, c+l.stuck)
	n := math.Floor(c)
	if c-n > l.dither {
		n++
	}
	l.cur = int(math.Max(l.min, math.Min(l.max, n)))
}

func (l *Limiter) resetWindowLocked(now time.Time) {
	l.winStart = now
	l.winN = 0
	l.winMin = 0
	l.winSum = 0
	l.winMaxInflight = l.inflight
	l.dither += ditherStep
	if l.dither >= 1 {
		l.dither--
	}
}

func (l *Limiter) learnLocked(now time.Time, rtt time.Duration, o Outcome) {
	sent := now.Add(-rtt)
	if o == Dropped {
		// One cut per congestion event: drops of requests sent before
		// the cut limit took effect were caused by the limit already cut.
		if !l.cutSettled || sent.Before(l.lastCut) {
			return
		}
		cut := l.backoff
		if now.Before(l.ceilUntil) && l.limit >= ceilMargin*ceilMargin*l.ceil {
			// Dropped again near the level of the last drop: that is
			// the node's capacity, and a drop now and then is what
			// being at it looks like. Step down a little, not a
			// whole backoff.
			cut = math.Max(cut, ceilMargin)
		}
		l.ceil, l.ceilUntil = l.limit, now.Add(l.dropHold) // the learned level, not a probe's
		l.limit *= cut
		l.setCurLocked()
		l.lastCut, l.cutSettled = now, l.inflight < l.cur
		l.resetWindowLocked(now)
		return
	}

	if l.probing {
		l.probeLocked(now, sent, rtt)
		return
	}
	if l.floor == 0 || rtt <= l.floor {
		l.floor, l.floorAt = rtt, now
	} else if now.Sub(l.floorAt) > l.floorWindow {
		l.probing, l.probeDrained = true, false
		l.setCurLocked()
		if l.inflight <= l.cur {
			l.probeDrained, l.probeStart, l.probeN, l.probeMin = true, now, 0, 0
		}
		return
	}
	if sent.Before(l.winStart) {
		return
	}
	l.winN++
	l.winSum += rtt
	if l.winMin == 0 || rtt < l.winMin {
		l.winMin = rtt
	}
	if l.winN >= max(windowMin, 2*l.cur) {
		l.adjustLocked(now)
	}
}

// probeLocked re-measures the floor: admission runs at a quarter of the limit;
// once the requests in flight have fallen to that, the minimum RTT of
// requests sent afterwards becomes the new floor, higher or lower.
func (l *Limiter) probeLocked(now, sent time.Time, rtt time.Duration) {
	if !l.probeDrained || sent.Before(l.probeStart) {
		return
	}
	l.probeN++
	if l.probeMin == 0 || rtt < l.probeMin {
		l.probeMin = rtt
	}
	if l.probeN >= max(windowMin/4, l.cur) {
		l.floor, l.floorAt = l.probeMin, now
		l.probing = false
		l.setCurLocked()
		l.resetWindowLocked(now)
	}
}

// adjustLocked closes a window and moves the limit.
func (l *Limiter) adjustLocked(now time.Time) {
	floor := float64(l.floor)
	rtt := float64(l.winMin)
	// The requests the window's completions account for (Little's law);
	// permits held beyond that are requests the node sits on.
	served := float64(l.winSum) / float64(now.Sub(l.winStart))
	stuck := math.Max(0, float64(l.inflight)-stuckRatio*served-stuckSlack)
	more := stuck >= l.stuck+stuckSlack && stuck >= l.limit/4
	l.stuck = stuck
	switch target := queueRatio*floor + float64(queueSlack); {
	case rtt > target:
		// Every request waited: cut the part of the limit that queues,
		// as a drop at most.
		l.limit = math.Min(l.limit-1, l.limit*math.Max(l.backoff, target/rtt))
	case more:
		// More requests held without an answer than a window ago:
		// the node is over capacity and will time them out. That is
		// one congestion event, this one: their timeouts will not cut
		// the limit again.
		l.limit = math.Max(l.min, l.limit*stuckBackoff)
		l.lastCut, l.cutSettled = now, true
	case l.winMaxInflight < l.cur:
		// The client did not use the whole limit: no evidence that
		// more would be taken, so no growth.
	default:
		grown := l.limit + math.Max(growMin, growStep*l.limit)
		if now.Before(l.ceilUntil) {
			// Stay below the level that was dropped at for a while.
			grown = math.Max(l.limit, math.Min(grown, l.ceil*ceilMargin))
		}
		l.limit = grown
	}
	l.setCurLocked()
	l.resetWindowLocked(now)
}
