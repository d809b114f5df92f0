package loader

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"time"

	"github.com/gocql/gocql"
)

// batch is a group of rows of one chunk sent as one request.
type batch struct {
	rows  []*row
	file  string
	plan  *plan
	state *chunkState
}

// WriteError is a failed write, with what the loader may do about it.
type WriteError struct {
	Err error
	// Retryable: the same request may succeed if sent again (timeouts,
	// overload, unavailable replicas, lost connections).
	Retryable bool
	// MayBeApplied: the cluster may have applied the write although it
	// reported a failure (timeouts). Harmless for idempotent inserts;
	// for counters a retry could count twice, so they are not retried.
	MayBeApplied bool
	// Invalid: the request itself was refused (a bad value, a batch too
	// large); splitting it finds the rows at fault.
	Invalid bool
}

func (e *WriteError) Error() string { return e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

// classify turns a driver error into a WriteError.
func classify(err error) *WriteError {
	we := &WriteError{Err: err}
	// The scylladb driver's error frames expose GetCode; upstream gocql's
	// expose Code (gocql.RequestError). Accept both.
	var reqErr interface{ GetCode() int }
	var upstream gocql.RequestError
	if !errors.As(err, &reqErr) && errors.As(err, &upstream) {
		reqErr = codeOf{upstream}
	}
	var netErr net.Error
	switch {
	case errors.Is(err, gocql.ErrTimeoutNoResponse), errors.Is(err, context.DeadlineExceeded):
		we.Retryable, we.MayBeApplied = true, true
	case errors.Is(err, gocql.ErrNoConnections), errors.Is(err, gocql.ErrConnectionClosed), errors.Is(err, gocql.ErrHostDown):
		// The request may have reached a node before the connection went.
		we.Retryable, we.MayBeApplied = true, true
	case reqErr != nil:
		switch reqErr.GetCode() {
		case gocql.ErrCodeUnavailable, gocql.ErrCodeOverloaded, gocql.ErrCodeBootstrapping, gocql.ErrCodeTruncate:
			we.Retryable = true // refused before anything was written
		case gocql.ErrCodeWriteTimeout, gocql.ErrCodeReadTimeout, gocql.ErrCodeServer, gocql.ErrCodeWriteFailure:
			we.Retryable, we.MayBeApplied = true, true
		case gocql.ErrCodeInvalid, gocql.ErrCodeSyntax, gocql.ErrCodeProtocol:
			we.Invalid = true
		}
	case errors.As(err, &netErr):
		we.Retryable, we.MayBeApplied = true, true
	}
	return we
}

type codeOf struct{ gocql.RequestError }

func (c codeOf) GetCode() int { return c.Code() }

// send writes one batch, retrying and splitting as needed, and accounts
// for every row in it exactly once.
func (l *Loader) send(ctx context.Context, b *batch) {
	if l.dropping.Load() || ctx.Err() != nil {
		l.abortRows(b, b.rows)
		return
	}
	l.writeRows(ctx, b, b.rows)
}

func (l *Loader) writeRows(ctx context.Context, b *batch, rows []*row) {
	for attempt := 1; ; attempt++ {
		if l.limiter != nil {
			if err := l.limiter.WaitN(ctx, len(rows)); err != nil {
				l.abortRows(b, rows)
				return
			}
		}
		start := time.Now()
		err := l.exec(ctx, b.plan, rows)
		l.tracker.observe(time.Since(start))
		if err == nil {
			bytes := 0
			for _, r := range rows {
				bytes += r.size
			}
			l.tracker.acked(b.state, len(rows), bytes)
			l.release(b.state, len(rows))
			return
		}
		if ctx.Err() != nil {
			l.abortRows(b, rows)
			return
		}
		we := classify(err)
		if we.Retryable && !(we.MayBeApplied && b.plan.counter) && attempt < l.opts.MaxAttempts && !l.dropping.Load() {
			l.tracker.retries.Add(1)
			if !sleepCtx(ctx, l.backoff(attempt)) {
				l.abortRows(b, rows)
				return
			}
			continue
		}
		if we.Invalid && len(rows) > 1 {
			// Bisect: only the rows that are really bad get rejected.
			half := len(rows) / 2
			l.writeRows(ctx, b, rows[:half])
			l.writeRows(ctx, b, rows[half:])
			return
		}
		reason := err.Error()
		if we.MayBeApplied && b.plan.counter {
			reason += " (counter update not retried: it may have been applied; check the counter before loading this row again)"
		} else if we.Retryable {
			reason = fmt.Sprintf("%s (after %d attempts)", reason, attempt)
		}
		l.rejectInsert(b, rows, reason)
		return
	}
}

// exec sends rows as one request: a plain EXECUTE for one row, else an
// UNLOGGED (or COUNTER) batch of the prepared statement.
func (l *Loader) exec(ctx context.Context, p *plan, rows []*row) error {
	if len(rows) == 1 {
		q := l.session.Query(p.stmt, rows[0].values...).WithContext(ctx).
			Consistency(l.opts.Consistency).Idempotent(!p.counter)
		err := q.Exec()
		q.Release()
		return err
	}
	typ := gocql.UnloggedBatch
	if p.counter {
		typ = gocql.CounterBatch
	}
	bt := l.session.Batch(typ).WithContext(ctx)
	bt.SetConsistency(l.opts.Consistency)
	bt.Entries = make([]gocql.BatchEntry, len(rows))
	for i, r := range rows {
		bt.Entries[i] = gocql.BatchEntry{Stmt: p.stmt, Args: r.values, Idempotent: !p.counter}
	}
	return l.session.ExecuteBatch(bt)
}

// backoff is exponential with full jitter, so that clients retrying after
// one overload do not come back in step.
func (l *Loader) backoff(attempt int) time.Duration {
	d := l.opts.Backoff << (attempt - 1)
	if d <= 0 || d > l.opts.MaxBackoff {
		d = l.opts.MaxBackoff
	}
	return time.Duration(rand.Int64N(int64(d) + 1))
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
