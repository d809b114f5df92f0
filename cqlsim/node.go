package cqlsim

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
)

// Fault is a node's injected misbehaviour.
type Fault struct {
	// Rate is the probability that a data request fails with Kind.
	Rate float64
	// Kind is overloaded, write_timeout, unavailable, read_timeout or
	// server_error; "" means overloaded. All but write_timeout refuse the
	// request before it executes. write_timeout concerns writes only: the
	// write is applied, then answered with WriteTimeout, as a Cassandra
	// coordinator does when replicas acknowledge too late.
	Kind string
	// FailNext makes the next FailNext data requests fail with Kind whatever
	// Rate says: a deterministic way to test retries.
	FailNext int
	// LatencyMin/LatencyMax delay each response (fixed if LatencyMax <= LatencyMin).
	LatencyMin, LatencyMax time.Duration
}

// ParseLatency reads a latency as the --latency flag and the faults
// endpoint take it: DURATION for a fixed delay ("2ms", max is then 0) or
// MIN-MAX for a uniform one ("1ms-5ms").
func ParseLatency(s string) (lo, hi time.Duration, err error) {
	los, his, isRange := strings.Cut(s, "-")
	lo, err = time.ParseDuration(los)
	if err != nil || lo < 0 {
		return 0, 0, fmt.Errorf("bad duration %q (want DURATION or MIN-MAX, e.g. 2ms or 1ms-5ms)", los)
	}
	if !isRange {
		return lo, 0, nil
	}
	hi, err = time.ParseDuration(his)
	if err != nil || hi < lo {
		return 0, 0, fmt.Errorf("bad range %q (want MIN-MAX with MIN <= MAX)", s)
	}
	return lo, hi, nil
}

// Node is one simulated node.
type Node struct {
	cl       *Cluster
	info     *nodeInfo
	fault    atomic.Pointer[Fault]
	failNext atomic.Int64
	// nextShard hands connections to shards in turn (Config.Shards).
	nextShard atomic.Int64

	mu      sync.Mutex
	ln      net.Listener
	conns   map[*conn]struct{}
	running bool
	// up mirrors running for the hot path: replicas' liveness decides
	// whether a consistency level can be met.
	up atomic.Bool
	// pause is set while the node is paused; every connection waits for
	// it to clear before it reads on (conn.hold). Changed under mu; read
	// without it on every frame.
	pause atomic.Pointer[pauseGate]
	// deferred holds the events raised for the node's clients while it
	// is paused, sent by Resume; under mu.
	deferred []deferredEvent

	rngMu sync.Mutex
	rng   *rand.Rand

	prepMu   sync.RWMutex
	prepared map[[16]byte]*plan
	// queries caches plans of unprepared statements by keyspace and text.
	queries map[string]*plan

	// limit is the node's capacity, nil when unlimited: the hot path
	// loads it and nothing else (capacity.go). Replaced under capMu.
	limit atomic.Pointer[limiter]
	// overload is the mode SetCapacity keeps when given none; under capMu.
	capMu    sync.Mutex
	overload OverloadMode
	// queued counts the answers held by the capacity, bounded by queueLimit.
	queued       atomic.Int64
	queueLimit   int
	writeTimeout time.Duration
	// epoch is the origin of the limiter's monotonic clock.
	epoch time.Time

	stats nodeStats
}

func newNode(cl *Cluster, info *nodeInfo) *Node {
	n := &Node{
		cl: cl, info: info, conns: map[*conn]struct{}{},
		rng:      rand.New(rand.NewPCG(uint64(cl.cfg.Seed), uint64(info.index)+1)),
		prepared: map[[16]byte]*plan{},
		queries:  map[string]*plan{},
	}
	n.stats.batches = map[int]int64{}
	n.epoch = time.Now()
	n.writeTimeout, n.queueLimit = cl.cfg.WriteTimeout, cl.cfg.QueueLimit
	n.overload = cl.cfg.Overload
	if cl.cfg.Capacity > 0 {
		n.limit.Store(newLimiter(cl.cfg.Capacity, cl.cfg.Overload))
	}
	n.fault.Store(&Fault{Rate: cl.cfg.FailRate, Kind: cl.cfg.FailWith, LatencyMin: cl.cfg.LatencyMin, LatencyMax: cl.cfg.LatencyMax})
	return n
}

// Index is the node's 0-based index.
func (n *Node) Index() int { return n.info.index }

// Addr is the node's "address:port".
func (n *Node) Addr() string {
	return net.JoinHostPort(n.info.addr.String(), strconv.Itoa(n.cl.port))
}

// DC and Rack are where the node sits.
func (n *Node) DC() string   { return n.info.dc }
func (n *Node) Rack() string { return n.info.rack }

// HostID is the node's host id as a UUID string.
func (n *Node) HostID() string { return fmtUUID(n.info.hostID) }

// SetFault replaces the node's fault settings.
func (n *Node) SetFault(f Fault) error {
	if !(f.Rate >= 0 && f.Rate <= 1) { // NaN too
		return fmt.Errorf("cqlsim: fail rate %v is not in [0, 1]", f.Rate)
	}
	if _, err := errorForKind(f.Kind, 0, writeSimple); err != nil && (f.Rate > 0 || f.FailNext > 0) {
		return fmt.Errorf("cqlsim: %w", err)
	}
	n.fault.Store(&f)
	n.failNext.Store(int64(f.FailNext))
	return nil
}

// pauseGate is one pause: resumed is closed by Resume. A pause ended by Stop
// leaves it open, so that what queued is never executed.
type pauseGate struct{ resumed chan struct{} }

type deferredEvent struct {
	c  *conn
	ev message.Message
}

// Pause freezes the node as a long GC pause or a suspended VM does: its
// connections stay open and new ones are accepted (the kernel does that),
// but it reads, executes and answers nothing, not even a heartbeat
// (OPTIONS) or a new connection's STARTUP, and sends no events. Requests
// queue, and Resume executes them then, in order on each connection. The
// other nodes go on counting it as a live replica for consistency levels
// and announce nothing: a Cassandra failure detector convicts a silent
// node only after seconds, and the drivers find out by their own
// timeouts. Pausing a paused node does nothing; a stopped node cannot be
// paused.
func (n *Node) Pause() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.running {
		return fmt.Errorf("cqlsim: node %d is stopped; start it before pausing it", n.info.index+1)
	}
	if n.pause.Load() == nil {
		n.pause.Store(&pauseGate{resumed: make(chan struct{})})
	}
	return nil
}

// Resume ends a pause: the node handles what queued and sends the events
// held back. Resuming a node that is not paused does nothing.
func (n *Node) Resume() {
	n.mu.Lock()
	g := n.pause.Swap(nil)
	evs := n.deferred
	n.deferred = nil
	n.mu.Unlock()
	if g == nil {
		return
	}
	close(g.resumed)
	for _, d := range evs {
		d.c.push(d.ev)
	}
}

// Paused reports whether the node is paused.
func (n *Node) Paused() bool { return n.pause.Load() != nil }

// deferEvent keeps ev for c if the node is paused, and reports whether it did.
func (n *Node) deferEvent(c *conn, ev message.Message) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.pause.Load() == nil {
		return false
	}
	n.deferred = append(n.deferred, deferredEvent{c, ev})
	return true
}

// Fault returns the node's fault settings, FailNext counting the failures
// still to come.
func (n *Node) Fault() Fault {
	f := *n.fault.Load()
	f.FailNext = int(n.failNext.Load())
	return f
}

// Running reports whether the node accepts connections.
func (n *Node) Running() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.running
}

func (n *Node) serve(ln net.Listener) {
	n.mu.Lock()
	n.ln = ln
	n.running = true
	n.up.Store(true)
	n.mu.Unlock()
	n.cl.wg.Add(1)
	go func() {
		defer n.cl.wg.Done()
		n.accept(ln)
	}()
}

func (n *Node) accept(ln net.Listener) {
	for {
		nc, err := ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return
		}
		if tc, ok := nc.(*net.TCPConn); ok {
			_ = tc.SetNoDelay(true)
		}
		if n.cl.cfg.TLS != nil {
			nc = tlsServer(nc, n.cl.cfg.TLS)
		}
		c := newConn(n, nc)
		n.mu.Lock()
		if !n.running {
			n.mu.Unlock()
			nc.Close()
			continue
		}
		n.conns[c] = struct{}{}
		n.mu.Unlock()
		n.stats.connections.Add(1)
		n.cl.wg.Add(1)
		go func() {
			defer n.cl.wg.Done()
			c.serve()
			n.mu.Lock()
			delete(n.conns, c)
			n.mu.Unlock()
		}()
	}
}

// Stop kills the node: its listener and connections close, its port
// refuses connections, and the other nodes announce it DOWN to the clients
// registered for status events (system.peers keeps listing it, as
// Cassandra's does). What it stored stays; Start brings it back. Stopping
// a paused node ends the pause without executing what had queued. Stopping
// a stopped node does nothing.
func (n *Node) Stop() {
	if n.shutdown() {
		n.cl.broadcastStatus(n, primitive.StatusChangeTypeDown)
	}
}

func (n *Node) shutdown() bool {
	n.mu.Lock()
	was := n.running
	n.running = false
	n.up.Store(false)
	if n.ln != nil {
		n.ln.Close()
		n.ln = nil
	}
	conns := n.connsLocked()
	// A killed frozen process never executes what it had queued: the
	// connections are marked closed before the pause is lifted, so a
	// reader that finds no pause any more finds its connection closed
	// (conn.hold). The gate stays shut for those still waiting on it.
	for _, c := range conns {
		c.markClosed()
	}
	n.pause.Store(nil)
	n.deferred = nil
	n.mu.Unlock()
	closeAll(conns)
	return was
}

// connsLocked returns the node's client connections; n.mu must be held.
// They are closed after it is released, since closing waits on I/O.
func (n *Node) connsLocked() []*conn {
	conns := make([]*conn, 0, len(n.conns))
	for c := range n.conns {
		conns = append(conns, c)
	}
	return conns
}

func closeAll(conns []*conn) {
	for _, c := range conns {
		c.close()
	}
}

// Start reopens a stopped node on its address and port, with the data it
// had, and the other nodes announce it UP. Starting a running node does
// nothing.
func (n *Node) Start() error {
	n.cl.lifeMu.Lock()
	defer n.cl.lifeMu.Unlock()
	if n.cl.closed.Load() {
		return errors.New("cqlsim: cluster is closed")
	}
	if n.Running() {
		return nil
	}
	ln, err := net.Listen("tcp", n.Addr())
	if err != nil {
		return fmt.Errorf("cqlsim: restart node %d: %w", n.info.index+1, err)
	}
	n.serve(ln)
	n.cl.broadcastStatus(n, primitive.StatusChangeTypeUp)
	return nil
}

// DropConnections closes every client connection of the node; the node
// keeps accepting new ones.
func (n *Node) DropConnections() {
	n.mu.Lock()
	conns := n.connsLocked()
	n.mu.Unlock()
	closeAll(conns)
}

func (n *Node) registered(ev primitive.EventType) []*conn {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []*conn
	for c := range n.conns {
		if c.wants(ev) {
			out = append(out, c)
		}
	}
	return out
}

func (cl *Cluster) broadcastStatus(about *Node, change primitive.StatusChangeType) {
	ev := &message.StatusChangeEvent{ChangeType: change, Address: &primitive.Inet{Addr: about.info.addr.AsSlice(), Port: int32(cl.port)}}
	for _, n := range cl.nodes {
		if n == about {
			continue
		}
		for _, c := range n.registered(primitive.EventTypeStatusChange) {
			c.push(ev)
		}
	}
}

func (cl *Cluster) broadcastSchema(ch *schemaChange) {
	ev := ch.event()
	for _, n := range cl.nodes {
		for _, c := range n.registered(primitive.EventTypeSchemaChange) {
			c.push(ev)
		}
	}
	// A schema change invalidates cached plans of dropped tables lazily (they
	// check table.dropped), so nothing else to do here.
}

// latency draws the delay for one response, or 0.
func (n *Node) latency() time.Duration {
	f := n.fault.Load()
	if f.LatencyMin <= 0 && f.LatencyMax <= 0 {
		return 0
	}
	if f.LatencyMax <= f.LatencyMin {
		return f.LatencyMin
	}
	n.rngMu.Lock()
	d := f.LatencyMin + time.Duration(n.rng.Int64N(int64(f.LatencyMax-f.LatencyMin)+1))
	n.rngMu.Unlock()
	return d
}

// injected returns the error to answer instead of executing, or nil. A
// write_timeout on a write is not drawn here but by timedOut, once the
// write is applied.
func (n *Node) injected(cl primitive.ConsistencyLevel, wk writeKind) message.Error {
	f := n.fault.Load()
	if f.Kind == "write_timeout" {
		return nil
	}
	return n.draw(f, cl, wk)
}

// timedOut returns the WriteTimeout to answer for a write that has just
// been applied, or nil. A Cassandra coordinator answers WriteTimeout when
// it sent the mutation to the replicas but too few acknowledged it within
// write_request_timeout: the write may well be applied, and a client must
// treat it as possibly applied (which is why a counter update that timed
// out cannot be retried). With one copy of every row here, it always is.
// Reads are not concerned: their timeout is read_timeout.
func (n *Node) timedOut(cl primitive.ConsistencyLevel, wk writeKind) message.Error {
	f := n.fault.Load()
	if f.Kind != "write_timeout" || wk == readKind {
		return nil
	}
	return n.draw(f, cl, wk)
}

// draw decides whether this request fails with f.Kind: one of FailNext
// if any is left, else with probability Rate.
func (n *Node) draw(f *Fault, cl primitive.ConsistencyLevel, wk writeKind) message.Error {
	hit := false
	for left := n.failNext.Load(); left > 0 && !hit; left = n.failNext.Load() {
		hit = n.failNext.CompareAndSwap(left, left-1)
	}
	if !hit && f.Rate > 0 {
		n.rngMu.Lock()
		hit = n.rng.Float64() < f.Rate
		n.rngMu.Unlock()
	}
	if !hit {
		return nil
	}
	e, err := errorForKind(f.Kind, cl, wk)
	if err != nil {
		return nil
	}
	n.stats.injected.Add(1)
	return e
}

type writeKind int

const (
	writeSimple writeKind = iota
	writeBatch
	writeUnloggedBatch
	writeCounter
	writeCAS
	readKind
)

func errorForKind(kind string, cl primitive.ConsistencyLevel, wk writeKind) (message.Error, error) {
	wt := primitive.WriteTypeSimple
	switch wk {
	case writeBatch:
		wt = primitive.WriteTypeBatch
	case writeUnloggedBatch:
		wt = primitive.WriteTypeUnloggedBatch
	case writeCounter:
		wt = primitive.WriteTypeCounter
	case writeCAS:
		wt = primitive.WriteTypeCas
	}
	switch kind {
	case "", "overloaded":
		return &message.Overloaded{ErrorMessage: "Server is in overloaded state. Cannot accept more requests at this point (injected by cqlsim)"}, nil
	case "write_timeout":
		return &message.WriteTimeout{ErrorMessage: "Operation timed out - received only 0 responses. (injected by cqlsim)",
			Consistency: cl, Received: 0, BlockFor: 1, WriteType: wt}, nil
	case "read_timeout":
		return &message.ReadTimeout{ErrorMessage: "Operation timed out - received only 0 responses. (injected by cqlsim)",
			Consistency: cl, Received: 0, BlockFor: 1}, nil
	case "unavailable":
		return &message.Unavailable{ErrorMessage: "Cannot achieve consistency level " + cl.String() + " (injected by cqlsim)",
			Consistency: cl, Required: 1, Alive: 0}, nil
	case "server_error":
		return &message.ServerError{ErrorMessage: "java.lang.RuntimeException: injected by cqlsim"}, nil
	}
	return nil, fmt.Errorf("unknown failure kind %q (want overloaded, write_timeout, unavailable, read_timeout or server_error)", kind)
}

func fmtUUID(u [16]byte) string {
	const hex = "0123456789abcdef"
	b := make([]byte, 0, 36)
	for i, x := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, hex[x>>4], hex[x&15])
	}
	return string(b)
}
