package loader

import (
	"math"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cqlload/cqlload/internal/limit"
	"github.com/cqlload/cqlload/loader/internal/stall"
)

// hostLimits holds one in-flight limit per coordinator: adaptive by
// default (internal/limit), fixed at MaxInFlight with Adaptive off. A
// batch's coordinator is the first replica of its first row's token in
// ring order (in the local data center, with one), the node the driver's
// token-aware policy sends it to while that node is up (ring.primary).
type hostLimits struct {
	cfg       limit.Config
	mu        sync.Mutex
	by        map[string]*limit.Limiter
	finishing bool // see finish
	// state: host → *coordState, read on every request and dispatch
	// without taking mu (the hosts are few and fixed).
	state sync.Map
	// down is the set of hosts the driver holds down, nil while none is
	// (Loader.followHostStates keeps it).
	down atomic.Pointer[map[string]bool]
	// stalls: a node is silent for silentAfter of the process's running
	// time, not of a spell it was stopped in.
	stalls *stall.Clock
}

// rerouteCheck is how often the dispatcher looks for queued batches of
// a coordinator that has stopped answering.
const rerouteCheck = 250 * time.Millisecond

// coordState is what the loader saw of a coordinator's answers.
type coordState struct {
	sent atomic.Int64 // requests, retries included
	out  atomic.Int64 // requests awaiting an answer
	// quietFrom (unix ns) is its last answer (success or error), or when
	// requests began to wait on it after an answered or idle spell.
	quietFrom atomic.Int64
	// unanswered: the last request to come back got no answer (a
	// timeout, a lost connection).
	unanswered atomic.Bool
	lastSent   atomic.Int64 // unix ns
}

// finish tells every limiter, and those made later, that the run ends
// within about a write timeout (limit.Limiter.Finishing).
func (h *hostLimits) finish() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.finishing {
		return
	}
	h.finishing = true
	for _, lim := range h.by {
		lim.Finishing()
	}
}

func newHostLimits(o *Options, stalls *stall.Clock) *hostLimits {
	return &hostLimits{
		cfg: limit.Config{
			Max: o.MaxInFlight, Fixed: !o.Adaptive, Initial: min(limit.DefaultInitial, o.MaxInFlight),
			Stalled: func(from, to time.Time) bool { return stalls.Touched(from.UnixNano(), to.UnixNano()) },
		},
		by:     map[string]*limit.Limiter{},
		stalls: stalls,
	}
}

// stateOf returns host's state, made on first use; nil, without create,
// when there is none yet.
func (h *hostLimits) stateOf(host string, create bool) *coordState {
	if st, ok := h.state.Load(host); ok {
		return st.(*coordState)
	}
	if !create {
		return nil
	}
	st, _ := h.state.LoadOrStore(host, new(coordState))
	return st.(*coordState)
}

// sending counts a request to host, sent at now; call done with what
// came back. The caller's clock readings are passed in: on some virtual
// machines a reading costs as much as the rest of this bookkeeping.
func (h *hostLimits) sending(host string, now int64) *coordState {
	st := h.stateOf(host, true)
	st.sent.Add(1)
	st.lastSent.Store(now)
	if st.out.Add(1) == 1 && !st.unanswered.Load() {
		st.quietFrom.Store(now)
	}
	return st
}

// done: a request to st's host came back at now; answered: with an
// answer, not a timeout or a lost connection.
func (st *coordState) done(answered bool, now int64) {
	if answered {
		st.quietFrom.Store(now)
	}
	st.unanswered.Store(!answered)
	st.out.Add(-1)
}

// setDown records the hosts the driver holds down.
func (h *hostLimits) setDown(hosts map[string]bool) {
	if len(hosts) == 0 {
		h.down.Store(nil)
		return
	}
	h.down.Store(&hosts)
}

// avoid says batches should not be charged to host as their coordinator:
// the driver holds it down, so it sends them to another replica whose
// limit must govern them, or it is silent.
func (h *hostLimits) avoid(host string) bool {
	if d := h.down.Load(); d != nil && (*d)[host] {
		return true
	}
	return h.silent(host)
}

// silent says host has answered nothing for longer than silentAfter
// while requests waited on it or came back unanswered: a node that hangs
// (the driver keeps it up while its connections stay open). Once
// nothing has been sent to it for silentAfter, it is not silent for one
// request, a probe of whether it answers again.
func (h *hostLimits) silent(host string) bool {
	st := h.stateOf(host, false)
	if st == nil {
		return false
	}
	now := time.Now().UnixNano()
	out := st.out.Load()
	switch {
	case out == 0 && !st.unanswered.Load():
		return false
	case time.Duration(now-st.quietFrom.Load()) <= silentAfter:
		return false
	case out == 0 && time.Duration(now-st.lastSent.Load()) > silentAfter:
		return false // probe
	}
	return h.stalls.Running(st.quietFrom.Load(), now) > silentAfter
}

// of returns host's limiter, made on first use.
func (h *hostLimits) of(host string) *limit.Limiter {
	h.mu.Lock()
	defer h.mu.Unlock()
	lim := h.by[host]
	if lim == nil {
		lim = limit.New(h.cfg)
		if h.finishing {
			lim.Finishing()
		}
		h.by[host] = lim
	}
	return lim
}

// HostLimit is one coordinator's in-flight limit at a moment, and the
// rate its requests are paced at once it has shown its capacity.
type HostLimit struct {
	Host     string `json:"host"`
	Limit    int    `json:"limit"`
	InFlight int    `json:"in_flight"`
	// Paced is requests/s, 0 when the coordinator is not paced.
	Paced float64 `json:"paced_requests_per_s,omitempty"`
	// Requests is how many requests went to it, retries included: the
	// node's count of EXECUTE and BATCH requests, when cqlload's idea of
	// the coordinator is the driver's.
	Requests int64 `json:"requests"`
}

// snapshot lists the limits by host.
func (h *hostLimits) snapshot() []HostLimit {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]HostLimit, 0, len(h.by))
	for host, lim := range h.by {
		var n int64
		if st := h.stateOf(host, false); st != nil {
			n = st.sent.Load()
		}
		out = append(out, HostLimit{Host: host, Limit: lim.Limit(), InFlight: lim.InFlight(), Paced: math.Round(lim.Rate()), Requests: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Host < out[j].Host })
	return out
}

// dispatch hands batches from in to the senders on out, each only once
// its coordinator's limiter gave it a permit (batch.lim). A batch for a
// node at its limit, or whose pacer is not due, waits in that node's
// queue, not in a sender, so a slow node does not hold up batches for
// the others until its queue is full (queueCap batches in all queues):
// then in is not read, and the converters and the reader wait, which
// bounds memory. The dispatcher wakes on a returned permit, a new batch,
// or the earliest time a limiter may admit a held-back batch (its pacer
// is due, or its window closes). Once the run stops, batches go
// out without permits, to be settled as not sent.
type dispatcher struct {
	l        *Loader
	in       <-chan *batch
	out      chan<- *batch
	freed    chan struct{} // a permit was returned (buffered 1)
	queueCap int

	queues map[*limit.Limiter]*batchQueue
	order  []*limit.Limiter // round robin over the queues
	next   int
	queued int
}

// batchQueue is one coordinator's batches in order. Popped slots at the
// front are reused, so that a queue that keeps emptying, as most do,
// does not allocate a new array every few batches.
type batchQueue struct {
	items []*batch // items[head:] are queued
	head  int
}

func (q *batchQueue) len() int      { return len(q.items) - q.head }
func (q *batchQueue) front() *batch { return q.items[q.head] }

func (q *batchQueue) push(b *batch) {
	if q.head > 0 && len(q.items) == cap(q.items) {
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
	q.items = append(q.items, b)
}

func (q *batchQueue) pop() {
	q.items[q.head] = nil
	if q.head++; q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	}
}

func newDispatcher(l *Loader, in <-chan *batch, out chan<- *batch, queueCap int) *dispatcher {
	return &dispatcher{l: l, in: in, out: out, freed: make(chan struct{}, 1),
		queueCap: queueCap, queues: map[*limit.Limiter]*batchQueue{}}
}

func (d *dispatcher) run() {
	defer close(d.out)
	in := d.in
	wake := time.NewTimer(time.Hour)
	defer wake.Stop()
	for {
		d.pump()
		if in == nil && d.queued == 0 {
			return
		}
		due := d.wake()
		recv := in
		if d.queued >= d.queueCap {
			recv = nil
		}
		if d.queued > 0 {
			// A coordinator that stops answering returns no permits for
			// an attempt timeout: look again soon whether its batches
			// should go to another replica (reroute).
			if soon := time.Now().Add(rerouteCheck); due.IsZero() || soon.Before(due) {
				due = soon
			}
		}
		var timer <-chan time.Time
		if !due.IsZero() {
			wake.Reset(time.Until(due))
			timer = wake.C
		}
		select {
		case b, ok := <-recv:
			if !ok {
				in = nil
				continue
			}
			d.enqueue(b)
		case <-d.freed:
		case <-timer:
		}
	}
}

// Within finishAhead of the end, at the rate input is being settled, the
// limiters stop raising their paced rates (limit.Limiter.Finishing):
// Cassandra's default write timeout, what a held request can add to the
// end of a run. Run checks every finishCheck (checkFinishing).
const (
	finishAhead = 2 * time.Second
	finishCheck = 100 * time.Millisecond
)

// finishing reports whether the input left would be settled within
// finishAhead at the rate so far; never while the input's size is
// unknown (stdin) or nothing is settled yet.
func finishing(p Progress) bool {
	if p.BytesTotal <= 0 || p.BytesDone <= 0 || p.Elapsed <= 0 {
		return false
	}
	left := time.Duration(float64(p.BytesTotal-p.BytesDone) / float64(p.BytesDone) * float64(p.Elapsed))
	return left < finishAhead
}

// checkFinishing tells the limiters when the run is finishing.
func (l *Loader) checkFinishing() {
	if finishing(l.Progress()) {
		l.limits.finish()
	}
}

func (d *dispatcher) enqueue(b *batch) {
	d.l.reroute(b)
	lim := d.l.limits.of(b.host)
	q := d.queues[lim]
	if q == nil {
		q = &batchQueue{}
		d.queues[lim] = q
		d.order = append(d.order, lim)
	}
	q.push(b)
	d.queued++
}

// wake returns the earliest time a limiter holding a batch back may
// admit it without a returned permit (zero if none).
func (d *dispatcher) wake() (due time.Time) {
	for lim, q := range d.queues {
		if q.len() == 0 {
			continue
		}
		if t := lim.Wake(); !t.IsZero() && (due.IsZero() || t.Before(due)) {
			due = t
		}
	}
	return due
}

// pump sends every queued batch whose limiter has room, round robin over
// the hosts so that none waits behind another's backlog.
func (d *dispatcher) pump() {
	stopped := d.l.life.stopped()
	for moved := true; moved && d.queued > 0; {
		moved = false
		for range d.order {
			lim := d.order[d.next%len(d.order)]
			d.next++
			q := d.queues[lim]
			if q.len() == 0 {
				continue
			}
			b := q.front()
			if !stopped && d.l.reroute(b) {
				// Its coordinator is down or stopped answering: to
				// the queue of the replica that takes its requests.
				q.pop()
				d.queued--
				d.enqueue(b)
				moved = true
				continue
			}
			if !stopped {
				if !lim.TryAcquire() {
					continue
				}
				b.lim = lim
			}
			q.pop()
			d.queued--
			d.out <- b
			moved = true
		}
	}
}

// released tells the dispatcher a permit came back.
func (d *dispatcher) released() {
	select {
	case d.freed <- struct{}{}:
	default:
	}
}

// inFlightLimit is the sum of the coordinators' limits (MaxInFlight
// before any request).
func (l *Loader) inFlightLimit() int {
	n := 0
	for _, h := range l.limits.snapshot() {
		n += h.Limit
	}
	if n == 0 {
		return l.opts.MaxInFlight
	}
	return n
}

// Limits reports each coordinator's in-flight limit and requests in
// flight, by address.
func (l *Loader) Limits() []HostLimit {
	hs := l.limits.snapshot()
	if rg := l.tokens.Load(); rg != nil {
		for i := range hs {
			if a := rg.Addrs[hs[i].Host]; a != "" {
				hs[i].Host = a
			}
		}
	}
	return hs
}

// reroute passes a batch from a coordinator to avoid (hostLimits.avoid)
// to the next replica of its first row that is not, and pins it there
// (batch.pinned). A node that has stopped answering (nothing for
// silentAfter while requests waited on it): the driver keeps sending to a
// hung node while its connections stay open, and every batch of its token
// ranges waited on it, then the reader on them, so that one frozen node
// of three, each holding every row, stopped the whole load, and after the
// retry window ended it as a silent cluster. A node that is down: the
// driver sends its batches to the next replica anyway, and they were
// charged to the down node's limit, so that the live replica took them
// beyond its own. With one replica there is nowhere to go. It reports
// whether the batch moved.
func (l *Loader) reroute(b *batch) bool {
	if b.host == "" || len(b.rows) == 0 || !l.limits.avoid(b.host) {
		return false
	}
	rg := l.tokens.Load()
	if rg == nil {
		return false
	}
	for _, h := range rg.Replicas(b.rows[0].token) {
		if h != b.host && !l.limits.avoid(h) {
			b.host, b.pinned = h, true
			return true
		}
	}
	return false
}

// silentAfter is how long a coordinator with requests waiting may answer
// none before its batches go to another replica. A node under load
// answers something every few milliseconds, however slow its slowest
// requests; one that answers nothing for a second is stuck (a long
// pause, a hang), and its attempt timeouts, which grow as they expire,
// would be no measure of it.
const silentAfter = time.Second
