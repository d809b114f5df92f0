package loader

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// An Interval is what happened between two reads of an IntervalReader:
// the figures a load tester reads per interval, as cassandra-stress and
// YCSB print them.
type Interval struct {
	Start, End time.Duration // since the run started
	Rows       int64         // rows acknowledged in the interval
	Written    int64         // rows acknowledged since the run started
	Requests   int64         // requests acknowledged
	Errors     int64         // error responses (or none in time)
	Retries    int64
	// Latency of the requests acknowledged in the interval: corrected
	// for coordinated omission with INGESTRATE (see Summary.Latency).
	Latency Latency
	// Histogram holds those latencies in microseconds (for a histogram
	// log); nil when no request was acknowledged.
	Histogram *hdrhistogram.Histogram
	// Limit is the requests allowed in flight at the interval's end,
	// summed over the hosts.
	Limit int
}

// Seconds is the interval's length.
func (iv Interval) Seconds() float64 { return (iv.End - iv.Start).Seconds() }

// RowsPerSec is the interval's rate of acknowledged rows.
func (iv Interval) RowsPerSec() float64 { return perSec(iv.Rows, iv.Seconds()) }

// RequestsPerSec is the interval's rate of acknowledged requests.
func (iv Interval) RequestsPerSec() float64 { return perSec(iv.Requests, iv.Seconds()) }

func perSec(n int64, s float64) float64 {
	if s <= 0 {
		return 0
	}
	return float64(n) / s
}

// IntervalReader cuts a run into intervals: each Next returns the figures
// since the previous one (the first, since the run started). Each reader
// of intervals (the log lines, the rate file, the histogram log) has its
// own, so none takes figures from another. It only reads the loader.
type IntervalReader struct {
	l      *Loader
	prev   Progress
	errors int64
	counts []int64 // the latency histogram's counts at the previous Next
}

// Intervals returns a new IntervalReader, starting from the run's start.
func (l *Loader) Intervals() *IntervalReader {
	return &IntervalReader{l: l}
}

// Next returns the interval since the previous call.
func (r *IntervalReader) Next() Interval {
	t := r.l.tracker
	p := r.l.Progress()
	errs := t.errors.Load()
	snap := t.snapshot()
	iv := Interval{
		Start:    r.prev.Elapsed,
		End:      p.Elapsed,
		Rows:     p.RowsWritten - r.prev.RowsWritten,
		Written:  p.RowsWritten,
		Requests: p.Requests - r.prev.Requests,
		Errors:   errs - r.errors,
		Retries:  p.Retries - r.prev.Retries,
		Limit:    r.l.inFlightLimit(),
	}
	// The interval's histogram is the difference of the run's histogram
	// now and at the previous call: no histogram is reset, so readers are
	// independent.
	counts := snap.Counts
	diff := make([]int64, len(counts))
	seen := false
	for i, c := range counts {
		if i < len(r.counts) {
			c -= r.counts[i]
		}
		diff[i] = c
		seen = seen || c != 0
	}
	if seen {
		h := hdrhistogram.Import(&hdrhistogram.Snapshot{
			LowestTrackableValue:  snap.LowestTrackableValue,
			HighestTrackableValue: snap.HighestTrackableValue,
			SignificantFigures:    snap.SignificantFigures,
			Counts:                diff,
		})
		start := t.start.Load() / int64(time.Millisecond)
		h.SetStartTimeMs(start + iv.Start.Milliseconds())
		h.SetEndTimeMs(start + iv.End.Milliseconds())
		iv.Histogram = h
		iv.Latency = LatencyOf(h)
	}
	r.prev, r.errors, r.counts = p, errs, counts
	return iv
}
