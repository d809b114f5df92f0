package limit

import (
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
	// timeout). Admission is paced at the rate the node delivers.
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
	// A request not answered holdAge (or holdFloors floors, if longer)
	// after it was sent is held by the node: more than a few of those
	// appearing (holdSlack, or holdShare of the requests sent with them)
	// is an overload. holdRing windows of history cover Cassandra's 2 s
	// write timeout.
	holdAge    = 200 * time.Millisecond
	holdFloors = 10
	holdSlack  = 2
	holdShare  = 0.02
	holdRing   = 64
	// A request unanswered for timeoutAges times the hold age (or the
	// smoothed RTT plus rttVarTimes its variation, if longer) is given
	// up on and sent again (Timeout).
	timeoutAges = 2
	rttVarTimes = 4
	// initialTimeout is Timeout before any RTT has been measured (RFC
	// 6298's initial RTO).
	initialTimeout = time.Second
	// maxRTOShift bounds TimedOut's backoff (400 ms doubled 6 times is
	// 25.6 s, beyond any request timeout worth having).
	maxRTOShift = 6
	// entryWindows: pacing starts from the best delivery of this many
	// windows before the overload.
	entryWindows = 8

	// The pacer (see the package documentation, Pacing). A rate window
	// closes after rateSpan (or rateFloors floors, if longer) with at
	// least rateSamples answers, or after rateWindowMax windows with any.
	rateSpan      = 50 * time.Millisecond
	rateFloors    = 4
	rateSamples   = 8
	rateWindowMax = 10
	// rateCut multiplies the rate on an overload; pacing starts at that
	// share of the rate requests were answered at.
	rateCut = 0.9
	// The rate grows by a step of itself per window that the pacer bound
	// (the client sent at least rateBound of the rate): rateStepMin after
	// an overload, so that the rate creeps up to the one that overloaded
	// the node; past rateProbe times that rate the step grows by
	// rateStepGrowth each such window in a row, up to rateStepMax, so
	// that a capacity that grew is found in a second or so.
	rateBound      = 0.75
	rateStepMin    = 0.01
	rateProbe      = 1.05
	rateStepGrowth = 1.25
	rateStepMax    = 0.25
	// rateMin is the least the pacer admits, requests/s.
	rateMin = 10
	// paceCredit: a pacer woken late may catch up by this much (or two
	// intervals, if longer) at once.
	paceCredit = 2 * time.Millisecond
	// paceIdle: pacing ends after this long without holding anything
	// back and without an overload.
	paceIdle = 2 * time.Second
)

// Config configures a Limiter. Zero fields take the defaults above.
type Config struct {
	// Initial is the starting limit; it is clamped to [Min, Max].
	Initial int
	// Min is the lowest the limit ever goes (at least 1).
	Min int
	// Max is the ceiling (--max-in-flight); the limit never exceeds it.
	Max int
	// Fixed turns adaptation off: the limit stays at Max, TryAcquire and
	// Release only count requests in flight.
	Fixed bool
	// Backoff is the most a window that shows a queue cuts the limit
	// by: it is multiplied by at least this, in
	// (0, 1).
	Backoff float64
	// FloorWindow is how long a latency floor stays valid without being
	// seen again before the limiter re-measures it.
	FloorWindow time.Duration
	// Now is the clock; nil means time.Now. Tests inject a fake one.
	Now func() time.Time
	// Stalled, when set, reports whether the client process was stopped
	// (or starved of CPU) at some time between from and to, on Now's
	// clock. Requests unanswered across such a spell were not held by the
	// node: their answers waited for the client.
	Stalled func(from, to time.Time) bool
}

// Limiter bounds the requests in flight to one node and, once the node
// has shown what it delivers, paces them. It is safe for concurrent use.
type Limiter struct {
	now         func() time.Time
	stalled     func(from, to time.Time) bool
	fixed       bool
	min, max    float64
	backoff     float64
	floorWindow time.Duration

	mu       sync.Mutex
	limit    float64 // the learned limit
	stuck    float64 // requests the node holds without answering
	cur      int     // the limit admission obeys (limit, or less while probing)
	inflight int

	floor   time.Duration // lowest RTT seen recently; 0 until the first sample
	floorAt time.Time     // when floor was last seen
	srtt    time.Duration // smoothed RTT of successes (RFC 6298); 0 until the first
	rttvar  time.Duration // and its mean deviation
	// rtoShift doubles Timeout that many times more after requests timed
	// out, until the next success (Karn's backoff); rtoAt is when it
	// last grew.
	rtoShift int
	rtoAt    time.Time

	winStart       time.Time     // samples of requests sent before this are stale
	winN           int           // fresh samples in the window
	winMin         time.Duration // their minimum RTT
	winMaxInflight int           // most requests in flight during the window
	dither         float64       // in [0, 1): rounds the limit up when below its fraction

	// The pacer; rate 0 means admission is not paced.
	rate     float64              // requests/s
	tat      time.Time            // when the pacer admits the next request
	step     float64              // the rate's next growth, a fraction of itself
	lastRate float64              // the rate when pacing last ended
	overRate float64              // the rate the last overload was at (estimated for the first)
	paceSeen time.Time            // when pacing last bound or saw an overload
	lastCut  time.Time            // drops of requests sent before this are old news
	sw       [holdRing]rateWindow // the last rate windows, sw[swi] the open one
	swi      int

	// finishing: the run ends within about a write timeout (Finishing),
	// and the pacer's rate no longer grows.
	finishing bool

	probing      bool
	probeDrained bool
	probeStart   time.Time
	probeN       int
	probeMin     time.Duration
}

// rateWindow counts what happened while one rate window was open: for
// the pacer, the answers and whether it held requests back; to tell
// requests the node holds, the requests sent and the answers to them
// (which may come in later windows).
type rateWindow struct {
	start          time.Time
	ok             int     // successes answered in the window
	answers        int     // successes and drops answered in the window
	held           bool    // the pacer held a request back
	sent, answered int     // requests sent in the window; answers to them so far
	delivered      float64 // successes per second, set when the window closes
	aged           bool    // counted once holdAge passed its end
	bound          bool    // the pacer bound: the client sent at least rateBound of the rate
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
		stalled:     cfg.Stalled,
		fixed:       cfg.Fixed,
		min:         float64(cfg.Min),
		max:         float64(cfg.Max),
		backoff:     cfg.Backoff,
		floorWindow: cfg.FloorWindow,
		limit:       float64(cfg.Initial),
	}
	if l.fixed {
		l.limit = l.max
	}
	l.setCurLocked()
	l.winStart = l.now()
	l.sw[0].start = l.winStart
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

// Rate returns the requests per second admission is paced at, 0 when it
// is not paced.
func (l *Limiter) Rate() float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.rate
}

// TryAcquire takes a permit if one is free and, when admission is
// paced, the pacer is due. A caller refused while permits are free can
// try again at Wake.
func (l *Limiter) TryAcquire() bool {
	var now time.Time
	if !l.fixed {
		now = l.now()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.inflight >= l.cur && !l.fixed {
		// Nothing may be answered for a while (a node that holds
		// requests): the window that would see it closes here too.
		l.paceLocked(now)
	}
	if l.inflight >= l.cur {
		return false
	}
	if l.rate > 0 {
		if now.Before(l.tat) {
			l.sw[l.swi].held = true
			return false
		}
		l.takeSlotLocked(now)
	}
	l.inflight++
	if l.inflight > l.winMaxInflight {
		l.winMaxInflight = l.inflight
	}
	return true
}

// Charge takes the pacer's next slot for a request sent without a
// permit (a retry), so that such requests count against the rate, and
// returns how long the caller should wait for that slot: 0 when it is
// due, or when admission is not paced. Retries sent at once, as a node
// that held requests for its write timeout answers them together, would
// overload it again; waiting for their slots spreads them at the rate.
func (l *Limiter) Charge() time.Duration {
	if l.fixed {
		return 0
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.rate == 0 {
		return 0
	}
	return max(0, l.takeSlotLocked(now).Sub(now))
}

// takeSlotLocked advances the pacer by one request and returns the slot
// it took.
func (l *Limiter) takeSlotLocked(now time.Time) time.Time {
	// A pacer woken late catches up by a little, not by the whole time
	// it slept.
	interval := time.Duration(float64(time.Second) / l.rate)
	credit := max(paceCredit, 2*interval)
	if from := now.Add(-credit); l.tat.Before(from) {
		l.tat = from
	}
	slot := l.tat
	l.tat = l.tat.Add(interval)
	return slot
}

// Sending tells the limiter that a request admitted by TryAcquire goes
// out now. Call it just before the RTT clock of the request starts: an
// answer is matched with the stretch of time its request was sent in,
// which tells requests the node holds from ones it answered, and the
// requests sent in a window tell whether the pacer bound.
func (l *Limiter) Sending() {
	if l.fixed {
		return
	}
	l.mu.Lock()
	l.sw[l.swi].sent++
	l.mu.Unlock()
}

// Wake returns when TryAcquire may admit a request without a Release
// first: the pacer's next slot while a permit is free; with none free,
// the end of the window that may see the node hold requests (and free
// permits for them), never a time already past; the zero time when only
// a Release can help, or for a fixed limit.
func (l *Limiter) Wake() time.Time {
	if l.fixed {
		return time.Time{}
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.inflight < l.cur {
		if l.rate > 0 {
			return l.tat
		}
		return time.Time{}
	}
	span := max(rateSpan, rateFloors*l.floor)
	if t := l.sw[l.swi].start.Add(span); t.After(now) {
		return t
	}
	return now.Add(span)
}

// Finishing tells the limiter that the run ends within about a write
// timeout: from now on a paced rate does not grow; an overload still
// cuts it. A request the node holds near the end of a run delays the end
// by the node's whole timeout, with nothing else left to send meanwhile,
// which the few per cent a higher rate would gain over the last seconds
// do not pay for.
func (l *Limiter) Finishing() {
	if l.fixed {
		return
	}
	l.mu.Lock()
	l.finishing = true
	l.mu.Unlock()
}

// Release returns a permit taken by TryAcquire. rtt is the time from
// sending the request to its outcome (for a client timeout, the
// timeout), measured with the same clock as Config.Now; samples with rtt
// <= 0 teach nothing. o says what the outcome means: errors answered
// without doing the work (Unavailable, a rejected statement) must be
// Ignore, or their short RTT would pass for the latency floor. Release
// panics if no permit is held.
func (l *Limiter) Release(rtt time.Duration, o Outcome) {
	var now time.Time
	if !l.fixed {
		now = l.now()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.inflight <= 0 {
		panic("limit: Release without a held permit")
	}
	l.inflight--
	if l.probing && !l.probeDrained && l.inflight <= l.cur {
		l.probeDrained, l.probeStart, l.probeN, l.probeMin = true, now, 0, 0
	}
	if l.fixed || rtt <= 0 {
		return
	}
	sent := now.Add(-rtt)
	l.answeredLocked(sent)
	if o == Ignore {
		return
	}
	if o == Dropped {
		// Drops of requests sent before the last cut were caused by
		// the rate already cut: one cut per overload.
		if !sent.Before(l.lastCut) {
			l.overloadLocked(now, false)
		}
	} else {
		l.sw[l.swi].ok++
		l.smoothLocked(rtt)
		l.learnLocked(now, sent, rtt)
	}
	l.sw[l.swi].answers++
	l.paceLocked(now)
}

// Timeout returns how long the attempt-th attempt of a request (from 1)
// should wait for its answer before the caller gives up on it and sends
// it again: the retransmission timeout of TCP (RFC 6298), the smoothed
// RTT plus four times its variation, but at least twice the age at
// which the node is taken to hold a request (200 ms, or 10 floors),
// doubled for each attempt after the first and for each TimedOut since
// the last success; before the first success, 1 s doubled so. 0 (the
// caller's own timeout applies) for a fixed limit.
//
// A node past its capacity may hold a request for its whole write
// timeout (Cassandra's 2 s) and then answer WriteTimeout. The pacer
// learns of it once the request is 200 ms old; waiting out the rest
// gains nothing but, at the end of a run, delays the end by the whole
// timeout with nothing else left to send. Requests that are slow rather
// than held (a large batch, a node that became slower) raise the smoothed
// RTT, and the doubling lets an attempt that keeps timing out wait as
// long as it needs.
func (l *Limiter) Timeout(attempt int) time.Duration {
	if l.fixed {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	t := initialTimeout
	if l.srtt > 0 {
		t = max(timeoutAges*max(holdAge, holdFloors*l.floor), l.srtt+rttVarTimes*l.rttvar)
	}
	return t << min(max(attempt-1, 0)+l.rtoShift, 16)
}

// TimedOut tells the limiter that a request sent at sent got no answer
// within its Timeout. Timeout doubles, once for the requests sent before
// the last doubling (they timed out together), until a success is
// measured again: a node whose RTT jumped past the timeout answers no
// first attempt in time, so without the backoff no RTT sample would ever
// raise the timeout, and every request would be sent twice.
func (l *Limiter) TimedOut(sent time.Time) {
	if l.fixed {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if sent.Before(l.rtoAt) {
		return
	}
	l.rtoShift = min(l.rtoShift+1, maxRTOShift)
	l.rtoAt = l.now()
}

// smoothLocked takes a success's RTT into the smoothed RTT and its
// variation (RFC 6298, section 2). Only first attempts are sampled (the
// loader releases permits only for them): an answer to a request sent
// again cannot be told from one to its earlier attempt (Karn).
func (l *Limiter) smoothLocked(rtt time.Duration) {
	l.rtoShift = 0
	if l.srtt == 0 {
		l.srtt, l.rttvar = rtt, rtt/2
		return
	}
	d := l.srtt - rtt
	if d < 0 {
		d = -d
	}
	l.rttvar = (3*l.rttvar + d) / 4
	l.srtt = (7*l.srtt + rtt) / 8
}

func (l *Limiter) setCurLocked() {
	l.limit = math.Max(l.min, math.Min(l.max, l.limit))
	c := l.limit
	if l.probing {
		c = math.Max(l.min, c/4)
	}
	// Permits held by requests the node sits on do not load it: they
	// are admitted on top, beyond Max too (up to as many again), or a
	// node that times requests out would starve the loader of permits
	// until it does: a probe that made a node hold 125 requests left 3
	// of 128 permits for the whole write timeout.
	c += math.Min(l.max, l.stuck)
	n := math.Floor(c)
	if c-n > l.dither {
		n++
	}
	l.cur = int(math.Max(l.min, n))
}

func (l *Limiter) resetWindowLocked(now time.Time) {
	l.winStart = now
	l.winN = 0
	l.winMin = 0
	l.winMaxInflight = l.inflight
	l.dither += ditherStep
	if l.dither >= 1 {
		l.dither--
	}
}

// learnLocked takes a success's RTT: the floor, and the window that
// moves the limit.
func (l *Limiter) learnLocked(now, sent time.Time, rtt time.Duration) {
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
	rtt := float64(l.winMin)
	switch target := queueRatio*float64(l.floor) + float64(queueSlack); {
	case rtt > target:
		// Every request waited: cut the part of the limit that queues,
		// as a drop at most.
		l.limit = math.Min(l.limit-1, l.limit*math.Max(l.backoff, target/rtt))
	case l.winMaxInflight < l.cur:
		// The client did not use the whole limit (or the pacer kept
		// it from doing so): no evidence that more would be taken,
		// so no growth.
	default:
		l.limit += math.Max(growMin, growStep*l.limit)
	}
	l.setCurLocked()
	l.resetWindowLocked(now)
}

// overloadLocked paces admission at rateCut of the rate or, when not
// paced yet, of an estimate of what the node takes (below). The rate
// pacing last ended at counts too: a node the client could not keep busy
// for a while (its input went to other nodes) is likely to have the
// capacity it had then.
func (l *Limiter) overloadLocked(now time.Time, held bool) {
	r, step := l.rate, rateStepMin
	if held && r > 0 {
		// Held requests show 200 ms late, when a probe may have taken
		// the rate far past what the node takes: a cut by a tenth was
		// one of five in a row, each an overload that held more
		// requests for the node's timeout. Aim at what it delivered
		// while the client kept it busy. It is also the level the next
		// probe creeps up to: the rate the probe had reached overstates
		// it, and a level set too low let the probe speed up below the
		// node's capacity.
		if got := l.boundDeliveredLocked(); got > 0 {
			r = math.Min(r, got)
		}
	}
	if r == 0 {
		// What the node delivered lately is what it takes, about:
		// the best of the last windows (a node that holds requests
		// answers few in the window that shows it), of this one, and
		// of the rate pacing last ended at.
		w := &l.sw[l.swi]
		dt := max(now.Sub(w.start), l.floor, time.Millisecond)
		r = math.Max(l.lastRate, float64(w.answers+1)/dt.Seconds())
		best := l.bestDeliveredLocked()
		r = math.Max(r, best)
		l.tat = now
		if best == 0 {
			// Nothing to go by (the first window of the run): the
			// estimate may be far too low, so search up fast.
			step = rateStepMax
		}
	}
	l.overRate = r
	l.rate = math.Max(rateMin, rateCut*r)
	l.step = step
	l.lastCut, l.paceSeen = now, now
}

// boundDeliveredLocked is what the node delivered (successes per
// second) over those of the entryWindows rate windows before the open
// one in which the pacer bound: the client offered it at least the rate.
// Windows in which the node held every permit deliver next to nothing,
// and single windows catch its bursts, so it is their mean.
func (l *Limiter) boundDeliveredLocked() float64 {
	var ok int
	var span time.Duration
	for k := 1; k <= entryWindows; k++ {
		i, j := (l.swi-k+holdRing)%holdRing, (l.swi-k+1+holdRing)%holdRing
		if l.sw[i].start.IsZero() {
			break
		}
		if l.sw[i].bound {
			ok += l.sw[i].ok
			span += l.sw[j].start.Sub(l.sw[i].start)
		}
	}
	if span <= 0 {
		return 0
	}
	return float64(ok) / span.Seconds()
}

// bestDeliveredLocked is the most the node delivered (successes per
// second) in the entryWindows rate windows before the open one.
func (l *Limiter) bestDeliveredLocked() float64 {
	best := 0.0
	for k := 1; k <= entryWindows; k++ {
		best = math.Max(best, l.sw[(l.swi-k+holdRing)%holdRing].delivered)
	}
	return best
}

// paceLocked closes the rate window when it is due: it counts the
// requests the node holds unanswered (an overload when more appear),
// grows the rate when the pacer bound, and ends pacing after paceIdle
// without either.
func (l *Limiter) paceLocked(now time.Time) {
	w := &l.sw[l.swi]
	span := max(rateSpan, rateFloors*l.floor)
	dt := now.Sub(w.start)
	// Paced, the window is a span of time: the rate grows per span
	// even when few requests are answered in one. So it is when every
	// permit is taken: the node may be holding them all, which only
	// windows that close can show (waiting for answers that do not come
	// stalled the node's requests for half a second).
	if !(dt >= span && (w.answers >= rateSamples || l.rate > 0 || l.inflight >= l.cur) || dt >= rateWindowMax*span) {
		return
	}
	if l.stalled != nil && l.stalled(w.start, now) {
		// The client stopped in this window: what it sent before then
		// was answered while it could not read, so none of it counts
		// as held, now or when its window ages.
		for i := range l.sw {
			l.sw[i].aged = true
		}
	}
	held, fresh, freshSent := l.heldLocked(now)
	grew := float64(fresh) > math.Max(holdSlack, holdShare*float64(freshSent))
	bound := l.rate > 0 && w.held && float64(w.sent) >= rateBound*l.rate*dt.Seconds()
	switch {
	case grew:
		l.overloadLocked(now, true)
	case bound && l.finishing:
		l.paceSeen = now
	case bound:
		l.rate *= 1 + l.step
		if l.rate > rateProbe*l.overRate {
			// Past the rate that last overloaded the node: its
			// capacity has grown, so search faster each window.
			l.step = math.Min(rateStepMax, l.step*rateStepGrowth)
		}
		l.paceSeen = now
	case l.rate > 0 && now.Sub(l.paceSeen) > paceIdle:
		// The node has taken all the client sent for a while.
		l.lastRate, l.rate = l.rate, 0
	}
	l.stuck = float64(held)
	w.delivered = float64(w.ok) / dt.Seconds()
	w.bound = bound
	l.setCurLocked()
	l.swi = (l.swi + 1) % holdRing
	l.sw[l.swi] = rateWindow{start: now}
}

// answeredLocked counts an answer to a request sent at sent in the rate
// window it was sent in.
func (l *Limiter) answeredLocked(sent time.Time) {
	for k := range holdRing {
		w := &l.sw[(l.swi-k+holdRing)%holdRing]
		if w.start.IsZero() {
			return
		}
		if !sent.Before(w.start) {
			w.answered++
			return
		}
	}
}

// heldLocked returns the requests sent more than holdAge ago and not
// answered (in the windows of the ring), those of them in windows that
// aged since the last call, and the requests sent in those windows.
// Requests are counted when Sending says they go out, and answers by the
// time their RTT says that was, on the same clock.
func (l *Limiter) heldLocked(now time.Time) (held, fresh, freshSent int) {
	age := max(holdAge, holdFloors*l.floor)
	end := now // of the window after the one at k
	for k := range holdRing {
		w := &l.sw[(l.swi-k+holdRing)%holdRing]
		if w.start.IsZero() {
			break
		}
		if k > 0 && now.Sub(end) >= age {
			n := max(0, w.sent-w.answered)
			held += n
			if !w.aged {
				w.aged = true
				// Held requests sent before the last cut were caused
				// by the rate it cut, as drops are.
				if !w.start.Before(l.lastCut) {
					fresh += n
					freshSent += w.sent
				}
			}
		}
		end = w.start
	}
	return held, fresh, freshSent
}
