package loader

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlload/cqlload/internal/limit"
	"github.com/cqlload/cqlload/loader/internal/stall"
)

// batch is a group of rows of one chunk sent as one request.
type batch struct {
	rows []*row // of one chunk or several (row.rec)
	plan *plan
	host string // the coordinator, whose in-flight limit the batch takes
	// pinned: sent to host itself, not where the driver would route it
	// (reroute moved it off a coordinator that stopped answering).
	pinned bool
	// lim holds the permit of host's limiter for the first attempt, from
	// the dispatcher; nil once released, or when the run stopped.
	lim *limit.Limiter
}

// send writes one batch, retrying and splitting as needed, and gives
// every row in it exactly one outcome.
func (l *Loader) send(ctx *stall.Attempts, b *batch) {
	if l.opts.DryRun {
		l.releasePermit(b, 0, limit.Ignore)
		byChunk(b.rows, func(cr *chunkRecord, rows []*row) { l.ledger.notSentDryRun(cr, len(rows)) })
		return
	}
	if l.life.skipping() {
		// --duration ended the run: what is not sent yet is skipped.
		l.releasePermit(b, 0, limit.Ignore)
		byChunk(b.rows, func(cr *chunkRecord, rows []*row) { l.ledger.notSentByDuration(cr, len(rows)) })
		return
	}
	if l.life.stopped() {
		l.releasePermit(b, 0, limit.Ignore)
		l.settleRows(b, b.rows, notSent, "the run stopped before this row was sent")
		return
	}
	l.busy.Add(1)
	defer l.busy.Add(-1)
	l.writeRows(ctx, b, b.rows, false)
}

// writeRows sends rows until they are written, refused for good, or the
// retry window closes. A batch is retried on timeouts, overload,
// unavailable replicas and lost connections for RetryWindow of running
// time (stall.Clock) from its first failure (and at most MaxAttempts
// times when that is set), with exponential backoff and full jitter;
// past the window, for as long as the whole cluster is quiet, since a
// silent cluster stops the run instead of failing its rows
// (clusterSilent). Inserts are idempotent, so a write that may have been
// applied is sent again; a counter update is not, and is reported
// unknown.
//
// mayBeApplied says an earlier attempt, of a batch these rows were split
// from, may have been applied.
func (l *Loader) writeRows(ctx *stall.Attempts, b *batch, rows []*row, mayBeApplied bool) {
	w := &writing{b: b, rows: rows, mayBeApplied: mayBeApplied, coord: b.lim}
	if w.coord == nil {
		w.coord = l.limits.of(b.host)
	}
	for attempt := 1; ; attempt++ {
		if why := l.waitTurn(ctx, w, attempt); why != "" {
			l.giveUp(b, rows, w.mayBeApplied, why)
			return
		}
		if !l.recordSending(w, attempt) {
			return
		}
		we := l.attempt(ctx, w, attempt)
		if we == nil {
			return
		}
		f, ok := l.failed(ctx, w, attempt, we)
		if !ok {
			return
		}
		if l.carryOut(ctx, w, decide(f), f) {
			return
		}
		l.tracker.retries.Add(1)
		if !l.sleep(ctx, l.backoff(attempt)) {
			l.giveUp(b, rows, w.mayBeApplied, fmt.Sprintf("the run stopped while this row was being retried (%v)", we))
			return
		}
	}
}

// writing is the state of rows on their way through writeRows: a batch,
// or a part of one that was split.
type writing struct {
	b    *batch
	rows []*row
	// mayBeApplied: an attempt (or one of the whole batch's) may have
	// been applied.
	mayBeApplied bool
	// coord is the coordinator's limiter: the permit's, while the batch
	// holds one.
	coord *limit.Limiter
	// due is when INGESTRATE's schedule had the rows go, which the
	// corrected latency is measured from; firstFailure starts the retry
	// window.
	due, firstFailure time.Time
	// marked: the counter journal says these rows are being sent, and no
	// refusal has been recorded since.
	marked bool
}

// waitTurn waits for the attempt's turn: its place on INGESTRATE's
// schedule and, for a request without a permit, a slot of the
// coordinator's pacer. It returns why the rows are not sent when the run
// stops meanwhile, or "".
func (l *Loader) waitTurn(ctx *stall.Attempts, w *writing, attempt int) (stopped string) {
	if l.pacer != nil {
		// Retries take their place on the schedule too; the request
		// is timed from when its rows were first due.
		d, err := l.pacer.Wait(ctx, len(w.rows))
		if err != nil {
			return "the run stopped before this row was sent"
		}
		if attempt == 1 {
			w.due = d
		}
	}
	if l.life.stopped() && attempt > 1 {
		return "the run stopped before this row was sent again"
	}
	if attempt > 1 && l.reroute(w.b) {
		w.coord = l.limits.of(w.b.host)
	}
	if attempt > 1 || w.b.lim == nil {
		// Sent without a permit (a retry, a half of a split batch):
		// it still takes a slot of the coordinator's pacer, and
		// waits for it, or retries would add load on top of the
		// rate the node can take.
		if d := w.coord.Charge(); d > 0 && !l.sleep(ctx, d) {
			return "the run stopped before this row was sent again"
		}
	}
	return ""
}

// recordSending records, before the first attempt of inserts and before
// each of counter updates since a refusal, that the rows are being sent.
// When it cannot, the rows are not sent and the run stops (ledger.fail):
// it reports false.
func (l *Loader) recordSending(w *writing, attempt int) bool {
	b := w.b
	if !b.plan.counter && attempt == 1 {
		if err := l.ledger.sendingInsert(lastSeq(w.rows)); err != nil {
			// Not recorded: a resumed run could call a row it
			// wrote failed.
			l.ledger.fail(err)
			l.settleRows(b, w.rows, notSent, "the checkpoint could not be written: "+err.Error())
			return false
		}
	}
	if b.plan.counter && !w.marked {
		w.marked = true
		var err error
		byChunk(w.rows, func(cr *chunkRecord, rows []*row) { err = cmp.Or(err, l.ledger.sending(cr, rows)) })
		if err != nil {
			// Not recorded: sending could count it twice on resume.
			l.ledger.fail(err)
			l.settleRows(b, w.rows, notSent, "the counter journal could not be written: "+err.Error())
			return false
		}
	}
	return true
}

// attempt sends the rows once. On success it settles them as written and
// returns nil; on failure it tells the limiter and the tracker what the
// attempt showed and returns the driver's error, classified.
func (l *Loader) attempt(ctx *stall.Attempts, w *writing, attempt int) *WriteError {
	b := w.b
	if attempt == 1 && b.lim != nil {
		b.lim.Sending()
	}
	timeout := l.attemptTimeout(b.plan, w.coord, attempt)
	pin := ""
	if b.pinned {
		pin = b.host
	}
	start := time.Now()
	cs := l.limits.sending(b.host, start.UnixNano())
	ctx.Arm(start, cmp.Or(timeout, l.opts.RequestTimeout))
	err := l.exec(ctx, b.plan, w.rows, pin)
	ctx.Disarm()
	end := time.Now()
	rtt := end.Sub(start)
	l.tracker.observe(rtt)
	if err == nil {
		cs.done(true, end.UnixNano())
		l.releasePermit(b, rtt, limit.Success)
		if l.pacer != nil {
			l.tracker.observeCorrected(end.Sub(w.due))
		}
		bytes := 0
		for _, r := range w.rows {
			bytes += int(r.size)
		}
		l.tracker.acked(len(w.rows), bytes, end.UnixNano())
		byChunk(w.rows, l.ledger.wrote)
		return nil
	}
	we := classify(err)
	cs.done(we.Answered, end.UnixNano())
	outcome := we.outcome()
	if l.stalls.Touched(start.UnixNano(), end.UnixNano()) {
		// The process was stopped while it waited: a timeout then
		// is its own, and teaches the node's limit nothing.
		outcome = limit.Ignore
	} else if timeout > 0 && errors.Is(err, gocql.ErrTimeoutNoResponse) {
		w.coord.TimedOut(start)
	}
	l.releasePermit(b, rtt, outcome)
	l.tracker.failed(err, we.Answered)
	return we
}

// failed records what a failed attempt means for the rows (they may have
// been applied; counter rows refused are sendable again) and gathers
// what decide reads. A request refused as invalid because the table is
// gone stops the run instead: it reports false, the rows settled.
func (l *Loader) failed(ctx *stall.Attempts, w *writing, attempt int, we *WriteError) (failedAttempt, bool) {
	b := w.b
	w.mayBeApplied = w.mayBeApplied || we.MayBeApplied
	if b.plan.counter && !w.mayBeApplied {
		// Refused, nothing applied: a run killed while it waits to
		// retry leaves them sendable, not unknown. The retry marks
		// them sent again first.
		byChunk(w.rows, l.ledger.refused)
		w.marked = false
	}
	if w.firstFailure.IsZero() {
		w.firstFailure = time.Now()
	}
	if we.Invalid {
		if gone := l.tableGone(ctx, b.plan); gone != "" {
			l.life.abort(gone, true, stopping)
			l.giveUp(b, w.rows, w.mayBeApplied, "the run stopped: "+gone)
			return failedAttempt{}, false
		}
	}
	f := failedAttempt{
		err: we, counter: b.plan.counter, rows: len(w.rows),
		attempt: attempt, maxAttempts: l.opts.MaxAttempts,
		retried: l.stalls.Running(w.firstFailure.UnixNano(), time.Now().UnixNano()), window: l.opts.RetryWindow,
		maxBackoff: l.opts.MaxBackoff,
		stopping:   ctx.Err() != nil || l.life.stopped(),
	}
	if f.retried >= f.window {
		f.silent = l.silence()
	}
	return f, true
}

// carryOut does what decide chose for a failed attempt f. It reports
// whether the rows are done with (settled, or handed to the halves of
// a split); false is doRetry.
func (l *Loader) carryOut(ctx *stall.Attempts, w *writing, v verdict, f failedAttempt) (done bool) {
	b, rows, err := w.b, w.rows, f.err.Err
	switch v {
	case doRetry:
		return false
	case doSplit:
		// Bisect: only the rows that are really bad get rejected.
		half := len(rows) / 2
		l.writeRows(ctx, b, rows[:half], w.mayBeApplied)
		l.writeRows(ctx, b, rows[half:], w.mayBeApplied)
	case doUnknown:
		l.settleRows(b, rows, unknown, err.Error()+" (counter update may have been applied: not sent again; check the counter before loading this row again)")
		// Updates the cluster failed or timed out count towards
		// MAXINSERTERRORS. One cut off by the run's own stop, or by
		// a connection that was lost, says nothing of the rows or of
		// the cluster's answers (inserts retry those): a lost cluster
		// then ends the run as silent (exit 3) once the next updates
		// find no node, and a stop is a stop (exit 4), not too many
		// errors (exit 2).
		if (f.err.Answered || f.err.Saturated) && !f.stopping {
			l.checkInsertErrors(len(rows), err.Error())
		}
	case doReject:
		l.rejectInsert(b, rows, fmt.Sprintf("%v (after %d attempts)", err, f.attempt), w.mayBeApplied, f.err.Invalid)
	case doExhausted:
		l.rejectInsert(b, rows, fmt.Sprintf("%v (after %d attempts over %s)", err, f.attempt, time.Since(w.firstFailure).Round(time.Millisecond)), w.mayBeApplied, false)
	case doSilent:
		l.clusterSilent(f.silent)
		l.giveUp(b, rows, w.mayBeApplied, fmt.Sprintf("the run stopped: no node answered (%v)", err))
	case doStopped:
		l.giveUp(b, rows, w.mayBeApplied, fmt.Sprintf("the run stopped while this row was being retried (%v)", err))
	}
	return true
}

// windowEnd is what a batch does when its retry window closes.
type windowEnd int

const (
	// retryOn: the cluster went quiet after the batch first failed (an
	// outage that began since). The batch is retried until a node
	// answers again, then judged anew, or the silence lasts a window.
	retryOn windowEnd = iota
	// clusterIsSilent: no node answered any request for a whole window.
	// The cluster is frozen or gone and the rows are not at fault: the
	// run stops as watchCluster stops it, and they are not sent (or
	// unknown), never insert errors; a resumed run loads those not sent.
	clusterIsSilent
	// batchAtFault: the cluster answers others, so the failures are the
	// batch's own: its rows are insert errors.
	batchAtFault
)

// atWindowEnd decides, from how long no request has been answered
// (silent), what a batch whose retry window has closed does. A silence
// shorter than one backoff (and than half a window) is the cluster
// answering others between this batch's attempts.
func atWindowEnd(silent, window, maxBackoff time.Duration) windowEnd {
	switch {
	case silent >= window:
		return clusterIsSilent
	case silent < min(window/2, maxBackoff):
		return batchAtFault
	}
	return retryOn
}

// releasePermit returns the batch's permit after its first attempt (or,
// unsent, with Ignore), and tells the limiter what the attempt showed.
// Retries (and the halves of a split batch) go without one: they are
// paced by their backoff, and a sender waiting for a permit could wait on
// the dispatcher, which waits for a sender.
func (l *Loader) releasePermit(b *batch, rtt time.Duration, o limit.Outcome) {
	if b.lim == nil {
		return
	}
	b.lim.Release(rtt, o)
	b.lim = nil
	l.dispatch.released()
}

// giveUp settles rows the run stopped sending: not sent, unless an
// attempt may have been applied, which makes them unknown.
func (l *Loader) giveUp(b *batch, rows []*row, mayBeApplied bool, reason string) {
	if mayBeApplied {
		l.settleRows(b, rows, unknown, reason+"; an earlier attempt may have been applied")
		return
	}
	l.settleRows(b, rows, notSent, reason)
}

// rejectInsert settles rows that no retry could write. When an attempt
// may have been applied they are unknown, not failed: the table may hold
// them, and the summary must never call a stored row failed. So are the
// rows of a chunk the run this one resumed may have sent, unless the
// request was invalid (invalid: a row refused on its own, as it would
// have been in any run).
func (l *Loader) rejectInsert(b *batch, rows []*row, reason string, mayBeApplied, invalid bool) {
	if mayBeApplied {
		l.settleRows(b, rows, unknown, reason+"; an attempt may have been applied")
	} else {
		byChunk(rows, func(cr *chunkRecord, rows []*row) {
			if cr.priorSent && !invalid {
				l.settleRows(b, rows, unknown, reason+"; the run this one resumed may have written it")
			} else {
				l.settleRows(b, rows, rejectedInsert, reason)
			}
		})
	}
	l.checkInsertErrors(len(rows), reason)
}

// checkInsertErrors counts n more rows that could not be written and
// stops the run once there are more than MAXINSERTERRORS. Unknown rows
// count as cqlsh counts them: rows its retries could not get
// acknowledged. A cluster that times out every write must stop the run
// as one that refuses every write does. (Rows a stopped run left unknown
// are not this run's errors, so the ledger's counts are not used.)
func (l *Loader) checkInsertErrors(n int, last string) {
	max := l.opts.MaxInsertErrors
	if errs := l.insertErrors.Add(int64(n)); max < 0 || errs <= int64(max) {
		return
	}
	l.life.abort(fmt.Sprintf("too many insert errors: more than MAXINSERTERRORS = %d rows failed or unknown (last: %s)", max, last), false, stopping)
}

// settleRows gives rows one outcome with one reason.
func (l *Loader) settleRows(b *batch, rows []*row, kind outcome, reason string) {
	sendable := kind == notSent || kind == rejectedInsert
	for _, r := range rows {
		l.ledger.reject(r.rec, kind, reject{where: at(r.rec.file, r.line), reason: reason, raw: r.raw(r.rec), idx: int(r.idx)}, sendable)
	}
}

// sleep waits d, or less if the run stops; it reports whether it waited.
func (l *Loader) sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
	case <-l.life.stoppingDone():
	}
	return false
}

// attemptTimeout is how long the attempt-th attempt of rows of p waits
// for an answer before it is sent again: the coordinator's retransmission
// timeout (limit.Limiter.Timeout), so that a request the node holds for
// its whole write timeout is sent again once it is plainly held, not
// seconds later. 0 leaves RequestTimeout, which also bounds it, and
// which counter updates always wait for: one given up on may have been
// applied, and is unknown. Either is timed by the sender's attempts, on
// the process's running time.
func (l *Loader) attemptTimeout(p *plan, coord *limit.Limiter, attempt int) time.Duration {
	if p.counter {
		return 0
	}
	if t := coord.Timeout(attempt); t < l.opts.RequestTimeout {
		return t
	}
	return 0
}

// exec sends rows as one request: a plain EXECUTE for one row; for
// several, an EXECUTE of the prepared BEGIN BATCH holding the row count's
// copies of the statement (plan.batchStatement), or, where the driver
// could not route that (statementBatches), a BATCH of one entry per row.
// Either is the same UNLOGGED (or COUNTER) batch to the cluster. The
// attempt's timeout is ctx's (stall.Attempts): the driver's is turned off. A
// host replaces the driver's choice of coordinator.
func (l *Loader) exec(ctx context.Context, p *plan, rows []*row, host string) error {
	buf := l.bindBuf()
	defer l.putBindBuf(buf)
	if stmt, vals, ok := l.oneStatement(p, rows, buf); ok {
		// QueryWithContext, not Query(…).WithContext: WithContext copies
		// the query, an allocation per request (0.06 µs a narrow row).
		q := l.session.QueryWithContext(ctx, stmt, vals...).
			Consistency(l.opts.Consistency).Idempotent(!p.counter)
		if len(rows) > 1 {
			// A batch statement has no partition key columns for the
			// driver to route by: give it the key the rows were grouped by.
			q.RoutingKey(rows[0].key.bytes())
		}
		q.SetRequestTimeout(0)
		if host != "" {
			q.SetHostID(host)
		}
		err := q.Exec()
		q.Release()
		return err
	}
	typ := gocql.UnloggedBatch
	if p.counter {
		typ = gocql.CounterBatch
	}
	bt := l.session.BatchWithContext(ctx, typ)
	bt.SetConsistency(l.opts.Consistency)
	bt.SetRequestTimeout(0)
	if host != "" {
		bt.SetHostID(host)
	}
	bt.Entries = make([]gocql.BatchEntry, len(rows))
	for i, r := range rows {
		bt.Entries[i] = gocql.BatchEntry{Stmt: r.statement(p), Args: r.values, Idempotent: !p.counter}
	}
	return l.session.ExecuteBatch(bt)
}

// maxBindValues is the most values one request can bind: the protocol
// counts them in an unsigned short.
const maxBindValues = 65535

// bindBuf returns a slice for a batch statement's values. The driver
// copies the values into the request's frame before Exec returns, so
// the slice is free again afterwards; allocating one per request was a
// tenth of the loader's allocations with 1 KB rows, and the collector's
// work grows with them.
func (l *Loader) bindBuf() *[]any {
	if b, ok := l.bindBufs.Get().(*[]any); ok {
		return b
	}
	return new([]any)
}

// putBindBuf recycles b, clearing it first: stale values would keep a
// settled chunk's slabs from the collector.
func (l *Loader) putBindBuf(b *[]any) {
	clear(*b)
	*b = (*b)[:0]
	l.bindBufs.Put(b)
}

// oneStatement gives the statement and values that send rows as one
// EXECUTE, or ok false when they go as a BATCH of entries: the driver
// handles a batch entry by entry (a prepared-statement lookup, a values
// slice and a map insert for each), which for narrow rows costs it more
// than the values themselves. Rows with a statement of their own (null
// tuples), more rows than a batch statement is prepared for, or more
// values than a request can bind go as entries.
//
// The values of several rows are laid out in *buf, which keeps the grown
// slice; one row's are its own.
func (l *Loader) oneStatement(p *plan, rows []*row, buf *[]any) (stmt string, vals []any, ok bool) {
	if len(rows) == 1 {
		return rows[0].statement(p), rows[0].values, true
	}
	if !l.statementBatches || len(rows) > maxBatchStatementRows || len(rows)*len(rows[0].values) > maxBindValues {
		return "", nil, false
	}
	vals = (*buf)[:0]
	for _, r := range rows {
		if r.stmt != "" {
			clear(vals)
			return "", nil, false
		}
		vals = append(vals, r.values...)
	}
	*buf = vals
	return p.batchStatement(len(rows)), vals, true
}

// statement is the statement that binds r's values.
func (r *row) statement(p *plan) string {
	if r.stmt != "" {
		return r.stmt
	}
	return p.stmt
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

// byChunk calls fn with each run of consecutive rows of one chunk: the
// ledger counts rows chunk by chunk, and a batch may hold rows of several
// small chunks (convertLoop gathers them).
func byChunk(rows []*row, fn func(cr *chunkRecord, rows []*row)) {
	for len(rows) > 0 {
		n := 1
		for n < len(rows) && rows[n].rec == rows[0].rec {
			n++
		}
		fn(rows[0].rec, rows[:n])
		rows = rows[n:]
	}
}

// lastSeq is the highest sequence number of the rows' chunks: recording
// that it is being sent covers the others (ledger.sendingInsert).
func lastSeq(rows []*row) int64 {
	seq := rows[0].rec.seq
	for _, r := range rows[1:] {
		seq = max(seq, r.rec.seq)
	}
	return seq
}
