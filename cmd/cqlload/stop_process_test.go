package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cqlload/cqlload/internal/proctest"
)

// TestOutputClosed: a run whose output pipe loses its reader (`cqlload
// … 2>&1 | head`, a log shipper that dies) stops in order, as on SIGINT:
// exit 4, every row accounted for, and the same command with --resume
// loads the rest with every counter exact. Go's default would have ended
// the process at its next progress line, as kill -9 does.
func TestOutputClosed(t *testing.T) {
	t.Parallel() // paced runs: beside the other waiting tests
	for _, tc := range []struct {
		name      string
		bothPiped bool // stdout too, as 2>&1 does; else only stderr, stdout to a file
	}{
		{"stdout and stderr", true},
		{"stderr", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each its own cluster
			sim := startSimProc(t)
			sess := sim.Session(t)
			dir := t.TempDir()
			const rows, keys = 20_000, 400
			var b strings.Builder
			want := map[int32]int64{}
			for i := range rows {
				k := int32(i % keys)
				want[k]++
				fmt.Fprintf(&b, "%d,1\n", k)
			}
			file := filepath.Join(dir, "incr.csv")
			if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			sumPath := filepath.Join(dir, "summary.json")
			// About two seconds at this rate.
			args := []string{"--progress", "log", "--report-frequency", "0.1", "--table", "ks.c",
				"--resume", filepath.Join(dir, "ckpt.json"), "--summary-json", sumPath,
				"--ingest-rate", "10000", "--chunk-size", "500", file}

			cmd := sim.Cmd(context.Background(), t, args...)
			cmd.Dir = dir // its error files
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stderr = w
			if tc.bothPiped {
				cmd.Stdout = w
			} else {
				out, err := os.Create(filepath.Join(dir, "stdout"))
				if err != nil {
					t.Fatal(err)
				}
				defer out.Close()
				cmd.Stdout = out
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			w.Close() // the child holds the only write end
			lines := bufio.NewScanner(r)
			for lines.Scan() && !strings.HasPrefix(lines.Text(), "Processed:") {
			}
			if lines.Err() != nil {
				t.Fatal(lines.Err())
			}
			r.Close() // the reader goes away mid-load
			err = waitTimeout(t, cmd, 30*time.Second)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
				t.Fatalf("the run whose output closed ended with %v, want exit %d", err, exitInterrupted)
			}
			s := readSummary(t, sumPath)
			if !strings.Contains(s.Aborted, "standard error was closed") {
				t.Errorf("summary says %q, want that standard error was closed", s.Aborted)
			}
			checkCounts(t, s, rows, false)
			if s.RowsRead+s.RowsResumed >= rows {
				t.Errorf("the run read all %d rows before it stopped: the test stopped nothing", rows)
			}

			again := sim.Cmd(context.Background(), t, args...)
			again.Dir = dir
			var out bytes.Buffer
			again.Stdout, again.Stderr = &out, &out
			if err := again.Run(); err != nil {
				t.Fatalf("resume: %v\n%s", err, out.String())
			}
			s = readSummary(t, sumPath)
			checkCounts(t, s, rows, true)
			if got := readCounters(t, sess); !mapsEqual(got, want) {
				var off int
				for k, n := range want {
					if got[k] != n {
						off++
					}
				}
				t.Errorf("%d of %d counters differ from the input's increments after the resume", off, keys)
			}
		})
	}
}

// waitTimeout waits for cmd, killing it after d.
func waitTimeout(t *testing.T, cmd *exec.Cmd, d time.Duration) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%s still running after %v", cmd.Path, d)
		return nil
	}
}

// exitCodeOf is the exit status of a process whose Wait returned err.
func exitCodeOf(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

// TestSignalWhileConnecting: SIGTERM (Kubernetes' stop) while a node
// accepts the connection but never answers ends the run at once, as an
// interruption (exit 4), not after --connect-timeout as a failure to
// connect (exit 3): the driver's session creation takes no context, and
// the run waited it out.
func TestSignalWhileConnecting(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		var held []net.Conn // accepted, never answered
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(in, []byte("1,a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	cmd := exec.Command(proctest.Build(t).CQLLoad, "--hosts", host, "--port", port, "--connect-timeout", "60s",
		"--progress", "none", "--table", "ks.t", in)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // connecting by now
	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err = waitTimeout(t, cmd, 30*time.Second)
	took := time.Since(sent)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted || took > 5*time.Second {
		t.Fatalf("SIGTERM while connecting: %v after %v, want exit %d within 5 s\n%s", err, took, exitInterrupted, out.String())
	}
	if !strings.Contains(out.String(), "interrupted by SIGTERM") {
		t.Errorf("the output does not name the signal:\n%s", out.String())
	}
}

// TestSummaryToClosedStdout: with --summary-json -, a standard output
// that is gone by the end (its reader quit) loses the summary, and the
// run says so and exits 4, as for an output closed during the run.
// Before, it exited 0 with the JSON nowhere.
func TestSummaryToClosedStdout(t *testing.T) {
	sim := startSimProc(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(file, []byte("1,a\n2,b\n3,c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := sim.Cmd(context.Background(), t, "--progress", "none", "--table", "ks.t", "--summary-json", "-", file)
	cmd.Dir = dir
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // no reader: the summary's write fails
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	err = waitTimeout(t, cmd, 30*time.Second)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
		t.Fatalf("the run whose summary could not be written ended with %v, want exit %d\n%s", err, exitInterrupted, stderr.String())
	}
	if !strings.Contains(stderr.String(), "summary not written to standard output") {
		t.Errorf("the run does not say the summary was lost:\n%s", stderr.String())
	}
	if got := len(readKV(t, sim.Session(t))); got != 3 {
		t.Errorf("%d rows in the table, want 3", got)
	}
}
