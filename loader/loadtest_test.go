package loader

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/cqlload/cqlload/cqlsim"
)

// capacityCluster starts nodes blackhole cqlsim nodes (RF 1) with schema,
// each taking rowsPerSec rows a second and beyond that acting as mode
// says, holding requests for hold (its write timeout).
func capacityCluster(t *testing.T, nodes int, schema string, rowsPerSec int, mode cqlsim.OverloadMode, hold time.Duration) *cqlsim.Cluster {
	t.Helper()
	return startCluster(t, nodes, 1, schema, func(cfg *cqlsim.Config) {
		cfg.Blackhole = true
		cfg.Capacity = rowsPerSec
		cfg.Overload = mode
		cfg.WriteTimeout = hold
	})
}

// loadAll runs the load of o and fails the test unless it wrote all rows,
// none failed or unknown.
func loadAll(t *testing.T, o Options, rows int64) Summary {
	t.Helper()
	s, err := runLoad(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if s.RowsWritten != rows || s.RowsFailedInsert != 0 || s.RowsUnknown != 0 {
		t.Fatalf("written %d, failed %d, unknown %d; want %d, 0, 0", s.RowsWritten, s.RowsFailedInsert, s.RowsUnknown, rows)
	}
	return s
}

// TestCapacityModes: against nodes with a capacity, in each overload mode,
// every row is written, none rejected, and the accounting holds; the
// summary reports the error responses and each coordinator's limit.
func TestCapacityModes(t *testing.T) {
	const rows = 20000
	for _, mode := range []cqlsim.OverloadMode{cqlsim.OverloadShed, cqlsim.OverloadQueue, cqlsim.OverloadTimeout} {
		t.Run(string(mode), func(t *testing.T) {
			c := capacityCluster(t, 3, `CREATE TABLE ks.b (k int PRIMARY KEY, v text);`, 10000, mode, 200*time.Millisecond)
			path := writeCSV(t, "rows.csv", rows, func(i int) string { return fmt.Sprintf("%d,v\n", i) })
			o := testOptions(t, c, "b", path)
			o.RequestTimeout = 2 * time.Second
			s := loadAll(t, o, rows)
			if !s.Adaptive || len(s.Limits) != 3 {
				t.Fatalf("adaptive %v, limits %+v: want adaptive limits for 3 coordinators", s.Adaptive, s.Limits)
			}
			for _, h := range s.Limits {
				if h.Limit < 1 || h.Limit > o.MaxInFlight || h.InFlight != 0 {
					t.Errorf("coordinator %s: limit %d, %d in flight at the end", h.Host, h.Limit, h.InFlight)
				}
			}
			st := c.Stats().Total()
			sent := st.Capacity.Errors["overloaded"] + st.Capacity.Errors["write_timeout"]
			if s.ErrorResponses < sent {
				t.Errorf("the summary counts %d error responses, the cluster sent %d", s.ErrorResponses, sent)
			}
		})
	}
}

// TestHeldRequestsSentAgain: a node past its capacity holds requests for
// its write timeout (5 s here); the loader gives up on one once it is
// plainly held (the coordinator's retransmission timeout, well under a
// second) and sends it again, so no attempt waits the hold out and every
// row is still written once.
func TestHeldRequestsSentAgain(t *testing.T) {
	const rows, hold = 20000, 5 * time.Second
	c := capacityCluster(t, 3, `CREATE TABLE ks.b (k int PRIMARY KEY, v text);`, 5000, cqlsim.OverloadTimeout, hold)
	path := writeCSV(t, "rows.csv", rows, func(i int) string { return fmt.Sprintf("%d,v\n", i) })
	o := testOptions(t, c, "b", path)
	o.RequestTimeout = 10 * time.Second
	s := loadAll(t, o, rows)
	if held := c.Stats().Total().Capacity.Errors["write_timeout"]; held == 0 {
		t.Fatal("the cluster held no request: the test shows nothing")
	}
	if s.Retries == 0 {
		t.Error("no retries counted, though the cluster held requests")
	}
	if max := time.Duration(s.Latency.Max * float64(time.Millisecond)); max >= hold {
		t.Errorf("an attempt waited %v, the node's whole hold of %v", max, hold)
	}
}

// TestSlowerNodeNotSentTwice: when a node's latency jumps past the
// retransmission timeout, the requests caught by the jump time out and go
// again, and the timeout backs off until answers are measured again;
// without that no first attempt would ever be answered in time, and
// every later request would be sent twice.
func TestSlowerNodeNotSentTwice(t *testing.T) {
	const rows, slow = 400, 450 * time.Millisecond // past the 400 ms least timeout
	c := startCluster(t, 1, 1, `CREATE TABLE ks.b (k int PRIMARY KEY, v text);`, func(cfg *cqlsim.Config) { cfg.Blackhole = true })
	path := writeCSV(t, "rows.csv", rows, func(i int) string { return fmt.Sprintf("%d,v\n", i) })
	o := testOptions(t, c, "b", path)
	o.MaxInFlight = 2
	o.RequestTimeout = 10 * time.Second
	l, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for l.Progress().RowsWritten < 60 {
			time.Sleep(time.Millisecond)
		}
		if err := c.Node(0).SetFault(cqlsim.Fault{LatencyMin: slow}); err != nil {
			t.Error(err)
		}
	}()
	s, err := l.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	checkAccounting(t, s)
	if s.RowsWritten != rows {
		t.Fatalf("written %d of %d", s.RowsWritten, rows)
	}
	// About 17 requests go after the jump; only those in flight then
	// (at most 2) and the odd one at the edge of the timeout go twice.
	if s.Retries == 0 || s.Retries > 6 {
		t.Errorf("%d retries of %d requests: want the few caught by the jump", s.Retries, s.Requests)
	}
}

// TestHeldCounterUpdatesWaitForTheirAnswer: a counter update given up on
// might have been applied, so a held one is not given up on early: it
// waits for the node's WriteTimeout, and its rows are reported unknown
// with the node's answer as the reason.
func TestHeldCounterUpdatesWaitForTheirAnswer(t *testing.T) {
	const rows = 10000
	c := capacityCluster(t, 1, `CREATE TABLE ks.c (k int PRIMARY KEY, hits counter);`, 5000, cqlsim.OverloadTimeout, time.Second)
	path := writeCSV(t, "counts.csv", rows, func(i int) string { return fmt.Sprintf("%d,1\n", i) })
	o := testOptions(t, c, "c", path)
	o.RequestTimeout = 10 * time.Second
	s, err := runLoad(t, o)
	if err != nil && s.RowsUnknown == 0 {
		t.Fatal(err)
	}
	checkAccounting(t, s)
	if c.Stats().Total().Capacity.Errors["write_timeout"] == 0 || s.RowsUnknown == 0 {
		t.Fatalf("the node held no counter update (unknown rows %d): the test shows nothing", s.RowsUnknown)
	}
	log, err := os.ReadFile(o.ErrFile + ".log")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(log), "no response received") || !strings.Contains(string(log), "Operation timed out") {
		t.Errorf("want every held update to wait for the node's WriteTimeout; error log:\n%.2000s", log)
	}
}

// TestFixedLimit: with Adaptive off every coordinator's limit is
// MaxInFlight.
func TestFixedLimit(t *testing.T) {
	c := startCluster(t, 3, 1, `CREATE TABLE ks.b (k int PRIMARY KEY, v text);`, nil)
	path := writeCSV(t, "rows.csv", 5000, func(i int) string { return fmt.Sprintf("%d,v\n", i) })
	o := testOptions(t, c, "b", path)
	o.Adaptive, o.MaxInFlight = false, 7
	s, err := runLoad(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if s.Adaptive || len(s.Limits) != 3 {
		t.Fatalf("adaptive %v, limits %+v", s.Adaptive, s.Limits)
	}
	for _, h := range s.Limits {
		if h.Limit != 7 {
			t.Errorf("coordinator %s: limit %d, want 7", h.Host, h.Limit)
		}
	}
}

// TestCoordinatedOmission: a fixed-rate run against a node paused for a
// second reports a corrected p99 that includes the pause (the rows due
// meanwhile are timed from when they were due), and raw figures, per
// attempt from when it was sent, that show it only in the few attempts
// the pause held.
func TestCoordinatedOmission(t *testing.T) {
	const rows, rate = 30000, 10000 // three seconds, 1,500 requests
	c := startCluster(t, 1, 1, `CREATE TABLE ks.b (k int PRIMARY KEY, v text);`, func(cfg *cqlsim.Config) { cfg.Blackhole = true })
	path := writeCSV(t, "rows.csv", rows, func(i int) string { return fmt.Sprintf("%d,v\n", i) })
	o := testOptions(t, c, "b", path)
	o.IngestRate = rate
	o.MaxInFlight = 4 // the pause holds few requests: raw latency sees only those
	go func() {
		time.Sleep(time.Second)
		if err := c.Node(0).Pause(); err != nil {
			t.Error(err)
			return
		}
		time.Sleep(time.Second)
		c.Node(0).Resume()
	}()
	s, err := runLoad(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if s.RowsWritten != rows || s.LatencyRaw == nil {
		t.Fatalf("written %d, raw latency %v", s.RowsWritten, s.LatencyRaw)
	}
	// A second of rows (a third of the run) fell due during the pause.
	if s.Latency.P99 < 500 {
		t.Errorf("corrected p99 %.1f ms does not show the 1 s pause", s.Latency.P99)
	}
	if s.LatencyRaw.P99 >= 500 {
		t.Errorf("raw p99 %.1f ms: want the pause in few requests only (at most 4 of %d were held)", s.LatencyRaw.P99, s.Requests)
	}
	// An attempt held by the pause waits for its retransmission timeout
	// (at least 400 ms), then goes again.
	if s.LatencyRaw.Max < 350 {
		t.Errorf("raw max %.1f ms: the attempts held by the pause should show it", s.LatencyRaw.Max)
	}
}

// TestDurationEndsInOrder: --duration stops sending, ends the run without
// an error, and counts the rows read but not sent as skipped by duration;
// none goes to the error file. Against a node that sheds load, requests
// being retried when the duration ends are retried to their end, so no
// row is left unknown or not sent.
func TestDurationEndsInOrder(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.b (k int PRIMARY KEY, v text);`, func(cfg *cqlsim.Config) {
		cfg.Blackhole = true
		cfg.Capacity = 5000 // rows/s, shed beyond
	})
	path := writeCSV(t, "rows.csv", 20000, func(i int) string { return fmt.Sprintf("%d,v\n", i) })
	o := testOptions(t, c, "b", path)
	o.Adaptive = false // push past the capacity: retries are in flight at the end
	o.Repeat = 10      // 200,000 rows: far more than the duration lets through
	o.Duration = time.Second
	start := time.Now()
	s, err := runLoad(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the run took %s with --duration 1s", d)
	}
	if s.RowsWritten < 2000 || s.RowsWritten > 12000 || s.RowsNotSentByDuration == 0 || s.Retries == 0 {
		t.Fatalf("written %d, not sent by duration %d, retries %d", s.RowsWritten, s.RowsNotSentByDuration, s.Retries)
	}
	if s.RowsNotSent != 0 || s.RowsFailedInsert != 0 || s.RowsUnknown != 0 || s.RowsSkipped != s.RowsNotSentByDuration || len(s.ErrFiles) != 0 {
		t.Fatalf("not sent %d, failed %d, skipped %d, error files %v: want the rest skipped by duration only",
			s.RowsNotSent, s.RowsFailedInsert, s.RowsSkipped, s.ErrFiles)
	}
}

// TestRepeat: --repeat reads the input again, keys unchanged; a stream
// cannot be repeated, and neither option goes with --resume.
func TestRepeat(t *testing.T) {
	c := startCluster(t, 3, 1, `CREATE TABLE ks.b (k int PRIMARY KEY, v text);`, nil)
	path := writeCSV(t, "rows.csv", 3000, func(i int) string { return fmt.Sprintf("%d,v%d\n", i, i) })
	o := testOptions(t, c, "b", path)
	o.Repeat = 3
	s, err := runLoad(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if s.RowsRead != 9000 || s.RowsWritten != 9000 || s.Files != 1 {
		t.Fatalf("read %d, written %d, files %d; want 9000, 9000, 1", s.RowsRead, s.RowsWritten, s.Files)
	}
	var n int
	if err := session(t, c).Query("SELECT count(*) FROM ks.b").Scan(&n); err != nil || n != 3000 {
		t.Fatalf("the table holds %d rows (%v), want 3000: keys are unchanged", n, err)
	}
	bad := o
	bad.Resume = filepath.Join(t.TempDir(), "ckpt")
	if err := bad.Validate(); err == nil {
		t.Errorf("--repeat with --resume was accepted")
	}
}

// TestHistogramLog: --histogram-log writes HdrHistogram's interval log,
// which its own reader reads back: the intervals' counts add up to the
// requests acknowledged.
func TestHistogramLog(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.b (k int PRIMARY KEY, v text);`, func(cfg *cqlsim.Config) { cfg.Blackhole = true })
	path := writeCSV(t, "rows.csv", 6000, func(i int) string { return fmt.Sprintf("%d,v\n", i) })
	o := testOptions(t, c, "b", path)
	o.IngestRate = 4000 // about a second and a half: two intervals or more
	o.HistogramLog = filepath.Join(t.TempDir(), "run.hlog")
	s, err := runLoad(t, o)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(o.HistogramLog)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd := hdrhistogram.NewHistogramLogReader(f)
	var total int64
	intervals := 0
	for {
		h, err := rd.NextIntervalHistogram()
		if err != nil {
			t.Fatalf("interval %d: %v", intervals, err)
		}
		if h == nil {
			break
		}
		intervals++
		total += h.TotalCount()
		if h.EndTimeMs() < h.StartTimeMs() {
			t.Errorf("interval %d ends before it starts", intervals)
		}
	}
	if intervals < 2 || total != s.Requests {
		t.Fatalf("%d intervals holding %d requests; want at least 2 holding %d", intervals, total, s.Requests)
	}
}
