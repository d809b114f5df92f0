package loader

import (
	"context"
	"errors"
	"testing"
	"time"
)

func done(ctx context.Context) bool { return ctx.Err() != nil }

func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// TestLifecycleStates: each way a run ends leaves it in the state the
// lifecycle's table gives, with what that state means done, and the
// first reason reported.
func TestLifecycleStates(t *testing.T) {
	type want struct {
		readDone, stopped, sendDone, skipping bool
		aborted                               string
		fatal                                 bool
	}
	cases := []struct {
		name string
		do   func(lc *lifecycle)
		want want
	}{
		{"nothing", func(*lifecycle) {}, want{}},
		{"MAXPARSEERRORS drains", func(lc *lifecycle) { lc.abort("too many parse errors", false, draining) },
			want{readDone: true, aborted: "too many parse errors"}},
		{"an abort is at least draining", func(lc *lifecycle) { lc.abort("r", false, running) },
			want{readDone: true, aborted: "r"}},
		{"MAXINSERTERRORS stops", func(lc *lifecycle) { lc.abort("too many insert errors", false, stopping) },
			want{readDone: true, stopped: true, aborted: "too many insert errors"}},
		{"a silent cluster cancels", func(lc *lifecycle) { lc.abort("silent", true, cancelled) },
			want{readDone: true, stopped: true, sendDone: true, aborted: "silent", fatal: true}},
		{"the first reason wins, the furthest state holds", func(lc *lifecycle) {
			lc.abort("input", true, draining)
			lc.abort("ledger", false, stopping)
			lc.abort("later", false, draining)
		}, want{readDone: true, stopped: true, aborted: "input", fatal: true}},
		{"states only move forward", func(lc *lifecycle) {
			lc.advance(stopping)
			lc.advance(draining)
		}, want{readDone: true, stopped: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			lc := newLifecycle()
			readCtx, sendCtx, end := lc.start(context.Background(), 0)
			defer end()
			tc.do(lc)
			got := want{readDone: done(readCtx), stopped: lc.stopped(), sendDone: done(sendCtx), skipping: lc.skipping()}
			if closed(lc.stoppingDone()) != got.stopped {
				t.Errorf("stoppingDone closed = %v, stopped() = %v", !got.stopped, got.stopped)
			}
			reason, err := lc.outcome(context.Background())
			got.aborted = reason
			var ae *AbortError
			if errors.As(err, &ae) {
				got.fatal = ae.Fatal
			} else if err != nil || reason != "" {
				t.Errorf("outcome = %q, %v; want an *AbortError or nothing", reason, err)
			}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			if lc.complete(context.Background()) != (tc.want.aborted == "") {
				t.Errorf("complete = %v with abort %q", !(tc.want.aborted == ""), tc.want.aborted)
			}
		})
	}
}

// TestLifecycleAbortBeforeStart: an abort before the run starts (the
// ledger failing while it opens) holds once it starts.
func TestLifecycleAbortBeforeStart(t *testing.T) {
	lc := newLifecycle()
	lc.abort("ledger", true, stopping)
	readCtx, sendCtx, end := lc.start(context.Background(), 0)
	defer end()
	if !done(readCtx) || !lc.stopped() || done(sendCtx) {
		t.Fatalf("read done %v, stopped %v, send done %v; want true, true, false", done(readCtx), lc.stopped(), done(sendCtx))
	}
}

// TestLifecycleInterrupt: an interrupt stops new requests at once and
// cancels those in flight after drainTimeout, not before; the outcome is
// the context's cause.
func TestLifecycleInterrupt(t *testing.T) {
	lc := newLifecycle()
	ctx, cancel := context.WithCancelCause(context.Background())
	readCtx, sendCtx, end := lc.start(ctx, 0)
	defer end()
	start := time.Now()
	cancel(errors.New("interrupt"))
	<-lc.stoppingDone()
	if !done(readCtx) {
		t.Error("an interrupted run still reads")
	}
	if done(sendCtx) && time.Since(start) < drainTimeout {
		t.Error("requests in flight were cancelled before drainTimeout")
	}
	select {
	case <-sendCtx.Done():
	case <-time.After(drainTimeout + time.Minute):
		t.Fatal("requests in flight never cancelled")
	}
	if reason, err := lc.outcome(ctx); reason != "interrupt" || !errors.Is(err, context.Canceled) {
		t.Errorf("outcome = %q, %v; want the cause and context.Canceled", reason, err)
	}
	if lc.complete(ctx) {
		t.Error("an interrupted run is complete")
	}
}

// TestLifecycleDuration: --duration drains in order: reading stops, rows
// not sent are skipped, requests keep going, and the run is no abort.
func TestLifecycleDuration(t *testing.T) {
	lc := newLifecycle()
	readCtx, sendCtx, end := lc.start(context.Background(), time.Millisecond)
	defer end()
	<-readCtx.Done()
	if !lc.skipping() || lc.stopped() || done(sendCtx) {
		t.Errorf("skipping %v, stopped %v, send done %v; want true, false, false", lc.skipping(), lc.stopped(), done(sendCtx))
	}
	if reason, err := lc.outcome(context.Background()); reason != "" || err != nil {
		t.Errorf("outcome = %q, %v; want a complete run", reason, err)
	}
}

// TestLifecycleEnd: end releases the contexts; a stop afterwards is
// harmless.
func TestLifecycleEnd(t *testing.T) {
	lc := newLifecycle()
	readCtx, sendCtx, end := lc.start(context.Background(), time.Hour)
	end()
	if !done(readCtx) || !done(sendCtx) {
		t.Error("end left a context running")
	}
	lc.abort("late", true, cancelled)
	if !lc.stopped() {
		t.Error("a late abort was lost")
	}
}
