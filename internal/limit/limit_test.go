package limit

import (
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func newFake(cfg Config) (*Limiter, *fakeClock) {
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	cfg.Now = clock.now
	return New(cfg), clock
}

func TestDefaults(t *testing.T) {
	tests := []struct {
		name          string
		cfg           Config
		limit, lo, hi int
	}{
		{name: "zero", cfg: Config{}, limit: DefaultInitial, lo: DefaultMin, hi: DefaultMax},
		{name: "initial above max", cfg: Config{Initial: 500, Max: 64}, limit: 64, lo: 1, hi: 64},
		{name: "initial below min", cfg: Config{Initial: 2, Min: 4, Max: 64}, limit: 4, lo: 4, hi: 64},
		{name: "min above max", cfg: Config{Min: 50, Max: 10}, limit: 10, lo: 10, hi: 10},
		{name: "fixed", cfg: Config{Fixed: true, Initial: 3, Max: 40}, limit: 40, lo: 1, hi: 40},
		{name: "fixed default", cfg: Config{Fixed: true}, limit: DefaultMax, lo: 1, hi: DefaultMax},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := New(tc.cfg)
			if got := l.Limit(); got != tc.limit {
				t.Errorf("Limit() = %d, want %d", got, tc.limit)
			}
			if int(l.min) != tc.lo || int(l.max) != tc.hi {
				t.Errorf("bounds [%v, %v], want [%d, %d]", l.min, l.max, tc.lo, tc.hi)
			}
			if l.InFlight() != 0 {
				t.Errorf("InFlight() = %d", l.InFlight())
			}
		})
	}
}

// TestDropPaces: a drop never cuts the in-flight limit; it paces
// admission just below what the node delivered in the rate window, once
// per overload (drops of requests sent before the cut are old news), and
// while the pacer holds requests back without an overload the rate grows,
// faster each window in a row. Fixed limits never pace.
func TestDropPaces(t *testing.T) {
	ms := time.Millisecond
	type step struct {
		// every ms for n ms: one request sent and one answered after
		// rtt with outcome o (a drop in the last millisecond if drop)
		n    int
		rtt  time.Duration
		drop bool
		// the rate after, requests/s (0: not paced), ±1%
		want float64
	}
	tests := []struct {
		name  string
		cfg   Config
		steps []step
	}{
		{
			name: "a drop paces at what the node delivered",
			cfg:  Config{Initial: 100, Max: 128},
			steps: []step{
				// the first rate window closes after 50 ms
				{n: 50, rtt: ms, want: 0},
				// 10 answers (the drop included) in the 10 ms of
				// the window that saw the drop: 1000/s, paced at
				// rateCut of it
				{n: 10, rtt: ms, drop: true, want: 1000 * rateCut},
			},
		},
		{
			name: "fixed never paces",
			cfg:  Config{Fixed: true, Max: 30},
			steps: []step{
				{n: 60, rtt: ms, drop: true, want: 0},
				{n: 60, rtt: ms, drop: true, want: 0},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, clock := newFake(tc.cfg)
			limit := l.Limit()
			for i, s := range tc.steps {
				for k := range s.n {
					clock.t = clock.t.Add(ms)
					if !l.TryAcquire() {
						t.Fatalf("step %d: TryAcquire failed", i)
					}
					o := Success
					if s.drop && k == s.n-1 {
						o = Dropped
					}
					l.Release(s.rtt, o)
				}
				if got := l.Rate(); math.Abs(got-s.want) > s.want/100 {
					t.Errorf("step %d: Rate() = %.1f, want %.1f", i, got, s.want)
				}
				if got := l.Limit(); got < limit {
					t.Errorf("step %d: Limit() = %d, fell from %d", i, got, limit)
				}
			}
		})
	}
}

// TestPacer: a paced Limiter admits one request per interval, catches up
// by a little after a late wake, counts the held-back requests as demand,
// grows the rate, and ends pacing when it holds nothing back.
func TestPacer(t *testing.T) {
	ms := time.Millisecond
	l, clock := newFake(Config{Initial: 64, Max: 64})
	// 2000 successes/s; the first rate window closes at 50 ms, and a
	// drop 10 ms into the next one (21 answers with it) paces at
	// rateCut · 2100/s.
	for range 60 {
		clock.t = clock.t.Add(ms / 2)
		l.TryAcquire()
		l.Release(ms, Success)
		clock.t = clock.t.Add(ms / 2)
		l.TryAcquire()
		l.Release(ms, Success)
	}
	l.TryAcquire()
	l.Release(ms, Dropped)
	if r := l.Rate(); math.Abs(r-2100*rateCut) > 1 {
		t.Fatalf("Rate() = %.1f after the drop, want %.1f", r, 2100*rateCut)
	}
	interval := time.Duration(float64(time.Second) / l.Rate())
	// Due now: one admission, then nothing until the interval passed.
	if !l.TryAcquire() {
		t.Fatal("the first paced request was refused")
	}
	if l.TryAcquire() {
		t.Fatal("a second request within the interval was admitted")
	}
	if got, want := l.Wake(), clock.t.Add(interval); !got.Equal(want) {
		t.Fatalf("Wake() = %v from now, want %v", got.Sub(clock.t), interval)
	}
	// Woken 10 ms late: it catches up by paceCredit (2 ms, four
	// intervals), not by twenty intervals.
	clock.t = clock.t.Add(10 * ms)
	n := 0
	for l.TryAcquire() {
		l.Sending()
		n++
	}
	if n < 4 || n > 6 {
		t.Errorf("after a 10 ms late wake %d admitted at once, want about 5", n)
	}
	for range n + 1 {
		l.Release(ms, Success)
	}
	// The pacer held requests back and nothing dropped: the rate grows.
	before := l.Rate()
	for range 120 { // two rate windows at least
		clock.t = clock.t.Add(ms)
		for k := 0; k < 8 && l.TryAcquire(); k++ {
			l.Sending()
			clock.t = clock.t.Add(ms / 16)
			l.Release(ms/16, Success)
		}
	}
	if l.Rate() <= before {
		t.Errorf("Rate() = %.1f, want more than %.1f after windows held back", l.Rate(), before)
	}
	// A client that sends less than the rate for paceIdle ends pacing.
	for range 3000 {
		clock.t = clock.t.Add(ms)
		if l.TryAcquire() {
			l.Release(ms, Success)
		}
	}
	if l.Rate() != 0 {
		t.Errorf("Rate() = %.1f after 3 s of sending 1000/s, want 0 (not paced)", l.Rate())
	}
}

// TestFixedCounts: in Fixed mode the limit stays at Max whatever is
// learned, and admission still counts what is in flight.
func TestFixedCounts(t *testing.T) {
	l, clock := newFake(Config{Fixed: true, Max: 8})
	r := rand.New(rand.NewPCG(7, 7))
	held := 0
	for i := range 10000 {
		if r.IntN(2) == 0 {
			ok := l.TryAcquire()
			if ok != (held < 8) {
				t.Fatalf("op %d: TryAcquire = %v with %d held", i, ok, held)
			}
			if ok {
				held++
			}
		} else if held > 0 {
			clock.t = clock.t.Add(time.Duration(r.IntN(1e6)))
			l.Release(time.Duration(r.IntN(1e8)), Outcome(r.IntN(3)))
			held--
		}
		if l.Limit() != 8 || l.InFlight() != held {
			t.Fatalf("op %d: Limit %d InFlight %d, want 8 and %d", i, l.Limit(), l.InFlight(), held)
		}
	}
}

func TestReleaseWithoutPermitPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Release with nothing held did not panic")
		}
	}()
	New(Config{}).Release(time.Millisecond, Success)
}

// TestConcurrent hammers one Limiter from many goroutines, as the
// loader's workers do; run it with -race.
func TestConcurrent(t *testing.T) {
	const workers, ops, ceiling = 128, 1000, 32
	l := New(Config{Initial: 4, Max: ceiling})
	var held, peak atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for range ops {
				if !l.TryAcquire() {
					continue
				}
				if n := held.Add(1); n > peak.Load() {
					peak.Store(n) // racy max, but only ever too low
				}
				if n := held.Load(); n > ceiling {
					t.Errorf("%d held, ceiling %d", n, ceiling)
				}
				if lim := l.Limit(); lim < 1 || lim > ceiling {
					t.Errorf("Limit() = %d", lim)
				}
				held.Add(-1)
				o := Success
				if r.IntN(50) == 0 {
					o = Dropped
				} else if r.IntN(50) == 0 {
					o = Ignore
				}
				l.Release(time.Duration(500+r.IntN(2000))*time.Microsecond, o)
			}
		})
	}
	wg.Wait()
	if l.InFlight() != 0 {
		t.Errorf("InFlight() = %d after all workers", l.InFlight())
	}
	t.Logf("peak held %d, final limit %d", peak.Load(), l.Limit())
}

func BenchmarkTryAcquireRelease(b *testing.B) {
	for _, fixed := range []bool{false, true} {
		name := "adaptive"
		if fixed {
			name = "fixed"
		}
		b.Run(name, func(b *testing.B) {
			l := New(Config{Fixed: fixed, Max: 128})
			b.ReportAllocs()
			for b.Loop() {
				l.TryAcquire()
				l.Release(time.Millisecond, Success)
			}
		})
	}
	b.Run("adaptive-parallel", func(b *testing.B) {
		l := New(Config{Max: 1 << 20, Initial: 1 << 20})
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if l.TryAcquire() {
					l.Release(time.Millisecond, Success)
				}
			}
		})
	})
}

func BenchmarkRelease(b *testing.B) {
	l := New(Config{Max: 1 << 30, Initial: 1 << 30})
	for range b.N {
		l.TryAcquire()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		l.Release(time.Millisecond, Success)
	}
}

// TestFloorProbe: a floor not seen for FloorWindow is re-measured at a
// quarter of the limit and may rise; the learned limit comes back.
func TestFloorProbe(t *testing.T) {
	ms := time.Millisecond
	l, clock := newFake(Config{Initial: 8, Max: 8, FloorWindow: 10 * time.Second})
	// sendAll sends n requests now and answers them all after rtt.
	sendAll := func(n int, rtt time.Duration) {
		t.Helper()
		for range n {
			if !l.TryAcquire() {
				t.Fatalf("TryAcquire failed at %d in flight, limit %d", l.InFlight(), l.Limit())
			}
		}
		clock.t = clock.t.Add(rtt)
		for range n {
			l.Release(rtt, Success)
		}
	}
	sendAll(8, ms)
	if l.floor != ms || l.Limit() != 8 {
		t.Fatalf("floor %v limit %d, want 1ms and 8", l.floor, l.Limit())
	}

	// The node is slower now; the old floor expires.
	clock.t = clock.t.Add(11 * time.Second)
	sendAll(8, 3*ms)
	if !l.probing || l.Limit() != 2 {
		t.Fatalf("probing %v limit %d, want a probe at 2", l.probing, l.Limit())
	}
	for range 8 {
		sendAll(2, 3*ms) // 16 samples close the probe
	}
	if l.probing || l.floor != 3*ms || l.Limit() != 8 {
		t.Errorf("after the probe: probing %v floor %v limit %d, want false, 3ms, 8",
			l.probing, l.floor, l.Limit())
	}

}

// TestHeldRequests: requests a node holds unanswered are found a hold
// age after their window even when they hold every permit (no answer
// closes a window then), free their permits, and cut the rate once: the
// held requests of windows sent before the cut do not cut it again.
func TestHeldRequests(t *testing.T) {
	ms := time.Millisecond
	// holdAll answers a request a millisecond for 60 ms (a floor and a
	// first window), then takes every permit with requests never
	// answered, and returns how long until a permit came free again,
	// retrying at 10 ms steps as the dispatcher retries at Wake.
	holdAll := func(t *testing.T, l *Limiter, clock *fakeClock) time.Duration {
		t.Helper()
		for range 60 {
			clock.t = clock.t.Add(ms)
			l.TryAcquire()
			l.Sending()
			l.Release(ms, Success)
		}
		start := clock.t
		for l.TryAcquire() {
			l.Sending() // never answered
		}
		for !l.TryAcquire() {
			if clock.t.Sub(start) > 2*time.Second {
				t.Fatalf("no permit 2 s after the node held all %d, the limit %d", l.InFlight(), l.Limit())
			}
			clock.t = clock.t.Add(10 * ms)
		}
		return clock.t.Sub(start)
	}
	t.Run("every permit held", func(t *testing.T) {
		l, clock := newFake(Config{Initial: 16, Max: 64})
		if d, most := holdAll(t, l, clock), holdAge+3*rateSpan; d > most {
			t.Errorf("a permit came free %v after the node held them all, want at most %v", d, most)
		}
		if l.Rate() == 0 {
			t.Error("held requests did not pace admission")
		}
	})
	t.Run("held beyond max", func(t *testing.T) {
		// The limit is at Max when the node holds every permit: the
		// held requests are admitted on top of it.
		l, clock := newFake(Config{Initial: 8, Max: 8})
		holdAll(t, l, clock)
		if n := l.InFlight(); n <= 8 {
			t.Errorf("%d in flight, want more than Max (8) with 8 of them held", n)
		}
	})
	t.Run("held cut aims at what was delivered", func(t *testing.T) {
		// Paced at about 900 requests/s against a node that takes 500
		// and holds the rest: the cut that held requests cause goes to
		// 0.9 of the 500 delivered, not of the 900 paced.
		l, clock := newFake(Config{Initial: 64, Max: 64})
		pace(t, l, clock)
		if r := l.Rate(); r < 800 {
			t.Fatalf("paced at %.0f requests/s, want about 900 to start from", r)
		}
		var answers []time.Time // sent times, answered 1 ms later
		nodeFree := clock.t
		paced := l.Rate()
		for range 2000 {
			clock.t = clock.t.Add(ms / 4)
			for len(answers) > 0 && !clock.t.Before(answers[0].Add(ms)) {
				l.Release(ms, Success)
				answers = answers[1:]
			}
			for l.TryAcquire() {
				l.Sending()
				if clock.t.Before(nodeFree) {
					continue // held: never answered
				}
				nodeFree = clock.t.Add(2 * ms)
				answers = append(answers, clock.t)
			}
			if r := l.Rate(); r < paced*0.95 {
				if r > 600 {
					t.Fatalf("held requests cut the rate from %.0f to %.0f, want about 0.9 of the 500/s delivered", paced, r)
				}
				return
			}
			paced = math.Max(paced, l.Rate())
		}
		t.Fatal("held requests did not cut the rate")
	})
	t.Run("one cut per overload", func(t *testing.T) {
		l, clock := newFake(Config{Initial: 128, Max: 128})
		tick := func(hold bool) {
			clock.t = clock.t.Add(ms)
			if l.TryAcquire() {
				l.Sending()
				l.Release(ms, Success)
			}
			if hold && l.TryAcquire() {
				l.Sending() // never answered
			}
		}
		for range 60 {
			tick(false)
		}
		for range 100 { // two windows and more with half the requests held
			tick(true)
		}
		var first float64
		for range 400 {
			tick(false)
			if first == 0 {
				first = l.Rate()
			}
			if r := l.Rate(); first > 0 && r < first*0.99 {
				t.Fatalf("the rate was cut from %.0f to %.0f by requests held before the first cut", first, r)
			}
		}
		if first == 0 {
			t.Fatal("held requests did not pace admission")
		}
	})
}

// pace answers a request a millisecond for 60 ms, past the first rate
// window, then drops one: l is paced from then on.
func pace(t *testing.T, l *Limiter, clock *fakeClock) {
	t.Helper()
	for range 60 {
		clock.t = clock.t.Add(time.Millisecond)
		l.TryAcquire()
		l.Release(time.Millisecond, Success)
	}
	l.TryAcquire()
	l.Release(time.Millisecond, Dropped)
	if l.Rate() == 0 {
		t.Fatal("the drop did not pace admission")
	}
}

// TestChargeWaits: a request sent without a permit takes the pacer's
// next slot and is told to wait for it, so retries sent together go out
// at the rate; unpaced, it waits for nothing.
func TestChargeWaits(t *testing.T) {
	l, clock := newFake(Config{Initial: 64, Max: 64})
	if d := l.Charge(); d != 0 {
		t.Fatalf("unpaced Charge() = %v, want 0", d)
	}
	pace(t, l, clock)
	interval := time.Duration(float64(time.Second) / l.Rate())
	var last time.Duration
	for i := range 10 {
		d := l.Charge()
		if i > 0 && (d-last < interval-time.Microsecond || d-last > interval+time.Microsecond) {
			t.Fatalf("Charge %d waits %v, %v after the one before, want one interval (%v)", i, d, d-last, interval)
		}
		last = d
	}
	if last < 8*interval {
		t.Errorf("the tenth of ten retries at once waits %v, want about %v", last, 9*interval)
	}
}

// TestFinishing: near the end of a run the paced rate holds where it
// is while the pacer binds, and an overload still cuts it.
func TestFinishing(t *testing.T) {
	ms := time.Millisecond
	for _, finishing := range []bool{false, true} {
		l, clock := newFake(Config{Initial: 64, Max: 64})
		pace(t, l, clock)
		paced := l.Rate()
		if finishing {
			l.Finishing()
		}
		// The client wants more than the rate for 300 ms: the pacer
		// binds in every window.
		for range 300 {
			clock.t = clock.t.Add(ms)
			for k := 0; k < 8 && l.TryAcquire(); k++ {
				l.Sending()
				l.Release(ms/16, Success)
			}
		}
		switch got := l.Rate(); {
		case finishing && got != paced:
			t.Errorf("finishing: Rate() = %.1f after windows that bound, want it held at %.1f", got, paced)
		case !finishing && got <= paced:
			t.Errorf("Rate() = %.1f after windows that bound, want more than %.1f", got, paced)
		}
		if finishing {
			for !l.TryAcquire() {
				clock.t = clock.t.Add(ms)
			}
			l.Sending()
			clock.t = clock.t.Add(ms)
			l.Release(ms, Dropped)
			if got := l.Rate(); got >= paced {
				t.Errorf("finishing: Rate() = %.1f after an overload, want a cut from %.1f", got, paced)
			}
		}
	}
}

// TestTimeout: the retransmission timeout is 0 for a fixed limit, 1 s
// until a success has been seen, then the smoothed RTT plus four times its
// variation, at least twice the hold age (200 ms, or 10 floors when
// longer), doubled for each attempt after the first. Drops and ignored
// outcomes teach it nothing.
func TestTimeout(t *testing.T) {
	ms := time.Millisecond
	type answer struct {
		rtt time.Duration
		o   Outcome
	}
	ok := func(rtt time.Duration, n int) []answer {
		a := make([]answer, n)
		for i := range a {
			a[i] = answer{rtt, Success}
		}
		return a
	}
	tests := []struct {
		name    string
		fixed   bool
		answers []answer
		attempt int
		want    time.Duration
		// estimated: want is RFC 6298's srtt + 4 rttvar of the answers
		estimated bool
	}{
		{name: "no sample yet", attempt: 1, want: time.Second},
		{name: "no sample yet, third attempt", attempt: 3, want: 4 * time.Second},
		{name: "only drops and ignores", answers: []answer{{5 * ms, Dropped}, {ms, Ignore}}, attempt: 1, want: time.Second},
		{name: "fixed limit", fixed: true, answers: ok(ms, 100), attempt: 1, want: 0},
		{name: "fast node: twice the hold age", answers: ok(2*ms, 100), attempt: 1, want: 2 * holdAge},
		{name: "second attempt doubles", answers: ok(2*ms, 100), attempt: 2, want: 4 * holdAge},
		{name: "fourth attempt", answers: ok(2*ms, 100), attempt: 4, want: 16 * holdAge},
		{name: "slow floor: twice ten floors", answers: ok(50*ms, 200), attempt: 1, want: 2 * holdFloors * 50 * ms},
		// one sample: srtt = rtt, rttvar = rtt/2, so srtt + 4 rttvar = 3 rtt
		{name: "one slow sample: its ten floors", answers: ok(300*ms, 1), attempt: 1, want: 2 * holdFloors * 300 * ms},
		// the spread of RTTs, not only their level, sets it
		{name: "varying RTTs", answers: append(ok(ms, 100), ok(400*ms, 3)...), attempt: 1, estimated: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, clock := newFake(Config{Fixed: tc.fixed, Max: 1000, Initial: 1000})
			var srtt, rttvar time.Duration
			for _, a := range tc.answers {
				if !l.TryAcquire() {
					t.Fatal("TryAcquire refused")
				}
				clock.t = clock.t.Add(a.rtt)
				l.Release(a.rtt, a.o)
				if a.o == Success {
					// RFC 6298's estimator, written out.
					if srtt == 0 {
						srtt, rttvar = a.rtt, a.rtt/2
					} else {
						d := srtt - a.rtt
						if d < 0 {
							d = -d
						}
						rttvar, srtt = (3*rttvar+d)/4, (7*srtt+a.rtt)/8
					}
				}
			}
			want := tc.want
			if tc.estimated {
				want = srtt + 4*rttvar
				if want <= 2*holdAge {
					t.Fatalf("the case does not test the variation: srtt %v rttvar %v", srtt, rttvar)
				}
			}
			if got := l.Timeout(tc.attempt); got != want {
				t.Errorf("Timeout(%d) = %v, want %v (srtt %v, rttvar %v)", tc.attempt, got, want, l.srtt, l.rttvar)
			}
		})
	}
}

// TestTimeoutBacksOff: a request that timed out doubles the timeout, once
// for all the requests sent before that doubling, until a success is
// measured; at most maxRTOShift times.
func TestTimeoutBacksOff(t *testing.T) {
	ms := time.Millisecond
	l, clock := newFake(Config{Max: 1000, Initial: 1000})
	for range 100 {
		l.TryAcquire()
		clock.t = clock.t.Add(2 * ms)
		l.Release(2*ms, Success)
	}
	base := l.Timeout(1)
	if base != 2*holdAge {
		t.Fatalf("Timeout(1) = %v after fast successes, want %v", base, 2*holdAge)
	}
	sentEarly := clock.t
	clock.t = clock.t.Add(base)
	l.TimedOut(sentEarly)
	if got := l.Timeout(1); got != 2*base {
		t.Fatalf("after a time-out: %v, want %v", got, 2*base)
	}
	l.TimedOut(sentEarly) // sent with the first: the same event
	if got := l.Timeout(1); got != 2*base {
		t.Fatalf("a second time-out of a request sent before the backoff: %v, want %v", got, 2*base)
	}
	if got := l.Timeout(2); got != 4*base {
		t.Fatalf("a retry after the backoff: %v, want %v", got, 4*base)
	}
	for range 20 {
		clock.t = clock.t.Add(ms)
		l.TimedOut(clock.t)
		clock.t = clock.t.Add(ms)
	}
	if got, want := l.Timeout(1), base<<maxRTOShift; got != want {
		t.Fatalf("after many time-outs: %v, want at most %v", got, want)
	}
	l.TryAcquire()
	clock.t = clock.t.Add(2 * ms)
	l.Release(2*ms, Success)
	if got := l.Timeout(1); got != base {
		t.Fatalf("after a success: %v, want %v again", got, base)
	}
	f := New(Config{Fixed: true})
	f.TimedOut(time.Now())
	if got := f.Timeout(1); got != 0 {
		t.Fatalf("fixed limit: %v, want 0", got)
	}
}

// TestClientStall: requests in flight while the client process was
// stopped (Ctrl-Z, docker pause) were answered while it could not
// read: with Config.Stalled saying so, the window the stop falls in
// finds no held requests, and admission is not paced. Without it the
// same requests look held by the node.
func TestClientStall(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name      string
		told      bool
		wantPaced bool
	}{
		{"told of the stall", true, false},
		{"not told", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stopFrom, stopTo time.Time
			cfg := Config{Initial: 64, Max: 64}
			if tc.told {
				cfg.Stalled = func(from, to time.Time) bool {
					return !stopTo.IsZero() && stopTo.After(from) && stopFrom.Before(to)
				}
			}
			l, clock := newFake(cfg)
			for range 60 {
				clock.t = clock.t.Add(ms)
				l.TryAcquire()
				l.Sending()
				l.Release(ms, Success)
			}
			// Every permit in flight, as in a load at full speed.
			n := 0
			for l.TryAcquire() {
				l.Sending()
				n++
			}
			stopFrom = clock.t
			clock.t = clock.t.Add(15 * time.Second)
			stopTo = clock.t
			// Awake: the dispatcher asks for permits every 10 ms, and
			// the answers, waiting in the sockets, are read only after
			// 250 ms (on two busy cores, hundreds of them), each released
			// as teaching nothing.
			for range 25 {
				clock.t = clock.t.Add(10 * ms)
				if l.TryAcquire() {
					l.Sending()
					n++
				}
			}
			for range n {
				l.Release(15*time.Second, Ignore)
			}
			for range 200 {
				clock.t = clock.t.Add(ms)
				if l.TryAcquire() {
					l.Sending()
					l.Release(ms, Success)
				}
			}
			if paced := l.Rate() > 0; paced != tc.wantPaced {
				t.Errorf("paced = %v (rate %.0f), want %v", paced, l.Rate(), tc.wantPaced)
			}
		})
	}
}
