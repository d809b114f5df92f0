//go:build check

package chaos

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cqlload/cqlload/internal/proctest"
)

// TestSilentCluster: every node paused mid-load (a frozen cluster: requests
// time out) or stopped (a vanished one: connections refused at once).
// With --retry-window 5s and --request-timeout 2s, cqlload gives up within
// the window and a few seconds of the silence, with exit status 3 and a
// message naming the cause, and a summary whose elapsed time is the
// run's. No row is an insert error: the rows were not at fault, and they
// settle as not sent or unknown, for a resumed run to send. Once the nodes
// are back, paused ones execute what had queued, so the table may then
// hold rows cqlload could not confirm; but never a row it reported as
// failed or not sent, and never more rows than written plus unknown.
func TestSilentCluster(t *testing.T) {
	all := []int{1, 2, 3}
	for _, c := range []silentCase{
		{name: "frozen", silence: "pause", restore: "resume", nodes: all, rf: 3, cause: "no node answered for"},
		{name: "vanished", silence: "stop", restore: "start", nodes: all, rf: 3, cause: "no node answered for"},
		// Node 1 answers every write, with Unavailable: QUORUM of three
		// replicas cannot be had with one. Not the rows' fault either.
		{name: "unavailable", silence: "stop", restore: "start", nodes: []int{2, 3}, rf: 3,
			args: []string{"--consistency", "QUORUM"}, cause: "no write succeeded (the nodes answered only with errors) for"},
	} {
		t.Run(c.name, func(t *testing.T) { silentCluster(t, c) })
	}
}

// silentCase silences nodes (numbered from 1) with a control request
// and restores them with another.
type silentCase struct {
	name, silence, restore string
	nodes                  []int
	rf                     int
	args                   []string
	cause                  string // in the message and the summary
}

func (c silentCase) paths(suffix string) []string {
	out := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		out[i] = fmt.Sprintf("/nodes/%d/%s", n, suffix)
	}
	return out
}

func silentCluster(t *testing.T, c silentCase) {
	const (
		rows   = 100000
		window = 5 * time.Second
		slack  = 5 * time.Second
	)
	r := newRand(t)
	sim := proctest.StartSim(t, schema(c.rf, "t"), "--nodes", "3")
	ds := writeRows(t, t.TempDir(), "rows.csv", rows, r)
	at := int64((0.2 + 0.4*r.Float64()) * rows)
	args := append([]string{"--retry-window", window.String(), "--request-timeout", "2s", "--ingest-rate", "20000"}, c.args...)
	l := startLoad(t, sim, "t", append(args, ds.path)...)
	l.awaitRows(t, at)
	control(t, sim, c.paths(c.silence)...)
	silenced := time.Now()
	restored := false
	t.Cleanup(func() {
		if !restored {
			for _, p := range c.paths(c.restore) {
				_ = sim.Post(p)
			}
		}
	})
	l.wait(t, loadTimeout)
	took := l.end.Sub(silenced)
	wall := l.end.Sub(l.start)
	s := l.summary(t)
	t.Logf("%s nodes %v %.2f s into the run, after %d rows; cqlload exited %d %.2f s later; wall time %.2f s, elapsed_s %.2f; %v",
		c.silence, c.nodes, silenced.Sub(l.start).Seconds(), at, l.exit, took.Seconds(), wall.Seconds(), s.ElapsedS, s)
	if l.exit != 3 || took > window+slack {
		t.Errorf("want exit status 3 within %s of the silence; got %d after %.2f s\n%s", window+slack, l.exit, took.Seconds(), l.output())
	}
	if !strings.Contains(l.stderr.String(), c.cause) || !strings.Contains(s.Aborted, c.cause) {
		t.Errorf("want the cause (%q) on standard error and in the summary's aborted, got aborted %q\n%s", c.cause, s.Aborted, l.output())
	}
	if s.RowsFailedInsert != 0 {
		t.Errorf("%d rows are insert errors; a silent cluster is not their fault: want them not sent or unknown\n%s", s.RowsFailedInsert, l.output())
	}
	if d := s.ElapsedS - wall.Seconds(); d > 1 || d < -1 {
		t.Errorf("elapsed_s %.2f, but the run took %.2f s", s.ElapsedS, wall.Seconds())
	}

	control(t, sim, c.paths(c.restore)...)
	restored = true
	stored := awaitQuiet(t, sim)
	byLine, counts := outcomes(t, l.errFile+".log")
	checkLogCounts(t, s, counts)
	got := readTable(t, sim.Session(t), "t")
	t.Logf("after the nodes came back and went quiet (%d rows stored in all), the table holds %d rows; error log %v", stored, len(got), counts)
	if int64(len(got)) > s.RowsWritten+s.RowsUnknown {
		t.Errorf("the table holds %d rows, more than rows_written + rows_unknown = %d", len(got), s.RowsWritten+s.RowsUnknown)
	}
	compare(t, got, ds.vals, func(i int) want {
		if int64(i) >= s.RowsRead {
			return mustNotHold // never read
		}
		switch byLine[int64(i)+1] {
		case "":
			return mustHold // written: acknowledged by the cluster
		case "unknown":
			return mayHold
		}
		return mustNotHold // insert error, not sent
	})
}

// awaitQuiet waits until no node is paused and cqlsim's stored rows have
// not moved for a second, and returns that count.
func awaitQuiet(t *testing.T, sim *proctest.Sim) int64 {
	t.Helper()
	last, since := int64(-1), time.Now()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		st, err := sim.ReadStats()
		if err != nil {
			t.Fatal(err)
		}
		paused := false
		for _, n := range st.Nodes {
			paused = paused || n.Paused
		}
		n := st.Total().RowsWritten
		if paused || n != last {
			last, since = n, time.Now()
			continue
		}
		if time.Since(since) >= time.Second {
			return n
		}
	}
	t.Fatal("cqlsim did not go quiet within a minute")
	return 0
}
