package loader

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Progress is a snapshot of a run. Every row count moves only when the
// row's fate is final: RowsWritten when the cluster acknowledged it.
// Always RowsRead = RowsWritten + RowsSkipped + RowsFailedParse +
// RowsFailedInsert + RowsUnknown + RowsNotSent; RowsResumed, the rows an
// earlier run settled, are not read again and not part of RowsRead.
type Progress struct {
	RowsRead         int64 `json:"rows_read"`
	RowsWritten      int64 `json:"rows_written"`
	RowsSkipped      int64 `json:"rows_skipped"`
	RowsFailedParse  int64 `json:"rows_failed_parse"`
	RowsFailedInsert int64 `json:"rows_failed_insert"`
	// RowsUnknown: writes that may or may not have been applied (a
	// counter update that timed out); in the error file, never resent.
	RowsUnknown int64 `json:"rows_unknown"`
	RowsNotSent int64 `json:"rows_not_sent"` // read but not sent: the run stopped first
	RowsResumed int64 `json:"rows_resumed"`  // settled by an earlier run (--resume): not read again
	// RowsDryRun: of RowsSkipped, the rows a dry run would have written.
	RowsDryRun int64 `json:"rows_dry_run,omitempty"`
	// RowsNotSentByDuration: of RowsSkipped, the rows read but not sent
	// because --duration ended the run.
	RowsNotSentByDuration int64 `json:"rows_not_sent_by_duration,omitempty"`
	// BytesDone is the input whose rows have outcomes: each chunk's own
	// bytes, credited as its rows get theirs. Percent done is
	// BytesDone / BytesTotal.
	BytesDone  int64         `json:"bytes_read"`
	BytesTotal int64         `json:"bytes_total"` // -1 when unknown (stdin)
	Retries    int64         `json:"retries"`
	Requests   int64         `json:"requests"` // acknowledged requests (batches and single-row writes)
	Elapsed    time.Duration `json:"-"`
}

// RowsInFlight is the number of rows read but without an outcome yet.
func (p Progress) RowsInFlight() int64 {
	return p.RowsRead - p.RowsWritten - p.RowsSkipped - p.RowsFailedParse - p.RowsFailedInsert - p.RowsUnknown - p.RowsNotSent
}

// tracker measures requests: latency, retries, acknowledged requests and
// their sizes, the cluster's warnings, and when a request last succeeded.
// Counters are atomics so that senders never contend on a lock per row;
// the latency histogram takes a lock once per request.
type tracker struct {
	start atomic.Int64 // unix nanoseconds; set again when the run starts reading
	end   atomic.Int64 // unix nanoseconds when the run ended; 0 while it runs

	retries, requests           atomic.Int64
	batchRowsMax, batchBytesMax atomic.Int64
	lastSuccess                 atomic.Int64 // unix nanoseconds

	mu   sync.Mutex
	hist *hdrhistogram.Histogram // request latency in microseconds, per attempt
	// corrected, with INGESTRATE, times each request from when its rows
	// were due on the schedule (see stall.Pacer) to its acknowledgement, retries
	// included; nil without a rate.
	corrected *hdrhistogram.Histogram
	errors    atomic.Int64 // error responses (and requests that got none)

	warnings     atomic.Int64
	firstWarning atomic.Pointer[string]
	lastErr      atomic.Pointer[string] // the last failed request's error
	// lastErrAnswer: unix nanoseconds of the last error a node answered
	// with (Unavailable, Overloaded…), not a timeout or a lost
	// connection; lastAnswer is that error.
	lastErrAnswer atomic.Int64
	lastAnswer    atomic.Pointer[string]
}

// failed notes a failed request; answered: a node answered with err.
func (t *tracker) failed(err error, answered bool) {
	t.errors.Add(1)
	s := err.Error()
	t.lastErr.Store(&s)
	if answered {
		t.lastAnswer.Store(&s)
		t.lastErrAnswer.Store(time.Now().UnixNano())
	}
}

// silence says, for a run about to stop because no write succeeded for
// idle, what the cluster did and its last words: whether nodes went on
// answering (with errors only) until late in that time, and the last
// error a node answered with, then the last error of any kind if it
// differs (the driver's own, such as no connection left to try, says
// nothing of what the nodes answered). Nodes that answered errors at
// the start and then nothing for half of it or more went quiet: a
// cluster stopped node by node answers Unavailable while the last ones
// stop, and was called one that answers only with errors.
func (t *tracker) silence(idle time.Duration, now time.Time) (what, why string) {
	what, why = "no node answered", "no request was answered"
	last := t.lastErr.Load()
	if last != nil {
		why = "last error: " + *last
	}
	answer := t.lastAnswer.Load()
	if quiet := now.Sub(time.Unix(0, t.lastErrAnswer.Load())); answer == nil || quiet >= idle/2 {
		if answer != nil && quiet < idle {
			why = fmt.Sprintf("the last answer, %s ago: %s; %s", quiet.Round(100*time.Millisecond), *answer, why)
		}
		return what, why
	}
	// Answered, but only with errors: Unavailable for a consistency
	// level the nodes that are up cannot reach, say.
	what, why = "no write succeeded (the nodes answered only with errors)", "last answer: "+*answer
	if last != nil && *last != *answer {
		why += "; last error: " + *last
	}
	return what, why
}

func newTracker(paced bool) *tracker {
	t := &tracker{hist: newLatencyHistogram()}
	if paced {
		t.corrected = newLatencyHistogram()
	}
	t.begin()
	return t
}

// newLatencyHistogram records microseconds up to ten minutes, past any
// request timeout, at three significant digits.
func newLatencyHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(1, int64(10*time.Minute/time.Microsecond), 3)
}

// begin marks the start of the run.
func (t *tracker) begin() {
	now := time.Now().UnixNano()
	t.start.Store(now)
	t.lastSuccess.Store(now)
}

// elapsed is the run's duration so far, or in all once it ended.
func (t *tracker) elapsed() time.Duration {
	end := t.end.Load()
	if end == 0 {
		end = time.Now().UnixNano()
	}
	return time.Duration(end - t.start.Load())
}

// observe records one attempt's latency.
func (t *tracker) observe(d time.Duration) {
	us := max(d.Microseconds(), 1)
	t.mu.Lock()
	_ = t.hist.RecordValue(us) // values over the maximum are dropped; ten minutes is past any request timeout
	t.mu.Unlock()
}

// observeCorrected records an acknowledged request's latency from when
// its rows were due on the INGESTRATE schedule.
func (t *tracker) observeCorrected(d time.Duration) {
	if t.corrected == nil {
		return
	}
	us := max(d.Microseconds(), 1)
	t.mu.Lock()
	_ = t.corrected.RecordValue(us)
	t.mu.Unlock()
}

// latency returns percentiles in milliseconds: corrected ones with
// INGESTRATE, and raw the per-attempt ones (nil without INGESTRATE, when
// latency is that already).
func (t *tracker) latency() (l Latency, raw *Latency) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.corrected == nil {
		return LatencyOf(t.hist), nil
	}
	r := LatencyOf(t.hist)
	return LatencyOf(t.reported()), &r
}

// reported is the histogram the run's latency is read from: corrected
// with INGESTRATE, else per attempt. t.mu must be held.
func (t *tracker) reported() *hdrhistogram.Histogram {
	if t.corrected != nil {
		return t.corrected
	}
	return t.hist
}

// snapshot copies the reported histogram's counts, for IntervalReader.
func (t *tracker) snapshot() *hdrhistogram.Snapshot {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.reported().Export()
}

// encodedLatency is the histogram behind latency(), encoded as
// HdrHistogram's compressed form in base64; "" if it cannot be.
func (t *tracker) encodedLatency() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b, err := t.reported().Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return ""
	}
	return string(b)
}

// LatencyOf reads the percentiles, in milliseconds, of a histogram of
// microseconds such as Summary.LatencyHistogram decodes to.
func LatencyOf(h *hdrhistogram.Histogram) Latency {
	ms := func(us int64) float64 { return float64(us) / 1000 }
	return Latency{
		P50: ms(h.ValueAtQuantile(50)),
		P95: ms(h.ValueAtQuantile(95)),
		P99: ms(h.ValueAtQuantile(99)),
		Max: ms(h.Max()),
	}
}

// progress reads a snapshot from the ledger's counts and the tracker's.
func progress(lg *ledger, t *tracker) Progress {
	// Resolved counts are loaded before RowsRead so that a snapshot never
	// shows more rows resolved than read.
	p := Progress{
		RowsWritten:           lg.written.Load(),
		RowsSkipped:           lg.skipped.Load(),
		RowsFailedParse:       lg.failedParse.Load(),
		RowsFailedInsert:      lg.failedInsert.Load(),
		RowsUnknown:           lg.unknown.Load(),
		RowsNotSent:           lg.notSent.Load(),
		RowsResumed:           lg.resumed.Load(),
		RowsDryRun:            lg.dryRun.Load(),
		RowsNotSentByDuration: lg.byDuration.Load(),
		BytesDone:             lg.bytesDone.Load(),
		BytesTotal:            lg.bytesTotal.Load(),
		Retries:               t.retries.Load(),
		Requests:              t.requests.Load(),
		Elapsed:               t.elapsed(),
	}
	p.RowsRead = lg.read.Load()
	return p
}

// Latency percentiles of requests, in milliseconds.
type Latency struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// Summary is the result of a run.
type Summary struct {
	Progress
	Files      int     `json:"files"`
	ElapsedS   float64 `json:"elapsed_s"`
	RowsPerSec float64 `json:"rows_per_s"`
	// Latency is per request; with INGESTRATE it is corrected for
	// coordinated omission (timed from when the request's rows were due
	// on the schedule, retries included), and LatencyRaw is per attempt
	// from when it was sent.
	Latency    Latency  `json:"latency_ms"`
	LatencyRaw *Latency `json:"latency_raw_ms,omitempty"`
	// LatencyHistogram is Latency's histogram (microseconds) in
	// HdrHistogram's compressed, base64 form, so that summaries of several
	// runs (the splits of one load) can be merged exactly.
	LatencyHistogram string `json:"latency_histogram,omitempty"`
	// SplitFindS is the CPU time --split spent planning and finding the
	// record starts of its byte ranges: on Linux the searching thread's
	// alone, elsewhere the process's over the search (see cputime.Of).
	SplitFindS float64 `json:"split_find_s,omitempty"`
	// SplitFindBytes is the input that search read, or scanned in place
	// through a map: the prefix before a range of a file without quote
	// characters, a window otherwise.
	SplitFindBytes int64 `json:"split_find_bytes,omitempty"`
	// Stripes is how many stripes the inputs were read as, side by side
	// (--readers); 0 when they were read in order. StripeCountS is the
	// CPU time of the pass that counted their records first.
	Stripes      int     `json:"stripes,omitempty"`
	StripeCountS float64 `json:"stripe_count_s,omitempty"`
	// Split, with --split, says which split of which load the run was,
	// so that cqlload summarize can tell a split missing or given twice.
	Split *SplitOf `json:"split,omitempty"`
	// StartedAt and EndedAt bound the run on the wall clock.
	StartedAt time.Time `json:"started_at"`
	EndedAt   time.Time `json:"ended_at"`
	// ErrorResponses counts requests answered with an error (or not at
	// all), retried or not; ErrorShare is their share of all responses.
	ErrorResponses int64   `json:"error_responses"`
	ErrorShare     float64 `json:"error_share"`
	// BatchRowsMax and BatchBytesMax are the largest request acknowledged.
	BatchRowsMax  int     `json:"max_batch_rows"`
	BatchBytesMax int     `json:"max_batch_bytes"`
	RowsPerBatch  float64 `json:"mean_rows_per_request"`
	// Warnings counts the warnings the cluster attached to responses
	// (batch size, tombstones…); FirstWarning is the first of them.
	Warnings     int64  `json:"warnings"`
	FirstWarning string `json:"first_warning,omitempty"`
	// ErrFile is the first error file that holds rows; ErrFiles lists
	// every one (one per distinct input header).
	ErrFile  string   `json:"err_file,omitempty"`
	ErrFiles []string `json:"err_files,omitempty"`
	ErrLog   string   `json:"err_log,omitempty"` // where each of those rows came from and why
	// ErrLogs lists every log of those files: ErrLog for one run, the
	// log of each split's in a summary that merges splits.
	ErrLogs []string `json:"err_logs,omitempty"`
	// PreviousErrFiles are the error files an earlier run left, which a
	// fresh run renamed (ERRFILE.20060102_150405) rather than lose.
	PreviousErrFiles []string `json:"previous_error_files,omitempty"`
	// InputsLeftOut are files a directory or a glob listed that the run
	// did not load: its own error files, their logs, its checkpoint, with
	// why in parentheses.
	InputsLeftOut []string `json:"inputs_left_out,omitempty"`
	Aborted       string   `json:"aborted,omitempty"` // why the run stopped early
	// Reasons are why rows were not written (rejected, unknown, not
	// sent), the first MaxReasons distinct ones in the order they came,
	// each with its first row and its count; OtherReasonRows counts the
	// rows of any others.
	Reasons         []Reason `json:"reasons,omitempty"`
	OtherReasonRows int64    `json:"other_reason_rows,omitempty"`
	// Hints: advice about the usual first mistakes (the wrong DELIMITER,
	// a header line loaded as data) and about an input in token order,
	// once each.
	Hints []string `json:"hints,omitempty"`
	// NothingToDo: the --resume checkpoint records a completed run of the
	// same input and options, so nothing was loaded again.
	NothingToDo bool `json:"nothing_to_do,omitempty"`
	DryRun      bool `json:"dry_run,omitempty"` // nothing was sent (Options.DryRun)
	// Adaptive says whether the in-flight limits followed the cluster;
	// Limits are each coordinator's at the end.
	Adaptive bool        `json:"adaptive"`
	Limits   []HostLimit `json:"in_flight_limits,omitempty"`
}

// acked accounts for a request the cluster acknowledged at now.
func (t *tracker) acked(rows, bytes int, now int64) {
	t.requests.Add(1)
	t.lastSuccess.Store(now)
	storeMax(&t.batchRowsMax, int64(rows))
	storeMax(&t.batchBytesMax, int64(bytes))
}

func storeMax(v *atomic.Int64, x int64) {
	for {
		cur := v.Load()
		if x <= cur || v.CompareAndSwap(cur, x) {
			return
		}
	}
}

func (t *tracker) warn(warnings []string) {
	if len(warnings) == 0 {
		return
	}
	t.warnings.Add(int64(len(warnings)))
	if t.firstWarning.Load() == nil {
		first := warnings[0]
		t.firstWarning.CompareAndSwap(nil, &first)
	}
}
