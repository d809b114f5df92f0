package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/spf13/pflag"

	"github.com/cqlload/cqlload/internal/redact"
	"github.com/cqlload/cqlload/internal/wholefile"
	"github.com/cqlload/cqlload/loader"
)

const summarizeUsage = `Usage: cqlload summarize [--summary-json PATH|-] SUMMARY.json...

Merges the --summary-json documents of several runs (the splits of one
load) into one: the counts added up (and checked: rows read = written +
skipped + rejected + unknown + not sent), rows/s over the wall clock from
the first start to the last end, latency percentiles from the merged
histograms. Prints the summary as a run does; the exit status is the worst
of the runs' (fatal > interrupted > aborted > rows rejected > all written),
or 64 when the summaries cannot be merged.
`

// severity orders exit statuses from best to worst, for summarize.
func severity(code int) int {
	switch code {
	case exitOK:
		return 0
	case exitRejected:
		return 1
	case exitAborted:
		return 2
	case exitInterrupted:
		return 3
	case exitFatal:
		return 4
	}
	return 5 // usage, or unknown
}

func summarize(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("cqlload summarize", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("summary-json", "", "also write the merged summary as JSON to this file (- for standard output)")
	help := fs.BoolP("help", "h", false, "show this help")
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(stderr, "cqlload summarize: %v\n%s", err, summarizeUsage)
		return exitUsage
	}
	if *help {
		fmt.Fprint(stdout, summarizeUsage)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return exitOK
	}
	if fs.NArg() == 0 {
		fmt.Fprintf(stderr, "cqlload summarize: no summaries given\n%s", summarizeUsage)
		return exitUsage
	}
	var parts []jsonSummary
	for _, path := range fs.Args() {
		b, err := wholefile.Read(path, "summary", wholefile.MaxSummary)
		if err != nil {
			fmt.Fprintf(stderr, "cqlload summarize: %v\n", err)
			return exitUsage
		}
		var s jsonSummary
		if err := json.Unmarshal(b, &s); err != nil {
			fmt.Fprintf(stderr, "cqlload summarize: %s: %v\n", path, err)
			return exitUsage
		}
		parts = append(parts, s)
	}
	merged, err := mergeSummaries(parts, fs.Args())
	if err == nil {
		err = checkSplits(parts, fs.Args())
	}
	if err != nil {
		fmt.Fprintf(stderr, "cqlload summarize: %v\n", err)
		return exitUsage
	}
	human := stdout
	if *out == "-" {
		human = stderr
	}
	printSummary(human, merged.Summary, nil)
	printReasons(stderr, merged.Summary)
	if *out != "" {
		if err := writeJSON(*out, stdout, redact.New(), merged); err != nil {
			fmt.Fprintf(stderr, "cqlload summarize: %v\n", err)
			return exitFatal
		}
	}
	return merged.ExitStatus
}

// checkSplits checks that summaries of --split runs are those of every
// split of one load, once each: a total that misses a split, or counts
// one twice, must not pass for the load's. Summaries of runs without
// --split merge as they are.
func checkSplits(parts []jsonSummary, names []string) error {
	first := -1
	for i, p := range parts {
		if p.Split != nil {
			first = i
			break
		}
	}
	if first < 0 {
		return nil
	}
	want := parts[first].Split
	seen := make([]string, want.Count)
	for i, p := range parts {
		s := p.Split
		switch {
		case s == nil && p.ExitStatus != exitOK && p.ExitStatus != exitRejected && p.RowsRead+p.RowsResumed == 0:
			// Refused before it knew its split (a plan that does not
			// fit, inputs that cannot be read): not another load.
			return fmt.Errorf("%s is the summary of a run that ended before it loaded anything (exit %d: %s): run that split again once the cause is fixed", names[i], p.ExitStatus, p.Aborted)
		case s == nil:
			return fmt.Errorf("%s is the summary of a run without --split, %s of split %d/%d: not the splits of one load", names[i], names[first], want.Index, want.Count)
		case s.Count != want.Count || s.Load != want.Load || s.Index < 0 || s.Index >= s.Count:
			return fmt.Errorf("%s is split %d/%d of another load than %s (split %d/%d): other inputs or options", names[i], s.Index, s.Count, names[first], want.Index, want.Count)
		case seen[s.Index] != "":
			return fmt.Errorf("%s and %s are both split %d/%d: each split's summary once", seen[s.Index], names[i], s.Index, s.Count)
		}
		seen[s.Index] = names[i]
	}
	var missing []string
	for i, n := range seen {
		if n == "" {
			missing = append(missing, strconv.Itoa(i))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("no summary of split %s of %d: the load is not known to be complete (a split that never ran, or was killed before it wrote one)", strings.Join(missing, ", "), want.Count)
	}
	return nil
}

// addLimits adds a run's in-flight limits to the runs' so far, host by
// host: the runs' processes each kept their own limit towards a node, so
// together they allowed the sum (and paced it at the sum of their rates).
// Hosts keep the order in which they first appear.
func addLimits(sum, run []loader.HostLimit) []loader.HostLimit {
	for _, h := range run {
		i := slices.IndexFunc(sum, func(s loader.HostLimit) bool { return s.Host == h.Host })
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

// mergeSummaries adds up the runs' summaries; names label errors.
func mergeSummaries(parts []jsonSummary, names []string) (jsonSummary, error) {
	var m jsonSummary
	var hist *hdrhistogram.Histogram
	worst := 0
	for i, p := range parts {
		s := p.Summary
		if got := s.RowsWritten + s.RowsSkipped + s.RowsFailedParse + s.RowsFailedInsert + s.RowsUnknown + s.RowsNotSent; got != s.RowsRead {
			return m, fmt.Errorf("%s: rows read %d, but its outcomes add up to %d: not a cqlload summary, or damaged", names[i], s.RowsRead, got)
		}
		t := &m.Summary
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
			t.Aborted = strings.TrimPrefix(t.Aborted+"; ", "; ") + names[i] + ": " + s.Aborted
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
		t.Reasons, t.OtherReasonRows = loader.MergeReasons([][]loader.Reason{t.Reasons, s.Reasons}, []int64{t.OtherReasonRows, s.OtherReasonRows})
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
				return m, fmt.Errorf("%s: no latency histogram (written by an older cqlload?)", names[i])
			}
		} else {
			h, err := hdrhistogram.Decode([]byte(s.LatencyHistogram))
			if err != nil {
				return m, fmt.Errorf("%s: latency histogram: %w", names[i], err)
			}
			if hist == nil {
				hist = h
			} else if dropped := hist.Merge(h); dropped > 0 {
				return m, fmt.Errorf("%s: %d latencies outside the histogram's range", names[i], dropped)
			}
		}
		if severity(p.ExitStatus) > severity(worst) {
			worst = p.ExitStatus
		}
		m.Version = p.Version
	}
	if len(parts) == 0 {
		return m, errors.New("no summaries")
	}
	t := &m.Summary
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
		t.Latency = loader.LatencyOf(hist)
		if b, err := hist.Encode(hdrhistogram.V2CompressedEncodingCookieBase); err == nil {
			t.LatencyHistogram = string(b)
		}
	}
	m.ExitStatus = worst
	return m, nil
}
