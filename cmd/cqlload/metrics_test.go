package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cqlload/cqlload/loader"
)

// scrape serves l's metrics and reads /metrics once.
func scrape(t *testing.T, l *loader.Loader) string {
	t.Helper()
	addr, stop, err := serveMetrics("127.0.0.1:0", l)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}

func TestMetricsEndpoint(t *testing.T) {
	o := loader.DefaultOptions()
	o.Hosts, o.Keyspace, o.Table, o.Files = []string{"127.0.0.1"}, "ks", "t", []string{"x.csv"}
	l, err := loader.New(o)
	if err != nil {
		t.Fatal(err)
	}
	body := scrape(t, l)
	for _, want := range []string{
		"cqlload_rows_read_total 0", "cqlload_rows_written_total 0", "cqlload_rows_failed_parse_total 0",
		"cqlload_rows_failed_insert_total 0", "cqlload_retries_total 0", "cqlload_input_bytes -1", "cqlload_rows_in_flight 0",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}
}

// TestMetricsLimitsPerHost: after a load, /metrics has each coordinator's
// in-flight limit, requests in flight and paced rate, labelled with its
// address.
func TestMetricsLimitsPerHost(t *testing.T) {
	c := startSim(t)
	path := writeKVN(t, 2000)
	o := loader.DefaultOptions()
	o.Hosts, o.Port, o.Keyspace, o.Table, o.Files = c.Hosts(), c.Port(), "ks", "t", []string{path}
	o.Columns, o.ErrFile = []string{"k", "v", "n"}, filepath.Join(t.TempDir(), "e.err")
	l, err := loader.New(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	body := scrape(t, l)
	for _, h := range c.Hosts() {
		// h is host:port, as the loader reports it.
		for _, want := range []string{`cqlload_in_flight_limit{host="` + h + `"} `, `cqlload_in_flight_requests{host="` + h + `"} 0`,
			// Nothing was shed: no host was paced.
			`cqlload_paced_requests_per_second{host="` + h + `"} 0`} {
			if !strings.Contains(body, want) {
				t.Errorf("/metrics lacks %q:\n%s", want, body)
			}
		}
	}
}

// TestLogLinesCarryIntervals: --progress log lines carry the interval's
// figures as a load tester reads them: rates, ordered latency
// percentiles, errors, retries and the in-flight limit, up to the last
// line's count of every row.
func TestLogLinesCarryIntervals(t *testing.T) {
	c := startSim(t)
	path := writeKVN(t, 20000)
	code, _, stderr := runCLI(t, "", "127.0.0.1", strconv.Itoa(c.Port()), "--progress", "log", "--report-frequency", "0.1",
		"--ingest-rate", "40000", "--err-file", filepath.Join(t.TempDir(), "e.err"), "--table", "ks.t", "--columns", "k,v,n", path)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	re := regexp.MustCompile(`^Processed: (\d+) rows;.* interval [0-9.]+s: \d+ rows/s, \d+ req/s, latency ms p50 ([0-9.]+) p95 ([0-9.]+) p99 ([0-9.]+) max ([0-9.]+), \d+ errors \([0-9.]+%\), \d+ retries, in-flight limit (\d+)$`)
	lines, last := 0, ""
	for _, line := range strings.Split(stderr, "\n") {
		m := re.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		lines++
		last = m[1]
		var p [4]float64
		for i := range p {
			p[i], _ = strconv.ParseFloat(m[2+i], 64)
		}
		if p[0] > p[1] || p[1] > p[2] || p[2] > p[3] {
			t.Errorf("line %q: percentiles out of order", line)
		}
		if limit, _ := strconv.Atoi(m[6]); limit < 1 {
			t.Errorf("line %q: no in-flight limit", line)
		}
	}
	if lines < 3 || last != "20000" {
		t.Fatalf("%d log lines with interval figures, the last at %s rows of 20000:\n%s", lines, last, stderr)
	}
}

// writeKVN writes n rows "k,v,n" to a CSV file and returns its path.
func writeKVN(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rows.csv")
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%d,v,%d\n", i, i)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSummaryLimitsLine: the summary's line of in-flight limits names the
// kind of limit, each host's limit, and the rate a paced host is held to.
func TestSummaryLimitsLine(t *testing.T) {
	tests := []struct {
		name     string
		adaptive bool
		limits   []loader.HostLimit
		want     string
	}{
		{"fixed", false, []loader.HostLimit{{Host: "10.0.0.1:9042", Limit: 128}},
			"In-flight limits (fixed) at the end: 10.0.0.1:9042 128; 0 error responses (0.00% of responses)\n"},
		{"adaptive, one paced", true, []loader.HostLimit{{Host: "a:9042", Limit: 12}, {Host: "b:9042", Limit: 30, Paced: 2500}},
			"In-flight limits (adaptive) at the end: a:9042 12, b:9042 30 (paced at 2500 requests/s); 0 error responses (0.00% of responses)\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			printSummary(&b, loader.Summary{Adaptive: tc.adaptive, Limits: tc.limits}, nil)
			if !strings.Contains(b.String(), tc.want) {
				t.Errorf("summary lacks %q:\n%s", tc.want, b.String())
			}
		})
	}
}

// TestSummaryNamesResumedRejects: a resumed run whose own rows were all
// written, but which exits 1 for the rows the run it resumed rejected,
// names the error files that hold them.
func TestSummaryNamesResumedRejects(t *testing.T) {
	var b strings.Builder
	s := loader.Summary{ErrFiles: []string{"e.err"}, ErrLog: "e.err.log"}
	s.RowsWritten, s.RowsResumed = 10, 90
	printSummary(&b, s, nil)
	if want := "did not write some of its rows: see e.err and e.err.log"; !strings.Contains(b.String(), want) {
		t.Errorf("summary:\n%s\nwant it to say %q", b.String(), want)
	}
	b.Reset()
	s.ErrFiles, s.ErrLog = nil, ""
	printSummary(&b, s, nil)
	if strings.Contains(b.String(), "see ") {
		t.Errorf("summary of a run without error files names some:\n%s", b.String())
	}
}

// TestSummaryWithoutErrFile: rows not written that no error file holds
// (it could not be written) are said to be in none, not in "  and ".
func TestSummaryWithoutErrFile(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []string
		log   string
		want  string
	}{
		{"both", []string{"e.err"}, "e.err.log", "(the run stopped); see e.err and e.err.log\n"},
		{"file only", []string{"e.err"}, "", "(the run stopped); see e.err\n"},
		{"none", nil, "", "(the run stopped); no error file holds them: it could not be written\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			s := loader.Summary{ErrFiles: tc.files, ErrLog: tc.log}
			s.RowsRead, s.RowsNotSent = 10, 10
			printSummary(&b, s, nil)
			if !strings.Contains(b.String(), tc.want) {
				t.Errorf("summary:\n%s\nwant it to say %q", b.String(), tc.want)
			}
		})
	}
}

// TestNothingToDoKeepsRejects: a finished run with rejected rows, run
// again with its checkpoint (a Job's retry, a cron job run twice), finds
// nothing to do but still exits 1 naming the error files, so that its
// summary, and summarize over it, do not report the load clean.
func TestNothingToDoKeepsRejects(t *testing.T) {
	c := startSim(t)
	host, port := "127.0.0.1", strconv.Itoa(c.Port())
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(in, []byte("1,a,1\nx,bad,2\n3,c,3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	errf, sum := filepath.Join(dir, "in.err"), filepath.Join(dir, "s.json")
	args := []string{"--hosts", host, "--port", port, "--progress", "none", "--table", "ks.t", "--columns", "k,v,n",
		"--resume", filepath.Join(dir, "ckpt"), "--err-file", errf, "--summary-json", sum, in}
	if code, out, stderr := runCLI(t, "", args...); code != exitRejected {
		t.Fatalf("first run: exit %d, want %d\n%s%s", code, exitRejected, out, stderr)
	}
	code, out, stderr := runCLI(t, "", args...)
	if code != exitRejected || !strings.Contains(out, "Nothing to do") || !strings.Contains(out, errf) {
		t.Fatalf("run again: exit %d, want %d, nothing to do, naming %s\n%s%s", code, exitRejected, errf, out, stderr)
	}
	if code, out, _ := runCLI(t, "", "summarize", sum); code != exitRejected {
		t.Errorf("summarize of the run again: exit %d, want %d\n%s", code, exitRejected, out)
	}
	// Moved away to be mended: still not in the table, and said so.
	if err := os.Rename(errf, errf+".mending"); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := runCLI(t, "", args...); code != exitRejected || !strings.Contains(out, errf+" (since moved or removed)") {
		t.Errorf("run again, the error file moved: exit %d, want %d naming it moved\n%s", code, exitRejected, out)
	}
	// Without rejects, a run again is clean.
	if err := os.WriteFile(in, []byte("1,a,1\n3,c,3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for run := range 2 {
		if code, out, stderr := runCLI(t, "", args...); code != exitOK {
			t.Errorf("clean input, run %d: exit %d\n%s%s", run+1, code, out, stderr)
		}
	}
}
