package cqlsim

import (
	"encoding/json"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
)

type nodeStats struct {
	requests      [256]atomic.Int64 // by opcode
	statements    atomic.Int64
	rows          atomic.Int64
	replicaRows   atomic.Int64
	shardRows     atomic.Int64
	bytes         atomic.Int64
	injected      atomic.Int64
	connections   atomic.Int64
	warnings      atomic.Int64
	batchRejected atomic.Int64
	// errors counts ERROR responses sent, by errorKinds index.
	errors [len(errorKinds) + 1]atomic.Int64
	// capErrors counts those of them answered because of the node's
	// capacity (Node.SetCapacity), by errorKinds index.
	capErrors [len(errorKinds) + 1]atomic.Int64

	batchMu sync.Mutex
	batches map[int]int64 // by number of partitions
}

// errorKinds names ERROR responses by code for Stats: the fault kinds
// (overloaded, write_timeout, …) are among them, so an injected error and a
// real one of the same kind count under one name. A code not listed counts
// as "other". It is a lookup table, never written.
var errorKinds = [...]struct {
	code primitive.ErrorCode
	name string
}{
	{primitive.ErrorCodeServerError, "server_error"},
	{primitive.ErrorCodeProtocolError, "protocol_error"},
	{primitive.ErrorCodeAuthenticationError, "authentication_error"},
	{primitive.ErrorCodeUnavailable, "unavailable"},
	{primitive.ErrorCodeOverloaded, "overloaded"},
	{primitive.ErrorCodeIsBootstrapping, "is_bootstrapping"},
	{primitive.ErrorCodeTruncateError, "truncate_error"},
	{primitive.ErrorCodeWriteTimeout, "write_timeout"},
	{primitive.ErrorCodeReadTimeout, "read_timeout"},
	{primitive.ErrorCodeReadFailure, "read_failure"},
	{primitive.ErrorCodeFunctionFailure, "function_failure"},
	{primitive.ErrorCodeWriteFailure, "write_failure"},
	{primitive.ErrorCodeSyntaxError, "syntax_error"},
	{primitive.ErrorCodeUnauthorized, "unauthorized"},
	{primitive.ErrorCodeInvalid, "invalid"},
	{primitive.ErrorCodeConfigError, "config_error"},
	{primitive.ErrorCodeAlreadyExists, "already_exists"},
	{primitive.ErrorCodeUnprepared, "unprepared"},
}

// response counts msg if it is an ERROR. Successful writes share one
// VoidResult, so the common case costs a pointer comparison.
func (s *nodeStats) response(msg message.Message) {
	if msg == voidResult {
		return
	}
	e, ok := msg.(message.Error)
	if !ok {
		return
	}
	s.errors[errorIndex(e.GetErrorCode())].Add(1)
}

// errorIndex is code's index in errorKinds, len(errorKinds) for "other".
func errorIndex(code primitive.ErrorCode) int {
	i := 0
	for i < len(errorKinds) && errorKinds[i].code != code {
		i++
	}
	return i
}

// errorCounts names the non-zero counters of c by kind.
func errorCounts(c *[len(errorKinds) + 1]atomic.Int64) map[string]int64 {
	m := map[string]int64{}
	for i := range c {
		if v := c[i].Load(); v > 0 {
			name := "other"
			if i < len(errorKinds) {
				name = errorKinds[i].name
			}
			m[name] = v
		}
	}
	return m
}

func (s *nodeStats) batch(partitions int) {
	s.batchMu.Lock()
	s.batches[partitions]++
	s.batchMu.Unlock()
}

// NodeStats are one node's counters since start.
type NodeStats struct {
	Node    int    `json:"node"` // 1-based, as the CLI prints it
	Address string `json:"address"`
	DC      string `json:"dc"`
	Rack    string `json:"rack"`
	// Up is whether the node is running (Node.Running): stopped nodes are not.
	Up bool `json:"up"`
	// Paused is whether the node is paused (Node.Pause): up, connected to,
	// and answering nothing.
	Paused bool `json:"paused"`
	// Requests counts frames received by opcode name (QUERY, EXECUTE, …).
	Requests map[string]int64 `json:"requests"`
	// Statements counts executed statements, batch children included.
	Statements int64 `json:"statements"`
	// RowsWritten counts row mutations this node coordinated.
	RowsWritten int64 `json:"rows_written"`
	// RowsWrittenAsReplica counts those whose token this node replicates:
	// with token-aware routing it equals RowsWritten.
	RowsWrittenAsReplica int64 `json:"rows_written_as_replica"`
	// RowsWrittenOnShard counts, with Config.Shards, those that came in
	// on a connection of the shard owning their token: with shard-aware
	// routing it equals RowsWritten.
	RowsWrittenOnShard int64 `json:"rows_written_on_shard"`
	// Batches counts BATCH requests by the number of partitions they touched.
	Batches         map[int]int64 `json:"batches"`
	BatchWarnings   int64         `json:"batch_warnings"`
	BatchesRejected int64         `json:"batches_rejected"`
	BytesReceived   int64         `json:"bytes_received"`
	InjectedErrors  int64         `json:"injected_errors"`
	// Errors counts the ERROR responses the node sent by kind (overloaded,
	// write_timeout, unavailable, invalid, syntax_error, …; "other" for a
	// code without a name): injected ones, those the node's capacity
	// caused (Capacity.Errors) and real ones alike, such as
	// unavailable for a consistency level the replicas up cannot meet or
	// invalid for a batch too large. Kinds never sent are left out.
	Errors map[string]int64 `json:"errors"`
	// Connections counts connections accepted since start.
	Connections int64 `json:"connections"`
	// Capacity is the node's capacity (Node.SetCapacity) and what it did.
	Capacity CapacityStats `json:"capacity"`
}

// CapacityStats describe a node's capacity: its setting, its queue and
// the errors it answered because of it.
type CapacityStats struct {
	// RowsPerSec is the capacity in rows coordinated per second; 0 is
	// unlimited.
	RowsPerSec int `json:"rows_per_sec"`
	// Mode is what the node does beyond it: shed, queue or timeout.
	Mode OverloadMode `json:"mode"`
	// Queued is how many requests wait for their answer now, held by the
	// queue (queue mode) or until their timeout (timeout mode).
	Queued int64 `json:"queued"`
	// Errors counts the ERROR responses answered because of the capacity,
	// by kind as NodeStats.Errors (which counts them too): overloaded
	// (shed, or the queue full), write_timeout and read_timeout.
	Errors map[string]int64 `json:"errors"`
}

// Stats holds every node's counters.
type Stats struct {
	Nodes []NodeStats `json:"nodes"`
}

// Total sums the counters of all nodes (Node is 0, Up and Paused false,
// maps are merged; of Capacity, only Queued and Errors are summed).
func (s Stats) Total() NodeStats {
	t := NodeStats{Requests: map[string]int64{}, Batches: map[int]int64{}, Errors: map[string]int64{},
		Capacity: CapacityStats{Errors: map[string]int64{}}}
	for _, n := range s.Nodes {
		for k, v := range n.Capacity.Errors {
			t.Capacity.Errors[k] += v
		}
		t.Capacity.Queued += n.Capacity.Queued
		for k, v := range n.Requests {
			t.Requests[k] += v
		}
		for k, v := range n.Errors {
			t.Errors[k] += v
		}
		for k, v := range n.Batches {
			t.Batches[k] += v
		}
		t.Statements += n.Statements
		t.RowsWritten += n.RowsWritten
		t.RowsWrittenAsReplica += n.RowsWrittenAsReplica
		t.RowsWrittenOnShard += n.RowsWrittenOnShard
		t.BatchWarnings += n.BatchWarnings
		t.BatchesRejected += n.BatchesRejected
		t.BytesReceived += n.BytesReceived
		t.InjectedErrors += n.InjectedErrors
		t.Connections += n.Connections
	}
	return t
}

// Stats returns a snapshot of every node's counters.
func (cl *Cluster) Stats() Stats {
	var out Stats
	for _, n := range cl.nodes {
		s := &n.stats
		ns := NodeStats{
			Node: n.info.index + 1, Address: n.info.addr.String(), DC: n.info.dc, Rack: n.info.rack, Up: n.Running(), Paused: n.Paused(),
			Requests: map[string]int64{}, Batches: map[int]int64{},
			Statements: s.statements.Load(), RowsWritten: s.rows.Load(), RowsWrittenAsReplica: s.replicaRows.Load(), RowsWrittenOnShard: s.shardRows.Load(),
			BatchWarnings: s.warnings.Load(), BatchesRejected: s.batchRejected.Load(),
			BytesReceived: s.bytes.Load(), InjectedErrors: s.injected.Load(), Connections: s.connections.Load(),
		}
		for op := range s.requests {
			if v := s.requests[op].Load(); v > 0 {
				ns.Requests[opName(primitive.OpCode(op))] = v
			}
		}
		ns.Errors = errorCounts(&s.errors)
		rate, mode := n.Capacity()
		ns.Capacity = CapacityStats{RowsPerSec: rate, Mode: mode, Queued: n.queued.Load(), Errors: errorCounts(&s.capErrors)}
		s.batchMu.Lock()
		for k, v := range s.batches {
			ns.Batches[k] = v
		}
		s.batchMu.Unlock()
		out.Nodes = append(out.Nodes, ns)
	}
	return out
}

func opName(op primitive.OpCode) string {
	switch op {
	case primitive.OpCodeStartup:
		return "STARTUP"
	case primitive.OpCodeOptions:
		return "OPTIONS"
	case primitive.OpCodeQuery:
		return "QUERY"
	case primitive.OpCodePrepare:
		return "PREPARE"
	case primitive.OpCodeExecute:
		return "EXECUTE"
	case primitive.OpCodeRegister:
		return "REGISTER"
	case primitive.OpCodeBatch:
		return "BATCH"
	case primitive.OpCodeAuthResponse:
		return "AUTH_RESPONSE"
	}
	return "OPCODE_" + string("0123456789abcdef"[op>>4]) + string("0123456789abcdef"[op&15])
}

// ProcessStats describes the process hosting the cluster: when cqlsim runs
// as its own process (cmd/cqlsim), what the simulator costs the machine.
type ProcessStats struct {
	CPUUserSeconds   float64 `json:"cpu_user_seconds"`
	CPUSystemSeconds float64 `json:"cpu_system_seconds"`
	MaxRSSMiB        float64 `json:"max_rss_mib"`
	HeapMiB          float64 `json:"heap_mib"`
	Goroutines       int     `json:"goroutines"`
}

func processStats() *ProcessStats {
	ps := &ProcessStats{Goroutines: runtime.NumGoroutine()}
	ps.CPUUserSeconds, ps.CPUSystemSeconds, ps.MaxRSSMiB = resourceUsage()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	ps.HeapMiB = float64(ms.HeapAlloc) / (1 << 20)
	return ps
}

// StatsHandler serves Stats as JSON (GET /stats), with a "process" object
// of ProcessStats beside the nodes. It only reads; ControlHandler serves
// the same and the requests that change the nodes.
func (cl *Cluster) StatsHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /stats", cl.serveStats)
	return mux
}

func (cl *Cluster) serveStats(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, struct {
		Stats
		Process *ProcessStats `json:"process"`
	}{cl.Stats(), processStats()})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}
