package limit

import (
	"container/heap"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// fakeClock is a settable clock for the single-threaded simulation.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// server models one node behind the client. A request first goes
// through a processing stage whose cost per request is perReq plus
// overhead shared by the requests in flight (syscalls, frames and
// batches amortized by concurrency, as on the loader's own host): more
// in flight is slower per request in latency but faster in throughput,
// up to 1/perReq. Then the node's capacity: a FIFO served at rate
// requests/s (0: no limit), then base more (network, replication). A
// request arriving when more than queueMax requests wait over capacity
// is refused: answered Dropped after base (shed), or, with hold set, held
// for hold and then answered Dropped (a node that times requests out).
// queueMax 0 queues without bound.
type server struct {
	rate      float64
	base      time.Duration
	queueMax  int
	hold      time.Duration
	perReq    time.Duration
	overhead  time.Duration
	busyUntil time.Time
	cpuUntil  time.Time
	// tail, if set, is extra latency of a request that does not occupy
	// the node (a GC pause, a slow replica): noise, not queueing.
	tail func() time.Duration
}

func (s *server) service() time.Duration {
	if s.rate == 0 {
		return 0
	}
	return time.Duration(float64(time.Second) / s.rate)
}

// floor is the RTT of a request that finds the node idle.
func (s *server) floor() time.Duration { return s.base + s.service() + s.perReq + s.overhead }

// bdp is the requests in flight that keep the node busy without a queue.
func (s *server) bdp() float64 { return s.rate * s.floor().Seconds() }

// send returns when the answer to a request sent at t, with inflight
// requests in flight (itself included), arrives.
func (s *server) send(t time.Time, inflight int) (time.Time, Outcome) {
	if s.perReq > 0 || s.overhead > 0 {
		start := t
		if s.cpuUntil.After(t) {
			start = s.cpuUntil
		}
		s.cpuUntil = start.Add(s.perReq + s.overhead/time.Duration(max(1, inflight)))
		t = s.cpuUntil
	}
	if s.rate == 0 {
		return t.Add(s.base), Success
	}
	start := t
	if s.busyUntil.After(t) {
		start = s.busyUntil
	}
	waiting := int(s.busyUntil.Sub(t).Seconds() * s.rate)
	if s.queueMax > 0 && waiting > s.queueMax {
		if s.hold > 0 {
			return t.Add(s.hold), Dropped
		}
		return t.Add(s.base), Dropped
	}
	done := start.Add(s.service())
	s.busyUntil = done
	if s.tail != nil {
		done = done.Add(s.tail())
	}
	return done.Add(s.base), Success
}

type event struct {
	at      time.Time
	sent    time.Time
	outcome Outcome
	wake    bool // not an answer: the pacer is due
}

type events []event

func (e events) Len() int           { return len(e) }
func (e events) Less(i, j int) bool { return e[i].at.Before(e[j].at) }
func (e events) Swap(i, j int)      { e[i], e[j] = e[j], e[i] }
func (e *events) Push(x any)        { *e = append(*e, x.(event)) }
func (e *events) Pop() any {
	old := *e
	x := old[len(old)-1]
	*e = old[:len(old)-1]
	return x
}

// sim drives a Limiter against a server with an always-backlogged
// client, as the loader is: whenever a permit is free a request is sent.
type sim struct {
	clock    *fakeClock
	srv      *server
	lim      *Limiter
	q        events
	demand   int       // if > 0, the client never has more requests than this
	inflight int       // answers pending
	wakeAt   time.Time // a wake event is queued for then
}

func newSim(srv *server, cfg Config, demand int) *sim {
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	cfg.Now = clock.now
	s := &sim{clock: clock, srv: srv, lim: New(cfg), demand: demand}
	s.fill()
	return s
}

// fill sends while the limiter admits, as the loader's dispatcher does,
// and wakes at the limiter's Wake time to try again.
func (s *sim) fill() {
	for (s.demand <= 0 || s.inflight < s.demand) && s.lim.TryAcquire() {
		s.lim.Sending()
		at, o := s.srv.send(s.clock.t, s.lim.InFlight())
		heap.Push(&s.q, event{at: at, sent: s.clock.t, outcome: o})
		s.inflight++
	}
	if t := s.lim.Wake(); t.After(s.clock.t) && !t.Equal(s.wakeAt) {
		s.wakeAt = t
		heap.Push(&s.q, event{at: t, wake: true})
	}
}

// stats of one stretch of simulated time.
type stats struct {
	ok, dropped     int
	sumRTT          time.Duration // of successes
	minLim, maxLim  int           // of Limit()
	minLrn, maxLrn  int           // of the learned limit, which probes leave alone
	sumLim, samples float64
	dur             time.Duration
}

func (st stats) throughput() float64 { return float64(st.ok) / st.dur.Seconds() }
func (st stats) meanLimit() float64  { return st.sumLim / st.samples }
func (st stats) meanRTT() time.Duration {
	return st.sumRTT / time.Duration(max(1, st.ok))
}

// run simulates d; the limit is sampled after every event.
func (s *sim) run(d time.Duration) stats {
	end := s.clock.t.Add(d)
	st := stats{minLim: 1 << 30, minLrn: 1 << 30, dur: d}
	for len(s.q) > 0 && !s.q[0].at.After(end) {
		e := heap.Pop(&s.q).(event)
		s.clock.t = e.at
		if e.wake {
			s.fill()
			continue
		}
		s.inflight--
		s.lim.Release(e.at.Sub(e.sent), e.outcome)
		if e.outcome == Success {
			st.ok++
			st.sumRTT += e.at.Sub(e.sent)
		} else {
			st.dropped++
		}
		s.fill()
		n := s.lim.Limit()
		if n > int(s.lim.max+math.Min(s.lim.max, s.lim.stuck)) || s.lim.limit > s.lim.max {
			panic("limit above max (and the requests held on top of it)")
		}
		st.minLim, st.maxLim = min(st.minLim, n), max(st.maxLim, n)
		lrn := int(s.lim.limit)
		st.minLrn, st.maxLrn = min(st.minLrn, lrn), max(st.maxLrn, lrn)
		st.sumLim += float64(n)
		st.samples++
	}
	s.clock.t = end
	return st
}

func (st stats) String() string {
	return fmt.Sprintf("ok=%d dropped=%d limit [%d, %d] mean %.1f, learned [%d, %d], %.0f/s, mean RTT %v",
		st.ok, st.dropped, st.minLim, st.maxLim, st.meanLimit(), st.minLrn, st.maxLrn, st.throughput(), st.meanRTT())
}

// seededTail returns a deterministic tail: with probability p a uniform
// extra latency in [0, most).
func seededTail(seed uint64, p float64, most time.Duration) func() time.Duration {
	r := rand.New(rand.NewPCG(seed, seed))
	return func() time.Duration {
		if r.Float64() >= p {
			return 0
		}
		return time.Duration(r.Int64N(int64(most)))
	}
}

// The loader's case, about: 50k rows/s per node in 20-row batches is
// 2500 requests/s.
const loaderRate = 2500

func TestSimulatedServer(t *testing.T) {
	type check func(t *testing.T, srv *server, st, fixed stats)
	type phase struct {
		d        time.Duration
		rate     float64 // 0: unchanged
		check    check
		describe string
	}
	ms := time.Millisecond
	// atCapacity: the node is kept at least frac busy, with at most
	// dropShare of the answers drops.
	atCapacity := func(frac, dropShare float64) check {
		return func(t *testing.T, srv *server, st, _ stats) {
			t.Helper()
			if tp := st.throughput(); tp < frac*srv.rate {
				t.Errorf("throughput %.0f/s, want >= %.0f%% of %.0f/s", tp, 100*frac, srv.rate)
			}
			if n := st.ok + st.dropped; float64(st.dropped) > dropShare*float64(n) {
				t.Errorf("%d dropped of %d, want <= %.1f%%", st.dropped, n, 100*dropShare)
			}
		}
	}
	// shortQueue: the mean RTT stays within a small queue of the floor.
	shortQueue := func(c check, most time.Duration) check {
		return func(t *testing.T, srv *server, st, fixed stats) {
			t.Helper()
			c(t, srv, st, fixed)
			if st.meanRTT() > most {
				t.Errorf("mean RTT %v, want <= %v (floor %v)", st.meanRTT(), most, srv.floor())
			}
		}
	}
	// asFixed: at least frac of the throughput of the fixed limit.
	asFixed := func(frac float64) check {
		return func(t *testing.T, _ *server, st, fixed stats) {
			t.Helper()
			if st.throughput() < frac*fixed.throughput() {
				t.Errorf("throughput %.0f/s, want >= %.0f%% of fixed's %.0f/s", st.throughput(), 100*frac, fixed.throughput())
			}
		}
	}
	// amortized: 2 ms of overhead per round shared by the requests in
	// flight, 20 µs each: 500 requests/s at one in flight, 28k/s at 128.
	amortized := server{perReq: 20 * time.Microsecond, overhead: 2 * ms, base: 200 * time.Microsecond}
	withCapacity := amortized
	withCapacity.rate = 4 * loaderRate
	tests := []struct {
		name   string
		srv    server
		cfg    Config
		demand int
		phases []phase
	}{
		{
			// RTT grows with the requests in flight, and so does
			// throughput: the limit must not stop where latency starts
			// to grow.
			name: "throughput grows with concurrency",
			srv:  amortized,
			cfg:  Config{Max: 128},
			phases: []phase{
				{d: time.Second, describe: "warm-up"},
				{d: 10 * time.Second, check: asFixed(0.95), describe: "steady"},
			},
		},
		{
			name: "amortized up to a node's capacity",
			srv:  withCapacity,
			cfg:  Config{Max: 128},
			phases: []phase{
				{d: time.Second, describe: "warm-up"},
				{d: 10 * time.Second, check: shortQueue(atCapacity(0.95, 0), 8*ms), describe: "steady"},
			},
		},
		{
			name: "shed beyond capacity",
			srv:  server{rate: loaderRate, base: ms, queueMax: 2},
			cfg:  Config{Max: 128},
			phases: []phase{
				{d: time.Second, describe: "warm-up"},
				{d: 15 * time.Second, check: atCapacity(0.9, 0.02), describe: "steady"},
			},
		},
		{
			name: "queue beyond capacity",
			srv:  server{rate: loaderRate, base: ms},
			cfg:  Config{Max: 128},
			phases: []phase{
				{d: time.Second, describe: "warm-up"},
				{d: 15 * time.Second, check: shortQueue(atCapacity(0.95, 0), 6*ms), describe: "steady"},
			},
		},
		{
			name: "queue from the old fixed 128",
			srv:  server{rate: loaderRate, base: ms},
			cfg:  Config{Initial: 128, Max: 128},
			phases: []phase{
				{d: time.Second, describe: "warm-up"},
				{d: 15 * time.Second, check: shortQueue(atCapacity(0.95, 0), 6*ms), describe: "steady"},
			},
		},
		{
			// Requests over capacity are held 2 s and time out: the
			// limit learns it only from the requests it holds.
			name: "time out beyond capacity",
			srv:  server{rate: loaderRate, base: ms, queueMax: 2, hold: 2 * time.Second},
			cfg:  Config{Max: 128},
			phases: []phase{
				{d: 5 * time.Second, describe: "warm-up"},
				{d: 20 * time.Second, check: atCapacity(0.8, 0.05), describe: "steady"},
			},
		},
		{
			name: "production latency",
			srv:  server{rate: loaderRate, base: 20 * ms},
			cfg:  Config{Max: 128},
			phases: []phase{
				{d: 2 * time.Second, describe: "warm-up"},
				{d: 15 * time.Second, check: shortQueue(atCapacity(0.95, 0), 50*ms), describe: "steady"},
			},
		},
		{
			name: "shed, capacity halved and restored",
			srv:  server{rate: loaderRate, base: ms, queueMax: 2},
			cfg:  Config{Max: 128},
			phases: []phase{
				{d: 5 * time.Second, describe: "full"},
				{d: time.Second, rate: loaderRate / 2, describe: "halving"},
				{d: time.Second, check: atCapacity(0.9, 0.02), describe: "halved, the second second"},
				{d: 5 * time.Second, check: atCapacity(0.9, 0.02), describe: "half"},
				{d: time.Second, rate: loaderRate, describe: "restoring"},
				{d: time.Second, check: atCapacity(0.9, 0.02), describe: "restored, the second second"},
			},
		},
		{
			name: "queue, capacity halved and restored",
			srv:  server{rate: loaderRate, base: ms},
			cfg:  Config{Max: 128},
			phases: []phase{
				{d: 5 * time.Second, describe: "full"},
				{d: time.Second, rate: loaderRate / 2, describe: "halving"},
				{d: time.Second, check: atCapacity(0.9, 0), describe: "halved, the second second"},
				{d: time.Second, rate: loaderRate, describe: "restoring"},
				{d: time.Second, check: atCapacity(0.9, 0), describe: "restored, the second second"},
			},
		},
		{
			name: "ceiling below the BDP",
			srv:  server{rate: loaderRate, base: 20 * ms},
			cfg:  Config{Max: 8},
			phases: []phase{
				{d: 10 * time.Second, describe: "steady", check: func(t *testing.T, _ *server, st, _ stats) {
					if st.maxLim != 8 || st.maxLrn != 8 {
						t.Errorf("limit max %d, learned max %d, want both 8", st.maxLim, st.maxLrn)
					}
				}},
			},
		},
		{
			// A fifth of the requests take up to 8 ms more without
			// loading the node: the limit must not be held down by it.
			name: "latency tail",
			srv: server{rate: loaderRate, base: ms,
				tail: seededTail(1, 0.2, 8*ms)},
			cfg: Config{Max: 128},
			phases: []phase{
				{d: 2 * time.Second, describe: "warm-up"},
				{d: 15 * time.Second, check: atCapacity(0.95, 0), describe: "steady"},
			},
		},
		{
			name:   "client keeps only 3 in flight",
			srv:    server{rate: loaderRate, base: ms, queueMax: 64},
			cfg:    Config{Initial: 1, Max: 128},
			demand: 3,
			phases: []phase{
				{d: 15 * time.Second, describe: "steady", check: func(t *testing.T, _ *server, st, _ stats) {
					if st.maxLrn > 5 {
						t.Errorf("learned limit reached %d with 3 requests in flight, want <= 5", st.maxLrn)
					}
				}},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, fsrv := tc.srv, tc.srv
			s := newSim(&srv, tc.cfg, tc.demand)
			fcfg := tc.cfg
			fcfg.Fixed = true
			f := newSim(&fsrv, fcfg, tc.demand)
			for _, p := range tc.phases {
				if p.rate != 0 {
					srv.rate, fsrv.rate = p.rate, p.rate
				}
				st, fst := s.run(p.d), f.run(p.d)
				t.Logf("%s: %v (BDP %.1f; fixed: %.0f/s)", p.describe, st, srv.bdp(), fst.throughput())
				if p.check != nil {
					p.check(t, &srv, st, fst)
				}
			}
		})
	}
}
