package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cqlload/cqlload/loader"
)

func TestMetricsEndpoint(t *testing.T) {
	o := loader.DefaultOptions()
	o.Hosts, o.Keyspace, o.Table, o.Files = []string{"127.0.0.1"}, "ks", "t", []string{"x.csv"}
	l, err := loader.New(o)
	if err != nil {
		t.Fatal(err)
	}
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
	body, _ := io.ReadAll(resp.Body)
	for _, want := range []string{
		"cqlload_rows_read_total 0", "cqlload_rows_written_total 0", "cqlload_rows_failed_parse_total 0",
		"cqlload_rows_failed_insert_total 0", "cqlload_retries_total 0", "cqlload_input_bytes -1", "cqlload_rows_in_flight 0",
	} {
		if !strings.Contains(string(body), want) {
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
	body, _ := io.ReadAll(resp.Body)
	for _, h := range c.Hosts() {
		host := h // host:port, as the loader reports it
		for _, want := range []string{`cqlload_in_flight_limit{host="` + host + `"} `, `cqlload_in_flight_requests{host="` + host + `"} 0`} {
			if !strings.Contains(string(body), want) {
				t.Errorf("/metrics lacks %q:\n%s", want, body)
			}
		}
	}
}
