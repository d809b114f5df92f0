//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cqlload/cqlload/loader"
)

// TestOutputsToDescriptors: outputs written to as they are (the summary,
// the rate file) may name an open descriptor, as a shell's process
// substitution does (`--summary-json >(jq .)` passes /dev/fd/63). The
// start-of-run check created a probe file beside such a path, and
// /dev/fd takes none, so the run was refused with exit 64.
func TestOutputsToDescriptors(t *testing.T) {
	sim := startSimProc(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(file, []byte("1,a\n2,b\n3,c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := sim.Cmd(context.Background(), t, "--progress", "none", "--table", "ks.t",
		"--summary-json", "/dev/fd/3", "--rate-file", "/dev/fd/4", file)
	cmd.Dir = dir
	var readers [2]*os.File
	for i := range readers {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		readers[i] = r
		cmd.ExtraFiles = append(cmd.ExtraFiles, w) // descriptors 3 and 4
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for _, w := range cmd.ExtraFiles {
		w.Close() // the child holds them now
	}
	// Read both while the run goes on: a full pipe would stop it.
	got := make([]chan []byte, len(readers))
	for i, r := range readers {
		got[i] = make(chan []byte, 1)
		go func() {
			b, _ := io.ReadAll(r)
			r.Close()
			got[i] <- b
		}()
	}
	if err := waitTimeout(t, cmd, 30*time.Second); err != nil {
		t.Fatalf("the run ended with %v, want exit 0\n%s", err, stderr.String())
	}
	var s summary
	if b := <-got[0]; json.Unmarshal(b, &s) != nil || s.RowsWritten != 3 {
		t.Errorf("the summary on descriptor 3 is %q, want one of 3 rows written", b)
	}
	if b := <-got[1]; !strings.HasPrefix(string(b), "#") {
		t.Errorf("the rate file on descriptor 4 is %q, want its header line first", b)
	}
}

// TestSummaryAppendedToLog: `cqlload … --summary-json /dev/stdout
// --rate-file /dev/stdout >> job.log` adds to the job's log. /dev/stdout
// led to job.log itself, which the summary's write replaced with the
// JSON alone: the log's earlier lines and the text summary were lost.
func TestSummaryAppendedToLog(t *testing.T) {
	sim := startSimProc(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(file, []byte("1,a\n2,b\n3,c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "job.log")
	if err := os.WriteFile(log, []byte("earlier line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	before, err := out.Stat()
	if err != nil {
		t.Fatal(err)
	}
	cmd := sim.Cmd(context.Background(), t, "--progress", "none", "--table", "ks.t",
		"--summary-json", "/dev/stdout", "--rate-file", "/dev/stdout", file)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = out, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := waitTimeout(t, cmd, 30*time.Second); err != nil {
		t.Fatalf("the run ended with %v, want exit 0\n%s", err, stderr.String())
	}
	after, err := os.Stat(log)
	if err != nil || !os.SameFile(before, after) {
		t.Fatalf("job.log was replaced or removed (%v)", err)
	}
	b, _ := os.ReadFile(log)
	got := string(b)
	for _, want := range []string{"earlier line\n", "# elapsed_s", "3 rows imported", `"rows_written": 3`} {
		if !strings.Contains(got, want) {
			t.Errorf("job.log lacks %q:\n%s", want, got)
		}
	}
	if !strings.HasPrefix(got, "earlier line\n") {
		t.Errorf("job.log does not begin with its earlier line:\n%s", got)
	}
}

// TestSignalWhileSummaryWaits: a summary sent to a named pipe that no
// one reads waits at its open once every row is loaded. A SIGTERM then
// stops nothing, as every row is settled: the summary gets endGrace, and
// the process exits as the load ended (0) once a reader takes it, or
// with 4 when none comes. It said it was settling the rows in flight and
// went on waiting, for ever, until a second signal.
func TestSignalWhileSummaryWaits(t *testing.T) {
	t.Parallel() // waits out its grace beside the other waiting tests
	sim := startSimProc(t)
	for _, tc := range []struct {
		name   string
		reader bool // a reader opens the pipe after the signal
		code   int
		says   string
	}{
		{"no reader", false, exitInterrupted, "summary was not written within"},
		{"a reader within the grace", true, 0, "exiting once the summary is written"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, file, fifo := threeRowsAndFIFO(t)
			cmd := sim.Cmd(context.Background(), t, "--progress", "none", "--table", "ks.t", "--summary-json", fifo, file)
			cmd.Dir = dir
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// The text summary comes after the load, before the JSON.
			sc := bufio.NewScanner(stdout)
			for sc.Scan() && !strings.Contains(sc.Text(), "rows imported") {
			}
			go func() { _, _ = io.Copy(io.Discard, stdout) }()
			time.Sleep(200 * time.Millisecond) // into the pipe's open
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			var got []byte
			if tc.reader {
				time.Sleep(200 * time.Millisecond)
				if got, err = os.ReadFile(fifo); err != nil {
					t.Fatal(err)
				}
			}
			code := exitCodeOf(t, waitTimeout(t, cmd, endGrace+10*time.Second))
			if code != tc.code {
				t.Fatalf("the run waiting on its summary's reader ended with exit %d after one SIGTERM, want %d\n%s", code, tc.code, stderr.String())
			}
			for _, want := range []string{"interrupted after the load", tc.says} {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("the run does not say %q:\n%s", want, stderr.String())
				}
			}
			var s summary
			if tc.reader && (json.Unmarshal(got, &s) != nil || s.RowsWritten != 3) {
				t.Errorf("the pipe's reader got %q, want a summary of 3 rows written", got)
			}
			if n := len(readKV(t, sim.Session(t))); n != 3 {
				t.Errorf("%d rows in the table, want 3", n)
			}
		})
	}
}

// TestRateFileToPipe: a RATEFILE that is a named pipe waits for its
// reader without holding up the load. A reader that comes late gets the
// header and every interval; with none by the end of the run, the run
// fails (exit 3, the report named) after the grace instead of waiting
// for ever, as it did, deaf to a SIGTERM.
func TestRateFileToPipe(t *testing.T) {
	t.Parallel() // waits out its grace beside the other waiting tests
	sim := startSimProc(t)
	for _, tc := range []struct {
		name   string
		reader bool
		code   int
	}{
		{"a reader that comes late", true, 0},
		{"no reader", false, exitFatal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, file, fifo := threeRowsAndFIFO(t)
			cmd := sim.Cmd(context.Background(), t, "--progress", "none", "--table", "ks.t", "--rate-file", fifo, file)
			cmd.Dir = dir
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			report := make(chan []byte, 1)
			if tc.reader {
				go func() {
					time.Sleep(time.Second) // the load is over by then
					b, _ := os.ReadFile(fifo)
					report <- b
				}()
			}
			code := exitCodeOf(t, waitTimeout(t, cmd, loader.ReportOpenGrace+15*time.Second))
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tc.code, stdout.String(), stderr.String())
			}
			if tc.reader {
				b := <-report
				if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); !strings.HasPrefix(lines[0], "# elapsed_s") || len(lines) < 2 {
					t.Errorf("the pipe's reader got %q, want the header and at least one interval", b)
				}
			} else if !strings.Contains(stderr.String(), "no process opened it for reading") {
				t.Errorf("the run does not say why it failed:\n%s", stderr.String())
			}
			if n := len(readKV(t, sim.Session(t))); n != 3 {
				t.Errorf("%d rows in the table, want 3", n)
			}
		})
	}
}

// threeRowsAndFIFO writes a three-row input for ks.t and makes a named
// pipe beside it, in a new directory.
func threeRowsAndFIFO(t *testing.T) (dir, file, fifo string) {
	t.Helper()
	dir = t.TempDir()
	file = filepath.Join(dir, "in.csv")
	if err := os.WriteFile(file, []byte("1,a\n2,b\n3,c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo = filepath.Join(dir, "out.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, file, fifo
}
