// Package cqlsim simulates a Cassandra cluster that speaks the CQL native
// protocol (v3 and v4) well enough for unmodified drivers (gocql, the
// DataStax Python driver) with their default settings: topology in
// system.local/peers/peers_v2, schema in system_schema laid out as Cassandra
// 4.0 does, in-memory tables with last-write-wins, paging, batches with
// Cassandra's size limits, consistency levels checked against the nodes
// that are up, and faults on demand. It is a test tool, not a database: one
// process, memory only, one copy of every row.
//
// A test starts a cluster on free ports and points a driver at Hosts and
// Port (see the package example). Stats tells what each node coordinated:
// rows written, how many of them by a replica of the row's token (token-aware
// routing shows as 100%), batches by partition count, bytes, error responses
// by kind, and whether it is up and paused. Node(i) stops and restarts
// nodes (announced DOWN and UP to the drivers), pauses and resumes them (a
// frozen process: connected to, answering nothing), drops connections,
// sets faults (error rates by kind, latency) and a capacity in rows per
// second beyond which a node sheds, queues or times out (Config.Capacity,
// Node.SetCapacity). ControlHandler offers the same over HTTP, for tests
// and chaos runs outside the process.
//
// Layout: cluster.go (Config, Start, the Cluster API), node.go (listeners,
// faults, pauses, events), capacity.go (rows per second, overload modes), conn.go (frames, the request loop), control.go
// (the HTTP control), decode.go (the
// allocation-free EXECUTE/BATCH decoder), plan.go/write.go/select.go
// (statements compiled once into plans), store.go (tables), schema.go and
// systables.go (the catalog and system keyspaces), topology.go (tokens and
// replica placement), consistency.go, blackhole.go, stats.go. Parsing, the
// type system and value validation live in internal/cql.
//
// Not simulated: ALTER other than ALTER TABLE ADD and DROP, DESCRIBE
// (answered with the SyntaxError drivers expect from servers without it),
// secondary indexes and materialized views, Paxos (a lightweight
// transaction is one atomic step under its table's lock; conditions on
// collection elements are unsupported), JSON, GROUP BY, functions in
// SELECT other than count, token, writetime and ttl (in values: the time
// and uuid functions of now()), per-element timestamps in collections
// (an element update with an older timestamp than the collection's is
// dropped whole), protocol v5, lz4, tracing, and
// replication itself (one copy of each row, readable while enough replicas
// are up for the consistency level).
package cqlsim

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cqlload/cqlload/cqlsim/internal/cql"
	"github.com/datastax/go-cassandra-native-protocol/message"
)

// Config describes a simulated cluster. The zero value is a one-node cluster
// on 127.0.0.1 at a free port.
type Config struct {
	// Nodes is the number of nodes when DCs is empty (one DC "datacenter1",
	// rack "rack1"); 0 means 1. When DCs is set, Nodes must be 0 or match.
	Nodes int
	// Addr is the first node's address; node i listens on Addr+i. Default 127.0.0.1.
	Addr string
	// Port is the native protocol port shared by all nodes; 0 picks one that
	// is free on every node address.
	Port int
	// DCs lays out data centers and racks, e.g. "dc1:3,dc2:2" or "dc1:4:2"
	// (name:nodes[:racks]).
	DCs string
	// VNodes is the number of tokens per node; 0 means 16.
	VNodes int
	// Seed makes tokens, host ids and fault choices reproducible.
	Seed int64
	// Username and Password enable PasswordAuthenticator when Username is set.
	Username, Password string
	// TLS, when set, makes every node accept only TLS connections.
	TLS *tls.Config
	// Blackhole acknowledges EXECUTE and BATCH writes without validating or
	// storing values, still counting rows and bytes.
	Blackhole bool
	// BatchWarnKB and BatchFailKB are Cassandra's batch_size_warn_threshold
	// and batch_size_fail_threshold; 0 means 5 and 50, negative disables.
	BatchWarnKB, BatchFailKB int
	// LatencyMin and LatencyMax add a delay before each response: fixed when
	// only LatencyMin is set, uniform in [LatencyMin, LatencyMax] otherwise.
	LatencyMin, LatencyMax time.Duration
	// FailRate is the probability that a data request (QUERY on a user table,
	// EXECUTE, BATCH) fails with FailWith.
	FailRate float64
	// FailWith is overloaded, write_timeout, unavailable, read_timeout or
	// server_error; "" means overloaded. write_timeout applies the write
	// before answering it, as Fault.Kind says.
	FailWith string
	// Shards > 0 makes every node announce ScyllaDB sharding in SUPPORTED:
	// that many shards, biased-token-round-robin, 12 ignored MSB bits.
	// Connections are given their node's shards in turn, and
	// RowsWrittenOnShard shows whether a driver routed each row to the
	// connection of its shard. 0: no sharding, as Cassandra.
	Shards int
	// Capacity is the rows each node coordinates per second (a token
	// bucket with a burst of 20 ms worth; a BATCH of k statements costs k,
	// another data request 1); 0 means unlimited. Node.SetCapacity
	// changes it at run time; capacity.go tells the whole model.
	Capacity int
	// Overload is what a node does with a data request beyond its
	// capacity: shed (answer Overloaded at once), queue (wait in a FIFO
	// queue served at the capacity rate, WriteTimeout past WriteTimeout)
	// or timeout (held for WriteTimeout, then WriteTimeout, not applied).
	// "" means shed.
	Overload OverloadMode
	// WriteTimeout is the node's write_request_timeout, for the queue and
	// timeout modes of Overload; 0 means 2s, as Cassandra's default.
	WriteTimeout time.Duration
	// QueueLimit bounds the requests a node holds waiting for their answer
	// in the queue and timeout modes; beyond it, it sheds. 0 means 10000.
	QueueLimit int
	// Schema holds CQL scripts run at start, in order.
	Schema []string
	// Logf, when set, receives diagnostic messages (connection errors).
	Logf func(format string, args ...any)
}

// Cluster is a running simulated cluster.
type Cluster struct {
	cfg     Config
	topo    *topology
	cat     *catalog
	nodes   []*Node
	port    int
	started time.Time
	lastTS  atomic.Int64
	// clock is the time TTLs are measured against; tests move it forward.
	clock func() time.Time
	// lifeMu orders Close against Node.Start, so no node starts serving
	// (wg.Add) once Close is waiting for the goroutines to end.
	lifeMu  sync.Mutex
	closed  atomic.Bool
	wg      sync.WaitGroup
	stopCtx context.Context
	stop    context.CancelFunc
}

// Start builds the cluster, runs Config.Schema and starts listening. ctx
// bounds the start only; Close stops the cluster.
func Start(ctx context.Context, cfg Config) (*Cluster, error) {
	dcs, err := cfg.dcs()
	if err != nil {
		return nil, err
	}
	addr := cfg.Addr
	if addr == "" {
		addr = "127.0.0.1"
	}
	first, err := netip.ParseAddr(addr)
	if err != nil {
		return nil, fmt.Errorf("cqlsim: address %q: %w", addr, err)
	}
	if cfg.VNodes == 0 {
		cfg.VNodes = 16
	}
	if cfg.VNodes < 1 {
		return nil, fmt.Errorf("cqlsim: vnodes must be positive, got %d", cfg.VNodes)
	}
	if cfg.Shards < 0 || cfg.Shards > 256 {
		return nil, fmt.Errorf("cqlsim: shards must be between 0 and 256, got %d", cfg.Shards)
	}
	if _, err := errorForKind(cfg.FailWith, 0, writeSimple); err != nil && cfg.FailRate > 0 {
		return nil, fmt.Errorf("cqlsim: %w", err)
	}
	if !(cfg.FailRate >= 0 && cfg.FailRate <= 1) { // NaN too
		return nil, fmt.Errorf("cqlsim: fail rate %v is not in [0, 1]", cfg.FailRate)
	}
	if err := checkCapacity(cfg.Capacity); err != nil {
		return nil, fmt.Errorf("cqlsim: %w", err)
	}
	if cfg.Overload, err = ParseOverloadMode(string(cfg.Overload)); err != nil {
		return nil, fmt.Errorf("cqlsim: %w", err)
	}
	if cfg.WriteTimeout < 0 || cfg.QueueLimit < 0 {
		return nil, fmt.Errorf("cqlsim: write timeout %v and queue limit %d must not be negative", cfg.WriteTimeout, cfg.QueueLimit)
	}
	if cfg.WriteTimeout == 0 {
		cfg.WriteTimeout = defaultWriteTimeout
	}
	if cfg.QueueLimit == 0 {
		cfg.QueueLimit = defaultQueueLimit
	}
	topo, err := newTopology(first, dcs, cfg.VNodes, cfg.Seed)
	if err != nil {
		return nil, fmt.Errorf("cqlsim: %w", err)
	}
	cl := &Cluster{cfg: cfg, topo: topo, cat: newCatalog(topo, cfg.Seed), started: time.Now(), clock: time.Now}
	cl.stopCtx, cl.stop = context.WithCancel(context.Background())
	if err := cl.bootstrapSchema(); err != nil {
		return nil, fmt.Errorf("cqlsim: system schema: %w", err)
	}
	for _, info := range topo.nodes {
		cl.nodes = append(cl.nodes, newNode(cl, info))
	}
	for i, script := range cfg.Schema {
		if err := cl.Exec(script); err != nil {
			return nil, fmt.Errorf("cqlsim: schema script %d: %w", i+1, err)
		}
	}
	lns, port, err := listenAll(ctx, topo, cfg.Port)
	if err != nil {
		return nil, fmt.Errorf("cqlsim: %w", err)
	}
	cl.port = port
	for i, n := range cl.nodes {
		n.serve(lns[i])
	}
	return cl, nil
}

func (cfg *Config) dcs() ([]DC, error) {
	if cfg.DCs == "" {
		n := cfg.Nodes
		if n == 0 {
			n = 1
		}
		if n < 0 {
			return nil, fmt.Errorf("cqlsim: node count must be positive, got %d", n)
		}
		return []DC{{Name: "datacenter1", Nodes: n, Racks: 1}}, nil
	}
	dcs, err := ParseDCs(cfg.DCs)
	if err != nil {
		return nil, fmt.Errorf("cqlsim: %w", err)
	}
	total := 0
	for _, d := range dcs {
		total += d.Nodes
	}
	if cfg.Nodes != 0 && cfg.Nodes != total {
		return nil, fmt.Errorf("cqlsim: %d nodes requested but data centers %q hold %d", cfg.Nodes, cfg.DCs, total)
	}
	return dcs, nil
}

// listenAll opens one listener per node on the same port. With port 0 it
// takes a free port from the first address and retries until every other
// address has it free too, so parallel tests never collide.
func listenAll(ctx context.Context, topo *topology, port int) ([]net.Listener, int, error) {
	var lc net.ListenConfig
	for attempt := 0; attempt < 50; attempt++ {
		var lns []net.Listener
		p := port
		ok := true
		for _, n := range topo.nodes {
			ln, err := lc.Listen(ctx, "tcp", net.JoinHostPort(n.addr.String(), strconv.Itoa(p)))
			if err != nil {
				for _, l := range lns {
					l.Close()
				}
				if port != 0 {
					return nil, 0, fmt.Errorf("node %d: %w", n.index+1, err)
				}
				ok = false
				break
			}
			if p == 0 {
				p = ln.Addr().(*net.TCPAddr).Port
			}
			lns = append(lns, ln)
		}
		if ok {
			return lns, p, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
	}
	return nil, 0, errors.New("no port free on every node address after 50 attempts")
}

// Hosts returns "address:port" for every node, in node order.
func (cl *Cluster) Hosts() []string {
	out := make([]string, len(cl.nodes))
	for i, n := range cl.nodes {
		out[i] = n.Addr()
	}
	return out
}

// Port is the native protocol port of every node.
func (cl *Cluster) Port() int { return cl.port }

// Node returns node i (0-based).
func (cl *Cluster) Node(i int) *Node { return cl.nodes[i] }

// NumNodes is the number of nodes.
func (cl *Cluster) NumNodes() int { return len(cl.nodes) }

// Close stops every node and closes all connections.
func (cl *Cluster) Close() error {
	cl.lifeMu.Lock()
	if cl.closed.Swap(true) {
		cl.lifeMu.Unlock()
		return nil
	}
	cl.stop()
	for _, n := range cl.nodes {
		n.shutdown()
	}
	cl.lifeMu.Unlock()
	cl.wg.Wait()
	return nil
}

// Replicas returns the indexes of the nodes that replicate token in keyspace,
// in ring order from the token's owner.
func (cl *Cluster) Replicas(keyspace string, token int64) []int {
	ks := cl.cat.keyspace(keyspace)
	if ks == nil || ks.repl.strategy == strategyLocal {
		return nil
	}
	return append([]int(nil), ks.placement[cl.topo.ringIndex(token)]...)
}

// Tokens returns node i's tokens in ascending order.
func (cl *Cluster) Tokens(i int) []int64 {
	return append([]int64(nil), cl.topo.nodes[i].tokens...)
}

// Exec runs a CQL script (one or more ';'-separated statements) on node 0 as
// a client would, including USE. Results of SELECTs are discarded.
func (cl *Cluster) Exec(script string) error {
	stmts, err := cql.ParseScript(script)
	if err != nil {
		return err
	}
	sess := &session{}
	for _, s := range stmts {
		if _, err := cl.nodes[0].run(sess, s, nil); err != nil {
			return err
		}
	}
	return nil
}

// Row is one result row of Cluster.Query: column name (or alias) to its value
// as a CQL literal: 'text', 42, 0x00ff, {'a': 1}, null.
type Row map[string]string

// Query runs one SELECT on node 0 without paging and returns its rows, so
// tests can check what was stored without a driver.
func (cl *Cluster) Query(query string) ([]Row, error) {
	n := cl.nodes[0]
	p, err := n.parse(&session{}, query)
	if err != nil {
		return nil, err
	}
	if p.kind != planSelect {
		return nil, fmt.Errorf("cqlsim: Query runs SELECT statements only: %s", query)
	}
	if len(p.vars) > 0 {
		return nil, fmt.Errorf("cqlsim: Query takes no bind markers: %s", query)
	}
	msg, _, err := n.execute(&session{}, p, nil, nil)
	if err != nil {
		return nil, err
	}
	rr, ok := msg.(*message.RowsResult)
	if !ok {
		return nil, fmt.Errorf("cqlsim: unexpected result %v", msg)
	}
	out := make([]Row, 0, len(rr.Data))
	for _, data := range rr.Data {
		r := make(Row, len(data))
		for i, v := range data {
			r[p.sel.meta[i].Name] = cql.Format(p.sel.items[i].typ, v)
		}
		out = append(out, r)
	}
	return out, nil
}

// timestamp returns a server-side write timestamp in microseconds, strictly
// increasing across the cluster like a coordinator's ClientState.
func (cl *Cluster) timestamp() int64 {
	now := cl.clock().UnixMicro()
	for {
		last := cl.lastTS.Load()
		next := max(now, last+1)
		if cl.lastTS.CompareAndSwap(last, next) {
			return next
		}
	}
}

func (cl *Cluster) logf(format string, args ...any) {
	if cl.cfg.Logf != nil {
		cl.cfg.Logf(format, args...)
	}
}

func (cl *Cluster) batchLimits() (warn, fail int) {
	warn, fail = cl.cfg.BatchWarnKB, cl.cfg.BatchFailKB
	if warn == 0 {
		warn = 5
	}
	if fail == 0 {
		fail = 50
	}
	if warn > 0 {
		warn *= 1024
	}
	if fail > 0 {
		fail *= 1024
	}
	return warn, fail
}
