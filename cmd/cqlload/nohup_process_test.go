package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestNohup: under nohup, which ignores SIGHUP, a hang-up does not stop
// the load; cqlload stops on SIGHUP (TestResumeAfterInterrupt) only when
// it was not told to ignore it.
func TestNohup(t *testing.T) {
	nohup, err := exec.LookPath("nohup")
	if err != nil {
		t.Fatalf("nohup (coreutils) is needed: %v", err)
	}
	sim := startSimProc(t)
	dir := t.TempDir()
	const rows = 15_000
	var b strings.Builder
	for i := range rows {
		fmt.Fprintf(&b, "%d,v%d\n", i, i)
	}
	file := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// About 1.5 s at this rate.
	cmd := sim.Cmd(context.Background(), t, "--progress", "none", "--table", "ks.t", "--ingest-rate", "10000", file)
	cmd.Args = append([]string{nohup}, cmd.Args...)
	cmd.Path = nohup
	cmd.Dir = dir // nohup.out, if it writes one
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.Now().Add(20 * time.Second)
	for sim.RowsWritten(t) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatalf("SIGHUP: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("the load under nohup ended on SIGHUP: %v\n%s", err, out.String())
	}
	if strings.Contains(out.String(), "interrupted") {
		t.Errorf("the load under nohup says it was interrupted:\n%s", out.String())
	}
	if got := len(readKV(t, sim.Session(t))); got != rows {
		t.Errorf("%d rows in the table, want %d", got, rows)
	}
}
