package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/cqlload/cqlload/loader"
)

// terminal returns the terminal w writes to, through the wrappers
// (stopWhenClosed's, the redactor's), or ok false.
func terminal(w io.Writer) (f *os.File, ok bool) {
	for {
		u, ok := w.(interface{ Unwrap() io.Writer })
		if !ok {
			break
		}
		w = u.Unwrap()
	}
	f, ok = w.(*os.File)
	return f, ok && term.IsTerminal(int(f.Fd()))
}

func isTerminal(w io.Writer) bool {
	_, ok := terminal(w)
	return ok
}

// reporter draws the loader's progress; the loader itself never prints.
// Log lines carry the interval's figures too, from their own
// IntervalReader, as cassandra-stress and YCSB print them.
type reporter struct {
	done  chan struct{}
	final bool // draw once more when done (see stop)
	wg    sync.WaitGroup
	bar   *progressbar.ProgressBar
	ivs   *loader.IntervalReader
	l     *loader.Loader
	// given returns the loader's hints so far; hints is how many of
	// them were shown.
	given func() []string
	hints int
}

func startReporter(l *loader.Loader, mode string, every time.Duration, w io.Writer) *reporter {
	r := &reporter{done: make(chan struct{}), ivs: l.Intervals(), l: l, given: l.Hints}
	if mode == "none" {
		return r
	}
	if mode == "bar" {
		r.bar = progressbar.NewOptions64(-1,
			progressbar.OptionSetWriter(w),
			// The bar's unit is input bytes (percent done); the rate that
			// matters, rows/s, is in the description.
			progressbar.OptionShowBytes(false),

			progressbar.OptionSetWidth(30),
			// No throttle: draws come from the reporter's own ticker,
			// and a throttled render could leave a frame half new.
			progressbar.OptionShowElapsedTimeOnFinish(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionFullWidth(),
		)
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-r.done:
				if !r.final {
					return
				}
				r.draw(l.Progress(), w)
				if r.bar != nil {
					_ = r.bar.Finish()
					fmt.Fprintln(w)
				}
				return
			case <-t.C:
				r.showHints(w)
				r.draw(l.Progress(), w)
			}
		}
	}()
	return r
}

// showHints writes the hints given since the last report, each once, as
// the summary will: the token order of the input is found while loading,
// and worth knowing long before the end. The last report leaves them to
// the summary.
func (r *reporter) showHints(w io.Writer) {
	hs := r.given()
	if len(hs) <= r.hints {
		return
	}
	if r.bar != nil {
		// Above the bar, which the draw that follows puts back.
		_ = r.bar.Clear()
	}
	for _, h := range hs[r.hints:] {
		fmt.Fprintf(w, "Hint: %s\n", h)
	}
	r.hints = len(hs)
}

func (r *reporter) draw(p loader.Progress, w io.Writer) {
	rate := 0.0
	if s := p.Elapsed.Seconds(); s > 0 {
		rate = float64(p.RowsWritten) / s
	}
	rejected := p.RowsFailedParse + p.RowsFailedInsert
	iv := r.ivs.Next()
	errShare := 0.0
	if n := iv.Requests + iv.Errors; n > 0 {
		errShare = 100 * float64(iv.Errors) / float64(n)
	}
	if r.bar != nil {
		if p.BytesTotal > 0 && r.bar.GetMax64() != p.BytesTotal {
			r.bar.ChangeMax64(p.BytesTotal)
		}
		// The value first (it draws only when the percent changes),
		// then the description, which draws the frame whole.
		_ = r.bar.Set64(p.BytesDone)
		parts := []string{fmt.Sprintf("%d rows written", p.RowsWritten), fmt.Sprintf("%.0f rows/s", rate), fmt.Sprintf("%d rejected", rejected)}
		if iv.Errors > 0 {
			parts = append(parts, fmt.Sprintf("%.1f%% errors", errShare))
		}
		parts = append(parts, fmt.Sprintf("limit %d", iv.Limit))
		r.bar.Describe(fitParts(barColumns(w)-barRoom, parts))
		return
	}
	pct := ""
	if p.BytesTotal > 0 {
		pct = fmt.Sprintf(" (%.1f%%)", 100*float64(p.BytesDone)/float64(p.BytesTotal))
	}
	fmt.Fprintf(w, "Processed: %d rows; Rate: %.0f rows/s; Rejected: %d; Elapsed: %.1fs%s; "+
		"interval %.1fs: %.0f rows/s, %.0f req/s, latency ms p50 %.2f p95 %.2f p99 %.2f max %.2f, %d errors (%.1f%%), %d retries, in-flight limit %d\n",
		p.RowsWritten, rate, rejected, p.Elapsed.Seconds(), pct,
		iv.Seconds(), iv.RowsPerSec(), iv.RequestsPerSec(), iv.Latency.P50, iv.Latency.P95, iv.Latency.P99, iv.Latency.Max,
		iv.Errors, errShare, iv.Retries, iv.Limit)
}

// barRoom is what a frame takes beside its description: the percent, a
// bar of at least ten cells, the elapsed and remaining times, and the
// spaces the bar puts between them.
const barRoom = 36

// barColumns is the width the bar's frames must fit in: the terminal's,
// at most 80. The bar measures the terminal only when it writes to an
// *os.File itself, and cqlload hands it a wrapper (stopWhenClosed), so
// it lays its frames out for 80 columns; a frame any wider wraps, and
// each redraw then starts a new line instead of replacing the last.
func barColumns(w io.Writer) int {
	if f, ok := terminal(w); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return min(cols, 80)
		}
	}
	return 80
}

// fitParts joins parts with ", ", as many of the first ones as fit in
// room columns; the first is always there.
func fitParts(room int, parts []string) string {
	s := parts[0]
	for _, p := range parts[1:] {
		if len(s)+2+len(p) > room {
			break
		}
		s += ", " + p
	}
	return s
}

// stop ends the reports, with a last one if final: not for a run that
// failed before it read anything (no cluster, no such table or file),
// where a line of zeros would only stand before the error.
func (r *reporter) stop(final bool) {
	r.final = final
	close(r.done)
	r.wg.Wait()
}
