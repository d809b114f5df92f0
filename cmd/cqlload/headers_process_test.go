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

const wideSchema = `CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE TABLE ks.w (k int PRIMARY KEY, c1 int, c2 int, c3 int, c4 int, c5 int, c6 int);
`

// distinctHeaders returns n headers over ks.w's columns, each another
// order or choice of the columns after k.
func distinctHeaders(n int) [][]string {
	cols := []string{"c1", "c2", "c3", "c4", "c5", "c6"}
	var out [][]string
	var walk func(prefix []string, used int)
	walk = func(prefix []string, used int) {
		if len(out) == n {
			return
		}
		if len(prefix) > 0 {
			out = append(out, append([]string{"k"}, prefix...))
		}
		for i, c := range cols {
			if used&(1<<i) == 0 && len(out) < n {
				walk(append(prefix[:len(prefix):len(prefix)], c), used|1<<i)
			}
		}
	}
	walk(nil, 0)
	return out
}

// TestManyHeadersFewDescriptors loads 400 files whose headers all
// differ, each with a rejected row, under a limit of 256 open
// descriptors. Each header has its own error file; before, every one
// stayed open to the end of the run (and each header prepared its
// statements anew), and the run failed part way for want of descriptors
// (exit 3). Now it loads every good row, and every rejected row is in
// the error file of its header, with a line in the log.
func TestManyHeadersFewDescriptors(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatalf("bash is needed to set the descriptor limit: %v", err)
	}
	sim := proctest.StartSim(t, wideSchema, "--nodes", "3")
	dir := t.TempDir()
	headers := distinctHeaders(400)
	if len(headers) != 400 {
		t.Fatalf("%d headers, want 400", len(headers))
	}
	var files []string
	good := 0
	for i, h := range headers {
		var b strings.Builder
		b.WriteString(strings.Join(h, ",") + "\n")
		for r := range 3 {
			vals := []string{fmt.Sprint(i*3 + r)}
			for range h[1:] {
				vals = append(vals, fmt.Sprint(r))
			}
			if r == 1 {
				vals[0] = fmt.Sprintf("bad%d", i) // not an int: rejected
			} else {
				good++
			}
			b.WriteString(strings.Join(vals, ",") + "\n")
		}
		f := filepath.Join(dir, fmt.Sprintf("in%03d.csv", i))
		if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	errf, sum := filepath.Join(dir, "w.err"), filepath.Join(dir, "sum.json")
	args := append([]string{"--progress", "none", "--table", "ks.w", "--header", "true", "--err-file", errf,
		"--max-parse-errors", "-1", "--summary-json", sum}, files...)
	load := sim.Cmd(context.Background(), t, args...)
	limited := exec.Command("bash", append([]string{"-c", `ulimit -n 256 && exec "$@"`, "bash"}, load.Args...)...)
	out, _ := limited.CombinedOutput()
	if code := limited.ProcessState.ExitCode(); code != exitRejected {
		t.Fatalf("exit %d, want %d\n%s", code, exitRejected, tail(string(out), 3000))
	}
	var s map[string]any
	b, err := os.ReadFile(sum)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if s["rows_written"].(float64) != float64(good) || s["rows_failed_parse"].(float64) != 400 {
		t.Errorf("written %v, rejected %v; want %d and 400", s["rows_written"], s["rows_failed_parse"], good)
	}
	var n int
	if err := sim.Session(t).Query(`SELECT count(*) FROM ks.w`).Scan(&n); err != nil || n != good {
		t.Errorf("the table holds %d rows (%v), want %d", n, err, good)
	}
	// Error file i holds header i and its one rejected row.
	for i, h := range headers {
		name := errf
		if i > 0 {
			name = fmt.Sprintf("%s.%d", errf, i+1)
		}
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatalf("error file of header %d: %v", i, err)
		}
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		if len(lines) != 2 || lines[0] != strings.Join(h, ",") || !strings.HasPrefix(lines[1], fmt.Sprintf("bad%d,", i)) {
			t.Fatalf("%s holds %q, want its header and row bad%d", name, lines, i)
		}
	}
	logged, err := os.ReadFile(errf + ".log")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(logged), "\n"); got != 400 {
		t.Errorf("the log has %d lines, want 400", got)
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// TestTypoHeaderReasonOnTerminal: a header with a typo rejects every row
// of its file; the reason, its first row and the rows it took are on
// standard error and in the JSON summary, not only in the log. The other
// file loads. Before, the terminal showed counts and the log's name.
func TestTypoHeaderReasonOnTerminal(t *testing.T) {
	sim := startSimProc(t)
	dir := t.TempDir()
	typo, good := filepath.Join(dir, "typo.csv"), filepath.Join(dir, "good.csv")
	if err := os.WriteFile(typo, []byte("k,vv\n1,a\n2,b\n3,c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(good, []byte("k,v\n4,d\n5,x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := filepath.Join(dir, "sum.json")
	load := sim.Cmd(context.Background(), t, "--progress", "none", "--table", "ks.t", "--header", "true",
		"--err-file", filepath.Join(dir, "t.err"), "--summary-json", sum, good, typo)
	var stdout, stderr strings.Builder
	load.Stdout, load.Stderr = &stdout, &stderr
	err := load.Run()
	if code := exitCodeOf(t, err); code != exitRejected {
		t.Fatalf("exit %d, want %d\n%s%s", code, exitRejected, stdout.String(), stderr.String())
	}
	reason := "the file's header does not fit the table: the header names columns that ks.t does not have: vv"
	if want := typo + ":2: " + reason + " (3 rows)\n"; !strings.Contains(stderr.String(), want) {
		t.Errorf("standard error does not say %q:\n%s", want, stderr.String())
	}
	b, err := os.ReadFile(sum)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Reasons []struct {
			Reason, First string
			Rows          int64
		} `json:"reasons"`
		Written int64 `json:"rows_written"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Reasons) != 1 || s.Reasons[0].Reason != reason || s.Reasons[0].First != typo+":2" || s.Reasons[0].Rows != 3 || s.Written != 2 {
		t.Errorf("summary: reasons %+v, %d written; want the header's for 3 rows from %s:2, and 2 written", s.Reasons, s.Written, typo)
	}
}
