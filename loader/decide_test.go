package loader

import (
	"testing"
	"time"
)

// TestDecide: the verdict on every kind of failed attempt, and the
// precedence of the rules where several hold.
func TestDecide(t *testing.T) {
	var (
		invalid    = &WriteError{Invalid: true, Answered: true}
		timeout    = &WriteError{Retryable: true, MayBeApplied: true, Saturated: true}
		overloaded = &WriteError{Retryable: true, Saturated: true, Answered: true}
		refused    = &WriteError{Retryable: true} // no connection: nothing sent
		final      = &WriteError{Answered: true}  // e.g. unauthorized
	)
	const window = time.Minute
	base := func(err *WriteError) failedAttempt {
		return failedAttempt{err: err, rows: 10, attempt: 1, maxAttempts: 5, retried: time.Second, window: window, maxBackoff: 10 * time.Second}
	}
	with := func(f failedAttempt, change func(*failedAttempt)) failedAttempt { change(&f); return f }
	for _, tc := range []struct {
		name string
		f    failedAttempt
		want verdict
	}{
		{"a refused batch is split", base(invalid), doSplit},
		{"a refused single row is rejected", with(base(invalid), func(f *failedAttempt) { f.rows = 1 }), doReject},
		{"split even on the last attempt", with(base(invalid), func(f *failedAttempt) { f.attempt = 5 }), doSplit},
		{"split even while stopping", with(base(invalid), func(f *failedAttempt) { f.stopping = true }), doSplit},
		{"an insert that timed out is retried", base(timeout), doRetry},
		{"a counter update that timed out is unknown", with(base(timeout), func(f *failedAttempt) { f.counter = true }), doUnknown},
		{"unknown comes before the attempts' bound", with(base(timeout), func(f *failedAttempt) { f.counter, f.attempt = true, 5 }), doUnknown},
		{"unknown comes before the stop", with(base(timeout), func(f *failedAttempt) { f.counter, f.stopping = true, true }), doUnknown},
		{"a counter update refused unapplied is retried", with(base(overloaded), func(f *failedAttempt) { f.counter = true }), doRetry},
		{"an error no retry fixes is final", base(final), doReject},
		{"final even for counters", with(base(final), func(f *failedAttempt) { f.counter = true }), doReject},
		{"MAXATTEMPTS reached", with(base(overloaded), func(f *failedAttempt) { f.attempt = 5 }), doExhausted},
		{"MAXATTEMPTS 0 bounds nothing", with(base(overloaded), func(f *failedAttempt) { f.attempt, f.maxAttempts = 500, 0 }), doRetry},
		{"the window closed, the cluster answers others", with(base(refused), func(f *failedAttempt) { f.retried, f.silent = window, 0 }), doExhausted},
		{"the window closed, no node answered for a window", with(base(refused), func(f *failedAttempt) { f.retried, f.silent = window, window }), doSilent},
		{"the window closed, the cluster went quiet since", with(base(refused), func(f *failedAttempt) { f.retried, f.silent = window, 40*time.Second }), doRetry},
		{"the window's verdict comes before the stop", with(base(refused), func(f *failedAttempt) { f.retried, f.silent, f.stopping = window, 0, true }), doExhausted},
		{"stopping", with(base(overloaded), func(f *failedAttempt) { f.stopping = true }), doStopped},
		{"a lost connection is retried", base(refused), doRetry},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := decide(tc.f); got != tc.want {
				t.Errorf("decide = %v, want %v", got, tc.want)
			}
		})
	}
}
