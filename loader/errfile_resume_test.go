package loader

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestResumeErrorFileGone: a resumed run whose error file someone removed
// or shortened since the checkpoint is refused before anything is cut or
// loaded; it used to recreate the file with the recorded length of zero
// bytes in front of its own rows. With the file put back, it resumes.
func TestResumeErrorFileGone(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.e (k int PRIMARY KEY, v text);`, nil)
	const rows = 20000
	path := writeCSV(t, "rows.csv", rows, func(i int) string {
		if i%10 == 0 {
			return fmt.Sprintf("x%d,bad\n", i)
		}
		return fmt.Sprintf("%d,v%d\n", i, i)
	})
	o := testOptions(t, c, "e", path)
	o.Resume = filepath.Join(t.TempDir(), "ckpt")
	o.ChunkSize = 500
	o.IngestRate = 20000
	o.MaxParseErrors = -1
	runInterrupted(t, o, rows/3)
	cp, err := os.ReadFile(o.Resume)
	if err != nil {
		t.Fatal(err)
	}
	saved := map[string][]byte{}
	for _, p := range []string{o.ErrFile, o.ErrFile + ".log"} {
		if saved[p], err = os.ReadFile(p); err != nil || len(saved[p]) == 0 {
			t.Fatalf("%s: %d bytes (%v), want the rejected rows", p, len(saved[p]), err)
		}
	}

	o.IngestRate = 0
	for _, tc := range []struct {
		name, file string
		damage     func(p string) error
		want       string
	}{
		{"error file removed", o.ErrFile, os.Remove, "is gone, but the checkpoint records"},
		{"log shortened", o.ErrFile + ".log", func(p string) error { return os.Truncate(p, 10) }, "holds 10 bytes, fewer than"},
		// Rows mended (lengthened) before the run finished: cut back to
		// the recorded length, the file lost rows and tore one.
		{"rows mended before the run finished", o.ErrFile, func(p string) error {
			return os.WriteFile(p, []byte(strings.ReplaceAll(string(saved[p]), ",bad", ",mended")), 0o644)
		}, "has changed since the checkpoint"},
	} {
		if err := tc.damage(tc.file); err != nil {
			t.Fatal(err)
		}
		_, err := runLoad(t, o)
		var re *ResumeError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), tc.file+" "+tc.want) {
			t.Fatalf("%s: %v, want a *ResumeError saying %s %s", tc.name, err, tc.file, tc.want)
		}
		// Refused before anything changed.
		if now, _ := os.ReadFile(o.Resume); string(now) != string(cp) {
			t.Errorf("%s: the checkpoint changed", tc.name)
		}
		for p, b := range saved {
			now, _ := os.ReadFile(p)
			if p != tc.file && string(now) != string(b) {
				t.Errorf("%s: %s changed", tc.name, p)
			}
		}
		if err := os.WriteFile(tc.file, saved[tc.file], 0o644); err != nil {
			t.Fatal(err)
		}
	}

	s, err := runLoad(t, o)
	if err != nil {
		t.Fatalf("resumed run with the files put back: %v", err)
	}
	checkAccounting(t, s)
	data, err := os.ReadFile(o.ErrFile)
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsRune(string(data), 0) || strings.Count(string(data), "\n") != rows/10 {
		t.Errorf("the error file holds %d lines (NUL bytes: %v), want the %d bad rows", strings.Count(string(data), "\n"), strings.ContainsRune(string(data), 0), rows/10)
	}
}

// TestResumeJournalGone: a counter load's journal of sent updates
// (FILE.sent) removed after the run stopped is refused: without it, the
// resumed run would take updates sent after the last checkpoint for
// updates never sent and count them twice. Put back, it resumes.
func TestResumeJournalGone(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.n (k int PRIMARY KEY, c counter);`, nil)
	const rows = 20000
	path := writeCSV(t, "incr.csv", rows, func(i int) string { return fmt.Sprintf("%d,1\n", i%100) })
	o := testOptions(t, c, "n", path)
	o.Resume = filepath.Join(t.TempDir(), "ckpt")
	o.ChunkSize = 500
	o.IngestRate = 20000
	runInterrupted(t, o, rows/3)
	journal := o.Resume + ".sent"
	saved, err := os.ReadFile(journal)
	if err != nil || len(saved) == 0 {
		t.Fatalf("journal: %d bytes (%v)", len(saved), err)
	}
	if err := os.Remove(journal); err != nil {
		t.Fatal(err)
	}
	o.IngestRate = 0
	_, err = runLoad(t, o)
	var re *ResumeError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), journal+" is gone") || !strings.Contains(err.Error(), "count them twice") {
		t.Fatalf("resume without the journal: %v, want a *ResumeError naming it", err)
	}
	if err := os.WriteFile(journal, saved, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := runLoad(t, o)
	if err != nil && !errors.As(err, new(*AbortError)) {
		t.Fatalf("resume with the journal put back: %v", err)
	}
	checkAccounting(t, s)
	if s.RowsResumed+s.RowsRead != rows {
		t.Errorf("resumed %d + read %d != %d", s.RowsResumed, s.RowsRead, rows)
	}
}

// runInterrupted runs a load with o and cancels it, as SIGINT does, once
// it has written after rows.
func runInterrupted(t *testing.T, o Options, after int64) Summary {
	t.Helper()
	l, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for l.Progress().RowsWritten < after && ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	s, err := l.Run(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: %v", err)
	}
	return s
}

// TestCounterRerunHint: a counter load without --resume that stopped
// part way says that running it again would count twice; one with
// --resume, or one that finished, does not.
func TestCounterRerunHint(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.h (k int PRIMARY KEY, c counter);`, nil)
	const rows = 20000
	path := writeCSV(t, "incr.csv", rows, func(i int) string { return fmt.Sprintf("%d,1\n", i%100) })
	o := testOptions(t, c, "h", path)
	o.ChunkSize = 500
	o.IngestRate = 20000
	hinted := func(s Summary) bool {
		for _, h := range s.Hints {
			if strings.Contains(h, "would apply the") && strings.Contains(h, "--resume") {
				return true
			}
		}
		return false
	}
	if s := runInterrupted(t, o, rows/3); !hinted(s) {
		t.Errorf("interrupted without --resume: hints %q", s.Hints)
	}
	o.Resume = filepath.Join(t.TempDir(), "ckpt")
	if s := runInterrupted(t, o, rows/3); hinted(s) {
		t.Errorf("interrupted with --resume: hints %q", s.Hints)
	}
	o.Resume, o.IngestRate = "", 0
	if s, err := runLoad(t, o); err != nil || hinted(s) {
		t.Errorf("a whole run: %v, hints %q", err, s.Hints)
	}
}
