package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cqlload/cqlload/internal/proctest"
)

// TestManySmallFilesFewDescriptors loads a directory of 2,000 files of
// 10 rows each (10,000 in make check) under a limit of 64 open
// descriptors, so many times as many files as it allows: files are opened
// one at a time and closed when read, and their rows are batched
// together, so every row loads whatever the count of files.
func TestManySmallFilesFewDescriptors(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatalf("bash is needed to set the descriptor limit: %v", err)
	}
	files, perFile := 2000, 10
	if full {
		files = 10000
	}
	sim := proctest.StartSim(t, `CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE TABLE ks.s (k int PRIMARY KEY, v text);
`, "--nodes", "3")
	dir := filepath.Join(t.TempDir(), "in")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for f := range files {
		var b strings.Builder
		b.WriteString("k,v\n")
		for r := range perFile {
			fmt.Fprintf(&b, "%d,file %d row %d\n", f*perFile+r, f, r)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d.csv", f)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sum := filepath.Join(t.TempDir(), "sum.json")
	load := sim.Cmd(context.Background(), t, "--progress", "none", "--table", "ks.s", "--header", "true",
		"--err-file", filepath.Join(t.TempDir(), "s.err"), "--summary-json", sum, dir)
	limited := exec.Command("bash", append([]string{"-c", `ulimit -n 64 && exec "$@"`, "bash"}, load.Args...)...)
	out, _ := limited.CombinedOutput()
	if code := limited.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit %d, want 0\n%s", code, tail(string(out), 3000))
	}
	b, err := os.ReadFile(sum)
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	rows := files * perFile
	if s["rows_read"] != float64(rows) || s["rows_written"] != float64(rows) || s["files"] != float64(files) {
		t.Errorf("read %v, written %v rows of %v files; want %d rows of %d files", s["rows_read"], s["rows_written"], s["files"], rows, files)
	}
	var n int
	if err := sim.Session(t).Query(`SELECT count(*) FROM ks.s`).Scan(&n); err != nil || n != rows {
		t.Errorf("the table holds %d rows (%v), want %d", n, err, rows)
	}
}
