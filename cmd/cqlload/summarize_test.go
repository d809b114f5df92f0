package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/cqlload/cqlload/loader"
)

// TestSummarize: the summaries of two runs merge into one whose counts are
// their sums, whose histogram holds both runs' requests, over the wall
// clock from the first start to the last end, with the worse exit status;
// a summary whose counts do not add up is refused.
func TestSummarize(t *testing.T) {
	c := startSim(t)
	host, port := "127.0.0.1", strconv.Itoa(c.Port())
	dir := t.TempDir()
	var a, b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&a, "%d,a,%d\n", i, i)
		fmt.Fprintf(&b, "%d,b,%d\n", 10000+i, i)
	}
	b.WriteString("x,bad,1\n") // one rejected row: the second run exits 1
	files := map[string]string{"a.csv": a.String(), "b.csv": b.String()}
	var sums []string
	for _, name := range []string{"a.csv", "b.csv"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(files[name]), 0o644); err != nil {
			t.Fatal(err)
		}
		sum := filepath.Join(dir, name+".json")
		code, _, stderr := runCLI(t, "", host, port, "--progress", "none", "--summary-json", sum,
			"--err-file", filepath.Join(dir, name+".err"), "--table", "ks.t", "--columns", "k,v,n", path)
		if want := map[string]int{"a.csv": exitOK, "b.csv": exitRejected}[name]; code != want {
			t.Fatalf("%s: exit %d, want %d\n%s", name, code, want, stderr)
		}
		sums = append(sums, sum)
	}
	merged := filepath.Join(dir, "merged.json")
	code, out, stderr := runCLI(t, "", "summarize", "--summary-json", merged, sums[0], sums[1])
	if code != exitRejected || !strings.Contains(out, "6000 rows imported from 2 files") {
		t.Fatalf("summarize: exit %d, want %d\n%s%s", code, exitRejected, out, stderr)
	}
	var parts [2]jsonSummary
	for i, p := range sums {
		raw, _ := os.ReadFile(p)
		if err := json.Unmarshal(raw, &parts[i]); err != nil {
			t.Fatal(err)
		}
	}
	var m jsonSummary
	raw, _ := os.ReadFile(merged)
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	s := m.Summary
	if s.RowsRead != 6001 || s.RowsWritten != 6000 || s.RowsFailedParse != 1 || s.Requests != parts[0].Requests+parts[1].Requests || m.ExitStatus != exitRejected {
		t.Fatalf("merged %+v, exit %d", s.Progress, m.ExitStatus)
	}
	if !s.StartedAt.Equal(parts[0].StartedAt) || !s.EndedAt.Equal(parts[1].EndedAt) ||
		s.ElapsedS < parts[0].ElapsedS+parts[1].ElapsedS {
		t.Fatalf("merged runs from %v to %v (%.3f s); the runs: %v–%v, %v–%v", s.StartedAt, s.EndedAt, s.ElapsedS,
			parts[0].StartedAt, parts[0].EndedAt, parts[1].StartedAt, parts[1].EndedAt)
	}
	// Each node once, its limit and requests the sums of the runs'.
	type limReq struct{ limit, requests int64 }
	want := map[string]limReq{}
	for _, p := range parts {
		for _, l := range p.Limits {
			w := want[l.Host]
			want[l.Host] = limReq{w.limit + int64(l.Limit), w.requests + l.Requests}
		}
	}
	got := map[string]limReq{}
	var requests int64
	for _, l := range s.Limits {
		g := got[l.Host]
		got[l.Host] = limReq{g.limit + int64(l.Limit), g.requests + l.Requests}
		requests += l.Requests
	}
	if len(want) == 0 || len(s.Limits) != len(want) || fmt.Sprint(got) != fmt.Sprint(want) || requests != s.Requests {
		t.Errorf("merged in-flight limits %+v, want one per node: %v, %d requests in all", s.Limits, want, s.Requests)
	}
	h, err := hdrhistogram.Decode([]byte(s.LatencyHistogram))
	if err != nil || h.TotalCount() != s.Requests {
		t.Fatalf("merged histogram: %v, %d latencies for %d requests", err, h.TotalCount(), s.Requests)
	}

	// A summary whose outcomes do not add up to its rows read.
	parts[0].RowsWritten--
	bad, _ := json.Marshal(parts[0])
	badPath := filepath.Join(dir, "bad.json")
	os.WriteFile(badPath, bad, 0o644)
	if code, _, stderr := runCLI(t, "", "summarize", badPath, sums[1]); code != exitUsage || !strings.Contains(stderr, "add up") {
		t.Fatalf("a damaged summary: exit %d, %s", code, stderr)
	}
	parts[0].RowsWritten++

	// Summaries of --split runs: every split of one load, once each.
	write := func(name string, p jsonSummary, split *loader.SplitOf) string {
		p.Split = split
		b, _ := json.Marshal(p)
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	s0 := write("s0.json", parts[0], &loader.SplitOf{Index: 0, Count: 3, Load: "L", Files: 4})
	s1 := write("s1.json", parts[1], &loader.SplitOf{Index: 1, Count: 3, Load: "L", Files: 4})
	s2 := write("s2.json", parts[0], &loader.SplitOf{Index: 2, Count: 3, Load: "L", Files: 4})
	other := write("other.json", parts[1], &loader.SplitOf{Index: 1, Count: 3, Load: "M"})
	four := write("four.json", parts[1], &loader.SplitOf{Index: 1, Count: 4, Load: "L"})
	var early jsonSummary
	early.ExitStatus, early.Aborted = exitUsage, "--split-plan p.json: made for 2 splits"
	refused := write("refused.json", early, nil)
	for _, tc := range []struct {
		name  string
		files []string
		code  int
		want  string
	}{
		// The load's files, not the most one split read.
		{"every split", []string{s2, s0, s1}, exitRejected, "9000 rows imported from 4 files"},
		{"a split missing", []string{s0, s2}, exitUsage, "no summary of split 1 of 3: the load is not known to be complete"},
		{"a split twice", []string{s0, s1, s1, s2}, exitUsage, s1 + " and " + s1 + " are both split 1/3"},
		{"another load", []string{s0, other, s2}, exitUsage, other + " is split 1/3 of another load"},
		{"another N", []string{s0, four, s2}, exitUsage, four + " is split 1/4 of another load"},
		{"a run without --split", []string{s0, s1, s2, sums[0]}, exitUsage, sums[0] + " is the summary of a run without --split"},
		{"a split refused before it knew its split", []string{s0, refused, s2}, exitUsage, refused + " is the summary of a run that ended before it loaded anything (exit 64: --split-plan p.json: made for 2 splits)"},
	} {
		code, out, stderr := runCLI(t, "", append([]string{"summarize"}, tc.files...)...)
		if code != tc.code || !strings.Contains(out+stderr, tc.want) {
			t.Errorf("%s: exit %d, want %d with %q:\n%s%s", tc.name, code, tc.code, tc.want, out, stderr)
		}
		if tc.code == exitUsage && strings.Contains(out, "rows imported") {
			t.Errorf("%s: a total was printed:\n%s", tc.name, out)
		}
	}
}

// TestMergedErrFilesNamed: a merged summary points to every split's
// error files and logs (the lists themselves: loader.TestMergeFileLists).
func TestMergedErrFilesNamed(t *testing.T) {
	var a, b jsonSummary
	a.ErrFiles, a.ErrLog, a.ErrLogs = []string{"import_ks_t.0.err"}, "import_ks_t.0.err.log", []string{"import_ks_t.0.err.log"}
	b.ErrFiles, b.ErrLog = []string{"import_ks_t.1.err"}, "import_ks_t.1.err.log"
	m, err := mergeSummaries([]jsonSummary{a, b}, []string{"a.json", "b.json"})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	m.RowsRead, m.RowsFailedParse = 2, 2
	printSummary(&out, m.Summary, nil)
	if want := "see import_ks_t.0.err, import_ks_t.1.err and import_ks_t.0.err.log, import_ks_t.1.err.log"; !strings.Contains(out.String(), want) {
		t.Errorf("merged summary:\n%s\nwant it to say %q", out.String(), want)
	}
}
