package cqlsim

import (
	"container/heap"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cqlload/cqlload/internal/murmur3"
	"github.com/gocql/gocql"
	"github.com/gocql/gocql/events"
)

func TestAuth(t *testing.T) {
	tests := []struct {
		name       string
		cfgUser    string
		user, pass string
		wantErr    bool
	}{
		{"auth off, no credentials", "", "", "", false},
		{"auth on, right password", "cassandra", "cassandra", "secret", false},
		{"auth on, wrong password", "cassandra", "cassandra", "nope", true},
		{"auth on, no credentials", "cassandra", "", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{Nodes: 1}
			if tc.cfgUser != "" {
				cfg.Username, cfg.Password = tc.cfgUser, "secret"
			}
			cl := startCluster(t, cfg)
			cc := gocql.NewCluster(cl.Hosts()...)
			cc.Port = cl.Port()
			cc.Timeout = 5 * time.Second
			cc.ReconnectionPolicy = &gocql.ConstantReconnectionPolicy{MaxRetries: 1, Interval: time.Millisecond}
			if tc.user != "" {
				cc.Authenticator = gocql.PasswordAuthenticator{Username: tc.user, Password: tc.pass}
			}
			s, err := cc.CreateSession()
			if tc.wantErr {
				if err == nil {
					s.Close()
					t.Fatal("session created, want an authentication failure")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var v string
			if err := s.Query("SELECT release_version FROM system.local").Scan(&v); err != nil || v != releaseVersion {
				t.Errorf("release_version %q, %v", v, err)
			}
		})
	}
}

func TestInjectedErrors(t *testing.T) {
	tests := []struct {
		kind string
		code int
	}{
		{"overloaded", gocql.ErrCodeOverloaded},
		{"write_timeout", gocql.ErrCodeWriteTimeout},
		{"read_timeout", gocql.ErrCodeReadTimeout},
		{"unavailable", gocql.ErrCodeUnavailable},
		{"server_error", gocql.ErrCodeServer},
	}
	cl := startCluster(t, Config{Nodes: 1, Seed: 3})
	s := connect(t, cl, func(cc *gocql.ClusterConfig) { cc.RetryPolicy = &gocql.SimpleRetryPolicy{NumRetries: 0} })
	mustExec(t, s, ks1, "CREATE TABLE ks.f (k int PRIMARY KEY, v int)")
	for _, tc := range tests {
		t.Run(tc.kind, func(t *testing.T) {
			if err := cl.Node(0).SetFault(Fault{Rate: 1, Kind: tc.kind}); err != nil {
				t.Fatal(err)
			}
			before := cl.Stats().Total().InjectedErrors
			err := s.Query("INSERT INTO ks.f (k, v) VALUES (1, 1)").Exec()
			if codeOf(err) != tc.code {
				t.Fatalf("got %v (code %#x), want code %#x", err, codeOf(err), tc.code)
			}
			// System tables stay reachable so the driver's control connection survives.
			var v string
			if err := s.Query("SELECT release_version FROM system.local").Scan(&v); err != nil {
				t.Errorf("system.local under faults: %v", err)
			}
			if got := cl.Stats().Total().InjectedErrors - before; got != 1 {
				t.Errorf("injected errors +%d, want +1", got)
			}
		})
	}
	if err := cl.Node(0).SetFault(Fault{Rate: 0.5, Kind: "overloaded"}); err != nil {
		t.Fatal(err)
	}
	failed := 0
	for i := 0; i < 200; i++ {
		if s.Query("INSERT INTO ks.f (k, v) VALUES (?, 1)", i).Exec() != nil {
			failed++
		}
	}
	if failed < 50 || failed > 150 {
		t.Errorf("rate 0.5 failed %d of 200", failed)
	}
	if err := cl.Node(0).SetFault(Fault{Rate: 1, Kind: "bogus"}); err == nil {
		t.Error("unknown fault kind accepted")
	}
	// FailNext fails exactly that many requests, then none.
	if err := cl.Node(0).SetFault(Fault{FailNext: 3, Kind: "write_timeout"}); err != nil {
		t.Fatal(err)
	}
	var codes []int
	for i := 0; i < 5; i++ {
		codes = append(codes, codeOf(s.Query("INSERT INTO ks.f (k, v) VALUES (?, 1)", i).Exec()))
	}
	wt := gocql.ErrCodeWriteTimeout
	if want := []int{wt, wt, wt, -1, -1}; fmt.Sprint(codes) != fmt.Sprint(want) {
		t.Errorf("codes %v, want %v", codes, want)
	}
}

func TestLatency(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 1, LatencyMin: 30 * time.Millisecond})
	s := connect(t, cl, nil)
	mustExec(t, s, ks1, "CREATE TABLE ks.l (k int PRIMARY KEY)")
	start := time.Now()
	mustExec(t, s, "INSERT INTO ks.l (k) VALUES (1)")
	// Only a lower bound: the injected delay must be there.
	if d := time.Since(start); d < 30*time.Millisecond {
		t.Errorf("request took %v, want at least the 30ms injected", d)
	}
}

func TestLatencyRange(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 1})
	s := connect(t, cl, nil)
	mustExec(t, s, ks1, "CREATE TABLE ks.lr (k int PRIMARY KEY)")
	if err := cl.Node(0).SetFault(Fault{LatencyMin: time.Millisecond, LatencyMax: 40 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	// Concurrent requests share connections and their delay queues; every
	// one must come back, none sooner than the minimum.
	const n = 64
	durs := make(chan time.Duration, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			start := time.Now()
			if err := s.Query("INSERT INTO ks.lr (k) VALUES (?)", i).Exec(); err != nil {
				t.Error(err)
			}
			durs <- time.Since(start)
		}(i)
	}
	wg.Wait()
	close(durs)
	fastest := time.Hour
	for d := range durs {
		fastest = min(fastest, d)
	}
	if fastest < time.Millisecond {
		t.Errorf("fastest answer took %v, below the 1ms minimum latency", fastest)
	}
}

func TestDelayHeapOrdersByDueTime(t *testing.T) {
	base := time.Unix(1000, 0)
	var h delayHeap
	for _, ms := range []int{30, 5, 20, 1, 10} {
		heap.Push(&h, delayed{due: base.Add(time.Duration(ms) * time.Millisecond), buf: []byte{byte(ms)}})
	}
	var got []byte
	for h.Len() > 0 {
		got = append(got, heap.Pop(&h).(delayed).buf[0])
	}
	if string(got) != string([]byte{1, 5, 10, 20, 30}) {
		t.Errorf("popped %v, want due order 1 5 10 20 30", got)
	}
}

func TestStoppedNode(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 3})
	s := connect(t, cl, func(cc *gocql.ClusterConfig) {
		cc.ReconnectInterval = 50 * time.Millisecond
	})
	mustExec(t, s, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}",
		"CREATE TABLE ks.s (k int PRIMARY KEY, v int)")
	n := cl.Node(1)
	n.Stop()
	if n.Running() {
		t.Fatal("node still running after Stop")
	}
	if c, err := net.DialTimeout("tcp", n.Addr(), time.Second); err == nil {
		c.Close()
		t.Fatalf("stopped node %s accepted a connection", n.Addr())
	}
	// Give the driver the moment it needs to see the closed connections.
	for i := 0; i < 100 && hostUp(s, "127.0.0.2"); i++ {
		time.Sleep(20 * time.Millisecond)
	}
	before := cl.Stats().Nodes[1].RowsWritten
	for i := 0; i < 100; i++ {
		if err := s.Query("INSERT INTO ks.s (k, v) VALUES (?, ?)", i, i).Exec(); err != nil {
			t.Fatalf("write %d with a node down: %v", i, err)
		}
	}
	if got := cl.Stats().Nodes[1].RowsWritten; got != before {
		t.Errorf("stopped node coordinated %d writes", got-before)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	c, err := net.DialTimeout("tcp", n.Addr(), time.Second)
	if err != nil {
		t.Fatalf("restarted node refuses connections: %v", err)
	}
	c.Close()
	var count int64
	if err := s.Query("SELECT count(*) FROM ks.s").Scan(&count); err != nil || count != 100 {
		t.Errorf("count after restart %d, %v", count, err)
	}
}

func hostUp(s *gocql.Session, addr string) bool {
	for _, h := range s.GetHosts() {
		if h.ConnectAddress().String() == addr {
			return h.IsUp()
		}
	}
	return false
}

func TestDropConnections(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 1})
	s := connect(t, cl, func(cc *gocql.ClusterConfig) { cc.ReconnectInterval = 20 * time.Millisecond })
	mustExec(t, s, ks1, "CREATE TABLE ks.d (k int PRIMARY KEY)")
	conns := cl.Stats().Nodes[0].Connections
	cl.Node(0).DropConnections()
	var err error
	for i := 0; i < 100; i++ {
		if err = s.Query("INSERT INTO ks.d (k) VALUES (1)").Exec(); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("driver did not recover from dropped connections: %v", err)
	}
	if got := cl.Stats().Nodes[0].Connections; got <= conns {
		t.Errorf("connections %d after drop, want more than %d (the driver reconnects)", got, conns)
	}
}

func TestTokenAwareRoutingLandsOnReplicas(t *testing.T) {
	cl := startCluster(t, Config{DCs: "dc1:3", Seed: 11})
	s := connect(t, cl, func(cc *gocql.ClusterConfig) {
		cc.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy())
	})
	mustExec(t, s, "CREATE KEYSPACE ks WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 1}",
		"CREATE TABLE ks.r (a int, b text, c int, v int, PRIMARY KEY ((a, b), c))")
	// Let the driver pick up the keyspace's replication before writing.
	if _, err := s.KeyspaceMetadata("ks"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 300; i++ {
		if err := s.Query("INSERT INTO ks.r (a, b, c, v) VALUES (?, ?, ?, ?)", i, "x", 1, i).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	tot := cl.Stats().Total()
	if tot.RowsWritten != 300 {
		t.Fatalf("rows written %d", tot.RowsWritten)
	}
	if tot.RowsWrittenAsReplica < 295 {
		t.Errorf("only %d of 300 rows landed on a replica", tot.RowsWrittenAsReplica)
	}
	busy := 0
	for _, n := range cl.Stats().Nodes {
		if n.RowsWritten > 0 {
			busy++
		}
	}
	if busy != 3 {
		t.Errorf("writes went to %d nodes, want all 3", busy)
	}
}

func TestSchemaMetadata(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 2})
	s := connect(t, cl, nil)
	mustExec(t, s, "CREATE KEYSPACE IF NOT EXISTS ks WITH replication = {'class': 'NetworkTopologyStrategy', 'datacenter1': 2}",
		"CREATE KEYSPACE IF NOT EXISTS ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TYPE ks.point (x double, y double)",
		`CREATE TABLE ks.m (p1 int, p2 text, c1 timestamp, c2 uuid, st text static, v frozen<point>,
		  l list<frozen<map<text, int>>>, PRIMARY KEY ((p1, p2), c1, c2)) WITH CLUSTERING ORDER BY (c1 DESC, c2 ASC)
		  AND comment = 'hello' AND default_time_to_live = 60`)
	km, err := s.KeyspaceMetadata("ks")
	if err != nil {
		t.Fatal(err)
	}
	if km.StrategyClass != classNTS || km.StrategyOptions["datacenter1"] != "2" {
		t.Errorf("strategy %s %v", km.StrategyClass, km.StrategyOptions)
	}
	tm := km.Tables["m"]
	if tm == nil {
		t.Fatalf("table m missing: %v", km.Tables)
	}
	var pk, ck []string
	for _, c := range tm.PartitionKey {
		pk = append(pk, c.Name)
	}
	for _, c := range tm.ClusteringColumns {
		ck = append(ck, c.Name+":"+c.ClusteringOrder)
	}
	if strings.Join(pk, ",") != "p1,p2" || strings.Join(ck, ",") != "c1:desc,c2:asc" {
		t.Errorf("keys %v %v", pk, ck)
	}
	wantTypes := map[string]string{"st": "text", "v": "frozen<point>", "l": "list<frozen<map<text, int>>>"}
	for name, typ := range wantTypes {
		c := tm.Columns[name]
		if c == nil || c.Type != typ {
			t.Errorf("column %s: %+v, want type %s", name, c, typ)
		}
	}
	if tm.Columns["st"].Kind != gocql.ColumnStatic {
		t.Errorf("st kind %v", tm.Columns["st"].Kind)
	}
	if tm.Options.Comment != "hello" || tm.Options.DefaultTimeToLive != 60 {
		t.Errorf("options %+v", tm.Options)
	}
	if ut := km.Types["point"]; ut == nil || strings.Join(ut.FieldNames, ",") != "x,y" {
		t.Errorf("type point: %+v", km.Types["point"])
	}
	// Dropping and recreating makes the prepared statements re-prepare.
	mustExec(t, s, "INSERT INTO ks.m (p1, p2, c1, c2) VALUES (1, 'a', '2024-01-01', uuid())")
	mustExec(t, s, "DROP TABLE ks.m", "CREATE TABLE ks.m (p1 int, p2 text, c1 timestamp, c2 uuid, PRIMARY KEY ((p1, p2), c1, c2))")
	if err := s.Query("INSERT INTO ks.m (p1, p2, c1, c2) VALUES (?, ?, ?, ?)", 1, "a", time.Now(), gocql.TimeUUID()).Exec(); err != nil {
		t.Errorf("insert after recreate: %v", err)
	}
	err = s.Query("CREATE TABLE ks.m (k int PRIMARY KEY)").Exec()
	var ae *gocql.RequestErrAlreadyExists
	if !errors.As(err, &ae) || ae.Table != "m" {
		t.Errorf("re-create: %v, want AlreadyExists for m", err)
	}
	if err := s.Query("SELECT * FROM ks.nope").Exec(); codeOf(err) != gocql.ErrCodeInvalid {
		t.Errorf("unknown table: %v", err)
	}
	if err := s.Query("SELEKT 1").Exec(); codeOf(err) != gocql.ErrCodeSyntax {
		t.Errorf("syntax error: %v", err)
	}
}

func TestNodeStartAfterClose(t *testing.T) {
	cl, err := Start(context.Background(), Config{Nodes: 2})
	if err != nil {
		t.Fatal(err)
	}
	cl.Node(1).Stop()
	if err := cl.Close(); err != nil {
		t.Fatal(err)
	}
	if err := cl.Node(1).Start(); err == nil {
		t.Error("a node started on a closed cluster")
	}
	if err := cl.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// With Shards set, the scylladb driver sees ScyllaDB sharding, opens a
// connection per shard and sends each row down its shard's connection;
// RowsWrittenOnShard shows it did. Without shard-aware routing about a
// quarter of the rows would land on their shard.
func TestShardAwareRoutingLandsOnShards(t *testing.T) {
	const shards = 4
	cl := startCluster(t, Config{Nodes: 3, Seed: 5, Shards: shards})
	s := connect(t, cl, func(cc *gocql.ClusterConfig) {
		cc.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy())
	})
	mustExec(t, s, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.s (k int PRIMARY KEY, v int)")
	if _, err := s.KeyspaceMetadata("ks"); err != nil {
		t.Fatal(err)
	}
	for _, h := range s.GetHosts() {
		if n := h.ScyllaShardCount(); n != shards {
			t.Fatalf("host %s reports %d shards, want %d", h.ConnectAddress(), n, shards)
		}
	}
	// The driver fills the other shards' connections in the background.
	deadline := time.Now().Add(10 * time.Second)
	for {
		full := true
		for _, n := range cl.Stats().Nodes {
			if n.Connections < shards {
				full = false
			}
		}
		if full {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("connections per node: %+v, want %d each", cl.Stats().Nodes, shards)
		}
		time.Sleep(20 * time.Millisecond)
	}
	const rows = 400
	for i := range rows {
		if err := s.Query("INSERT INTO ks.s (k, v) VALUES (?, ?)", i, i).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	tot := cl.Stats().Total()
	if tot.RowsWritten != rows || tot.RowsWrittenAsReplica != rows {
		t.Fatalf("rows written %d, as replica %d; want %d", tot.RowsWritten, tot.RowsWrittenAsReplica, rows)
	}
	if tot.RowsWrittenOnShard < rows*99/100 {
		t.Errorf("only %d of %d rows arrived on their shard's connection", tot.RowsWrittenOnShard, rows)
	}
}

// Without Shards nothing is counted on a shard and SUPPORTED carries no
// ScyllaDB options, so drivers treat the cluster as Cassandra.
func TestNoShardsByDefault(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 1})
	s := connect(t, cl, nil)
	mustExec(t, s, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.s (k int PRIMARY KEY, v int)",
		"INSERT INTO ks.s (k, v) VALUES (1, 1)")
	for _, h := range s.GetHosts() {
		if h.ScyllaShardCount() != 0 || h.ScyllaFeatures().IsPresent() {
			t.Fatalf("host %s looks like ScyllaDB: %d shards", h.ConnectAddress(), h.ScyllaShardCount())
		}
	}
	if tot := cl.Stats().Total(); tot.RowsWritten != 1 || tot.RowsWrittenOnShard != 0 {
		t.Fatalf("rows written %d, on shard %d; want 1 and 0", tot.RowsWritten, tot.RowsWrittenOnShard)
	}
}

func TestParseLatency(t *testing.T) {
	tests := []struct {
		in     string
		lo, hi time.Duration
		bad    bool
	}{
		{in: "2ms", lo: 2 * time.Millisecond},
		{in: "0", lo: 0},
		{in: "1ms-5ms", lo: time.Millisecond, hi: 5 * time.Millisecond},
		{in: "3ms-3ms", lo: 3 * time.Millisecond, hi: 3 * time.Millisecond},
		{in: "5ms-1ms", bad: true},
		{in: "-1ms", bad: true},
		{in: "", bad: true},
		{in: "fast", bad: true},
		{in: "1ms-", bad: true},
	}
	for _, tc := range tests {
		lo, hi, err := ParseLatency(tc.in)
		if tc.bad {
			if err == nil {
				t.Errorf("ParseLatency(%q) = %v, %v; want an error", tc.in, lo, hi)
			}
			continue
		}
		if err != nil || lo != tc.lo || hi != tc.hi {
			t.Errorf("ParseLatency(%q) = %v, %v, %v; want %v, %v", tc.in, lo, hi, err, tc.lo, tc.hi)
		}
	}
}

// TestWriteTimeoutAppliesTheWrite: a write_timeout is answered after the
// write is applied, so the client sees WriteTimeout and the rows are there
// (store mode) or counted as written (blackhole mode).
func TestWriteTimeoutAppliesTheWrite(t *testing.T) {
	insert := func(s *gocql.Session, k int) error {
		return s.Query("INSERT INTO ks.w (k, v) VALUES (?, ?)", k, k).Exec()
	}
	tests := []struct {
		name      string
		blackhole bool
		// write sends keys from k; rows is how many it writes.
		write     func(s *gocql.Session, k int) error
		rows      int
		writeType string
	}{
		{"execute", false, insert, 1, "SIMPLE"},
		{"execute, blackhole", true, insert, 1, "SIMPLE"},
		{"batch", false, func(s *gocql.Session, k int) error {
			b := s.Batch(gocql.UnloggedBatch)
			for i := 0; i < 3; i++ {
				b.Query("INSERT INTO ks.w (k, v) VALUES (?, ?)", k+i, k+i)
			}
			return s.ExecuteBatch(b)
		}, 3, "UNLOGGED_BATCH"},
		{"batch, blackhole", true, func(s *gocql.Session, k int) error {
			b := s.Batch(gocql.LoggedBatch)
			for i := 0; i < 3; i++ {
				b.Query("INSERT INTO ks.w (k, v) VALUES (?, ?)", k+i, k+i)
			}
			return s.ExecuteBatch(b)
		}, 3, "BATCH"},
		// A statement gocql does not prepare, so it goes as QUERY.
		{"query", false, func(s *gocql.Session, k int) error {
			return s.Query(fmt.Sprintf("BEGIN BATCH INSERT INTO ks.w (k, v) VALUES (%d, 0); INSERT INTO ks.w (k, v) VALUES (%d, 0); APPLY BATCH", k, k+1)).Exec()
		}, 2, "BATCH"},
		{"conditional", false, func(s *gocql.Session, k int) error {
			return s.Query("INSERT INTO ks.w (k, v) VALUES (?, ?) IF NOT EXISTS", k, k).Exec()
		}, 1, "CAS"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cl := startCluster(t, Config{Nodes: 1, Blackhole: tc.blackhole})
			s := connect(t, cl, func(cc *gocql.ClusterConfig) { cc.RetryPolicy = &gocql.SimpleRetryPolicy{NumRetries: 0} })
			mustExec(t, s, ks1, "CREATE TABLE ks.w (k int PRIMARY KEY, v int)")
			if err := cl.Node(0).SetFault(Fault{Rate: 1, Kind: "write_timeout"}); err != nil {
				t.Fatal(err)
			}
			k := 100 * i
			before := cl.Stats().Nodes[0]
			err := tc.write(s, k)
			var wt *gocql.RequestErrWriteTimeout
			if !errors.As(err, &wt) {
				t.Fatalf("got %v, want a WriteTimeout", err)
			}
			if wt.WriteType != tc.writeType {
				t.Errorf("write type %s, want %s", wt.WriteType, tc.writeType)
			}
			after := cl.Stats().Nodes[0]
			if got := after.RowsWritten - before.RowsWritten; got != int64(tc.rows) {
				t.Errorf("rows written +%d, want +%d", got, tc.rows)
			}
			if got := after.Errors["write_timeout"] - before.Errors["write_timeout"]; got != 1 {
				t.Errorf("write_timeout errors +%d, want +1", got)
			}
			if tc.blackhole {
				return
			}
			rows, err := cl.Query(fmt.Sprintf("SELECT k FROM ks.w WHERE k IN (%d, %d, %d)", k, k+1, k+2))
			if err != nil || len(rows) != tc.rows {
				t.Errorf("stored rows %v, %v; want %d", rows, err, tc.rows)
			}
			// Reads are not concerned by write_timeout.
			var n int64
			if err := s.Query("SELECT count(*) FROM ks.w").Scan(&n); err != nil || n != int64(tc.rows) {
				t.Errorf("count(*) under write_timeout: %d, %v; want %d", n, err, tc.rows)
			}
		})
	}
}

// TestWriteTimeoutRefusedWriteIsNotTimedOut: a write that fails on its own
// merits gets its own error, not a WriteTimeout, and changes nothing.
func TestWriteTimeoutRefusedWriteIsNotTimedOut(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 1})
	s := connect(t, cl, func(cc *gocql.ClusterConfig) { cc.RetryPolicy = &gocql.SimpleRetryPolicy{NumRetries: 0} })
	mustExec(t, s, ks1, "CREATE TABLE ks.w (k int PRIMARY KEY, v int)")
	if err := cl.Node(0).SetFault(Fault{FailNext: 1, Kind: "write_timeout"}); err != nil {
		t.Fatal(err)
	}
	err := s.Query("INSERT INTO ks.w (k, v) VALUES (1, 1)").Consistency(gocql.Two).Exec()
	if codeOf(err) != gocql.ErrCodeUnavailable {
		t.Fatalf("CL TWO on one node under write_timeout: %v, want Unavailable", err)
	}
	// The FailNext is still there for the next write that is applied.
	err = s.Query("INSERT INTO ks.w (k, v) VALUES (2, 2)").Exec()
	if codeOf(err) != gocql.ErrCodeWriteTimeout {
		t.Fatalf("got %v, want WriteTimeout", err)
	}
	if rows, err := cl.Query("SELECT k FROM ks.w"); err != nil || len(rows) != 1 || rows[0]["k"] != "2" {
		t.Errorf("rows %v, %v; want only k = 2", rows, err)
	}
}

// TestStopIsSeenByGocql: a stopped node is announced DOWN on the driver's
// event channel and marked down, keeps its data, and is announced UP and
// used again once started.
func TestStopIsSeenByGocql(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 3, Seed: 5})
	if err := cl.Exec(`CREATE KEYSPACE one WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
		CREATE TABLE one.t (k int PRIMARY KEY, v text)`); err != nil {
		t.Fatal(err)
	}
	// One contact point: the control connection, which receives the
	// events, is on node 1, so it survives node 3 stopping.
	cc := gocql.NewCluster(cl.Hosts()[0])
	cc.Port = cl.Port()
	cc.Timeout = 5 * time.Second
	cc.RetryPolicy = &gocql.SimpleRetryPolicy{NumRetries: 0}
	// gocql waits 10s before acting on an UP event from a server whose
	// release_version has a minor below 2 (4.0.11 here, as for a real
	// Cassandra 4.0); its reconnection loop brings the host back sooner.
	cc.ReconnectInterval = 100 * time.Millisecond
	s, err := cc.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sub := s.SubscribeToEvents("status", 16, func(e events.Event) bool { return e.Type() == events.ClusterEventTypeStatusChange })
	defer sub.Stop()
	awaitEvent := func(change string) {
		t.Helper()
		timeout := time.After(5 * time.Second)
		for {
			select {
			case e := <-sub.Events():
				if sc := e.(*events.StatusChangeEvent); sc.Change == change && sc.Host.Equal(net.IPv4(127, 0, 0, 3)) {
					return
				}
			case <-timeout:
				t.Fatalf("no %s event for 127.0.0.3 within 5s", change)
			}
		}
	}
	awaitHost := func(up bool) {
		t.Helper()
		for i := 0; i < 250 && hostUp(s, "127.0.0.3") != up; i++ {
			time.Sleep(20 * time.Millisecond)
		}
		if hostUp(s, "127.0.0.3") != up {
			t.Fatalf("gocql has 127.0.0.3 up=%v, want %v", !up, up)
		}
	}
	awaitHost(true)
	// A row whose only replica is node 3.
	k := 0
	for cl.Replicas("one", murmur3.Token(binary.BigEndian.AppendUint32(nil, uint32(k))))[0] != 2 {
		k++
	}
	if err := s.Query("INSERT INTO one.t (k, v) VALUES (?, 'kept')", k).Exec(); err != nil {
		t.Fatal(err)
	}

	cl.Node(2).Stop()
	awaitEvent("DOWN")
	awaitHost(false)
	if st := cl.Stats().Nodes[2]; st.Up {
		t.Error("stats say the stopped node is up")
	}
	// Its peers keep listing it, as Cassandra's system.peers does.
	if rows, err := cl.Query("SELECT peer FROM system.peers"); err != nil || len(rows) != 2 {
		t.Errorf("system.peers with node 3 down: %v, %v", rows, err)
	}
	if err := s.Query("SELECT v FROM one.t WHERE k = ?", k).Exec(); codeOf(err) != gocql.ErrCodeUnavailable {
		t.Errorf("reading a row of the stopped node: %v, want Unavailable", err)
	}

	if err := cl.Node(2).Start(); err != nil {
		t.Fatal(err)
	}
	awaitEvent("UP")
	awaitHost(true)
	// gocql may close the pool it has just opened to the restarted node: a
	// fill that failed while the node was down marks the host down ~100ms
	// later and removes whatever pool it has by then (fillingStopped). So
	// a request failing in the driver, with no error from the server, is
	// tried again; an error from the server is not.
	retry := func(q *gocql.Query, dest ...any) error {
		var err error
		for i := 0; i < 100; i++ {
			if len(dest) == 0 {
				err = q.Exec()
			} else {
				err = q.Scan(dest...)
			}
			if err == nil || codeOf(err) >= 0 {
				return err
			}
			time.Sleep(20 * time.Millisecond)
		}
		return err
	}
	var v string
	if err := retry(s.Query("SELECT v FROM one.t WHERE k = ?", k), &v); err != nil || v != "kept" {
		t.Errorf("row of the restarted node: %q, %v", v, err)
	}
	// Token-aware routing sends the row's writes to node 3 again (once
	// the driver has settled the race above).
	before := cl.Stats().Nodes[2].RowsWritten
	for i := 0; i < 250 && cl.Stats().Nodes[2].RowsWritten == before; i++ {
		if err := retry(s.Query("INSERT INTO one.t (k, v) VALUES (?, 'again')", k)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if cl.Stats().Nodes[2].RowsWritten == before {
		t.Error("the restarted node coordinated none of the writes of its own row in 5s")
	}
}
