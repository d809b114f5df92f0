package chaos

import (
	"testing"
	"time"

	"github.com/cqlload/cqlload/internal/proctest"
)

// TestOneFrozenReplica: one node of three paused mid-load, every row on
// all three (RF 3, LOCAL_ONE), for longer than the retry window. The
// driver keeps sending to a paused node, whose connections stay open:
// every batch of its token ranges waited on it, then the reader on
// them, so the whole load stalled, and after the window ended as a
// silent cluster (exit 3). Now its batches go to the next replica once
// it has answered nothing for a second, and the load runs through the
// pause: exit 0, every row written, the table holding them all.
func TestOneFrozenReplica(t *testing.T) {
	t.Parallel() // mostly the pause's wait, beside the silent listeners'
	const (
		rows   = 60000
		window = 5 * time.Second
		pause  = 8 * time.Second
	)
	r := newRand(t)
	sim := proctest.StartSim(t, schema(3, "t"), "--nodes", "3")
	ds := writeRows(t, t.TempDir(), "rows.csv", rows, r)
	l := startLoad(t, sim, "t", "--retry-window", window.String(), "--ingest-rate", "5000", ds.path)
	l.awaitRows(t, rows/10)
	control(t, sim, "/nodes/2/pause")
	paused := time.Now()
	resumed := false
	t.Cleanup(func() {
		if !resumed {
			_ = sim.Post("/nodes/2/resume")
		}
	})
	for time.Since(paused) < pause && l.running() {
		time.Sleep(50 * time.Millisecond)
	}
	control(t, sim, "/nodes/2/resume")
	resumed = true
	atResume := nodeBatches(t, sim, 2)
	l.wait(t, loadTimeout)
	s := l.summary(t)
	// Once it answers again (the requests it held, or a probe) it
	// coordinates its ranges again.
	if after := nodeBatches(t, sim, 2); after <= atResume {
		t.Errorf("node 2 coordinated %d batches before it was resumed and %d at the end: it was not taken back", atResume, after)
	}
	t.Logf("node 2 paused %.1f s into the run for %v; exit %d; %v", paused.Sub(l.start).Seconds(), pause, l.exit, s)
	if l.exit != 0 || s.RowsWritten != rows {
		t.Fatalf("exit %d, %d of %d rows written; want the load to run through one frozen replica\n%s", l.exit, s.RowsWritten, rows, l.output())
	}
	got := readTable(t, sim.Session(t), "t")
	compare(t, got, ds.vals, func(int) want { return mustHold })
}

// nodeBatches is how many batch requests node n (from 1) coordinated.
func nodeBatches(t *testing.T, sim *proctest.Sim, n int) int64 {
	t.Helper()
	st, err := sim.ReadStats()
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, k := range st.Nodes[n-1].Batches {
		sum += k
	}
	return sum
}
