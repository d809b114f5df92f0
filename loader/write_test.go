package loader

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlload/cqlload/internal/limit"
)

// codeErr stands in for a driver error frame.
type codeErr int

func (c codeErr) Error() string { return fmt.Sprintf("code %#x", int(c)) }
func (c codeErr) GetCode() int  { return int(c) }

func TestClassify(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("exec: %w", err) }
	tests := []struct {
		name                             string
		err                              error
		retryable, mayBeApplied, invalid bool
		answered                         bool // an error frame: a node answered
	}{
		{"overloaded", codeErr(gocql.ErrCodeOverloaded), true, false, false, true},
		{"unavailable wrapped", wrap(codeErr(gocql.ErrCodeUnavailable)), true, false, false, true},
		{"write timeout", codeErr(gocql.ErrCodeWriteTimeout), true, true, false, true},
		{"server error", codeErr(gocql.ErrCodeServer), true, true, false, true},
		{"invalid", wrap(codeErr(gocql.ErrCodeInvalid)), false, false, true, true},
		{"no response", gocql.ErrTimeoutNoResponse, true, true, false, false},
		{"deadline", context.DeadlineExceeded, true, true, false, false},
		{"no connections: nothing sent", gocql.ErrNoConnections, true, false, false, false},
		{"connection closed after sending", gocql.ErrConnectionClosed, true, true, false, false},
		{"EOF mid-request", wrap(io.EOF), true, true, false, false},
		{"heartbeat failed", errors.New("gocql: heartbeat failed"), true, true, false, false},
		{"cancelled in flight", context.Canceled, true, true, false, false},
		{"unauthorized: final", codeErr(gocql.ErrCodeUnauthorized), false, false, false, true},
	}
	for _, tt := range tests {
		we := classify(tt.err)
		if we.Retryable != tt.retryable || we.MayBeApplied != tt.mayBeApplied || we.Invalid != tt.invalid {
			t.Errorf("%s: classify = %+v, want retryable %v mayBeApplied %v invalid %v", tt.name, we, tt.retryable, tt.mayBeApplied, tt.invalid)
		}
		if we.Answered != tt.answered {
			t.Errorf("%s: classify says answered %v, want %v", tt.name, we.Answered, tt.answered)
		}
	}
}

// TestAttemptTimeout: inserts wait for the coordinator's retransmission
// timeout, as long as it is under RequestTimeout; counter updates, fixed
// limits and timeouts reaching RequestTimeout leave the session's.
func TestAttemptTimeout(t *testing.T) {
	l := &Loader{opts: Options{RequestTimeout: 10 * time.Second}}
	adaptive := limit.New(limit.Config{}) // no answer yet: 1 s, doubled per attempt
	fixed := limit.New(limit.Config{Fixed: true})
	tests := []struct {
		name    string
		counter bool
		coord   *limit.Limiter
		attempt int
		want    time.Duration
	}{
		{"insert, first attempt", false, adaptive, 1, time.Second},
		{"insert, fourth attempt", false, adaptive, 4, 8 * time.Second},
		{"insert, past the request timeout", false, adaptive, 5, 0},
		{"counter update", true, adaptive, 1, 0},
		{"fixed limit", false, fixed, 1, 0},
	}
	for _, tc := range tests {
		if got := l.attemptTimeout(&plan{counter: tc.counter}, tc.coord, tc.attempt); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestAtWindowEnd(t *testing.T) {
	const s = time.Second
	tests := []struct {
		name                       string
		silent, window, maxBackoff time.Duration
		want                       windowEnd
	}{
		{"others answered just now", 0, 60 * s, 2 * s, batchAtFault},
		{"quiet for less than a backoff", 1900 * time.Millisecond, 60 * s, 2 * s, batchAtFault},
		{"quiet for a backoff: an outage that began since", 2 * s, 60 * s, 2 * s, retryOn},
		{"quiet for most of a window", 59 * s, 60 * s, 2 * s, retryOn},
		{"quiet for a whole window", 60 * s, 60 * s, 2 * s, clusterIsSilent},
		{"quiet for longer", 5 * time.Minute, 60 * s, 2 * s, clusterIsSilent},
		// A window shorter than two backoffs: half the window decides.
		{"short window, quiet under half of it", 1400 * time.Millisecond, 3 * s, 2 * s, batchAtFault},
		{"short window, quiet for half of it", 1500 * time.Millisecond, 3 * s, 2 * s, retryOn},
		{"short window, quiet for all of it", 3 * s, 3 * s, 2 * s, clusterIsSilent},
	}
	for _, tc := range tests {
		if got := atWindowEnd(tc.silent, tc.window, tc.maxBackoff); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestOneStatement(t *testing.T) {
	ins := &plan{stmt: "INSERT INTO ks.t (k,v) VALUES (?,?)"}
	cnt := &plan{stmt: "UPDATE ks.c SET n=n+? WHERE k=?", counter: true}
	rowsOf := func(n, values int) []*row {
		rows := make([]*row, n)
		for i := range rows {
			rows[i] = &row{values: make([]any, values)}
			for j := range values {
				rows[i].values[j] = i*values + j
			}
		}
		return rows
	}
	own := rowsOf(3, 2)
	own[1].stmt = "INSERT INTO ks.t (k) VALUES (?)"
	tests := []struct {
		name       string
		p          *plan
		rows       []*row
		statements bool // Loader.statementBatches
		want       string
		ok         bool
	}{
		{"one row: its statement", ins, rowsOf(1, 2), true, ins.stmt, true},
		{"one row with its own statement", ins, own[1:2], false, own[1].stmt, true},
		{"rows: a batch statement", ins, rowsOf(3, 2), true,
			"BEGIN UNLOGGED BATCH " + ins.stmt + "; " + ins.stmt + "; " + ins.stmt + "; APPLY BATCH", true},
		{"counter updates", cnt, rowsOf(2, 2), true, "BEGIN COUNTER BATCH " + cnt.stmt + "; " + cnt.stmt + "; APPLY BATCH", true},
		{"not routable as a statement: entries", ins, rowsOf(3, 2), false, "", false},
		{"a row with its own statement: entries", ins, own, true, "", false},
		{"more rows than statements are prepared for", ins, rowsOf(maxBatchStatementRows+1, 1), true, "", false},
		{"the most rows", ins, rowsOf(maxBatchStatementRows, 1), true, ins.batchStatement(maxBatchStatementRows), true},
		{"more values than a request binds", ins, rowsOf(100, maxBindValues/100+1), true, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := &Loader{statementBatches: tt.statements}
			// A recycled buffer, still holding an earlier batch's values.
			buf := l.bindBuf()
			*buf = append(make([]any, 0, 8), "stale")
			stmt, vals, ok := l.oneStatement(tt.p, tt.rows, buf)
			if ok != tt.ok || stmt != tt.want {
				t.Fatalf("got %q, %v; want %q, %v", stmt, ok, tt.want, tt.ok)
			}
			backing := (*buf)[:cap(*buf)]
			if ok {
				if len(tt.rows) > 1 && &vals[0] != &backing[0] {
					t.Error("a batch statement's values were not laid out in the buffer")
				}
				// The rows' values, one row after another.
				var want []any
				for _, r := range tt.rows {
					want = append(want, r.values...)
				}
				if fmt.Sprint(vals) != fmt.Sprint(want) {
					t.Errorf("values %v, want %v", vals, want)
				}
			}
			l.putBindBuf(buf)
			for i, v := range backing {
				if v != nil {
					t.Fatalf("recycled buffer still holds %v at %d", v, i)
				}
			}
		})
	}
}
