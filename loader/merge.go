package loader

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// MergeSummaries adds up the summaries of several runs (the splits of one
// load) into the summary of one: counts summed and checked (each run's
// rows read must equal its outcomes), rows/s over the wall clock from
// the first start to the last end, latency percentiles from the merged
// histograms, reasons as MergeReasons adds them, in-flight limits host
// by host. names label the errors, one per summary (the files they were
// read from); without them a summary is named by its place.
func MergeSummaries(parts []Summary, names []string) (Summary, error) {
	var t Summary
	if len(parts) == 0 {
		return t, errors.New("no summaries")
	}
	name := func(i int) string {
		if i < len(names) {
			return names[i]
		}
		return fmt.Sprintf("summary %d", i+1)
	}
	var hist *hdrhistogram.Histogram
	for i, s := range parts {
		if got := s.RowsWritten + s.RowsSkipped + s.RowsFailedParse + s.RowsFailedInsert + s.RowsUnknown + s.RowsNotSent; got != s.RowsRead {
			return Summary{}, fmt.Errorf("%s: rows read %d, but its outcomes add up to %d: not a cqlload summary, or damaged", name(i), s.RowsRead, got)
		}
		t.RowsRead += s.RowsRead
		t.RowsWritten += s.RowsWritten
		t.RowsSkipped += s.RowsSkipped
		t.RowsFailedParse += s.RowsFailedParse
		t.RowsFailedInsert += s.RowsFailedInsert
		t.RowsUnknown += s.RowsUnknown
		t.RowsNotSent += s.RowsNotSent
		t.RowsResumed += s.RowsResumed
		t.RowsDryRun += s.RowsDryRun
		t.RowsNotSentByDuration += s.RowsNotSentByDuration
		t.BytesDone += s.BytesDone
		if t.BytesTotal >= 0 {
			if s.BytesTotal < 0 {
				t.BytesTotal = -1
			} else {
				t.BytesTotal += s.BytesTotal
			}
		}
		t.Retries += s.Retries
		t.Requests += s.Requests
		t.ErrorResponses += s.ErrorResponses
		t.Warnings += s.Warnings
		if t.FirstWarning == "" {
			t.FirstWarning = s.FirstWarning
		}
		if s.Split != nil {
			// Splits share their inputs; a summary written before
			// SplitOf.Files counts what its split read.
			t.Files = max(t.Files, s.Split.Files, s.Files)
		} else {
			t.Files += s.Files
		}
		t.BatchRowsMax = max(t.BatchRowsMax, s.BatchRowsMax)
		t.BatchBytesMax = max(t.BatchBytesMax, s.BatchBytesMax)
		t.ErrFiles = append(t.ErrFiles, s.ErrFiles...)
		if t.ErrLog == "" {
			t.ErrLog = s.ErrLog
		}
		logs := s.ErrLogs
		if len(logs) == 0 && s.ErrLog != "" {
			logs = []string{s.ErrLog} // a summary written before err_logs
		}
		for _, l := range logs {
			if !slices.Contains(t.ErrLogs, l) {
				t.ErrLogs = append(t.ErrLogs, l)
			}
		}
		if s.Aborted != "" {
			t.Aborted = strings.TrimPrefix(t.Aborted+"; ", "; ") + name(i) + ": " + s.Aborted
		}
		for _, h := range s.Hints {
			if !slices.Contains(t.Hints, h) {
				t.Hints = append(t.Hints, h)
			}
		}
		// Splits list the same directories: each file once.
		for _, f := range s.InputsLeftOut {
			if !slices.Contains(t.InputsLeftOut, f) {
				t.InputsLeftOut = append(t.InputsLeftOut, f)
			}
		}
		t.PreviousErrFiles = append(t.PreviousErrFiles, s.PreviousErrFiles...)
		t.Reasons, t.OtherReasonRows = MergeReasons([][]Reason{t.Reasons, s.Reasons}, []int64{t.OtherReasonRows, s.OtherReasonRows})
		t.Limits = addLimits(t.Limits, s.Limits)
		// All the runs' or none: adaptive and dry only if every run was.
		t.Adaptive = s.Adaptive && (i == 0 || t.Adaptive)
		t.DryRun = s.DryRun && (i == 0 || t.DryRun)
		if t.StartedAt.IsZero() || s.StartedAt.Before(t.StartedAt) {
			t.StartedAt = s.StartedAt
		}
		if s.EndedAt.After(t.EndedAt) {
			t.EndedAt = s.EndedAt
		}
		if s.LatencyHistogram == "" {
			if s.Requests > 0 {
				return Summary{}, fmt.Errorf("%s: no latency histogram (written by an older cqlload?)", name(i))
			}
		} else {
			h, err := hdrhistogram.Decode([]byte(s.LatencyHistogram))
			if err != nil {
				return Summary{}, fmt.Errorf("%s: latency histogram: %w", name(i), err)
			}
			if hist == nil {
				hist = h
			} else if dropped := hist.Merge(h); dropped > 0 {
				return Summary{}, fmt.Errorf("%s: %d latencies outside the histogram's range", name(i), dropped)
			}
		}
	}
	t.Elapsed = t.EndedAt.Sub(t.StartedAt)
	t.ElapsedS = t.Elapsed.Seconds()
	if t.ElapsedS > 0 {
		t.RowsPerSec = float64(t.RowsWritten) / t.ElapsedS
	}
	if t.Requests > 0 {
		t.RowsPerBatch = float64(t.RowsWritten) / float64(t.Requests)
	}
	if n := t.Requests + t.ErrorResponses; n > 0 {
		t.ErrorShare = float64(t.ErrorResponses) / float64(n)
	}
	if hist != nil {
		t.Latency = LatencyOf(hist)
		if b, err := hist.Encode(hdrhistogram.V2CompressedEncodingCookieBase); err == nil {
			t.LatencyHistogram = string(b)
		}
	}
	return t, nil
}

// addLimits adds a run's in-flight limits to the runs' so far, host by
// host: the runs' processes each kept their own limit towards a node, so
// together they allowed the sum (and paced it at the sum of their rates).
// Hosts keep the order in which they first appear.
func addLimits(sum, run []HostLimit) []HostLimit {
	for _, h := range run {
		i := slices.IndexFunc(sum, func(s HostLimit) bool { return s.Host == h.Host })
		if i < 0 {
			sum = append(sum, h)
			continue
		}
		sum[i].Limit += h.Limit
		sum[i].InFlight += h.InFlight
		sum[i].Paced += h.Paced
		sum[i].Requests += h.Requests
	}
	return sum
}
