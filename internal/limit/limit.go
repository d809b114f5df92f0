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
)

// minSamples is the fewest fresh samples that close a window (and a
// floor probe): fewer than this and one lucky or unlucky request decides.
const minSamples = 4

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
	pool        sync.Pool // of *waiter

	mu       sync.Mutex
	limit    float64 // the learned limit
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
	winMaxInflight int           // most requests in flight during the window
	slowStart      bool
	lastDecrease   time.Time
	ceil           int       // learned limit at the last drop; 0: none
	ceilAt         time.Time // when; the ceiling is kept for FloorWindow

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
		limit:       float64(cfg.Initial),
		slowStart:   true,
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
	c := l.limit
	if l.probing {
		c = math.Max(l.min, c/4)
	}
	l.cur = int(math.Max(l.min, math.Min(l.max, c)))
}

func (l *Limiter) resetWindowLocked(now time.Time) {
	l.winStart = now
	l.winN = 0
	l.winMin = 0
	l.winMaxInflight = l.inflight
}

func (l *Limiter) learnLocked(now time.Time, rtt time.Duration, o Outcome) {
	sent := now.Add(-rtt)
	if o == Dropped {
		// One cut per congestion event: drops of requests sent before
		// the last cut were caused by the limit already cut.
		if sent.Before(l.lastDecrease) {
			return
		}
		l.ceil, l.ceilAt = int(l.limit), now // the learned level, not a probe's
		l.limit = math.Max(l.min, l.limit*l.backoff)
		l.slowStart = false
		l.lastDecrease = now
		l.setCurLocked()
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
	if l.winMin == 0 || rtt < l.winMin {
		l.winMin = rtt
	}
	if l.winN >= max(minSamples, l.cur) {
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
	if l.probeN >= max(minSamples, l.cur) {
		l.floor, l.floorAt = l.probeMin, now
		l.probing = false
		l.setCurLocked()
		l.resetWindowLocked(now)
	}
}

// adjustLocked closes a window: it estimates the requests queued at the
// node, Vegas-style, and moves the limit toward a small standing queue.
func (l *Limiter) adjustLocked(now time.Time) {
	used := float64(min(l.winMaxInflight, l.cur))
	queue := used * (1 - float64(l.floor)/float64(l.winMin))
	alpha := math.Max(2, 3*math.Log10(l.limit))
	beta := 2 * alpha
	switch {
	case queue > beta:
		l.limit -= math.Max(1, (queue-beta)/2)
		l.slowStart = false
	case queue >= alpha:
		l.slowStart = false
	case l.winMaxInflight < l.cur:
		// The client did not use the whole limit: no evidence that
		// more would be taken, so no growth.
	default:
		grown := l.limit + 1
		if l.slowStart {
			grown = math.Max(grown, l.limit*1.5)
		}
		if l.ceil > 0 && now.Sub(l.ceilAt) < l.floorWindow {
			// Stay below the level that was dropped at until the drop
			// is old news.
			grown = math.Max(l.limit, math.Min(grown, float64(l.ceil-1)))
		}
		l.limit = grown
	}
	l.limit = math.Max(l.min, math.Min(l.max, l.limit))
	l.setCurLocked()
	l.resetWindowLocked(now)
}
