package loader

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
	held, err := lockOutputs(ck, "", ef)
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
		_, err := lockOutputs(paths...)
		var le *LockedError
		if !errors.As(err, &le) {
			t.Fatalf("lockOutputs(%q) while held: %v, want a *LockedError", paths, err)
		}
		if le.Path != paths[len(paths)-1] || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
			t.Errorf("lockOutputs(%q): %v, want %s named with the holder's pid", paths, err, paths[len(paths)-1])
		}
	}
	// All or nothing: the refused call above let other.err go.
	if _, err := os.Stat(filepath.Join(dir, "other.err.lock")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused lockOutputs left other.err.lock (%v)", err)
	}

	held.release()
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
	again, err := lockOutputs(ck, ef)
	if err != nil {
		t.Fatalf("a stale lock file blocked the run: %v", err)
	}
	again.release()

	if _, err := lockOutputs(filepath.Join(dir, "no", "such", "ck")); err == nil || errors.As(err, new(*LockedError)) {
		t.Errorf("a lock in a missing directory: %v, want an error that is not *LockedError", err)
	}
}
