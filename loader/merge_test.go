package loader

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// histOf is the encoded latency histogram of requests taking us each.
func histOf(t *testing.T, us ...int64) string {
	t.Helper()
	h := newLatencyHistogram()
	for _, v := range us {
		if err := h.RecordValue(v); err != nil {
			t.Fatal(err)
		}
	}
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestMergeSummaries: the runs' summaries add up to one whose counts are
// their sums, over the wall clock from the first start to the last end,
// whose latencies are the merged histogram's; a summary whose counts do
// not add up, or that lost its histogram, is refused.
func TestMergeSummaries(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	run := func(written, parse int64, start, end time.Duration, lat ...int64) Summary {
		s := Summary{Progress: Progress{RowsRead: written + parse, RowsWritten: written, RowsFailedParse: parse,
			BytesDone: 100, BytesTotal: 100, Requests: int64(len(lat)), Retries: 1},
			Files: 1, StartedAt: t0.Add(start), EndedAt: t0.Add(end), Adaptive: true, ErrorResponses: 1}
		if len(lat) > 0 {
			s.LatencyHistogram = histOf(t, lat...)
		}
		return s
	}
	a := run(300, 0, 0, 2*time.Second, 1000, 2000, 3000)
	b := run(100, 1, time.Second, 4*time.Second, 4000)
	b.Limits = []HostLimit{{Host: "n2", Limit: 4, Requests: 1}, {Host: "n1", Limit: 8, Requests: 1}}
	a.Limits = []HostLimit{{Host: "n1", Limit: 16, Requests: 3, Paced: 10}}
	b.Reasons = []Reason{{Reason: `field "x" is not an int`, First: "b.csv:7", Rows: 1}}
	b.Aborted, b.FirstWarning, a.Warnings, b.Warnings = "too many", "batch too large", 0, 2

	m, err := MergeSummaries([]Summary{a, b}, []string{"a.json", "b.json"})
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		what      string
		got, want any
	}{
		{"rows read", m.RowsRead, int64(401)},
		{"rows written", m.RowsWritten, int64(400)},
		{"rows failed to parse", m.RowsFailedParse, int64(1)},
		{"bytes", [2]int64{m.BytesDone, m.BytesTotal}, [2]int64{200, 200}},
		{"requests, retries, error responses", [3]int64{m.Requests, m.Retries, m.ErrorResponses}, [3]int64{4, 2, 2}},
		{"files", m.Files, 2},
		{"wall clock", [2]time.Time{m.StartedAt, m.EndedAt}, [2]time.Time{t0, t0.Add(4 * time.Second)}},
		{"elapsed", m.ElapsedS, 4.0},
		{"rows/s over the wall clock", m.RowsPerSec, 100.0},
		{"rows per request", m.RowsPerBatch, 100.0},
		{"error share", m.ErrorShare, 2.0 / 6},
		{"latency max (ms, to the histogram's precision)", math.Round(m.Latency.Max), 4.0},
		{"adaptive", m.Adaptive, true},
		{"aborted, named", m.Aborted, "b.json: too many"},
		{"warnings", [2]any{m.Warnings, m.FirstWarning}, [2]any{int64(2), "batch too large"}},
		{"limits host by host, first seen first", m.Limits, []HostLimit{{Host: "n1", Limit: 24, Requests: 4, Paced: 10}, {Host: "n2", Limit: 4, Requests: 1}}},
		{"reasons", m.Reasons, b.Reasons},
	}
	for _, c := range checks {
		if !equalAny(c.got, c.want) {
			t.Errorf("%s: %v, want %v", c.what, c.got, c.want)
		}
	}
	if h, err := hdrhistogram.Decode([]byte(m.LatencyHistogram)); err != nil || h.TotalCount() != 4 {
		t.Errorf("merged histogram: %v, want the 4 requests' latencies", err)
	}

	// Splits read parts of the same files; a stream's total is unknown;
	// dry and adaptive only if every run was.
	sa, sb := a, b
	sa.Split, sb.Split = &SplitOf{Index: 0, Count: 2, Files: 5}, &SplitOf{Index: 1, Count: 2, Files: 5}
	sb.BytesTotal, sb.Adaptive, sa.DryRun = -1, false, true
	if m, err := MergeSummaries([]Summary{sa, sb}, nil); err != nil || m.Files != 5 || m.BytesTotal != -1 || m.Adaptive || m.DryRun {
		t.Errorf("splits: %v, files %d, bytes total %d, adaptive %v, dry %v; want 5 files, -1, false, false", err, m.Files, m.BytesTotal, m.Adaptive, m.DryRun)
	}

	for _, tc := range []struct {
		name  string
		parts []Summary
		want  string
	}{
		{"none", nil, "no summaries"},
		{"outcomes short of rows read", []Summary{a, func() Summary { s := b; s.RowsWritten--; return s }()}, "b.json: rows read 101, but its outcomes add up to 100"},
		{"no histogram", []Summary{a, func() Summary { s := b; s.LatencyHistogram = ""; return s }()}, "b.json: no latency histogram"},
		{"a damaged histogram", []Summary{a, func() Summary { s := b; s.LatencyHistogram = "xyz"; return s }()}, "b.json: latency histogram:"},
	} {
		if _, err := MergeSummaries(tc.parts, []string{"a.json", "b.json"}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
	if _, err := MergeSummaries([]Summary{func() Summary { s := b; s.RowsWritten--; return s }()}, nil); err == nil || !strings.HasPrefix(err.Error(), "summary 1:") {
		t.Errorf("without names: %v, want the summary named by its place", err)
	}
}

func equalAny(a, b any) bool {
	switch x := a.(type) {
	case []HostLimit:
		return slices.Equal(x, b.([]HostLimit))
	case []Reason:
		return slices.Equal(x, b.([]Reason))
	case float64:
		d := x - b.(float64)
		return d < 1e-9 && d > -1e-9
	}
	return a == b
}

// TestMergeFileLists: the splits of one load list the same directories,
// so a file they left out is named once; the error files each kept are
// all named.
func TestMergeFileLists(t *testing.T) {
	var a, b Summary
	a.InputsLeftOut = []string{"in/import_ks_t.0.err (ERRFILE)", "in/import_ks_t.1.err (ERRFILE)"}
	b.InputsLeftOut = []string{"in/import_ks_t.0.err (ERRFILE)", "in/import_ks_t.1.err (ERRFILE)"}
	a.PreviousErrFiles = []string{"import_ks_t.0.err.20261204_101500"}
	b.PreviousErrFiles = []string{"import_ks_t.1.err.20261204_101500"}
	// Each split's rows are in its own error files, their reasons in its
	// own log; a summary written before err_logs has err_log only.
	a.ErrFiles, a.ErrLog, a.ErrLogs = []string{"import_ks_t.0.err"}, "import_ks_t.0.err.log", []string{"import_ks_t.0.err.log"}
	b.ErrFiles, b.ErrLog = []string{"import_ks_t.1.err"}, "import_ks_t.1.err.log"
	m, err := MergeSummaries([]Summary{a, b}, []string{"a.json", "b.json"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.InputsLeftOut, a.InputsLeftOut) {
		t.Errorf("left out: %q, want %q", m.InputsLeftOut, a.InputsLeftOut)
	}
	if want := append(a.PreviousErrFiles, b.PreviousErrFiles...); !slices.Equal(m.PreviousErrFiles, want) {
		t.Errorf("previous error files: %q, want %q", m.PreviousErrFiles, want)
	}
	if want := []string{"import_ks_t.0.err.log", "import_ks_t.1.err.log"}; !slices.Equal(m.ErrLogs, want) {
		t.Errorf("error logs: %q, want %q", m.ErrLogs, want)
	}
	if want := []string{"import_ks_t.0.err", "import_ks_t.1.err"}; !slices.Equal(m.ErrFiles, want) {
		t.Errorf("error files: %q, want %q", m.ErrFiles, want)
	}
}
