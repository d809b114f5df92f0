package cqlsim

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

const capSchema = ks1 + "; CREATE TABLE ks.c (k int PRIMARY KEY, v int)"

// capSession starts a one-node cluster with ks.c and a session that never
// retries, so every capacity error reaches the test.
func capSession(t *testing.T, cfg Config) (*Cluster, *gocql.Session) {
	t.Helper()
	cfg.Nodes = 1
	cfg.Schema = append(cfg.Schema, capSchema)
	cl := startCluster(t, cfg)
	s := connect(t, cl, func(cc *gocql.ClusterConfig) {
		cc.RetryPolicy = &gocql.SimpleRetryPolicy{NumRetries: 0}
		cc.Consistency = gocql.One
	})
	return cl, s
}

func insertC(s *gocql.Session, k int) error {
	return s.Query("INSERT INTO ks.c (k, v) VALUES (?, ?)", k, k).Exec()
}

func batchC(s *gocql.Session, from, rows int) error {
	b := s.Batch(gocql.UnloggedBatch)
	for i := from; i < from+rows; i++ {
		b.Query("INSERT INTO ks.c (k, v) VALUES (?, ?)", i, i)
	}
	return s.ExecuteBatch(b)
}

// stored counts the rows of ks.c among keys.
func stored(t *testing.T, cl *Cluster, keys []int) int {
	t.Helper()
	if len(keys) == 0 {
		return 0
	}
	ks := make([]string, len(keys))
	for i, k := range keys {
		ks[i] = fmt.Sprint(k)
	}
	rows, err := cl.Query("SELECT k FROM ks.c WHERE k IN (" + strings.Join(ks, ", ") + ")")
	if err != nil {
		t.Fatal(err)
	}
	return len(rows)
}

// result is one request fired by fire.
type result struct {
	k    int
	code int // -1 for success
	took time.Duration
}

// fire sends n inserts (keys from k0) at once from n goroutines.
func fire(s *gocql.Session, k0, n int) []result {
	out := make([]result, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range out {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			t0 := time.Now()
			err := insertC(s, k0+i)
			out[i] = result{k: k0 + i, code: codeOf(err), took: time.Since(t0)}
			if err != nil && codeOf(err) == -1 {
				out[i].code = -2 // not a server error: a client timeout or such
			}
		}()
	}
	close(start)
	wg.Wait()
	return out
}

func TestCapacityDefaultIsUnlimited(t *testing.T) {
	cl, s := capSession(t, Config{})
	if rate, mode := cl.Node(0).Capacity(); rate != 0 || mode != OverloadShed {
		t.Errorf("Capacity() = %d, %q; want 0, shed", rate, mode)
	}
	for i := 0; i < 200; i++ {
		if err := insertC(s, i); err != nil {
			t.Fatal(err)
		}
	}
	c := cl.Stats().Nodes[0].Capacity
	if c.RowsPerSec != 0 || c.Mode != OverloadShed || c.Queued != 0 || len(c.Errors) != 0 {
		t.Errorf("capacity stats %+v", c)
	}
}

func TestCapacityConfigErrors(t *testing.T) {
	for _, cfg := range []Config{
		{Capacity: -1},
		{Capacity: maxCapacity + 1},
		{Capacity: 10, Overload: "drop"},
		{Capacity: 10, WriteTimeout: -time.Second},
		{QueueLimit: -1},
	} {
		if cl, err := Start(context.Background(), cfg); err == nil {
			cl.Close()
			t.Errorf("Start(%+v) succeeded", cfg)
		}
	}
	cl := startCluster(t, Config{Nodes: 1})
	for _, tc := range []struct {
		rate int
		mode OverloadMode
	}{{-5, ""}, {10, "drop"}, {maxCapacity + 1, OverloadQueue}} {
		if err := cl.Node(0).SetCapacity(tc.rate, tc.mode); err == nil || !strings.Contains(err.Error(), "node 1") {
			t.Errorf("SetCapacity(%d, %q) = %v, want an error naming the node", tc.rate, tc.mode, err)
		}
	}
}

// TestCapacityShed: past the burst, data requests are answered Overloaded
// at once; after a refill they are accepted again. System tables and new
// statements to prepare are never limited. A batch costs its statements.
func TestCapacityShed(t *testing.T) {
	for _, blackhole := range []bool{false, true} {
		t.Run(fmt.Sprintf("blackhole=%v", blackhole), func(t *testing.T) {
			// 100 rows/s: a burst of 2, a row every 10 ms.
			cl, s := capSession(t, Config{Capacity: 100, Blackhole: blackhole})
			time.Sleep(30 * time.Millisecond) // the bucket is full whatever the start cost
			start := time.Now()
			ok, shed := 0, 0
			for i := 0; i < 40; i++ {
				switch err := insertC(s, i); codeOf(err) {
				case -1:
					if err != nil {
						t.Fatal(err)
					}
					ok++
				case gocql.ErrCodeOverloaded:
					shed++
				default:
					t.Fatalf("insert %d: %v", i, err)
				}
			}
			elapsed := time.Since(start)
			if limit := 2 + int(elapsed.Seconds()*100) + 1; ok > limit {
				t.Errorf("%d of 40 accepted in %v, want at most %d", ok, elapsed, limit)
			}
			if shed == 0 {
				t.Fatalf("none of 40 inserts in %v shed", elapsed)
			}
			var v string
			if err := s.Query("SELECT release_version FROM system.local").Scan(&v); err != nil {
				t.Errorf("system.local over capacity: %v", err)
			}
			if err := s.Query("UPDATE ks.c SET v = ? WHERE k = ?", 1, 1).Exec(); codeOf(err) != gocql.ErrCodeOverloaded && err != nil {
				t.Errorf("a statement prepared over capacity: %v", err)
			}
			time.Sleep(50 * time.Millisecond)
			if err := insertC(s, 100); err != nil {
				t.Errorf("after a refill: %v", err)
			}
			// A batch of 10 goes with a full bucket and leaves it 8 rows
			// (80 ms) in debt.
			time.Sleep(50 * time.Millisecond)
			if err := batchC(s, 200, 10); err != nil {
				t.Fatalf("batch with a full bucket: %v", err)
			}
			if err := insertC(s, 300); codeOf(err) != gocql.ErrCodeOverloaded {
				t.Errorf("insert right after a batch of 10: %v, want Overloaded", err)
			}
			// So does a BEGIN BATCH statement.
			time.Sleep(120 * time.Millisecond)
			var q strings.Builder
			q.WriteString("BEGIN UNLOGGED BATCH ")
			for i := 400; i < 410; i++ {
				fmt.Fprintf(&q, "INSERT INTO ks.c (k, v) VALUES (%d, 0); ", i)
			}
			q.WriteString("APPLY BATCH")
			if err := s.Query(q.String()).Exec(); err != nil {
				t.Fatalf("BEGIN BATCH statement with a full bucket: %v", err)
			}
			if err := insertC(s, 301); codeOf(err) != gocql.ErrCodeOverloaded {
				t.Errorf("insert right after a BEGIN BATCH statement of 10: %v, want Overloaded", err)
			}
			st := cl.Stats().Nodes[0]
			if st.Capacity.Errors["overloaded"] < int64(shed)+2 || st.Errors["overloaded"] != st.Capacity.Errors["overloaded"] {
				t.Errorf("capacity errors %v, errors %v; %d shed seen", st.Capacity.Errors, st.Errors, shed+1)
			}
			if st.Capacity.RowsPerSec != 100 || st.Capacity.Mode != OverloadShed || st.Capacity.Queued != 0 {
				t.Errorf("capacity stats %+v", st.Capacity)
			}
		})
	}
}

// TestCapacityRate: hammered from several goroutines for about a second,
// a node accepts about its capacity, never more than capacity plus burst.
func TestCapacityRate(t *testing.T) {
	for _, tc := range []struct {
		mode      OverloadMode
		blackhole bool
	}{{OverloadShed, false}, {OverloadShed, true}, {OverloadQueue, true}} {
		t.Run(fmt.Sprintf("%s blackhole=%v", tc.mode, tc.blackhole), func(t *testing.T) {
			const rate = 500 // burst 10
			cl, s := capSession(t, Config{Capacity: rate, Overload: tc.mode, Blackhole: tc.blackhole})
			var (
				mu       sync.Mutex
				accepted int
				wg       sync.WaitGroup
			)
			start := time.Now()
			stop := start.Add(time.Second)
			for g := 0; g < 8; g++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; time.Now().Before(stop); i++ {
						err := insertC(s, g*1_000_000+i)
						mu.Lock()
						if err == nil && time.Now().Before(stop) {
							accepted++
						}
						mu.Unlock()
						if err != nil && codeOf(err) != gocql.ErrCodeOverloaded && codeOf(err) != gocql.ErrCodeWriteTimeout {
							t.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			elapsed := time.Since(start)
			t.Logf("%d accepted in %v", accepted, elapsed)
			// The session's setup left the bucket full: one burst ahead.
			if hi := rate*elapsed.Seconds() + 10 + 5; float64(accepted) > hi {
				t.Errorf("%d accepted in %v at %d rows/s, want at most %.0f", accepted, elapsed, rate, hi)
			}
			if lo := rate * 0.5; float64(accepted) < lo {
				t.Errorf("only %d accepted in %v at %d rows/s, want at least %.0f", accepted, elapsed, rate, lo)
			}
			if tc.mode == OverloadShed && cl.Stats().Nodes[0].Capacity.Errors["overloaded"] == 0 {
				t.Error("no request shed")
			}
		})
	}
}

// TestCapacityQueue: requests over capacity wait their turn, latency
// growing with the queue; one whose turn would come past the write
// timeout is answered WriteTimeout at the deadline, not applied; a batch
// that begins before its deadline and ends after is applied and answered
// WriteTimeout; a full queue sheds.
func TestCapacityQueue(t *testing.T) {
	t.Run("latency grows with the queue", func(t *testing.T) {
		// 100 rows/s, burst 2: 20 requests at once take about 180 ms.
		cl, s := capSession(t, Config{Capacity: 100, Overload: OverloadQueue})
		time.Sleep(30 * time.Millisecond)
		start := time.Now()
		res := fire(s, 0, 20)
		elapsed := time.Since(start)
		var slowest time.Duration
		for _, r := range res {
			if r.code != -1 {
				t.Fatalf("insert %d: code %#x", r.k, r.code)
			}
			slowest = max(slowest, r.took)
		}
		t.Logf("slowest %v of 20 in %v", slowest, elapsed)
		if slowest < 120*time.Millisecond {
			t.Errorf("slowest of 20 queued inserts took %v, want about 180ms", slowest)
		}
		if elapsed > 5*time.Second {
			t.Errorf("20 queued inserts took %v", elapsed)
		}
		c := cl.Stats().Nodes[0].Capacity
		if c.Queued != 0 || len(c.Errors) != 0 {
			t.Errorf("after the queue drained: %+v", c)
		}
	})
	t.Run("past the deadline", func(t *testing.T) {
		// 50 rows/s, burst 1, timeout 200 ms: of 30 at once, about 11 make it.
		cl, s := capSession(t, Config{Capacity: 50, Overload: OverloadQueue, WriteTimeout: 200 * time.Millisecond})
		time.Sleep(30 * time.Millisecond)
		res := fire(s, 0, 30)
		var okKeys, lateKeys []int
		for _, r := range res {
			switch r.code {
			case -1:
				okKeys = append(okKeys, r.k)
			case gocql.ErrCodeWriteTimeout:
				lateKeys = append(lateKeys, r.k)
				if r.took < 180*time.Millisecond {
					t.Errorf("insert %d timed out after %v, before the 200ms deadline", r.k, r.took)
				}
			default:
				t.Fatalf("insert %d: code %#x", r.k, r.code)
			}
		}
		t.Logf("%d accepted, %d timed out", len(okKeys), len(lateKeys))
		// 1 + 10 in the 200 ms, and slack for arrivals spread by a busy machine.
		if len(lateKeys) == 0 || len(okKeys) == 0 || len(okKeys) > 1+10+8 {
			t.Errorf("%d accepted, %d timed out; want about 11 and 19", len(okKeys), len(lateKeys))
		}
		if n := stored(t, cl, okKeys); n != len(okKeys) {
			t.Errorf("%d of the %d accepted rows stored", n, len(okKeys))
		}
		if n := stored(t, cl, lateKeys); n != 0 {
			t.Errorf("%d of the %d rows dropped from the queue stored", n, len(lateKeys))
		}
		st := cl.Stats().Nodes[0]
		if st.Capacity.Errors["write_timeout"] != int64(len(lateKeys)) || st.Errors["write_timeout"] != int64(len(lateKeys)) {
			t.Errorf("capacity errors %v, errors %v; %d timeouts seen", st.Capacity.Errors, st.Errors, len(lateKeys))
		}
		if st.Capacity.Queued != 0 {
			t.Errorf("queued %d after every answer", st.Capacity.Queued)
		}
	})
	t.Run("a batch past its deadline is applied", func(t *testing.T) {
		// 100 rows/s, burst 2: a batch of 50 takes 480 ms, past 200 ms.
		cl, s := capSession(t, Config{Capacity: 100, Overload: OverloadQueue, WriteTimeout: 200 * time.Millisecond})
		time.Sleep(30 * time.Millisecond)
		t0 := time.Now()
		err := batchC(s, 0, 50)
		took := time.Since(t0)
		var wt *gocql.RequestErrWriteTimeout
		if !errors.As(err, &wt) || wt.WriteType != "UNLOGGED_BATCH" {
			t.Fatalf("batch of 50: %v, want a WriteTimeout", err)
		}
		if took < 180*time.Millisecond {
			t.Errorf("answered after %v, before the deadline", took)
		}
		keys := make([]int, 50)
		for i := range keys {
			keys[i] = i
		}
		if n := stored(t, cl, keys); n != 50 {
			t.Errorf("%d of the batch's 50 rows stored, want all", n)
		}
	})
	t.Run("a full queue sheds", func(t *testing.T) {
		// 10 rows/s, burst 1, 3 places: of 12 at once, 1 goes, 3 wait.
		cl, s := capSession(t, Config{Capacity: 10, Overload: OverloadQueue, QueueLimit: 3})
		time.Sleep(150 * time.Millisecond)
		ok, shed := 0, 0
		for _, r := range fire(s, 0, 12) {
			switch r.code {
			case -1:
				ok++
			case gocql.ErrCodeOverloaded:
				shed++
			default:
				t.Fatalf("insert %d: code %#x", r.k, r.code)
			}
		}
		t.Logf("%d accepted, %d shed", ok, shed)
		if shed == 0 || ok > 1+3+2 {
			t.Errorf("%d accepted, %d shed; want about 4 and 8", ok, shed)
		}
		if q := cl.Stats().Nodes[0].Capacity.Queued; q != 0 {
			t.Errorf("queued %d after every answer", q)
		}
	})
}

// TestCapacityTimeout: over capacity a request is held for the write
// timeout and answered WriteTimeout (ReadTimeout for a read), not applied.
func TestCapacityTimeout(t *testing.T) {
	for _, blackhole := range []bool{false, true} {
		t.Run(fmt.Sprintf("blackhole=%v", blackhole), func(t *testing.T) {
			cl, s := capSession(t, Config{Capacity: 100, Overload: OverloadTimeout, WriteTimeout: 150 * time.Millisecond, Blackhole: blackhole})
			time.Sleep(30 * time.Millisecond)
			// A batch of 10 leaves the bucket 80 ms in debt.
			if err := batchC(s, 0, 10); err != nil {
				t.Fatal(err)
			}
			before := cl.Stats().Nodes[0]
			t0 := time.Now()
			err := insertC(s, 100)
			took := time.Since(t0)
			var wt *gocql.RequestErrWriteTimeout
			if !errors.As(err, &wt) || wt.WriteType != "SIMPLE" {
				t.Fatalf("insert over capacity: %v, want a WriteTimeout", err)
			}
			if took < 140*time.Millisecond {
				t.Errorf("answered after %v, want the 150ms timeout", took)
			}
			after := cl.Stats().Nodes[0]
			if d := after.RowsWritten - before.RowsWritten; d != 0 {
				t.Errorf("rows written +%d by a request held to its timeout", d)
			}
			if !blackhole && stored(t, cl, []int{100}) != 0 {
				t.Error("the timed-out row is stored")
			}
			// The hold spent nothing: after the debt, the bucket is full.
			time.Sleep(30 * time.Millisecond)
			if err := insertC(s, 101); err != nil {
				t.Errorf("after the debt: %v", err)
			}
			if !blackhole {
				time.Sleep(30 * time.Millisecond)
				if err := batchC(s, 200, 10); err != nil {
					t.Fatal(err)
				}
				var n int
				err := s.Query("SELECT v FROM ks.c WHERE k = 1").Scan(&n)
				if codeOf(err) != gocql.ErrCodeReadTimeout {
					t.Errorf("read over capacity: %v, want a ReadTimeout", err)
				}
			}
			c := cl.Stats().Nodes[0].Capacity
			want := map[string]int64{"write_timeout": 1}
			if !blackhole {
				want["read_timeout"] = 1
			}
			if fmt.Sprint(c.Errors) != fmt.Sprint(want) || c.Mode != OverloadTimeout || c.Queued != 0 {
				t.Errorf("capacity stats %+v, want errors %v", c, want)
			}
		})
	}
}

// TestCapacityControl: POST /nodes/{n}/capacity sets the capacity and the
// mode at run time, the node state and /stats show them, and gocql feels it.
func TestCapacityControl(t *testing.T) {
	cl, s := capSession(t, Config{})
	cc := newControl(t, cl)
	for _, tc := range []struct {
		path string
		rate int
		mode OverloadMode
	}{
		{"/nodes/1/capacity?rows_per_sec=50&mode=queue", 50, OverloadQueue},
		{"/nodes/1/capacity?rows_per_sec=0", 0, OverloadQueue},
		{"/nodes/1/capacity?rows_per_sec=20&mode=shed", 20, OverloadShed},
	} {
		st := cc.post(tc.path)
		if st.Capacity.RowsPerSec != tc.rate || st.Capacity.Mode != tc.mode {
			t.Errorf("POST %s: capacity %+v, want %d %s", tc.path, st.Capacity, tc.rate, tc.mode)
		}
	}
	if rate, mode := cl.Node(0).Capacity(); rate != 20 || mode != OverloadShed {
		t.Errorf("Capacity() = %d, %s", rate, mode)
	}
	shed := 0
	for i := 0; i < 20; i++ {
		if codeOf(insertC(s, i)) == gocql.ErrCodeOverloaded {
			shed++
		}
	}
	if shed == 0 {
		t.Error("no insert shed at 20 rows/s")
	}
	c := cc.stats().Nodes[0].Capacity
	if c.RowsPerSec != 20 || c.Mode != OverloadShed || c.Errors["overloaded"] != int64(shed) {
		t.Errorf("/stats capacity %+v, %d shed seen", c, shed)
	}
	cc.post("/nodes/1/capacity?rows_per_sec=0")
	for i := 0; i < 50; i++ {
		if err := insertC(s, i); err != nil {
			t.Fatalf("unlimited again: %v", err)
		}
	}
	for _, tc := range []struct{ path, want string }{
		{"/nodes/1/capacity", "rows_per_sec: missing"},
		{"/nodes/1/capacity?rows_per_sec=-1", "rows_per_sec"},
		{"/nodes/1/capacity?rows_per_sec=many", "rows_per_sec"},
		{"/nodes/1/capacity?rows_per_sec=10&mode=drop", "mode"},
		{"/nodes/1/capacity?rows_per_sec=10&mode=", "mode"},
		{"/nodes/1/capacity?rows_per_sec=10&burst=5", "burst"},
	} {
		code, body := cc.do(http.MethodPost, tc.path)
		if code != http.StatusBadRequest || !strings.Contains(body, tc.want) {
			t.Errorf("POST %s: %d %q, want 400 naming %s", tc.path, code, body, tc.want)
		}
	}
	if code, _ := cc.do(http.MethodPost, "/nodes/2/capacity?rows_per_sec=1"); code != http.StatusNotFound {
		t.Errorf("capacity of a missing node: %d", code)
	}
	if code, _ := cc.do(http.MethodGet, "/nodes/1/capacity"); code != http.StatusMethodNotAllowed {
		t.Errorf("GET capacity: %d", code)
	}
	if rate, mode := cl.Node(0).Capacity(); rate != 0 || mode != OverloadShed {
		t.Errorf("bad requests changed the capacity: %d, %s", rate, mode)
	}
}

func TestParseOverloadMode(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want OverloadMode
		err  bool
	}{
		{"", OverloadShed, false},
		{"shed", OverloadShed, false},
		{"queue", OverloadQueue, false},
		{"timeout", OverloadTimeout, false},
		{"Queue", "", true},
		{"drop", "", true},
	} {
		got, err := ParseOverloadMode(tc.in)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("ParseOverloadMode(%q) = %q, %v", tc.in, got, err)
		}
	}
}
