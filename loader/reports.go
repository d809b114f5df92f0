package loader

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/cqlload/cqlload/internal/wholefile"
	"github.com/cqlload/cqlload/loader/internal/stall"
)

// histogramLogInterval is the interval of --histogram-log: one histogram a
// second, as cassandra-stress and HdrHistogram's own tools log them.
const histogramLogInterval = time.Second

// startReports starts the reports written to files while the run lasts:
// RATEFILE's lines and --histogram-log's histograms. Like the command
// line's progress display they only read the run, each through its own
// IntervalReader. stop writes each a last interval and closes it.
func (l *Loader) startReports() (stop func()) {
	var stops []func()
	if l.opts.RateFile != "" {
		stops = append(stops, l.report(l.opts.RateFile, l.opts.ReportFrequency, writeRateHeader, writeRateLine))
	}
	if l.opts.HistogramLog != "" {
		var hw *hdrhistogram.HistogramLogWriter
		start := l.tracker.start.Load() / int64(time.Millisecond)
		header := func(w io.Writer) error {
			hw = hdrhistogram.NewHistogramLogWriter(w)
			hw.SetBaseTime(start)
			return errors.Join(hw.OutputLogFormatVersion(), hw.OutputComment("cqlload request latency in microseconds"),
				hw.OutputStartTime(start), hw.OutputBaseTime(start), hw.OutputLegend())
		}
		line := func(_ io.Writer, iv Interval) error {
			h := iv.Histogram
			if h == nil {
				// An interval with no acknowledged request is logged
				// too, so that the log's time line has no holes.
				h = newLatencyHistogram()
				h.SetStartTimeMs(start + iv.Start.Milliseconds())
				h.SetEndTimeMs(start + iv.End.Milliseconds())
			}
			return hw.OutputIntervalHistogramWithLogOptions(h, hdrhistogram.DefaultHistogramLogOptions())
		}
		stops = append(stops, l.report(l.opts.HistogramLog, histogramLogInterval, header, line))
	}
	return func() {
		for _, s := range stops {
			s()
		}
	}
}

// report appends, every period, one interval to the file at path, after
// header when the file is new or a descriptor (wholefile.Descriptor); a
// file that cannot be written aborts the run, as a lost report is a lie
// by omission.
//
// The file is opened on a goroutine of its own: a named pipe's open waits
// for a reader, and the load goes on meanwhile (its first line then
// covers the wait). A pipe that no one has opened for reading when the
// run ends, ReportOpenGrace later, aborts it instead of keeping it
// waiting for ever.
func (l *Loader) report(path string, period time.Duration, header func(io.Writer) error, line func(io.Writer, Interval) error) (stop func()) {
	ivs := l.Intervals()
	fail := func(err error) {
		if err != nil {
			l.life.abort(fmt.Sprintf("report file %s: %v", path, err), true, draining)
		}
	}
	quit, opened, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		// /dev/stdout and the like are written through the descriptor
		// the shell set up, at its offset, not opened again at the
		// file's end.
		f, own, err := wholefile.Descriptor(path)
		if !own {
			f, err = os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		}
		if err != nil {
			l.life.abort(fmt.Sprintf("report file: %v", err), true, draining)
			return
		}
		close(opened)
		w := bufio.NewWriter(f)
		// A descriptor is this run's output stream, whatever it holds
		// already (a log appended to): it gets the header too.
		if st, err := f.Stat(); own || err == nil && st.Size() == 0 {
			fail(header(w))
		}
		write := func() {
			fail(line(w, ivs.Next()))
			fail(w.Flush())
		}
		stopTicks := stall.Every(period, write)
		<-quit
		stopTicks()
		write()
		fail(f.Close())
	}()
	return func() {
		close(quit)
		t := time.NewTimer(ReportOpenGrace)
		defer t.Stop()
		select {
		case <-opened:
			<-done
		case <-done: // the open failed, and said so
		case <-t.C:
			l.life.abort(fmt.Sprintf("report file %s: no process opened it for reading by the end of the run (a named pipe): its report is lost", path), true, draining)
		}
	}
}

// ReportOpenGrace is how long a run that has ended waits for a report
// file's open: a named pipe's reader.
const ReportOpenGrace = 5 * time.Second

// The rate file keeps cqlsh's first three columns (seconds, rows written,
// mean rows/s) and adds the interval's figures.
func writeRateHeader(w io.Writer) error {
	_, err := fmt.Fprintln(w, "# elapsed_s rows_written mean_rows_per_s interval_rows_per_s interval_requests_per_s p50_ms p95_ms p99_ms max_ms errors retries in_flight_limit")
	return err
}

func writeRateLine(w io.Writer, iv Interval) error {
	_, err := fmt.Fprintf(w, "%.3f %d %.0f %.0f %.0f %.3f %.3f %.3f %.3f %d %d %d\n",
		iv.End.Seconds(), iv.Written, perSec(iv.Written, iv.End.Seconds()), iv.RowsPerSec(), iv.RequestsPerSec(),
		iv.Latency.P50, iv.Latency.P95, iv.Latency.P99, iv.Latency.Max, iv.Errors, iv.Retries, iv.Limit)
	return err
}
