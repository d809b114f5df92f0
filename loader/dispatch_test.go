package loader

import (
	"fmt"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cqlload/cqlload/cqlsim"
	"github.com/cqlload/cqlload/internal/limit"
	"github.com/cqlload/cqlload/loader/internal/stall"
)

// TestFinishing: the limiters are told the run is finishing once the
// input left would be settled within finishAhead at the rate so far, and
// never while the input's size is unknown.
func TestFinishing(t *testing.T) {
	tests := []struct {
		name string
		p    Progress
		want bool
	}{
		{"half done after 10 s: 10 s left", Progress{BytesDone: 50, BytesTotal: 100, Elapsed: 10 * time.Second}, false},
		{"95% done after 10 s: about 0.5 s left", Progress{BytesDone: 95, BytesTotal: 100, Elapsed: 10 * time.Second}, true},
		{"80% done after 10 s: 2.5 s left", Progress{BytesDone: 80, BytesTotal: 100, Elapsed: 10 * time.Second}, false},
		{"all done", Progress{BytesDone: 100, BytesTotal: 100, Elapsed: time.Second}, true},
		{"stdin: size unknown", Progress{BytesDone: 100, BytesTotal: -1, Elapsed: time.Second}, false},
		{"nothing settled yet", Progress{BytesDone: 0, BytesTotal: 100, Elapsed: time.Second}, false},
		{"not started", Progress{BytesDone: 10, BytesTotal: 100}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := finishing(tc.p); got != tc.want {
				t.Errorf("finishing(%+v) = %v, want %v", tc.p, got, tc.want)
			}
		})
	}
}

// startDispatch runs a dispatcher for a Loader that has only what the
// dispatcher reads: the coordinators' limits, fixed at maxInFlight, and
// the stop signal. It returns the Loader, the channel batches are
// submitted on, and the one the senders take them from.
func startDispatch(maxInFlight, queueCap int) (*Loader, chan<- *batch, <-chan *batch) {
	l := &Loader{life: newLifecycle()}
	l.limits = newHostLimits(&Options{MaxInFlight: maxInFlight}, new(stall.Clock))
	in, out := make(chan *batch), make(chan *batch)
	l.dispatch = newDispatcher(l, in, out, queueCap)
	go l.dispatch.run()
	return l, in, out
}

// runSenders starts n senders that take batches from out until it is
// closed, hold each for hold, then return its permit. wait returns the
// batches each host's senders took and the most a host had at once.
func runSenders(t *testing.T, l *Loader, out <-chan *batch, n int, hold time.Duration) (wait func() (taken, peak map[string]int)) {
	var mu sync.Mutex
	taken, peak, now := map[string]int{}, map[string]int{}, map[string]int{}
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range out {
				mu.Lock()
				taken[b.host]++
				now[b.host]++
				peak[b.host] = max(peak[b.host], now[b.host])
				mu.Unlock()
				time.Sleep(hold)
				mu.Lock()
				now[b.host]--
				mu.Unlock()
				l.releasePermit(b, hold, limit.Ignore)
			}
		}()
	}
	return func() (map[string]int, map[string]int) {
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatal("senders still running 30 s after the input closed")
		}
		return taken, peak
	}
}

// TestDispatcher: every submitted batch reaches a sender once, no host
// has more than its limit in flight, and the senders end once the input
// closes and the queues drain.
func TestDispatcher(t *testing.T) {
	tests := []struct {
		name                     string
		senders, limit, queueCap int
		batches                  int
		hosts                    []string
		hold                     time.Duration
	}{
		{"more senders than batches", 16, 2, 4, 3, []string{"a"}, 0},
		{"limit below senders", 8, 2, 4, 200, []string{"a", "b", "c"}, 100 * time.Microsecond},
		{"one sender", 1, 8, 16, 100, []string{"a", "b"}, 0},
		{"no batches", 8, 2, 4, 0, []string{"a"}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, in, out := startDispatch(tc.limit, tc.queueCap)
			wait := runSenders(t, l, out, tc.senders, tc.hold)
			want := map[string]int{}
			for i := range tc.batches {
				h := tc.hosts[i%len(tc.hosts)]
				want[h]++
				in <- &batch{host: h}
			}
			close(in)
			taken, peak := wait()
			for _, h := range tc.hosts {
				if taken[h] != want[h] {
					t.Errorf("host %s: %d batches taken, %d submitted", h, taken[h], want[h])
				}
				if peak[h] > tc.limit {
					t.Errorf("host %s: %d batches at once, limit %d", h, peak[h], tc.limit)
				}
			}
		})
	}
}

// TestDispatcherStop: a full queue stops reading the input (which holds
// the converters back); once the run stops, the queued batches go out
// without permits, to be settled as not sent, even to a host whose only
// permit is held.
func TestDispatcherStop(t *testing.T) {
	l, in, out := startDispatch(1, 4)
	held := l.limits.of("a")
	if !held.TryAcquire() {
		t.Fatal("no permit for the holder")
	}
	submitted := make(chan struct{})
	go func() {
		for range 10 {
			in <- &batch{host: "a"}
		}
		close(in)
		close(submitted)
	}()
	select {
	case <-submitted:
		t.Fatal("10 batches went into a queue of 4 with no permit free")
	case <-time.After(50 * time.Millisecond):
	}
	wait := runSenders(t, l, out, 3, 0)
	l.life.advance(stopping)
	// The permit stays taken (a request the node holds); what wakes the
	// dispatcher is another host's returned permit.
	l.dispatch.released()
	select {
	case <-submitted:
	case <-time.After(30 * time.Second):
		t.Fatal("the input still blocked 30 s after the run stopped")
	}
	taken, _ := wait()
	if taken["a"] != 10 {
		t.Errorf("%d batches taken after the stop, want 10", taken["a"])
	}
	if n := held.InFlight(); n != 1 {
		t.Errorf("%d permits in flight after the stop, want 1 (the holder's): batches took permits", n)
	}
}

// TestBatchQueue: batches leave in the order they came, however pushes
// and pops interleave, and a queue that empties reuses its array.
func TestBatchQueue(t *testing.T) {
	for _, ops := range []string{
		"pppooo",              // fill, then drain
		"popopopopopopopo",    // one at a time: the common case
		"ppppopopppoooppoooo", // a backlog that never quite empties
		"pppppppppoooooooooppo",
	} {
		var q batchQueue
		var in, out []*batch
		for _, op := range ops {
			switch op {
			case 'p':
				b := &batch{}
				in = append(in, b)
				q.push(b)
			case 'o':
				out = append(out, q.front())
				q.pop()
			}
			if q.len() != len(in)-len(out) {
				t.Fatalf("%s: len %d, want %d", ops, q.len(), len(in)-len(out))
			}
		}
		for q.len() > 0 {
			out = append(out, q.front())
			q.pop()
		}
		if !slices.Equal(in, out) {
			t.Errorf("%s: batches left out of order", ops)
		}
		if slices.ContainsFunc(q.items[:cap(q.items)], func(b *batch) bool { return b != nil }) {
			t.Errorf("%s: the array still holds popped batches", ops)
		}
	}
	// One at a time, a queue allocates its array once.
	var q batchQueue
	b := &batch{}
	if n := testing.AllocsPerRun(100, func() { q.push(b); q.pop() }); n != 0 {
		t.Errorf("push and pop on an emptying queue: %.1f allocations, want 0", n)
	}
}

// TestCoordinatorIsTheDrivers: with three replicas of every row, each
// request goes to the coordinator whose in-flight limit it is charged to,
// so that a slow or overloaded node limits its own requests. The loader's
// count of requests per coordinator equals each node's count of EXECUTE
// and BATCH requests. Before, the driver shuffled replicas while the
// loader charged every request of a replica set to its least host id:
// on three nodes, one limiter for all of them.
func TestCoordinatorIsTheDrivers(t *testing.T) {
	for _, tc := range []struct {
		name    string
		stopped int // index of a node down before the load, or -1
	}{
		{"all up", -1},
		// The driver skips a node it knows is down; so must the limits.
		{"one node down", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := startCluster(t, 3, 3, `CREATE TABLE ks.co (k int PRIMARY KEY, v text);`, nil)
			if tc.stopped >= 0 {
				c.Node(tc.stopped).Stop()
			}
			path := writeCSV(t, "in.csv", 20000, func(i int) string { return fmt.Sprintf("%d,v%d\n", i, i) })
			before := c.Stats()
			s, err := runLoad(t, testOptions(t, c, "co", path))
			if err != nil || s.RowsWritten != 20000 {
				t.Fatalf("load: %v, %d written", err, s.RowsWritten)
			}
			after := c.Stats()
			got := map[string]int64{}
			for _, l := range s.Limits {
				host, _, _ := net.SplitHostPort(l.Host)
				got[host] = l.Requests
			}
			// Batch requests, as cqlsim counts them: its EXECUTE count
			// also holds the driver's own metadata queries on its
			// control connection. Every request here is a batch of 20
			// rows (one replica set).
			batches := func(n cqlsim.NodeStats) (sum int64) {
				for _, k := range n.Batches {
					sum += k
				}
				return sum
			}
			for i, n := range after.Nodes {
				sent := batches(n) - batches(before.Nodes[i])
				if (sent == 0) != (i == tc.stopped) || got[n.Address] != sent {
					t.Errorf("node %d (%s) took %d requests; cqlload counted %d to it (all: %v)", n.Node, n.Address, sent, got[n.Address], got)
				}
			}
		})
	}
}

// TestCoordinatorSilence steps a coordinator through a hang: requests
// waiting without an answer for silentAfter make it silent (its batches
// go elsewhere); when they came back unanswered it stays silent until
// nothing has been sent to it for silentAfter, when one request may go
// as a probe; an answer ends it.
func TestCoordinatorSilence(t *testing.T) {
	h := newHostLimits(&Options{MaxInFlight: 8}, new(stall.Clock))
	ago := func(d time.Duration) int64 { return time.Now().Add(-d).UnixNano() }
	long := silentAfter + silentAfter/2
	if h.silent("a") {
		t.Fatal("a host never sent to is silent")
	}
	steps := []struct {
		name   string
		do     func(st *coordState)
		silent bool
	}{
		{"a request waits, just sent", func(*coordState) { h.sending("a", ago(0)) }, false},
		{"it has waited past silentAfter", func(st *coordState) { st.quietFrom.Store(ago(long)) }, true},
		{"it comes back unanswered, sent a moment ago", func(st *coordState) { st.done(false, ago(0)); st.lastSent.Store(ago(silentAfter / 2)) }, true},
		{"nothing sent for silentAfter: a probe may go", func(st *coordState) { st.lastSent.Store(ago(long)) }, false},
		{"the probe waits, unanswered before it", func(*coordState) { h.sending("a", ago(0)) }, true},
		{"the probe is answered", func(st *coordState) { st.done(true, ago(0)) }, false},
		{"an idle coordinator's next request is not silent", func(st *coordState) { st.quietFrom.Store(ago(long)); h.sending("a", ago(0)) }, false},
	}
	for _, s := range steps {
		s.do(h.stateOf("a", true))
		if got := h.silent("a"); got != s.silent {
			t.Fatalf("%s: silent %v, want %v", s.name, got, s.silent)
		}
	}
}
