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
// in-flight limit and requests in flight, labelled with its address.
func TestMetricsLimitsPerHost(t *testing.T) {
	c := startSim(t)
	path := filepath.Join(t.TempDir(), "rows.csv")
	var b strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&b, "%d,v,%d\n", i, i)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
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
		for _, want := range []string{`cqlload_in_flight_limit{host="` + h + `"} `, `cqlload_in_flight_requests{host="` + h + `"} 0`} {
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
	path := filepath.Join(t.TempDir(), "rows.csv")
	var b strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&b, "%d,v,%d\n", i, i)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
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
