package loader

import (
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/cqlload/cqlload/cqlsim"
)

// requestCounts is each node's requests by IP address at one moment, as
// cqlsim saw them (sim) and as cqlload charged them (cql).
type requestCounts struct {
	sim, cql map[string]int64
	// inFlight is the permits each coordinator's limiter had out.
	inFlight map[string]int
}

// countRequests reads both counts. cqlsim's are BATCH requests, as in
// TestCoordinatorIsTheDrivers: its EXECUTE count also holds the driver's
// metadata queries, and every request of these loads is a batch.
func countRequests(c *cqlsim.Cluster, l *Loader) requestCounts {
	rc := requestCounts{sim: map[string]int64{}, cql: map[string]int64{}, inFlight: map[string]int{}}
	for _, n := range c.Stats().Nodes {
		rc.sim[n.Address] = 0
		for _, k := range n.Batches {
			rc.sim[n.Address] += k
		}
	}
	for _, h := range l.Limits() {
		host, _, err := net.SplitHostPort(h.Host)
		if err != nil {
			host = h.Host // not yet mapped to an address
		}
		rc.cql[host] = h.Requests
		rc.inFlight[host] = h.InFlight
	}
	return rc
}

// TestNodeDownMidLoad stops a replica while a load runs and checks that
// the loader moves the node's batches to the next replica, charging them
// there: the row count is whole, cqlload stops charging the node once
// it holds it down, and its per-node request counts stay the cluster's.
// TestCoordinatorIsTheDrivers covers a node down from the start.
func TestNodeDownMidLoad(t *testing.T) {
	// 80,000 rows at 25,000 rows/s: at least 3.2 s, so that most of the
	// load is left when node 2 stops at a fifth of it.
	const rows, rate = 80_000, 25_000
	path := writeCSV(t, "in.csv", rows, func(i int) string { return fmt.Sprintf("%d,v%d\n", i, i) })
	for _, tc := range []struct {
		name string
		// restart: node 2 starts again at two fifths of the load. The
		// driver takes it back only once it handles the UP event: a
		// second's debounce, then, for a release_version 4.0 node
		// (cqlsim's), gocql's 10 s nodeUpDelay, so within this load it
		// may well stay unused: the loader must not charge it before
		// the driver sends to it.
		restart bool
	}{
		{"stopped for good", false},
		{"stopped and started again", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := startCluster(t, 3, 3, `CREATE TABLE ks.nd (k int PRIMARY KEY, v text);`, nil)
			victim := c.Node(1)
			ip := c.Stats().Nodes[1].Address
			o := testOptions(t, c, "nd", path)
			o.IngestRate = rate
			l, err := New(o)
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			written := func() int64 { return c.Stats().Total().RowsWritten }
			// heldDown: the loader's dispatcher holds node 2 down
			// (Loader.followHostStates), so no new batch is charged to it.
			heldDown := func() bool {
				d := l.limits.down.Load()
				return d != nil && (*d)[victim.HostID()]
			}

			// The disruption runs beside the load. Each wait ends with
			// the run too, so that a broken loader fails rather than
			// hangs the test.
			runDone := make(chan struct{})
			type timeline struct {
				stop, mark, restart requestCounts
				leftAtMark          int64
				err                 string
			}
			result := make(chan timeline, 1)
			go func() {
				var tl timeline
				defer func() { result <- tl }()
				waitFor := func(cond func() bool) bool {
					for !cond() {
						select {
						case <-runDone:
							return false
						case <-time.After(time.Millisecond):
						}
					}
					return true
				}
				if !waitFor(func() bool { return written() >= rows/5 }) {
					tl.err = "the run ended before a fifth of the rows was written"
					return
				}
				tl.stop = countRequests(c, l)
				victim.Stop()
				// A node down for good is found by the driver (its pool
				// cannot refill) and then by the loader within
				// rerouteCheck; the run lasts seconds longer.
				if !waitFor(heldDown) {
					tl.err = "the loader never held the stopped node down while the run lasted"
					return
				}
				tl.mark = countRequests(c, l)
				tl.leftAtMark = rows - written()
				if !tc.restart {
					return
				}
				if !waitFor(func() bool { return written() >= rows*2/5 }) {
					tl.err = "the run ended before two fifths of the rows were written"
					return
				}
				tl.restart = countRequests(c, l)
				if err := victim.Start(); err != nil {
					tl.err = "restart: " + err.Error()
				}
			}()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			s, err := l.Run(ctx)
			close(runDone)
			tl := <-result
			end := countRequests(c, l)
			checkAccounting(t, s)
			if err != nil || s.RowsWritten != rows {
				t.Fatalf("load: %v, %d of %d rows written", err, s.RowsWritten, rows)
			}
			var n int
			if err := session(t, c).Query(`SELECT count(*) FROM ks.nd`).Scan(&n); err != nil || n != rows {
				t.Fatalf("table holds %d rows (%v), want %d", n, err, rows)
			}

			if tl.err != "" {
				t.Fatal(tl.err)
			}

			// Over the whole run, each node took what cqlload charged it,
			// but for the requests charged to node 2 between its stop
			// and the loader's hold (the driver sent those to the next
			// replica), those in flight to it at the stop, and those
			// holding its permits at the hold: at most MaxInFlight
			// each. The window is measured, not assumed: it is the
			// driver's detection plus rerouteCheck (250 ms), which a
			// busy machine stretches (68 requests on a quiet one; with
			// two test suites sharing the cores, node 2 was off by 482
			// in all, past the 400 a fixed tenth allowed). A loader that
			// charged the wrong node all along would be off by more than
			// that; one that kept charging node 2 once it held it down
			// fails the check after this one.
			var total int64
			for _, k := range end.sim {
				total += k
			}
			window := tl.mark.cql[ip] - tl.stop.cql[ip]
			tolerance := window + 2*int64(o.MaxInFlight)
			for host, sim := range end.sim {
				if d := end.cql[host] - sim; d > tolerance || d < -tolerance {
					t.Errorf("node %s took %d requests; cqlload charged it %d (tolerance %d: %d charged to node 2 before the loader held it down, and twice MaxInFlight)", host, sim, end.cql[host], tolerance, window)
				}
			}

			// The stop came mid-load: node 2 coordinated its share
			// before it, and enough was left after the loader held it
			// down for a broken reroute to show.
			if tl.stop.sim[ip] == 0 || tl.leftAtMark < rows/4 {
				t.Fatalf("not a stop mid-load: node 2 took %d requests before it; %d rows left once held down", tl.stop.sim[ip], tl.leftAtMark)
			}

			// Once the loader holds node 2 down, no batch is charged to
			// it until it is started again: only those that already
			// held one of its permits go out, at most MaxInFlight.
			last := end
			if tc.restart {
				last = tl.restart
			}
			if grew := last.cql[ip] - tl.mark.cql[ip]; grew > int64(o.MaxInFlight) {
				t.Errorf("cqlload charged node 2 %d more requests after it held it down (at most %d had its permits then)", grew, o.MaxInFlight)
			}

			// Started again, node 2 takes what the driver sends it once
			// the driver has taken it back (see restart: often not
			// within this load); cqlload charges it the same, but for
			// the requests in flight when it looks (at most MaxInFlight).
			if tc.restart {
				sim, cql := end.sim[ip]-tl.restart.sim[ip], end.cql[ip]-tl.restart.cql[ip]
				if d := cql - sim; d > int64(o.MaxInFlight) || d < -int64(o.MaxInFlight) {
					t.Errorf("after its restart node 2 took %d requests; cqlload charged it %d", sim, cql)
				}
			}
			for host, sim := range end.sim {
				t.Logf("%s: cqlsim %d cqlload %d (diff %d); at stop %d/%d, at mark %d/%d", host, sim, end.cql[host], end.cql[host]-sim, tl.stop.sim[host], tl.stop.cql[host], tl.mark.sim[host], tl.mark.cql[host])
			}
			t.Logf("node 2 at mark: inflight %d, grew %d after", tl.mark.inFlight[ip], last.cql[ip]-tl.mark.cql[ip])
			t.Logf("total %d requests, %d retries, %.2fs, left at mark %d", total, s.Retries, s.ElapsedS, tl.leftAtMark)
		})
	}
}
