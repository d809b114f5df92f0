package cqlsim

import (
	"errors"
	"net"
	"os"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
)

// quiet is how long a test waits to conclude that no answer is coming.
const quiet = 300 * time.Millisecond

// expectSilence fails if anything arrives on c within quiet.
func (c *rawClient) expectSilence(what string) {
	c.t.Helper()
	_ = c.nc.SetReadDeadline(time.Now().Add(quiet))
	b, err := c.br.Peek(1)
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		c.t.Fatalf("%s: got %d bytes (%v), want no answer from a paused node", what, len(b), err)
	}
	_ = c.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
}

func (c *rawClient) startup() {
	c.t.Helper()
	c.send(primitive.ProtocolVersion4, 0, message.NewStartup())
	if f := c.recv(); f.Body.Message.GetOpCode() != primitive.OpCodeReady {
		c.t.Fatalf("STARTUP answered %v", f.Body.Message)
	}
}

func query(q string) *message.Query {
	return &message.Query{Query: q, Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}}
}

func rowKeys(t *testing.T, cl *Cluster, q string) []string {
	t.Helper()
	rows, err := cl.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	var ks []string
	for _, r := range rows {
		ks = append(ks, r["k"])
	}
	return ks
}

// TestPauseWithGocql: a write sent to a paused node gets no answer and is
// not applied until Resume; then it is, and the driver gets its answer.
func TestPauseWithGocql(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 1})
	s := connect(t, cl, nil)
	mustExec(t, s, ks1, "CREATE TABLE ks.p (k int PRIMARY KEY, v int)")
	n := cl.Node(0)
	if err := n.Pause(); err != nil {
		t.Fatal(err)
	}
	if !n.Paused() || !cl.Stats().Nodes[0].Paused || !cl.Stats().Nodes[0].Up {
		t.Fatalf("paused %v, stats %+v: want paused and up", n.Paused(), cl.Stats().Nodes[0])
	}
	before := cl.Stats().Nodes[0]
	done := make(chan error, 1)
	go func() { done <- s.Query("INSERT INTO ks.p (k, v) VALUES (1, 1)").Exec() }()
	select {
	case err := <-done:
		t.Fatalf("a paused node answered: %v", err)
	case <-time.After(quiet):
	}
	if ks := rowKeys(t, cl, "SELECT k FROM ks.p"); len(ks) != 0 {
		t.Fatalf("rows %v stored while the node was paused", ks)
	}
	if got := cl.Stats().Nodes[0]; got.RowsWritten != before.RowsWritten || got.Requests["EXECUTE"] != before.Requests["EXECUTE"] {
		t.Errorf("paused node counted rows %d→%d, executes %d→%d", before.RowsWritten, got.RowsWritten, before.Requests["EXECUTE"], got.Requests["EXECUTE"])
	}
	n.Resume()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("write after resume: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no answer 5s after resume")
	}
	if ks := rowKeys(t, cl, "SELECT k FROM ks.p"); len(ks) != 1 || ks[0] != "1" {
		t.Errorf("rows %v after resume, want k = 1", ks)
	}
	if n.Paused() || cl.Stats().Nodes[0].Paused {
		t.Error("still paused after Resume")
	}
}

// TestPauseQueuesInOrder: what a paused node received, on open connections
// and new ones alike (OPTIONS and STARTUP included), is answered at Resume
// in order, having been executed then and not before.
func TestPauseQueuesInOrder(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 1})
	if err := cl.Exec(ks1 + "; CREATE TABLE ks.q (k int PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	old := dialRaw(t, cl)
	old.startup()
	n := cl.Node(0)
	if err := n.Pause(); err != nil {
		t.Fatal(err)
	}
	old.send(primitive.ProtocolVersion4, 1, query("INSERT INTO ks.q (k) VALUES (7)"))
	old.send(primitive.ProtocolVersion4, 2, query("SELECT k FROM ks.q"))
	old.send(primitive.ProtocolVersion4, 3, &message.Options{}) // a heartbeat
	fresh := dialRaw(t, cl)                                     // the kernel accepts it
	fresh.send(primitive.ProtocolVersion4, 5, &message.Options{})
	fresh.send(primitive.ProtocolVersion4, 6, message.NewStartup())
	old.expectSilence("queries on an open connection")
	fresh.expectSilence("OPTIONS on a new connection")
	if ks := rowKeys(t, cl, "SELECT k FROM ks.q"); len(ks) != 0 {
		t.Fatalf("rows %v stored while paused", ks)
	}
	n.Resume()
	for _, want := range []int16{1, 2, 3} {
		f := old.recv()
		if f.Header.StreamId != want {
			t.Fatalf("stream %d answered, want %d next", f.Header.StreamId, want)
		}
		if want == 2 {
			rr, ok := f.Body.Message.(*message.RowsResult)
			if !ok || len(rr.Data) != 1 {
				t.Errorf("SELECT after the queued INSERT: %v, want its row", f.Body.Message)
			}
		}
	}
	if f := fresh.recv(); f.Header.StreamId != 5 || f.Body.Message.GetOpCode() != primitive.OpCodeSupported {
		t.Errorf("queued OPTIONS answered %v on stream %d", f.Body.Message, f.Header.StreamId)
	}
	if f := fresh.recv(); f.Header.StreamId != 6 || f.Body.Message.GetOpCode() != primitive.OpCodeReady {
		t.Errorf("queued STARTUP answered %v on stream %d", f.Body.Message, f.Header.StreamId)
	}
}

// TestStopEndsPause: a paused node that is killed never executes what it
// had queued; it comes back unpaused with its data.
func TestStopEndsPause(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 1})
	if err := cl.Exec(ks1 + "; CREATE TABLE ks.q (k int PRIMARY KEY); INSERT INTO ks.q (k) VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	c := dialRaw(t, cl)
	c.startup()
	n := cl.Node(0)
	if err := n.Pause(); err != nil {
		t.Fatal(err)
	}
	c.send(primitive.ProtocolVersion4, 1, query("INSERT INTO ks.q (k) VALUES (2)"))
	c.expectSilence("INSERT")
	n.Stop()
	if n.Paused() {
		t.Error("a stopped node reports paused")
	}
	if err := n.Pause(); err == nil {
		t.Error("Pause of a stopped node succeeded")
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // time for a wrongly released reader to execute
	if ks := rowKeys(t, cl, "SELECT k FROM ks.q"); len(ks) != 1 || ks[0] != "1" {
		t.Errorf("rows %v after stop and start, want only k = 1 (the queued insert dropped)", ks)
	}
	c2 := dialRaw(t, cl)
	c2.startup() // answered: not paused any more
	n.Resume()   // a no-op on a node that is not paused
}

// TestPauseHoldsEventsAndDelayedAnswers: a paused node pushes no events
// and writes no answer that fell due during the pause; Resume sends both.
func TestPauseHoldsEventsAndDelayedAnswers(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 2})
	c := dialRaw(t, cl)
	c.startup()
	c.send(primitive.ProtocolVersion4, 1, &message.Register{EventTypes: []primitive.EventType{primitive.EventTypeStatusChange}})
	c.recv()
	n := cl.Node(0)
	if err := n.SetFault(Fault{LatencyMin: 100 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	c.send(primitive.ProtocolVersion4, 2, &message.Options{})
	time.Sleep(20 * time.Millisecond) // answered, waiting out its latency
	if err := n.Pause(); err != nil {
		t.Fatal(err)
	}
	cl.Node(1).Stop()
	c.expectSilence("a delayed answer and a DOWN event")
	n.Resume()
	var gotOptions, gotDown bool
	for i := 0; i < 2; i++ {
		f := c.recv()
		switch m := f.Body.Message.(type) {
		case *message.Supported:
			gotOptions = f.Header.StreamId == 2
		case *message.StatusChangeEvent:
			gotDown = m.ChangeType == primitive.StatusChangeTypeDown && m.Address.Addr.Equal(net.IPv4(127, 0, 0, 2))
		}
	}
	if !gotOptions || !gotDown {
		t.Errorf("after resume: OPTIONS answered %v, DOWN for 127.0.0.2 %v; want both", gotOptions, gotDown)
	}
}

// TestPausedNodeIsUpForConsistency: the other nodes do not take a paused
// node for down, and Stats tell which node is paused.
func TestPausedNodeIsUpForConsistency(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 2})
	if err := cl.Exec("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 2}; CREATE TABLE ks.c (k int PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	if err := cl.Node(1).Pause(); err != nil {
		t.Fatal(err)
	}
	defer cl.Node(1).Resume()
	// Node 1 coordinates; the paused replica counts as alive, as it does
	// for a Cassandra coordinator until the failure detector convicts it.
	c := dialRaw(t, cl)
	c.startup()
	q := query("INSERT INTO ks.c (k) VALUES (1)")
	q.Options.Consistency = primitive.ConsistencyLevelAll
	c.send(primitive.ProtocolVersion4, 1, q)
	if f := c.recv(); f.Body.Message.GetOpCode() != primitive.OpCodeResult {
		t.Errorf("ALL with a paused replica: %v", f.Body.Message)
	}
	st := cl.Stats()
	if st.Nodes[0].Paused || !st.Nodes[1].Paused || !st.Nodes[1].Up {
		t.Errorf("paused flags %v %v, up %v", st.Nodes[0].Paused, st.Nodes[1].Paused, st.Nodes[1].Up)
	}
}

// TestCloseWhilePaused: Close ends the goroutines of a paused node too,
// those waiting with a request read included.
func TestCloseWhilePaused(t *testing.T) {
	cl, err := Start(t.Context(), Config{Nodes: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	c := dialRaw(t, cl)
	c.startup()
	if err := cl.Node(0).Pause(); err != nil {
		t.Fatal(err)
	}
	c.send(primitive.ProtocolVersion4, 1, &message.Options{})
	dialRaw(t, cl)                    // a connection held before it even sent STARTUP
	time.Sleep(20 * time.Millisecond) // the frame is read and held
	closed := make(chan struct{})
	go func() {
		cl.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close of a cluster with a paused node did not return")
	}
	if _, err := c.br.ReadByte(); err == nil {
		t.Error("a closed paused node answered")
	}
}
