package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cqlload/cqlload/internal/proctest"
)

// TestCounterUpdatesCutOff stops a counter load while updates are in
// flight. An update cut off by the run's own stop or by a lost connection
// may have been applied, so it is unknown and not sent again, but it says
// nothing of the rows: it must not count towards MAXINSERTERRORS, or the
// exit status would tell a scheduler the data is bad (2) when the run was
// interrupted (4) or lost its cluster (3, which a Job retries). Before,
// both ended with exit 2, "too many insert errors".
func TestCounterUpdatesCutOff(t *testing.T) {
	const rows, keys = 200_000, 1000
	var in strings.Builder
	for i := range rows {
		fmt.Fprintf(&in, "%d,1\n", i%keys)
	}
	file := filepath.Join(t.TempDir(), "incr.csv")
	if err := os.WriteFile(file, []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		// cut stops the run: the signal to send, and the nodes to
		// stop or pause first.
		sig     syscall.Signal
		control []string
		args    []string
		want    int
		says    string
	}{
		{"SIGINT while a node is paused", syscall.SIGINT, []string{"/nodes/2/pause"},
			[]string{"--ingest-rate", "30000"}, exitInterrupted, "interrupted by SIGINT"},
		// At full speed, with hundreds of updates in flight when the
		// nodes go. The run ends as the cluster's silence ends it (the
		// nodes still up answer Unavailable while the others stop, so
		// it may say they answered only with errors).
		{"every node stopped", 0, []string{"/nodes/1/stop", "/nodes/2/stop", "/nodes/3/stop"},
			[]string{"--retry-window", "3s", "--max-insert-errors", "10"}, exitFatal, "for 3s (--retry-window 3s)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sim := startSimProc(t)
			dir := t.TempDir()
			sum := filepath.Join(dir, "summary.json")
			args := append([]string{"--progress", "none", "--table", "ks.c", "--err-file", filepath.Join(dir, "incr.err"),
				"--summary-json", sum}, tc.args...)
			cmd := sim.Cmd(context.Background(), t, append(args, file)...)
			var out bytes.Buffer
			done := startWriting(t, sim, cmd, &out, rows/10)
			for _, c := range tc.control {
				sim.Control(t, c)
			}
			if tc.sig != 0 {
				// Updates queue on the paused node meanwhile.
				time.Sleep(500 * time.Millisecond)
				if err := cmd.Process.Signal(tc.sig); err != nil {
					t.Fatal(err)
				}
			}
			awaitEnd(t, cmd, done, &out)
			if code := cmd.ProcessState.ExitCode(); code != tc.want || !strings.Contains(out.String(), tc.says) {
				t.Fatalf("exit %d, want %d saying %q:\n%s", code, tc.want, tc.says, out.String())
			}
			s := readSummary(t, sum)
			checkCounts(t, s, rows, false)
			if s.RowsUnknown == 0 {
				t.Errorf("no update was cut off (summary %+v): the test did not stop the run mid-update", s.Progress)
			}
		})
	}
}

// TestCounterRefusedThenKilled: counter updates the cluster refused
// (Unavailable: nothing applied) and that wait for their retry when the
// run is killed with SIGKILL are sent by the resumed run, not reported
// unknown: the counter journal records the refusal. Only updates caught
// between being marked sent and their answer at the kill can stay
// unknown.
func TestCounterRefusedThenKilled(t *testing.T) {
	const rows, keys, maxBatch = 20_000, 100, 10
	var in strings.Builder
	for i := range rows {
		fmt.Fprintf(&in, "%d,1\n", i%keys)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "incr.csv")
	if err := os.WriteFile(file, []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	sim := startSimProc(t)
	sum := filepath.Join(dir, "summary.json")
	args := []string{"--progress", "none", "--table", "ks.c", "--resume", filepath.Join(dir, "ckpt"),
		"--err-file", filepath.Join(dir, "incr.err"), "--summary-json", sum,
		"--ingest-rate", "5000", "--max-batch-size", strconv.Itoa(maxBatch), file}
	cmd := sim.Cmd(context.Background(), t, args...)
	var out bytes.Buffer
	done := startWriting(t, sim, cmd, &out, 3000)
	for n := 1; n <= 3; n++ {
		sim.Control(t, fmt.Sprintf("/nodes/%d/faults?rate=1&kind=unavailable", n))
	}
	time.Sleep(3 * time.Second) // thousands of updates refused, waiting to retry
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-done
	for n := 1; n <= 3; n++ {
		sim.Control(t, fmt.Sprintf("/nodes/%d/faults", n))
	}
	var applied int64
	s := sim.Session(t)
	for _, n := range readCounters(t, s) {
		applied += n
	}
	if rows-applied < 5000 {
		t.Fatalf("%d of %d updates applied at the kill: the test did not keep thousands refused", applied, rows)
	}

	res := runLoad(t, sim, dir, args, stopAt{})
	sm := readSummary(t, sum)
	var got int64
	for _, n := range readCounters(t, s) {
		got += n
	}
	t.Logf("%d updates applied at the kill; resumed: exit %d, %d written, %d unknown; counters sum to %d", applied, res.code, sm.RowsWritten, sm.RowsUnknown, got)
	if got+sm.RowsUnknown != rows || got > rows {
		t.Errorf("counters sum to %d with %d unknown rows, want %d exactly", got, sm.RowsUnknown, rows)
	}
	// A kill lands between an update's mark and its answer for a few
	// requests at most; before the journal recorded refusals every
	// refused update was unknown, thousands here.
	if bound := int64(10 * maxBatch); sm.RowsUnknown > bound {
		t.Errorf("%d updates unknown after the resume, more than %d: refused updates were not sent again\n%s%s", sm.RowsUnknown, bound, res.stdout, res.stderr)
	}
}

// startWriting starts cmd, its output into out, and returns once the
// simulator has written rows rows; done is closed when cmd has ended.
func startWriting(t *testing.T, sim *proctest.Sim, cmd *exec.Cmd, out *bytes.Buffer, rows int64) (done <-chan struct{}) {
	t.Helper()
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(ended)
	}()
	deadline := time.Now().Add(20 * time.Second)
	for sim.RowsWritten(t) < rows {
		if time.Now().After(deadline) {
			t.Fatalf("the run wrote fewer than %d rows in 20 s:\n%s", rows, out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	return ended
}

// awaitEnd waits for a run startWriting started to end, for 90 s at
// most: then it kills it and fails the test with what it printed.
func awaitEnd(t *testing.T, cmd *exec.Cmd, done <-chan struct{}, out *bytes.Buffer) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(90 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("the run did not end within 90 s:\n%s", out.String())
	}
}
