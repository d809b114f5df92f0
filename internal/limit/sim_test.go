package limit

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// fakeClock is a settable clock for the single-threaded simulation.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// server models one node: requests wait in a FIFO served at rate
// requests/s, then take base more (network, replication). A request
// arriving when more than queueMax requests wait is answered Dropped
// (Overloaded) after base. RTT at no load is base + 1/rate.
type server struct {
	rate      float64
	base      time.Duration
	queueMax  int
	busyUntil time.Time
	// tail, if set, is extra latency of a request that does not occupy
	// the node (a GC pause, a slow replica): noise, not queueing.
	tail func() time.Duration
}

func (s *server) service() time.Duration {
	return time.Duration(float64(time.Second) / s.rate)
}

// floor is the RTT of a request that finds the node idle.
func (s *server) floor() time.Duration { return s.base + s.service() }

// bdp is the requests in flight that keep the node busy without a queue.
func (s *server) bdp() float64 { return s.rate * s.floor().Seconds() }

// send returns when the answer to a request sent at t arrives.
func (s *server) send(t time.Time) (time.Time, Outcome) {
	start := t
	if s.busyUntil.After(t) {
		start = s.busyUntil
	}
	waiting := int(s.busyUntil.Sub(t).Seconds() * s.rate)
	if s.queueMax > 0 && waiting > s.queueMax {
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
	clock  *fakeClock
	srv    *server
	lim    *Limiter
	q      events
	demand int // if > 0, the client never has more requests than this
}

func newSim(srv *server, cfg Config, demand int) *sim {
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	cfg.Now = clock.now
	s := &sim{clock: clock, srv: srv, lim: New(cfg), demand: demand}
	s.fill()
	return s
}

func (s *sim) fill() {
	for (s.demand <= 0 || len(s.q) < s.demand) && s.lim.TryAcquire() {
		at, o := s.srv.send(s.clock.t)
		heap.Push(&s.q, event{at: at, sent: s.clock.t, outcome: o})
	}
}

// stats of one stretch of simulated time.
type stats struct {
	ok, dropped     int
	minLim, maxLim  int // of Limit()
	minLrn, maxLrn  int // of the learned limit, which probes leave alone
	sumLim, samples float64
	dur             time.Duration
}

func (st stats) throughput() float64 { return float64(st.ok) / st.dur.Seconds() }
func (st stats) meanLimit() float64  { return st.sumLim / st.samples }

// run simulates d; the limit is sampled after every event.
func (s *sim) run(d time.Duration) stats {
	end := s.clock.t.Add(d)
	st := stats{minLim: 1 << 30, minLrn: 1 << 30, dur: d}
	for len(s.q) > 0 && !s.q[0].at.After(end) {
		e := heap.Pop(&s.q).(event)
		s.clock.t = e.at
		s.lim.Release(e.at.Sub(e.sent), e.outcome)
		if e.outcome == Success {
			st.ok++
		} else {
			st.dropped++
		}
		s.fill()
		n := s.lim.Limit()
		if n > int(s.lim.max) {
			panic("limit above max")
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
	return fmt.Sprintf("ok=%d dropped=%d limit [%d, %d] mean %.1f, learned [%d, %d], %.0f/s",
		st.ok, st.dropped, st.minLim, st.maxLim, st.meanLimit(), st.minLrn, st.maxLrn, st.throughput())
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

// The loader's case: 50k rows/s per node in 20-row batches is 2500
// requests/s; base latency 1 ms.
const loaderRate = 2500

func TestSimulatedServer(t *testing.T) {
	type phase struct {
		d        time.Duration
		rate     float64       // 0: unchanged
		base     time.Duration // 0: unchanged
		check    func(t *testing.T, srv *server, st stats)
		describe string
	}
	// steady: the limit sits between the BDP and BDP plus a small queue,
	// and the node is kept busy.
	steady := func(maxQueue float64) func(t *testing.T, srv *server, st stats) {
		return func(t *testing.T, srv *server, st stats) {
			t.Helper()
			bdp := srv.bdp()
			if float64(st.minLrn) < bdp*0.9 || float64(st.maxLrn) > bdp+maxQueue {
				t.Errorf("learned limit in [%d, %d], want within [%.1f, %.1f] (BDP %.1f)",
					st.minLrn, st.maxLrn, bdp*0.9, bdp+maxQueue, bdp)
			}
			if tp := st.throughput(); tp < 0.95*srv.rate {
				t.Errorf("throughput %.0f/s, want >= 95%% of %.0f/s", tp, srv.rate)
			}
		}
	}
	tests := []struct {
		name   string
		srv    server
		cfg    Config
		demand int
		phases []phase
	}{
		{
			name: "local from below",
			srv:  server{rate: loaderRate, base: time.Millisecond, queueMax: 64},
			cfg:  Config{Initial: 1, Max: 128},
			phases: []phase{
				{d: 100 * time.Millisecond, describe: "warm-up"},
				{d: 15 * time.Second, check: steady(10), describe: "steady"},
			},
		},
		{
			name: "local from the old fixed 128",
			srv:  server{rate: loaderRate, base: time.Millisecond, queueMax: 32},
			cfg:  Config{Initial: 128, Max: 128},
			phases: []phase{
				{d: 200 * time.Millisecond, describe: "warm-up"},
				{d: 15 * time.Second, check: steady(10), describe: "steady"},
			},
		},
		{
			name: "production latency",
			srv:  server{rate: loaderRate, base: 20 * time.Millisecond, queueMax: 256},
			cfg:  Config{Max: 128},
			phases: []phase{
				{d: 2 * time.Second, describe: "warm-up"},
				{d: 15 * time.Second, check: steady(20), describe: "steady"},
			},
		},
		{
			name: "ceiling below the BDP",
			srv:  server{rate: loaderRate, base: 20 * time.Millisecond},
			cfg:  Config{Max: 8},
			phases: []phase{
				{d: 10 * time.Second, describe: "steady", check: func(t *testing.T, _ *server, st stats) {
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
			srv: server{rate: loaderRate, base: time.Millisecond, queueMax: 64,
				tail: seededTail(1, 0.2, 8*time.Millisecond)},
			cfg: Config{Max: 128},
			phases: []phase{
				{d: 2 * time.Second, describe: "warm-up"},
				{d: 15 * time.Second, check: steady(10), describe: "steady"},
			},
		},
		{
			name: "capacity halved and restored",
			srv:  server{rate: loaderRate, base: time.Millisecond, queueMax: 64},
			cfg:  Config{Max: 128},
			phases: []phase{
				{d: 2 * time.Second, describe: "warm-up"},
				{d: 10 * time.Second, check: steady(10), describe: "full"},
				// 250 ms is about 40 RTTs at the new capacity.
				{d: 250 * time.Millisecond, rate: loaderRate / 2, describe: "halving"},
				{d: 15 * time.Second, check: steady(10), describe: "half"},
				// and about 60 once restored.
				{d: 250 * time.Millisecond, rate: loaderRate, describe: "restoring"},
				{d: 15 * time.Second, check: steady(10), describe: "restored"},
			},
		},
		{
			name: "node permanently slower",
			srv:  server{rate: loaderRate, base: time.Millisecond, queueMax: 64},
			cfg:  Config{Max: 128},
			phases: []phase{
				{d: 10 * time.Second, describe: "warm-up"},
				{d: 12 * time.Second, base: 5 * time.Millisecond, describe: "slower"},
				{d: 15 * time.Second, check: steady(10), describe: "settled"},
			},
		},
	}
	tests = append(tests, []struct {
		name   string
		srv    server
		cfg    Config
		demand int
		phases []phase
	}{
		{
			// The old floor is never seen again: the limit falls while
			// the stale floor lasts, then the floor is re-measured.
			name: "node twenty times slower",
			srv:  server{rate: loaderRate, base: time.Millisecond, queueMax: 256},
			cfg:  Config{Max: 128},
			phases: []phase{
				{d: 10 * time.Second, describe: "warm-up"},
				{d: 15 * time.Second, base: 20 * time.Millisecond, describe: "slower"},
				{d: 15 * time.Second, check: steady(20), describe: "settled"},
			},
		},
		{
			name:   "client keeps only 3 in flight",
			srv:    server{rate: loaderRate, base: time.Millisecond, queueMax: 64},
			cfg:    Config{Initial: 1, Max: 128},
			demand: 3,
			phases: []phase{
				{d: 15 * time.Second, describe: "steady", check: func(t *testing.T, _ *server, st stats) {
					if st.maxLrn > 5 {
						t.Errorf("learned limit reached %d with 3 requests in flight, want <= 5", st.maxLrn)
					}
				}},
			},
		},
		{
			// An Overloaded answer as soon as two requests wait: drops
			// keep coming, the limit backs off but stays at Min or above.
			name: "shallow node queue",
			srv:  server{rate: loaderRate, base: time.Millisecond, queueMax: 1},
			cfg:  Config{Initial: 64, Min: 3, Max: 128},
			phases: []phase{
				{d: 15 * time.Second, describe: "steady", check: func(t *testing.T, srv *server, st stats) {
					if st.minLim < 3 || st.minLrn < 3 {
						t.Errorf("limit fell to %d (learned %d), Min 3", st.minLim, st.minLrn)
					}
					if tp := st.throughput(); tp < 0.9*srv.rate {
						t.Errorf("throughput %.0f/s, want >= 90%% of %.0f/s", tp, srv.rate)
					}
					if st.dropped > st.ok/100 {
						t.Errorf("%d dropped of %d, want < 1%%", st.dropped, st.ok)
					}
				}},
			},
		},
	}...)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := tc.srv
			s := newSim(&srv, tc.cfg, tc.demand)
			for _, p := range tc.phases {
				if p.rate != 0 {
					srv.rate = p.rate
				}
				if p.base != 0 {
					srv.base = p.base
				}
				st := s.run(p.d)
				t.Logf("%s: %v (BDP %.1f)", p.describe, st, srv.bdp())
				if p.check != nil {
					p.check(t, &srv, st)
				}
			}
		})
	}
}
