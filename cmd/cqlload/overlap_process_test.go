package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestOverlappingRuns starts the same scheduled load twice, as a cron job
// that overran its interval does, and a third run that shares only the
// error file: while the first loads, the others must exit 3 before
// sending anything, and the first must finish with every counter exact.
// Before the lock, the second run truncated the first's checkpoint and
// error files and applied thousands of increments a second time.
func TestOverlappingRuns(t *testing.T) {
	sim := startSimProc(t)
	sess := sim.Session(t)
	dir := t.TempDir()
	const rows, keys = 30_000, 500
	var lines []string
	want := map[int32]int64{}
	for i := range rows {
		k := int32(i % keys)
		want[k]++
		lines = append(lines, fmt.Sprintf("%d,1", k))
	}
	file := filepath.Join(dir, "incr.csv")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ckpt, errf := filepath.Join(dir, "ckpt.json"), filepath.Join(dir, "incr.err")
	args := func(ckpt string) []string {
		// About three seconds at this rate: long enough to overlap.
		return []string{"--progress", "none", "--table", "ks.c", "--resume", ckpt, "--err-file", errf,
			"--ingest-rate", "10000", "--chunk-size", "1000", file}
	}

	first := sim.Cmd(context.Background(), t, args(ckpt)...)
	var firstErr bytes.Buffer
	first.Stderr = &firstErr
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- first.Wait() }()
	// Once the first has written rows it holds its locks.
	deadline := time.Now().Add(20 * time.Second)
	for sim.RowsWritten(t) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the first run wrote nothing in 20 s")
		}
		time.Sleep(20 * time.Millisecond)
	}

	pid := "pid " + strconv.Itoa(first.Process.Pid)
	for _, tc := range []struct {
		name, ckpt, held string
	}{
		{"the same command", ckpt, ckpt},
		{"another checkpoint, the same error file", filepath.Join(dir, "other.json"), errf},
	} {
		cmd := sim.Cmd(context.Background(), t, args(tc.ckpt)...)
		out, _ := cmd.CombinedOutput()
		msg := string(out)
		if code := cmd.ProcessState.ExitCode(); code != exitFatal {
			t.Errorf("%s: exit %d, want %d\n%s", tc.name, code, exitFatal, msg)
		}
		if !strings.Contains(msg, tc.held+" is in use by another cqlload run") || !strings.Contains(msg, pid) {
			t.Errorf("%s: the output does not name %s and the holder's %s:\n%s", tc.name, tc.held, pid, msg)
		}
		if strings.Contains(msg, "rows imported") {
			t.Errorf("%s: the refused run printed a summary:\n%s", tc.name, msg)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "other.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the refused run wrote its checkpoint (%v)", err)
	}

	if err := <-done; err != nil {
		t.Fatalf("the first run: %v\n%s", err, firstErr.String())
	}
	// Exact counters: the refused runs added no increment.
	got := readCounters(t, sess)
	if !mapsEqual(got, want) {
		n := 0
		for k, w := range want {
			if got[k] != w && n < 5 {
				t.Errorf("counter %d is %d, want %d", k, got[k], w)
				n++
			}
		}
		t.Fatalf("the counters are not the input's sums")
	}
	for _, p := range []string{ckpt, errf} {
		if _, err := os.Stat(p + ".lock"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s.lock is left after the run (%v)", p, err)
		}
	}
}
