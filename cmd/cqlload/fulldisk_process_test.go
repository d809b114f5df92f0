package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestErrFilesFillTheDisk runs a load whose error log fills its disk part
// way, then resumes it once there is room. The disk is a file size limit
// (RLIMIT_FSIZE, as `ulimit -f` sets it): a write past it stops where the
// limit is and fails, with EFBIG instead of ENOSPC. The resumed run must
// leave each rejected row in the error file and in the log once, whole.
// Before, the checkpoint recorded the failed write's bytes and rows as
// written, so the resumed run kept the torn log line, glued its own first
// line to it, and wrote the failed chunk's rows a second time; a reload of
// the error file was then refused, its rows not as many as its log's.
func TestErrFilesFillTheDisk(t *testing.T) {
	sim := startSimProc(t)
	dir := t.TempDir()
	const rows = 100_000
	var in strings.Builder
	bad := map[int]string{} // line number: the rejected record
	for i := range rows {
		line := fmt.Sprintf("%d,v%d", i, i)
		if i%10 == 0 {
			line = fmt.Sprintf("x%d,bad", i)
			bad[i+1] = line
		}
		in.WriteString(line + "\n")
	}
	file := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(file, []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ckpt, errf := filepath.Join(dir, "ckpt.json"), filepath.Join(dir, "in.err")
	args := []string{"--progress", "none", "--table", "ks.t", "--resume", ckpt, "--err-file", errf,
		"--max-parse-errors", "-1", "--chunk-size", "1000", file}

	// Each chunk logs 100 lines of about 150 bytes: the log passes the
	// limit of 256 KiB in its 17th chunk or so, the error file (1 KB a
	// chunk) never does.
	load := sim.Cmd(context.Background(), t, args...)
	limited := exec.Command("bash", append([]string{"-c", `ulimit -f 256 && exec "$@"`, "bash"}, load.Args...)...)
	out, _ := limited.CombinedOutput()
	if code := limited.ProcessState.ExitCode(); code != exitFatal {
		t.Fatalf("the run on a full disk: exit %d, want %d\n%s", code, exitFatal, out)
	}
	if !strings.Contains(string(out), "in.err.log") {
		t.Errorf("the run on a full disk does not name the log it could not write:\n%s", out)
	}
	st, err := os.Stat(errf + ".log")
	if err != nil || st.Size() != 256<<10 {
		t.Fatalf("the log is not cut at the limit: %v, %v", st, err)
	}

	resumed := sim.Cmd(context.Background(), t, args...)
	out, _ = resumed.CombinedOutput()
	if code := resumed.ProcessState.ExitCode(); code != exitRejected {
		t.Fatalf("the resumed run: exit %d, want %d\n%s", code, exitRejected, out)
	}

	// The error file: its rows are the rejected records, each once.
	data, err := os.ReadFile(errf)
	if err != nil {
		t.Fatal(err)
	}
	inErr := map[string]int{}
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		inErr[l]++
	}
	for _, rec := range bad {
		if inErr[rec] != 1 {
			t.Errorf("record %q is %d times in the error file, want once", rec, inErr[rec])
		}
		delete(inErr, rec)
	}
	for rec, n := range inErr {
		t.Errorf("the error file holds %q (%d times), which was not rejected", rec, n)
	}

	// The log: one whole line for each, naming its line of in.csv.
	logged, err := os.ReadFile(errf + ".log")
	if err != nil {
		t.Fatal(err)
	}
	lineRE := regexp.MustCompile(`^` + regexp.QuoteMeta(file) + `:([0-9]+):1: parse error: .* \[write timestamp [0-9]+\]$`)
	seen := map[int]int{}
	for _, l := range strings.Split(strings.TrimSuffix(string(logged), "\n"), "\n") {
		m := lineRE.FindStringSubmatch(l)
		if m == nil {
			t.Errorf("a log line is not a whole line of a rejected row: %q", l)
			continue
		}
		n, _ := strconv.Atoi(m[1])
		seen[n]++
	}
	for n := range bad {
		if seen[n] != 1 {
			t.Errorf("line %d is in the log %d times, want once", n, seen[n])
		}
	}
	if len(seen) != len(bad) {
		t.Errorf("the log names %d lines, want the %d rejected", len(seen), len(bad))
	}

	var n int
	if err := sim.Session(t).Query(`SELECT count(*) FROM ks.t`).Scan(&n); err != nil || n != rows-len(bad) {
		t.Errorf("the table holds %d rows (%v), want %d", n, err, rows-len(bad))
	}
}

// TestSummaryOnFullDisk: a --summary-json that cannot be written at the
// end fails the run with exit status 3 and an error naming the file,
// which is left neither torn nor holding an earlier run's summary.
// Before, the run exited 0 over a summary cut at the limit. Resumed with
// room, the run has nothing left to load and writes the summary. The
// full disk is a file size limit of 2 KiB: the summary passes it (it
// lists nine nodes' in-flight limits), the checkpoint does not.
func TestSummaryOnFullDisk(t *testing.T) {
	const limit = 2 << 10
	sim := startSimProc(t, "--nodes", "9")
	dir := t.TempDir()
	const rows = 2000
	var in strings.Builder
	for i := range rows {
		fmt.Fprintf(&in, "%d,v%d\n", i, i)
	}
	file := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(file, []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, ckpt := filepath.Join(dir, "summary.json"), filepath.Join(dir, "ckpt.json")
	if err := os.WriteFile(sum, []byte(`{"exit_status": 0}`), 0o644); err != nil {
		t.Fatal(err) // an earlier run's
	}
	args := []string{"--progress", "none", "--table", "ks.t", "--resume", ckpt, "--summary-json", sum,
		"--err-file", filepath.Join(dir, "in.err"), file}
	load := sim.Cmd(context.Background(), t, args...)
	limited := exec.Command("bash", append([]string{"-c", fmt.Sprintf(`ulimit -f %d && exec "$@"`, limit>>10), "bash"}, load.Args...)...)
	out, _ := limited.CombinedOutput()
	if code := limited.ProcessState.ExitCode(); code != exitFatal {
		t.Fatalf("the run whose summary does not fit: exit %d, want %d\n%s", code, exitFatal, out)
	}
	if !strings.Contains(string(out), "summary "+sum+" not written") {
		t.Errorf("the run does not say the summary was not written:\n%s", out)
	}
	if _, err := os.Stat(sum); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a summary file is left after the failed write: %v", err)
	}
	if tmps, _ := filepath.Glob(filepath.Join(filepath.Dir(sum), "."+filepath.Base(sum)+".tmp*")); len(tmps) > 0 {
		t.Errorf("the temporary summary file is left: %q", tmps)
	}
	// What the test stands on: the limit stopped the summary alone.
	if cp := readCheckpoint(t, ckpt); cp == nil || !cp.Complete {
		t.Errorf("the checkpoint is not complete: %+v\n%s", cp, out)
	}
	if got := len(readKV(t, sim.Session(t))); got != rows {
		t.Errorf("%d rows in the table, want %d", got, rows)
	}

	resumed := sim.Cmd(context.Background(), t, args...)
	out, _ = resumed.CombinedOutput()
	if code := resumed.ProcessState.ExitCode(); code != exitOK {
		t.Fatalf("the resumed run: exit %d, want %d\n%s", code, exitOK, out)
	}
	s := readSummary(t, sum)
	if !s.NothingToDo || s.RowsResumed != rows {
		t.Errorf("the resumed run's summary: %+v, want nothing to do and %d rows resumed", s, rows)
	}
}
