package loader

import "time"

// verdict is what the write path does after a failed attempt. decide is
// the one place that chooses it, from the attempt's state alone, so that
// every rule can be read, and tested, without a cluster; writeRows
// carries it out.
type verdict int

const (
	// doRetry: wait the backoff and send the rows again.
	doRetry verdict = iota
	// doSplit: the cluster refused the request itself (a bad value, a
	// batch too large); each half is sent on its own, so that only the
	// rows at fault are rejected.
	doSplit
	// doUnknown: a counter update that may have been applied. It is never
	// sent again (it could count twice) and its rows are reported
	// unknown.
	doUnknown
	// doReject: an error no retry can fix; the rows are insert errors.
	doReject
	// doExhausted: MAXATTEMPTS or the retry window ran out while the
	// cluster answers others: the failures are the batch's own, and its
	// rows are insert errors.
	doExhausted
	// doSilent: no node answered any request for a whole retry
	// window. The run stops, and the rows are not sent (or unknown),
	// never insert errors: they are not at fault.
	doSilent
	// doStopped: the run is stopping; the rows are not sent (or unknown).
	doStopped
)

var verdictNames = [...]string{"retry", "split", "unknown", "reject", "exhausted", "silent cluster", "stopped"}

func (v verdict) String() string { return verdictNames[v] }

// failedAttempt is what decide reads of a batch's failed attempt.
type failedAttempt struct {
	err     *WriteError
	counter bool // a counter update: not idempotent
	rows    int  // rows in the request
	// attempt counts from 1; maxAttempts is MAXATTEMPTS (0: no bound).
	attempt, maxAttempts int
	// retried is the running time since the batch first failed, window
	// the retry window; silent is how long no node has answered any
	// request (read only once retried reaches window), maxBackoff the
	// longest wait between attempts.
	retried, window, silent, maxBackoff time.Duration
	stopping                            bool // the run's context ended, or it was told to stop
}

// decide is the verdict on a failed attempt. The order is the rules'
// precedence: a refused request is split before anything else (a bad
// row must not hold good ones back); a counter update that may have
// been applied is never sent again, whatever else holds; an error no
// retry can fix is final; then the bounds on retrying, and the run's
// own stop.
func decide(f failedAttempt) verdict {
	switch {
	case f.err.Invalid && f.rows > 1:
		return doSplit
	case f.err.MayBeApplied && f.counter:
		return doUnknown
	case !f.err.Retryable:
		return doReject
	case f.maxAttempts > 0 && f.attempt >= f.maxAttempts:
		return doExhausted
	case f.retried >= f.window:
		switch atWindowEnd(f.silent, f.window, f.maxBackoff) {
		case clusterIsSilent:
			return doSilent
		case batchAtFault:
			return doExhausted
		}
		// The cluster went quiet since the batch first failed: wait
		// for it (a stop ends the wait at the backoff).
		return doRetry
	case f.stopping:
		return doStopped
	}
	return doRetry
}
