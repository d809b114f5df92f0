package runlog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOutputLocks(t *testing.T) {
	dir := t.TempDir()
	ck, ef := filepath.Join(dir, "ck"), filepath.Join(dir, "x.err")
	held, err := Lock(ck, "", ef)
	if err != nil {
		t.Fatal(err)
	}
	if len(held) != 2 {
		t.Fatalf("%d locks held, want 2 (the empty path is skipped)", len(held))
	}
	info, err := os.ReadFile(ck + ".lock")
	if err != nil || !strings.HasPrefix(string(info), fmt.Sprintf("pid %d on ", os.Getpid())) {
		t.Fatalf("lock file holds %q (%v), want the holder's pid", info, err)
	}

	// flock locks belong to open files, so a second lock from this
	// process is refused as another process's would be.
	for _, paths := range [][]string{{ck}, {ef}, {filepath.Join(dir, "other.err"), ef}} {
		_, err := Lock(paths...)
		var le *LockedError
		if !errors.As(err, &le) {
			t.Fatalf("Lock(%q) while held: %v, want a *LockedError", paths, err)
		}
		if le.Path != paths[len(paths)-1] || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
			t.Errorf("Lock(%q): %v, want %s named with the holder's pid", paths, err, paths[len(paths)-1])
		}
	}
	// All or nothing: the refused call above let other.err go.
	if _, err := os.Stat(filepath.Join(dir, "other.err.lock")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused Lock left other.err.lock (%v)", err)
	}

	held.Release()
	for _, p := range []string{ck, ef} {
		if _, err := os.Stat(p + ".lock"); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s.lock is left after release (%v)", p, err)
		}
	}
	// A lock file left by a killed run does not block: its lock died
	// with the process.
	if err := os.WriteFile(ck+".lock", []byte("pid 1 on elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	again, err := Lock(ck, ef)
	if err != nil {
		t.Fatalf("a stale lock file blocked the run: %v", err)
	}
	again.Release()

	if _, err := Lock(filepath.Join(dir, "no", "such", "ck")); err == nil || errors.As(err, new(*LockedError)) {
		t.Errorf("a lock in a missing directory: %v, want an error that is not *LockedError", err)
	}
}
