//go:build unix

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStoppedProcess stops cqlload with SIGSTOP mid-load, for longer
// than its request timeout and its retry window, and continues it with
// SIGCONT: what Ctrl-Z and fg do, or docker pause and unpause. The cluster
// answered meanwhile, and the answers waited in the sockets. The run
// must end as if nothing had happened: every row written once, none
// unknown, exit 0, and with INGESTRATE the schedule moved on by the stop
// rather than catching up on it at once. Before, the driver's timeouts fired the moment the
// process ran again and beat the waiting answers (inserts sent again,
// counter updates left unknown although applied), and the cluster was
// taken for silent for the length of the stop (exit 3).
func TestStoppedProcess(t *testing.T) {
	t.Parallel()   // mostly the stops' waits
	rows := 30_000 // make check: 150,000
	if full {
		rows = 150_000
	}
	const keys = 1000
	// make check's other tests load the machine more: see below.
	stop, timeout := 5*time.Second, "3s"
	if full {
		stop, timeout = 8*time.Second, "6s"
	}
	for _, tc := range []struct {
		name, table string
		rate        int // INGESTRATE, rows a second; 0 unlimited
	}{
		{"inserts", "ks.t", 0},
		{"counter updates", "ks.c", 0},
		{"inserts at INGESTRATE", "ks.t", 30_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each its own cluster; a stopped process waits
			dir := t.TempDir()
			var in strings.Builder
			for i := range rows {
				if tc.table == "ks.t" {
					fmt.Fprintf(&in, "%d,v%d\n", i, i)
				} else {
					fmt.Fprintf(&in, "%d,1\n", i%keys)
				}
			}
			file := filepath.Join(dir, "in.csv")
			if err := os.WriteFile(file, []byte(in.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			// Answers take 20-40 ms: hundreds of requests are in
			// flight when the process stops.
			sim := startSimProc(t, "--latency", "20ms-40ms")
			sum := filepath.Join(dir, "summary.json")
			// The stop outlasts the request timeout and the retry
			// window. After it, an attempt in flight has what was left
			// of its timeout to be answered, while the process reads
			// the answers of hundreds: on a machine busy with make
			// check's other tests, one counter batch of a CI run got no
			// answer read within 2 s, and one within 3 s, and was
			// reported unknown, as a timed-out counter update must be;
			// make check gives 6 s.
			cmd := sim.Cmd(context.Background(), t, "--progress", "none", "--table", tc.table,
				"--err-file", filepath.Join(dir, "err.csv"), "--summary-json", sum,
				"--request-timeout", timeout, "--retry-window", "3s", "--ingest-rate", fmt.Sprint(tc.rate), file)
			var out bytes.Buffer
			done := startWriting(t, sim, cmd, &out, int64(rows/10))
			if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
				t.Fatal(err)
			}
			time.Sleep(stop)
			if err := cmd.Process.Signal(syscall.SIGCONT); err != nil {
				t.Fatal(err)
			}
			awaitEnd(t, cmd, done, &out)
			if code := cmd.ProcessState.ExitCode(); code != 0 {
				t.Fatalf("exit %d, want 0:\n%s", code, out.String())
			}
			s := readSummary(t, sum)
			checkCounts(t, s, rows, true)
			if s.RowsWritten != int64(rows) || s.RowsUnknown != 0 {
				t.Errorf("%d rows written and %d unknown, want all %d written", s.RowsWritten, s.RowsUnknown, rows)
			}
			t.Logf("the run took %.1f s", s.ElapsedS)
			if least := time.Duration(rows/max(tc.rate, 1))*time.Second + stop - time.Second; tc.rate > 0 && s.ElapsedS < least.Seconds() {
				t.Errorf("the run took %.1f s, less than %v: it sent the rows due during the stop at once", s.ElapsedS, least)
			}
			// The stop held requests in flight: their latency spans it.
			if max := time.Duration(s.Latency.Max * float64(time.Millisecond)); max < stop-time.Second {
				t.Errorf("the longest request took %v: the stop (%v) caught none in flight", max, stop)
			}
			session := sim.Session(t)
			if tc.table == "ks.t" {
				if got := len(readKV(t, session)); got != rows {
					t.Errorf("the table holds %d rows, want %d", got, rows)
				}
				return
			}
			var total int64
			for _, n := range readCounters(t, session) {
				total += n
			}
			if total != int64(rows) {
				t.Errorf("the counters add up to %d, want %d: an update was applied twice or not at all", total, rows)
			}
		})
	}
}
