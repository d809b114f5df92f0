//go:build check

package chaos

import (
	"fmt"
	"testing"
	"time"

	"github.com/cqlload/cqlload/internal/proctest"
)

// TestTransientFaults: faults that last a few seconds cost no row with
// the default options (a 60 s retry window): a node stopped for 3 s at
// RF 1, so that no other replica can take its rows meanwhile; a node paused
// for 5 s (its requests wait, and are answered when it resumes); and 5%
// of the writes on every node answered with a write timeout after being
// applied, which the loader retries since inserts are idempotent.
func TestTransientFaults(t *testing.T) {
	const rows = 150000
	cases := []struct {
		name string
		rf   int
		// on and off are the control requests that start and end the
		// fault, given a node drawn at random.
		on, off func(node int) []string
		// The fault starts once a share of the rows drawn from at is
		// stored (at zero: before the load) and lasts hold (zero: until
		// the load ends).
		at   [2]float64
		hold time.Duration
		// check, if set, looks further at the run.
		check func(t *testing.T, l *load, s summary)
	}{
		{
			name: "node stopped 3s at RF 1",
			rf:   1,
			on:   func(n int) []string { return []string{fmt.Sprintf("/nodes/%d/stop", n)} },
			off:  func(n int) []string { return []string{fmt.Sprintf("/nodes/%d/start", n)} },
			hold: 3 * time.Second,
			at:   [2]float64{0.1, 0.5},
		},
		{
			// The bound: a restart of up to 10 s at RF 1 costs
			// no row with the default options (a 60 s retry window).
			name: "node stopped 10s at RF 1",
			rf:   1,
			on:   func(n int) []string { return []string{fmt.Sprintf("/nodes/%d/stop", n)} },
			off:  func(n int) []string { return []string{fmt.Sprintf("/nodes/%d/start", n)} },
			hold: 10 * time.Second,
			at:   [2]float64{0.1, 0.3},
		},
		{
			name: "node paused 5s",
			rf:   1,
			on:   func(n int) []string { return []string{fmt.Sprintf("/nodes/%d/pause", n)} },
			off:  func(n int) []string { return []string{fmt.Sprintf("/nodes/%d/resume", n)} },
			hold: 5 * time.Second,
			at:   [2]float64{0.1, 0.5},
		},
		{
			name: "5% write_timeout on every node",
			rf:   3,
			on:   func(int) []string { return nodes(3, "faults?rate=0.05&kind=write_timeout") },
			off:  func(int) []string { return nodes(3, "faults") },
			check: func(t *testing.T, l *load, s summary) {
				timeouts := l.clusterErrors(t)["write_timeout"]
				if timeouts == 0 || s.Retries < timeouts {
					t.Errorf("cqlsim answered %d write timeouts, and cqlload retried %d times: want some, each retried", timeouts, s.Retries)
				}
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRand(t)
			sim := proctest.StartSim(t, schema(c.rf, "t"), "--nodes", "3")
			ds := writeRows(t, t.TempDir(), "rows.csv", rows, r)
			node := 1 + r.IntN(3)
			at := int64((c.at[0] + (c.at[1]-c.at[0])*r.Float64()) * rows)
			if c.at[1] == 0 {
				control(t, sim, c.on(node)...)
			}
			l := startLoad(t, sim, "t", "--ingest-rate", "40000", ds.path)
			var onAt, offAt time.Duration
			if c.at[1] > 0 {
				l.awaitRows(t, at)
				control(t, sim, c.on(node)...)
				onAt = time.Since(l.start)
			}
			if c.hold > 0 {
				time.Sleep(c.hold)
				control(t, sim, c.off(node)...)
				offAt = time.Since(l.start)
			}
			l.wait(t, loadTimeout)
			if c.hold == 0 {
				control(t, sim, c.off(node)...)
			}
			s := l.summary(t)
			when := "for the whole run"
			if c.at[1] > 0 {
				when = fmt.Sprintf("on node %d from %.2f s (%d rows stored) to %.2f s", node, onAt.Seconds(), at, offAt.Seconds())
			}
			t.Logf("fault %s; the run took %.2f s; %v; cqlsim errors %v", when, l.end.Sub(l.start).Seconds(), s, l.clusterErrors(t))
			if l.exit != 0 || s.rejected() != 0 || s.RowsUnknown != 0 || s.RowsNotSent != 0 || s.RowsRead != rows || s.RowsWritten != rows {
				t.Errorf("want exit 0 with all %d rows written, 0 rejected, 0 unknown; got exit %d, %v\n%s", rows, l.exit, s, l.output())
			}
			if c.check != nil {
				c.check(t, l, s)
			}
			compare(t, readTable(t, sim.Session(t), "t"), ds.vals, all)
		})
	}
}

// nodes returns the control path of every node with suffix.
func nodes(n int, suffix string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("/nodes/%d/%s", i+1, suffix)
	}
	return out
}
