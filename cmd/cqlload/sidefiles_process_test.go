package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPlantedLinksProcess runs the built binary with a link planted at
// each name of a file the run writes beside its outputs, each link naming
// a file of the user's: the file stays untouched, and the run loads (the
// link is moved aside or replaced as an earlier run's file would be) or
// fails naming the link. Before, a link at SUMMARY.tmp had the summary
// written into the file it named, and one at ERRFILE.lock truncated it.
func TestPlantedLinksProcess(t *testing.T) {
	sim := startSimProc(t)
	for _, tc := range []struct {
		planted string
		refused bool
	}{
		{planted: "summary.json.tmp"},
		{planted: "ck.json.tmp"},
		{planted: "ck.json.sent"},
		{planted: "rows.err"},
		{planted: "rows.err.log"},
		{planted: "rows.err.lock", refused: true},
		{planted: "ck.json.lock", refused: true},
	} {
		t.Run(tc.planted, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "in.csv")
			if err := os.WriteFile(in, []byte("1,one\nx2,bad key\n3,three\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			victim := filepath.Join(t.TempDir(), "victim")
			if err := os.WriteFile(victim, []byte("precious\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(victim, filepath.Join(dir, tc.planted)); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := sim.Cmd(ctx, t, "--progress", "none", "--summary-json", "summary.json", "--err-file", "rows.err",
				"--resume", "ck.json", "--table", "ks.t", in)
			cmd.Dir = dir
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			_ = cmd.Run()
			code := cmd.ProcessState.ExitCode()
			if got, err := os.ReadFile(victim); err != nil || string(got) != "precious\n" {
				t.Errorf("the linked file holds %q (%v), want it untouched\n%s", got, err, out.String())
			}
			if tc.refused {
				if code != exitFatal || !strings.Contains(out.String(), tc.planted+" is a symbolic link") {
					t.Fatalf("exit %d, want %d and a message naming the link:\n%s", code, exitFatal, out.String())
				}
				return
			}
			if code != exitRejected {
				t.Fatalf("exit %d, want %d:\n%s", code, exitRejected, out.String())
			}
			if b, err := os.ReadFile(filepath.Join(dir, "summary.json")); err != nil || !bytes.Contains(b, []byte(`"rows_written": 2`)) {
				t.Errorf("summary.json holds %q (%v), want the run's", b, err)
			}
			for _, p := range []string{"rows.err", "rows.err.log", "ck.json"} {
				if st, err := os.Lstat(filepath.Join(dir, p)); err != nil || st.Mode().Perm() != 0o600 {
					t.Errorf("%s: %v (%v), want a new file of mode 0600", p, st.Mode(), err)
				}
			}
		})
	}
}
