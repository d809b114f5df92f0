package limit

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
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

// waitWaiters yields until n Acquire calls are blocked.
func waitWaiters(t *testing.T, l *Limiter, n int) {
	t.Helper()
	for i := 0; ; i++ {
		l.mu.Lock()
		got := l.nwait
		l.mu.Unlock()
		if got == n {
			return
		}
		if i > 1e7 {
			t.Fatalf("%d waiters, want %d", got, n)
		}
		runtime.Gosched()
	}
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

// TestDropBackoff: a drop multiplies the limit by Backoff, once per
// congestion event (drops of requests sent before the cut are ignored),
// and never below Min.
func TestDropBackoff(t *testing.T) {
	type release struct {
		advance time.Duration // clock step before the release
		rtt     time.Duration
		o       Outcome
		want    int // Limit() after
	}
	ms := time.Millisecond
	tests := []struct {
		name  string
		cfg   Config
		steps []release
	}{
		{
			name: "cut once per event",
			cfg:  Config{Initial: 100, Max: 128},
			steps: []release{
				{advance: 10 * ms, rtt: ms, o: Dropped, want: 70},
				// sent 5 ms ago, before the cut: same event
				{advance: ms, rtt: 5 * ms, o: Dropped, want: 70},
				{advance: 0, rtt: 2 * ms, o: Dropped, want: 70},
				// sent after the cut: a new event
				{advance: 10 * ms, rtt: ms, o: Dropped, want: 49},
				// 34.3: a fractional limit is rounded up in that
				// fraction of windows
				{advance: 10 * ms, rtt: ms, o: Dropped, want: 35},
				// other errors teach nothing
				{advance: 10 * ms, rtt: ms, o: Ignore, want: 35},
			},
		},
		{
			name: "a long client timeout is one event",
			cfg:  Config{Initial: 64, Max: 64},
			steps: []release{
				{advance: 12 * time.Second, rtt: 10 * time.Second, o: Dropped, want: 45},
				{advance: ms, rtt: 10 * time.Second, o: Dropped, want: 45},
				{advance: ms, rtt: 10 * time.Second, o: Dropped, want: 45},
			},
		},
		{
			name: "custom backoff",
			cfg:  Config{Initial: 100, Max: 100, Backoff: 0.5},
			steps: []release{
				{advance: 10 * ms, rtt: ms, o: Dropped, want: 50},
				{advance: 10 * ms, rtt: ms, o: Dropped, want: 25},
			},
		},
		{
			name: "floor at min",
			cfg:  Config{Initial: 20, Min: 5, Max: 128},
			steps: []release{
				{advance: 10 * ms, rtt: ms, o: Dropped, want: 14},
				{advance: 10 * ms, rtt: ms, o: Dropped, want: 10},
				{advance: 10 * ms, rtt: ms, o: Dropped, want: 7},
				{advance: 10 * ms, rtt: ms, o: Dropped, want: 5},
				{advance: 10 * ms, rtt: ms, o: Dropped, want: 5},
				{advance: 10 * ms, rtt: ms, o: Dropped, want: 5},
			},
		},
		{
			name: "fixed never moves",
			cfg:  Config{Fixed: true, Initial: 20, Max: 30},
			steps: []release{
				{advance: 10 * ms, rtt: ms, o: Dropped, want: 30},
				{advance: 10 * ms, rtt: ms, o: Success, want: 30},
				{advance: 10 * ms, rtt: 90 * ms, o: Success, want: 30},
				{advance: 10 * ms, rtt: ms, o: Dropped, want: 30},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, clock := newFake(tc.cfg)
			for i, s := range tc.steps {
				if !l.TryAcquire() {
					t.Fatalf("step %d: TryAcquire failed", i)
				}
				clock.t = clock.t.Add(s.advance)
				l.Release(s.rtt, s.o)
				if got := l.Limit(); got != s.want {
					t.Errorf("step %d (%v, rtt %v): Limit() = %d, want %d", i, s.o, s.rtt, got, s.want)
				}
			}
			if l.InFlight() != 0 {
				t.Errorf("InFlight() = %d after all releases", l.InFlight())
			}
		})
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

func TestAcquire(t *testing.T) {
	t.Run("canceled context fails at once", func(t *testing.T) {
		l := New(Config{Fixed: true, Max: 1})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := l.Acquire(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("Acquire = %v, want Canceled", err)
		}
		if l.InFlight() != 0 {
			t.Errorf("InFlight() = %d", l.InFlight())
		}
	})

	t.Run("cancel while waiting", func(t *testing.T) {
		l := New(Config{Fixed: true, Max: 1})
		if !l.TryAcquire() || l.TryAcquire() {
			t.Fatal("TryAcquire: want one permit only")
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- l.Acquire(ctx) }()
		waitWaiters(t, l, 1)
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("Acquire = %v, want Canceled", err)
		}
		waitWaiters(t, l, 0)
		if l.InFlight() != 1 {
			t.Errorf("InFlight() = %d, want 1", l.InFlight())
		}
		l.Release(time.Millisecond, Success)
		if l.InFlight() != 0 {
			t.Errorf("InFlight() = %d, want 0", l.InFlight())
		}
	})

	t.Run("release wakes waiters in order", func(t *testing.T) {
		l := New(Config{Fixed: true, Max: 1})
		l.TryAcquire()
		order := make(chan int, 3)
		for i := range 3 {
			go func() {
				if err := l.Acquire(context.Background()); err != nil {
					t.Error(err)
				}
				order <- i
			}()
			waitWaiters(t, l, i+1)
		}
		if l.TryAcquire() {
			t.Error("TryAcquire jumped the queue")
		}
		for want := range 3 {
			l.Release(time.Millisecond, Ignore)
			if got := <-order; got != want {
				t.Errorf("woken %d, want %d", got, want)
			}
		}
		l.Release(time.Millisecond, Ignore)
		if l.InFlight() != 0 {
			t.Errorf("InFlight() = %d", l.InFlight())
		}
	})

	t.Run("a grown limit wakes every waiter it admits", func(t *testing.T) {
		// Initial 16: a window of 64 quick samples with the limit in
		// use grows it by an eighth, to 18.
		l, clock := newFake(Config{Initial: 16, Max: 64})
		for round := range 4 {
			for range 16 {
				if !l.TryAcquire() {
					t.Fatal("TryAcquire failed")
				}
			}
			clock.t = clock.t.Add(time.Millisecond)
			n := 16
			if round == 3 {
				n = 15
			}
			for range n {
				l.Release(time.Millisecond, Success)
			}
		}
		for range 15 {
			l.TryAcquire()
		}
		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() {
				if err := l.Acquire(context.Background()); err != nil {
					t.Error(err)
				}
			})
		}
		waitWaiters(t, l, 2)
		l.Release(time.Millisecond, Success)
		wg.Wait()
		if l.Limit() != 18 || l.InFlight() != 17 {
			t.Errorf("Limit %d InFlight %d, want 18 and 17", l.Limit(), l.InFlight())
		}
	})
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
				ok := false
				switch r.IntN(4) {
				case 0:
					ok = l.TryAcquire()
				case 1:
					ctx, cancel := context.WithCancel(context.Background())
					if r.IntN(2) == 0 {
						cancel()
					} else {
						go cancel()
					}
					ok = l.Acquire(ctx) == nil
					cancel()
				default:
					ok = l.Acquire(context.Background()) == nil
				}
				if !ok {
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
	l.mu.Lock()
	if l.nwait != 0 || l.head != nil {
		t.Errorf("%d waiters left", l.nwait)
	}
	l.mu.Unlock()
	t.Logf("peak held %d, final limit %d", peak.Load(), l.Limit())
}

func BenchmarkAcquireRelease(b *testing.B) {
	for _, fixed := range []bool{false, true} {
		name := "adaptive"
		if fixed {
			name = "fixed"
		}
		b.Run(name, func(b *testing.B) {
			l := New(Config{Fixed: fixed, Max: 128})
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				_ = l.Acquire(ctx)
				l.Release(time.Millisecond, Success)
			}
		})
	}
	b.Run("adaptive-parallel", func(b *testing.B) {
		l := New(Config{Max: 128})
		ctx := context.Background()
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := l.Acquire(ctx); err != nil {
					b.Error(err)
					return
				}
				l.Release(time.Millisecond, Success)
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

	// A drop during a probe remembers the learned level, not the probe's.
	clock.t = clock.t.Add(11 * time.Second)
	sendAll(8, 4*ms)
	if !l.probing {
		t.Fatal("no probe")
	}
	l.TryAcquire()
	clock.t = clock.t.Add(ms)
	l.Release(ms, Dropped)
	if l.ceil != 8 || l.Limit() != 1 {
		t.Errorf("ceiling %v limit %d, want 8 and 1 (a quarter of 5.6)", l.ceil, l.Limit())
	}
}
