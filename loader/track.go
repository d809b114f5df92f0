package loader

import (
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/cqlload/cqlload/csvparse"
)

// Progress is a snapshot of a run. Every row count moves only when the
// row's fate is final: RowsWritten when the cluster acknowledged it.
type Progress struct {
	RowsRead         int64         `json:"rows_read"`
	RowsWritten      int64         `json:"rows_written"`
	RowsSkipped      int64         `json:"rows_skipped"`
	RowsFailedParse  int64         `json:"rows_failed_parse"`
	RowsFailedInsert int64         `json:"rows_failed_insert"`
	RowsAborted      int64         `json:"rows_aborted"` // read but never sent because the run was aborted
	RowsResumed      int64         `json:"rows_resumed"` // of RowsSkipped: done by an earlier run (--resume)
	BytesDone        int64         `json:"bytes_read"`   // input bytes whose rows are all resolved (proportionally within a chunk)
	BytesTotal       int64         `json:"bytes_total"`  // -1 when unknown (stdin)
	Retries          int64         `json:"retries"`
	Requests         int64         `json:"requests"` // acknowledged requests (batches and single-row writes)
	Elapsed          time.Duration `json:"-"`
}

// RowsInFlight is the number of rows read but not yet resolved.
func (p Progress) RowsInFlight() int64 {
	return p.RowsRead - p.RowsWritten - p.RowsSkipped - p.RowsFailedParse - p.RowsFailedInsert - p.RowsAborted
}

// tracker owns the run's counters. Counters are atomics so that workers
// and senders never contend on a lock per row; the latency histogram takes
// a lock once per request.
type tracker struct {
	start atomic.Int64 // unix nanoseconds; set again when the run starts reading

	read, written, skipped, failedParse, failedInsert, aborted atomic.Int64
	bytesDone, retries, requests                               atomic.Int64
	batchRowsMax, batchBytesMax                                atomic.Int64
	bytesTotal                                                 atomic.Int64

	mu   sync.Mutex
	hist *hdrhistogram.Histogram // request latency in microseconds

	warnings     atomic.Int64
	firstWarning atomic.Pointer[string]
	resumed      atomic.Int64                // rows skipped because an earlier run did them (--resume)
	chunkDone    func(seq int64, rows int64) // called once per chunk whose rows are all done
}

func newTracker() *tracker {
	t := &tracker{hist: hdrhistogram.New(1, int64(10*time.Minute/time.Microsecond), 3)}
	t.begin(-1)
	return t
}

// begin marks the start of reading; bytesTotal is -1 when unknown.
func (t *tracker) begin(bytesTotal int64) {
	t.bytesTotal.Store(bytesTotal)
	t.start.Store(time.Now().UnixNano())
}

func (t *tracker) observe(d time.Duration) {
	us := d.Microseconds()
	if us < 1 {
		us = 1
	}
	t.mu.Lock()
	_ = t.hist.RecordValue(us) // values over the maximum are dropped; ten minutes is past any request timeout
	t.mu.Unlock()
}

// latency returns percentiles in milliseconds.
func (t *tracker) latency() Latency {
	t.mu.Lock()
	defer t.mu.Unlock()
	ms := func(us int64) float64 { return float64(us) / 1000 }
	return Latency{
		P50: ms(t.hist.ValueAtQuantile(50)),
		P95: ms(t.hist.ValueAtQuantile(95)),
		P99: ms(t.hist.ValueAtQuantile(99)),
		Max: ms(t.hist.Max()),
	}
}

func (t *tracker) snapshot() Progress {
	// Resolved counts are loaded before RowsRead so that a snapshot never
	// shows more rows resolved than read.
	p := Progress{
		RowsWritten:      t.written.Load(),
		RowsSkipped:      t.skipped.Load(),
		RowsFailedParse:  t.failedParse.Load(),
		RowsFailedInsert: t.failedInsert.Load(),
		RowsAborted:      t.aborted.Load(),
		RowsResumed:      t.resumed.Load(),
		BytesDone:        t.bytesDone.Load(),
		BytesTotal:       t.bytesTotal.Load(),
		Retries:          t.retries.Load(),
		Requests:         t.requests.Load(),
		Elapsed:          time.Since(time.Unix(0, t.start.Load())),
	}
	p.RowsRead = t.read.Load()
	return p
}

// chunkState follows one chunk until all its rows are resolved, so that
// percent done advances with acknowledged rows, not with rows read.
type chunkState struct {
	seq        int64
	records    int64
	inputBytes int64
	resolved   atomic.Int64
	aborted    atomic.Bool     // some row was not sent: the chunk is not done for --resume
	slabs      *slabs          // where the chunk's rows live (slabs.go)
	holds      atomic.Int64    // rows still using slabs, plus the converter's hold
	chunk      *csvparse.Chunk // released with the slabs: row.raw points into its Data
}

// resolve accounts n more rows of c as final and credits the matching
// share of the chunk's input bytes. Each call credits the bytes between
// its own before/after counts, so the shares add up to exactly inputBytes.
func (t *tracker) resolve(c *chunkState, n int) {
	if n == 0 {
		return
	}
	after := c.resolved.Add(int64(n))
	before := after - int64(n)
	t.bytesDone.Add(c.inputBytes*after/c.records - c.inputBytes*before/c.records)
	if after == c.records && t.chunkDone != nil && !c.aborted.Load() {
		t.chunkDone(c.seq, c.records)
	}
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
	Latency    Latency `json:"latency_ms"`
	// BatchRowsMax and BatchBytesMax are the largest request acknowledged.
	BatchRowsMax  int     `json:"max_batch_rows"`
	BatchBytesMax int     `json:"max_batch_bytes"`
	RowsPerBatch  float64 `json:"mean_rows_per_request"`
	// Warnings counts the warnings the cluster attached to responses
	// (batch size, tombstones…); FirstWarning is the first of them.
	Warnings     int64  `json:"warnings"`
	FirstWarning string `json:"first_warning,omitempty"`
	ErrFile      string `json:"err_file,omitempty"` // set when rows were rejected
	Aborted      string `json:"aborted,omitempty"`  // why the run stopped early
}

// acked accounts for a request the cluster acknowledged.
func (t *tracker) acked(c *chunkState, rows, bytes int) {
	t.requests.Add(1)
	t.written.Add(int64(rows))
	t.resolve(c, rows)
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
