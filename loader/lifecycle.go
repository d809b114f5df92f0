package loader

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// lifecycle is the one place that decides how a run ends. A run moves
// through these states, only forward:
//
//	running    reading, converting, sending.
//	draining   nothing more is read; the rows read are still sent.
//	           An abort that leaves them to be written ends here
//	           (MAXPARSEERRORS, a damaged input, a report file), and so
//	           does --duration, whose rows not sent by then are skipped
//	           instead (skipping).
//	stopping   no new request is sent: queued batches settle as not
//	           sent, and retries give up instead of waiting. An
//	           interrupt (the run's context ends), or an abort whose
//	           rows must not be sent (the ledger cannot record them,
//	           MAXINSERTERRORS, the table is gone).
//	cancelled  requests in flight are cancelled; their rows are unknown.
//	           A silent cluster at once; an interrupt after drainTimeout,
//	           so that the answers already on their way still count.
//
// Why the run ended is separate from how far it stopped: the first abort
// reason wins, an interrupt is the context's cause, and a run with
// neither completed (outcome).
type lifecycle struct {
	mu    sync.Mutex
	state atomic.Int32 // a runState; written under mu
	// skip: --duration ended the run, an orderly end: rows not sent are
	// skipped (RowsNotSentByDuration), not failed.
	skip    atomic.Bool
	aborted atomic.Pointer[AbortError]

	stopRead    context.CancelFunc // ends the reader's context; set by start
	cancelSends context.CancelFunc // ends the requests' context; set by start
	stoppingC   chan struct{}      // closed on entering stopping
}

type runState int32

const (
	running runState = iota
	draining
	stopping
	cancelled
)

func newLifecycle() *lifecycle {
	return &lifecycle{stoppingC: make(chan struct{})}
}

// start begins a run under ctx: it returns the reader's context and the
// requests' one, which an interrupt (ctx ending) does not cancel at
// once, and arms --duration when it is positive. end releases them.
func (lc *lifecycle) start(ctx context.Context, duration time.Duration) (readCtx, sendCtx context.Context, end func()) {
	readCtx, stopRead := context.WithCancel(ctx)
	sendCtx, cancelSends := context.WithCancel(context.WithoutCancel(ctx))
	lc.mu.Lock()
	lc.stopRead, lc.cancelSends = stopRead, cancelSends
	lc.enter(runState(lc.state.Load())) // an abort before the start holds
	lc.mu.Unlock()

	var drain *time.Timer
	var drainMu sync.Mutex
	stopOnInterrupt := context.AfterFunc(ctx, func() {
		lc.advance(stopping)
		drainMu.Lock()
		drain = time.AfterFunc(drainTimeout, func() { lc.advance(cancelled) })
		drainMu.Unlock()
	})
	var timer *time.Timer
	if duration > 0 {
		timer = time.AfterFunc(duration, func() {
			lc.skip.Store(true)
			lc.advance(draining)
		})
	}
	return readCtx, sendCtx, func() {
		stopOnInterrupt()
		if timer != nil {
			timer.Stop()
		}
		drainMu.Lock()
		if drain != nil {
			drain.Stop()
		}
		drainMu.Unlock()
		stopRead()
		cancelSends()
	}
}

// abort ends the run for reason, as far as to (at least draining). The
// first reason is the one reported.
func (lc *lifecycle) abort(reason string, fatal bool, to runState) {
	lc.aborted.CompareAndSwap(nil, &AbortError{Reason: reason, Fatal: fatal})
	lc.advance(max(to, draining))
}

// advance moves the run to state to, unless it is there or beyond.
func (lc *lifecycle) advance(to runState) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if to > runState(lc.state.Load()) {
		lc.state.Store(int32(to))
		lc.enter(to)
	}
}

// enter does what state s means; under mu. Each step is idempotent.
func (lc *lifecycle) enter(s runState) {
	if s >= draining && lc.stopRead != nil {
		lc.stopRead()
	}
	if s >= stopping {
		select {
		case <-lc.stoppingC:
		default:
			close(lc.stoppingC)
		}
	}
	if s >= cancelled && lc.cancelSends != nil {
		lc.cancelSends()
	}
}

// stopped reports whether new requests are refused (stopping or beyond).
func (lc *lifecycle) stopped() bool { return runState(lc.state.Load()) >= stopping }

// stoppingDone is closed once the run is stopping: waits select on it.
func (lc *lifecycle) stoppingDone() <-chan struct{} { return lc.stoppingC }

// skipping reports whether --duration ended the run: rows not yet sent
// are skipped, not failed.
func (lc *lifecycle) skipping() bool { return lc.skip.Load() }

// complete reports whether the run under ctx ended without an abort or
// an interrupt (rows may still have failed).
func (lc *lifecycle) complete(ctx context.Context) bool {
	return lc.aborted.Load() == nil && ctx.Err() == nil
}

// outcome is why the run under ctx ended: the abort, the interrupt (with
// what caused it, the CLI's signal say), or nil for a complete run; and
// the text the summary gives it.
func (lc *lifecycle) outcome(ctx context.Context) (aborted string, err error) {
	if a := lc.aborted.Load(); a != nil {
		return a.Reason, a
	}
	if err := ctx.Err(); err != nil {
		aborted = "interrupted"
		if cause := context.Cause(ctx); cause != err {
			aborted = cause.Error()
		}
		return aborted, err
	}
	return "", nil
}
