package chaos

import (
	"fmt"
	"testing"
	"time"

	"github.com/cqlload/cqlload/internal/proctest"
)

// TestNodeStoppedRF3: a node stopped mid-load at RF 3 and LOCAL_ONE costs
// nothing: the batches it held are sent again to the other replicas.
// Repetitions (3 of 30,000 rows in make test, 10 of 100,000 in make
// check), each into a fresh table, stop a node (drawn) after a share of
// the rows (drawn in its part of the load), and start it again once the
// load is over.
func TestNodeStoppedRF3(t *testing.T) {
	const rate = 40000
	reps, rows := 3, 30000
	if full {
		reps, rows = 10, 100000
	}
	r := newRand(t)
	tables := make([]string, reps)
	for i := range tables {
		tables[i] = fmt.Sprintf("t%d", i)
	}
	sim := proctest.StartSim(t, schema(3, tables...), "--nodes", "3")
	ds := writeRows(t, t.TempDir(), "rows.csv", rows, r)
	type rep struct {
		table string
		node  int
		at    int64 // rows stored before the stop
	}
	var plan []rep
	for i := range reps {
		// Between 5% and 95% of the load, one part of that span each.
		lo := 0.05 + 0.9*float64(i)/float64(reps)
		frac := lo + 0.9/float64(reps)*r.Float64()
		plan = append(plan, rep{table: tables[i], node: 1 + r.IntN(3), at: int64(frac * float64(rows))})
	}
	for _, p := range plan {
		t.Run(fmt.Sprintf("%s node %d after %d rows", p.table, p.node, p.at), func(t *testing.T) {
			l := startLoad(t, sim, p.table, "--consistency", "LOCAL_ONE", "--ingest-rate", fmt.Sprint(rate), ds.path)
			l.awaitRows(t, p.at)
			control(t, sim, fmt.Sprintf("/nodes/%d/stop", p.node))
			stoppedAt := time.Since(l.start)
			l.wait(t, loadTimeout)
			control(t, sim, fmt.Sprintf("/nodes/%d/start", p.node))
			s := l.summary(t)
			t.Logf("node %d stopped %.2f s into the run; %v; cqlsim errors %v", p.node, stoppedAt.Seconds(), s, l.clusterErrors(t))
			if l.exit != 0 || s.rejected() != 0 || s.RowsUnknown != 0 || s.RowsNotSent != 0 || s.RowsRead != int64(rows) || s.RowsWritten != int64(rows) {
				t.Errorf("want exit 0 with all %d rows written, 0 rejected, 0 unknown; got exit %d, %v\n%s", rows, l.exit, s, l.output())
			}
			// A session of its own: one kept across the repetitions' stops
			// and starts was seen to end up with no host it would use.
			compare(t, readTable(t, sim.Session(t), p.table), ds.vals, all)
		})
	}
}
