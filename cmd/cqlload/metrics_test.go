package main

import (
	"io"
	"net/http"
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
