package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/cqlload/cqlload/loader"
)

// serveMetrics exposes the loader's progress for Prometheus at
// http://addr/metrics while the run lasts. Like the bar, it only reads
// loader.Progress; the values are the same acknowledged counts.
func serveMetrics(addr string, l *loader.Loader) (bound string, stop func(), err error) {
	reg := prometheus.NewRegistry()
	counter := func(name, help string, f func(loader.Progress) int64) {
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: "cqlload", Name: name, Help: help},
			func() float64 { return float64(f(l.Progress())) }))
	}
	gauge := func(name, help string, f func(loader.Progress) float64) {
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "cqlload", Name: name, Help: help},
			func() float64 { return f(l.Progress()) }))
	}
	counter("rows_read_total", "Rows read from the input.", func(p loader.Progress) int64 { return p.RowsRead })
	counter("rows_written_total", "Rows the cluster acknowledged.", func(p loader.Progress) int64 { return p.RowsWritten })
	counter("rows_skipped_total", "Rows skipped by an option (SKIPROWS).", func(p loader.Progress) int64 { return p.RowsSkipped })
	counter("rows_failed_parse_total", "Rows rejected before sending (parse or convert errors).", func(p loader.Progress) int64 { return p.RowsFailedParse })
	counter("rows_failed_insert_total", "Rows rejected by the cluster after retries.", func(p loader.Progress) int64 { return p.RowsFailedInsert })
	counter("rows_unknown_total", "Rows whose write may or may not have been applied (never resent).", func(p loader.Progress) int64 { return p.RowsUnknown })
	counter("rows_not_sent_total", "Rows read but not sent because the run stopped.", func(p loader.Progress) int64 { return p.RowsNotSent })
	counter("rows_resumed_total", "Rows an earlier run settled, skipped by --resume.", func(p loader.Progress) int64 { return p.RowsResumed })
	counter("requests_total", "Requests (batches and single-row writes) acknowledged.", func(p loader.Progress) int64 { return p.Requests })
	counter("retries_total", "Requests sent again after a retryable error.", func(p loader.Progress) int64 { return p.Retries })
	counter("input_bytes_done_total", "Input bytes whose rows are all resolved.", func(p loader.Progress) int64 { return p.BytesDone })
	gauge("input_bytes", "Total input size in bytes; -1 when unknown (stdin).", func(p loader.Progress) float64 { return float64(p.BytesTotal) })
	gauge("rows_in_flight", "Rows read but not yet resolved.", func(p loader.Progress) float64 { return float64(p.RowsInFlight()) })

	reg.MustRegister(newLimitsCollector(l))

	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, fmt.Errorf("--metrics-addr: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = err // the listener is ours; Serve only fails when it is closed
		}
	}()
	return ln.Addr().String(), func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	}, nil
}

// limitsCollector reports each coordinator's in-flight limit, as the
// hosts come and go.
type limitsCollector struct {
	l                      *loader.Loader
	limit, inFlight, paced *prometheus.Desc
}

func newLimitsCollector(l *loader.Loader) limitsCollector {
	return limitsCollector{l: l,
		limit:    prometheus.NewDesc("cqlload_in_flight_limit", "The coordinator's limit on requests in flight (adaptive unless --adaptive=false).", []string{"host"}, nil),
		inFlight: prometheus.NewDesc("cqlload_in_flight_requests", "Requests in flight to the coordinator.", []string{"host"}, nil),
		paced:    prometheus.NewDesc("cqlload_paced_requests_per_second", "The rate requests to the coordinator are paced at since it shed or timed out (0: not paced).", []string{"host"}, nil),
	}
}

func (c limitsCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.limit
	ch <- c.inFlight
	ch <- c.paced
}

func (c limitsCollector) Collect(ch chan<- prometheus.Metric) {
	for _, h := range c.l.Limits() {
		ch <- prometheus.MustNewConstMetric(c.limit, prometheus.GaugeValue, float64(h.Limit), h.Host)
		ch <- prometheus.MustNewConstMetric(c.inFlight, prometheus.GaugeValue, float64(h.InFlight), h.Host)
		ch <- prometheus.MustNewConstMetric(c.paced, prometheus.GaugeValue, h.Paced, h.Host)
	}
}
