package cqlsim

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
)

// Capacity: a node coordinates at most Config.Capacity rows per second,
// measured by a token bucket of one token per row that refills at that
// rate and holds a burst of 20 ms worth of rows (at least one). A BATCH of
// k statements costs k tokens, any other data request (EXECUTE, or QUERY
// on a user table, reads included) one. A request needs min(k, burst)
// tokens in the bucket and takes k, so a batch larger than the burst goes
// when the bucket is full and leaves it in debt. Requests that do not
// touch user data (OPTIONS, STARTUP, PREPARE, system tables, schema
// changes) are never limited, so drivers connect and keep their control
// connection whatever the load.
//
// Over capacity the node does what OverloadMode says. The queue is kept
// as a virtual clock rather than as goroutines: a request that must wait
// is given its turn on arrival (when the bucket will hold its tokens),
// is executed at once or dropped, and its answer is held until the time
// a FIFO queue served at the capacity rate would send it. The client
// sees the queue's latency, order and timeouts; a reader on another
// connection may see a queued write before it is acknowledged, and
// RowsWritten runs ahead of the acknowledgements by the queue's length.
// The answer is held by the connection's delayed-response writer, the
// one that serves injected latency, so nothing is spent per request
// beyond what exists.
//
// In queue mode the deadline is Config.WriteTimeout from the moment the
// node read the request, as Cassandra counts write_request_timeout from
// the request's arrival. The rule for what a timed-out request did:
//   - its turn comes after its deadline: it never reaches the head of the
//     queue. It is dropped, as Cassandra drops a request that expired while
//     queued: not applied, no tokens spent, answered WriteTimeout
//     (ReadTimeout for a read) when the deadline passes;
//   - its turn comes before its deadline but its rows take it past it (a
//     batch larger than the burst, served at the capacity rate): it is
//     applied, and answered WriteTimeout at the deadline, as a coordinator
//     whose replicas acknowledged too late. A client must treat a
//     WriteTimeout as possibly applied;
//   - otherwise it is applied and answered when its rows are through.
//
// At most Config.QueueLimit requests wait for their answer on a node;
// beyond that it sheds (Overloaded), so the queue is bounded in memory.

// OverloadMode says what a node does with a data request beyond its
// capacity.
type OverloadMode string

const (
	// OverloadShed answers Overloaded at once, as a Scylla shard or a
	// Cassandra node with a full native-transport queue does.
	OverloadShed OverloadMode = "shed"
	// OverloadQueue queues the request (FIFO, served at the capacity
	// rate); one that would wait past Config.WriteTimeout is answered
	// WriteTimeout (see the rule above).
	OverloadQueue OverloadMode = "queue"
	// OverloadTimeout holds the request for Config.WriteTimeout and
	// answers WriteTimeout (ReadTimeout for a read), not applied.
	OverloadTimeout OverloadMode = "timeout"
)

// ParseOverloadMode reads shed, queue or timeout; "" is shed.
func ParseOverloadMode(s string) (OverloadMode, error) {
	switch m := OverloadMode(s); m {
	case "":
		return OverloadShed, nil
	case OverloadShed, OverloadQueue, OverloadTimeout:
		return m, nil
	}
	return "", fmt.Errorf("unknown overload mode %q (want shed, queue or timeout)", s)
}

const (
	// defaultWriteTimeout is Cassandra's write_request_timeout_in_ms.
	defaultWriteTimeout = 2 * time.Second
	defaultQueueLimit   = 10000
	// burstWindow sizes the bucket: this long at the capacity rate.
	burstWindow = 20 * time.Millisecond
	// maxCapacity keeps a row's cost at one nanosecond or more.
	maxCapacity = int(time.Second)
)

// limiter is a node's token bucket, kept as the time its debt is paid
// (GCRA): the bucket is full from tat on and holds (tat-now)/per tokens
// fewer before. Its settings never change; SetCapacity replaces it.
type limiter struct {
	rate  int
	per   int64 // nanoseconds per row
	burst int64 // rows
	mode  OverloadMode
	// tat is in nanoseconds since the node's epoch (monotonic).
	tat atomic.Int64
}

func newLimiter(rate int, mode OverloadMode) *limiter {
	per := int64(time.Second) / int64(rate)
	return &limiter{rate: rate, per: per, burst: max(1, int64(burstWindow)/per), mode: mode}
}

func checkCapacity(rowsPerSec int) error {
	if rowsPerSec < 0 || rowsPerSec > maxCapacity {
		return fmt.Errorf("capacity %d rows/s is not in [0, %d] (0: unlimited)", rowsPerSec, maxCapacity)
	}
	return nil
}

// SetCapacity limits the rows the node coordinates per second (0:
// unlimited) and says what it does beyond (mode "" keeps the current
// one). The new bucket starts full; answers already held keep their time.
func (n *Node) SetCapacity(rowsPerSec int, mode OverloadMode) error {
	if err := checkCapacity(rowsPerSec); err != nil {
		return fmt.Errorf("cqlsim: node %d: %w", n.info.index+1, err)
	}
	n.capMu.Lock()
	defer n.capMu.Unlock()
	if mode == "" {
		mode = n.overload
	}
	m, err := ParseOverloadMode(string(mode))
	if err != nil {
		return fmt.Errorf("cqlsim: node %d: %w", n.info.index+1, err)
	}
	n.overload = m
	if rowsPerSec == 0 {
		n.limit.Store(nil)
	} else {
		n.limit.Store(newLimiter(rowsPerSec, m))
	}
	return nil
}

// Capacity returns the node's capacity in rows per second (0: unlimited)
// and its overload mode.
func (n *Node) Capacity() (rowsPerSec int, mode OverloadMode) {
	n.capMu.Lock()
	defer n.capMu.Unlock()
	if l := n.limit.Load(); l != nil {
		rowsPerSec = l.rate
	}
	return rowsPerSec, n.overload
}

// admit passes a data request of rows rows through the node's capacity;
// callers check n.limit first, so an unlimited node costs one atomic
// load. It returns the error to answer instead of executing (apply
// false), or apply true and possibly late, the WriteTimeout to answer
// once the request is executed. A held answer's delay goes into
// sess.answerIn and counts in the node's queue until it is written.
func (n *Node) admit(l *limiter, sess *session, rows int, cl primitive.ConsistencyLevel, wk writeKind) (e message.Error, late message.Error, apply bool) {
	k := max(int64(rows), 1)
	need := min(k, l.burst)
	now := int64(time.Since(n.epoch))
	timeout := n.writeTimeout
	held := false
	defer func() {
		if held && sess.answerIn == 0 {
			n.queued.Add(-1) // a reservation not used
		}
	}()
	for {
		tat := l.tat.Load()
		base := max(tat, now)
		// turn: when the bucket holds need tokens; done: when the debt is
		// back within the burst, i.e. the request's rows are through.
		turn := max(now, base-(l.burst-need)*l.per)
		done := max(turn, base+(k-l.burst)*l.per)
		switch {
		case turn == now && done == now:
			// Within capacity: executed and answered at once.
		case l.mode == OverloadShed:
			if turn > now {
				return n.capacityError(overloaded(l), 0, sess), nil, false
			}
			// A batch larger than the burst, with the bucket full: it
			// goes, and leaves the bucket in debt.
			done = now
		case l.mode == OverloadTimeout:
			if turn > now {
				if !held && !n.reserve() {
					return n.capacityError(overloaded(l), 0, sess), nil, false
				}
				held = true
				return n.capacityError(timedOutErr(l, cl, wk, timeout), timeout, sess), nil, false
			}
			done = now
		default: // queue
			if !held && !n.reserve() {
				return n.capacityError(overloaded(l), 0, sess), nil, false
			}
			held = true
			if time.Duration(turn-now) > timeout {
				// Dropped: it never reaches the head of the queue.
				return n.capacityError(timedOutErr(l, cl, wk, timeout), timeout, sess), nil, false
			}
		}
		if !l.tat.CompareAndSwap(tat, base+k*l.per) {
			continue
		}
		wait := time.Duration(done - now)
		if wait > timeout {
			// Applied, but its rows took it past the deadline.
			sess.answerIn = timeout
			late = timedOutErr(l, cl, wk, timeout)
		} else {
			sess.answerIn = wait
		}
		return nil, late, true
	}
}

// reserve takes a place in the node's queue of held answers, if there is one.
func (n *Node) reserve() bool {
	if n.queued.Add(1) > int64(n.queueLimit) {
		n.queued.Add(-1)
		return false
	}
	return true
}

// capacityError counts e and holds its answer for hold.
func (n *Node) capacityError(e message.Error, hold time.Duration, sess *session) message.Error {
	n.stats.capErrors[errorIndex(e.GetErrorCode())].Add(1)
	sess.answerIn = hold
	return e
}

func overloaded(l *limiter) message.Error {
	return &message.Overloaded{ErrorMessage: fmt.Sprintf(
		"Server is in overloaded state. Cannot accept more requests at this point (cqlsim: over the node's capacity of %d rows/s)", l.rate)}
}

func timedOutErr(l *limiter, cl primitive.ConsistencyLevel, wk writeKind, timeout time.Duration) message.Error {
	why := fmt.Sprintf(" (cqlsim: over the node's capacity of %d rows/s, %s mode, timeout %v)", l.rate, l.mode, timeout)
	if wk == readKind {
		return &message.ReadTimeout{ErrorMessage: "Operation timed out - received only 0 responses." + why,
			Consistency: cl, Received: 0, BlockFor: 1}
	}
	e, _ := errorForKind("write_timeout", cl, wk)
	wt := e.(*message.WriteTimeout)
	wt.ErrorMessage = "Operation timed out - received only 0 responses." + why
	return wt
}

// lateAnswer is what a request admitted with late answers: late, counted,
// instead of its result, unless the request failed anyway.
func (n *Node) lateAnswer(msg message.Message, late message.Error) message.Message {
	if late == nil {
		return msg
	}
	if _, failed := msg.(message.Error); failed {
		return msg
	}
	n.stats.capErrors[errorIndex(late.GetErrorCode())].Add(1)
	return late
}
