package main

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cqlload/cqlload/internal/proctest"
)

// splitInputs writes the inputs of the split test into dir: a large file
// whose records hold quoted fields with line breaks, delimiters, doubled
// quotes and backslash-escaped quotes at every offset, two small files and
// a gzip file, all with a header. It returns the files and the value each
// key must end up with.
func splitInputs(t *testing.T, dir string, splitRows int) ([]string, map[int64]string) {
	t.Helper()
	want := map[int64]string{}
	r := rand.New(rand.NewPCG(7, 11))
	pieces := []string{"plain", "a,b", "line\nbreak", `say ""hi""`, `back\"slash`, "\r\n", "x", ",,", `"`}
	field := func() (csv, value string) {
		var raw, val strings.Builder
		for range 1 + r.IntN(6) {
			p := pieces[r.IntN(len(pieces))]
			raw.WriteString(p)
			switch p {
			case `say ""hi""`:
				val.WriteString(`say "hi"`)
			case `back\"slash`:
				val.WriteString(`back"slash`)
			case `"`:
				raw.WriteString(`"`) // doubled
				val.WriteString(`"`)
			default:
				val.WriteString(p)
			}
		}
		return `"` + raw.String() + `"`, val.String()
	}
	next := int64(0)
	write := func(name string, rows int, gz bool) string {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		var w interface {
			Write([]byte) (int, error)
		} = f
		var zw *gzip.Writer
		if gz {
			zw = gzip.NewWriter(f)
			w = zw
		}
		var b strings.Builder
		b.WriteString("k,v\n")
		for range rows {
			csv, val := field()
			fmt.Fprintf(&b, "%d,%s\n", next, csv)
			want[next] = val
			next++
			if b.Len() > 1<<20 {
				w.Write([]byte(b.String()))
				b.Reset()
			}
		}
		w.Write([]byte(b.String()))
		if zw != nil {
			zw.Close()
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		return path
	}
	files := []string{
		write("big.csv", splitRows, false),
		write("small-1.csv", 500, false),
		write("small-2.csv", 1, false),
		write("zipped.csv.gz", 3000, true),
	}
	return files, want
}

// TestSplitProcesses: N cqlload processes with --split I/N, run at once on
// the same inputs into one cluster, write every record exactly once: the
// table holds each key with its value, the cluster coordinated one write
// per record (and more only as the runs' retries can account for), and
// cqlload summarize of the runs' summaries accounts for every record. The
// large file is cut into many ranges, so that range ends fall inside
// quoted fields, on escapes and on line breaks.
// The large file has splitRows records (size_test.go).
func TestSplitProcesses(t *testing.T) {
	dir := t.TempDir()
	files, want := splitInputs(t, dir, splitRows)
	type splitCase struct {
		n       int
		planned bool // a --write-split-plan process first, then --split-plan
		// striped: each process reads its ranges as stripes (at the
		// default --stripe-size, only test-large's files are striped).
		striped bool
	}
	cases := []splitCase{{3, false, false}, {4, true, true}} // make check: N = 7 too
	if full {
		cases = []splitCase{{3, false, false}, {7, false, false}, {4, true, true}}
	}
	for _, c := range cases {
		n := c.n
		name := fmt.Sprintf("N=%d", n)
		if c.planned {
			name += ", planned"
		}
		var stripeArgs []string
		if c.striped {
			name += ", stripes"
			stripeArgs = []string{"--readers", "4", "--stripe-size", "64KiB"}
		}
		t.Run(name, func(t *testing.T) {
			sim := proctest.StartSim(t, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};"+
				"CREATE TABLE ks.s (k bigint PRIMARY KEY, v text);", "--nodes", "3")
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute+time.Duration(splitRows/10000)*time.Second)
			defer cancel()
			run := t.TempDir()
			var planArgs []string
			if c.planned {
				plan := filepath.Join(run, "plan.json")
				args := []string{"--table", "ks.s", "--header", "true", "--split", fmt.Sprintf("0/%d", n), "--split-size", "262144", "--write-split-plan", plan}
				out, err := sim.Cmd(ctx, t, append(args, files...)...).CombinedOutput()
				if err != nil || !strings.Contains(string(out), "Split plan for") {
					t.Fatalf("--write-split-plan: %v\n%s", err, out)
				}
				planArgs = []string{"--split-plan", plan}
			}
			cmds := make([]*exec.Cmd, n)
			outs := make([]strings.Builder, n)
			sums := make([]string, n)
			for i := range n {
				sums[i] = filepath.Join(run, fmt.Sprintf("split-%d.json", i))
				args := []string{"--table", "ks.s", "--header", "true", "--progress", "none",
					"--split", fmt.Sprintf("%d/%d", i, n), "--split-size", "262144",
					"--err-file", filepath.Join(run, "rejected.err"), "--summary-json", sums[i]}
				args = append(append(args, planArgs...), stripeArgs...)
				cmds[i] = sim.Cmd(ctx, t, append(args, files...)...)
				cmds[i].Stdout, cmds[i].Stderr = &outs[i], &outs[i]
				if err := cmds[i].Start(); err != nil {
					t.Fatal(err)
				}
			}
			for i, c := range cmds {
				if err := c.Wait(); err != nil {
					t.Fatalf("split %d/%d: %v\n%s", i, n, err, outs[i].String())
				}
			}
			for i := range n {
				if s := readSummary(t, sums[i]); c.striped && s.Stripes < 2 {
					t.Errorf("split %d/%d: read as %d stripes", i, n, s.Stripes)
				}
			}
			coordinated := sim.RowsWritten(t)
			iter := sim.Session(t).Query("SELECT k, v FROM ks.s").Iter()
			var k int64
			var v string
			seen := 0
			for iter.Scan(&k, &v) {
				seen++
				if w, ok := want[k]; !ok || w != v {
					t.Fatalf("key %d holds %q, want %q (in the input: %v)", k, v, w, ok)
				}
			}
			if err := iter.Close(); err != nil {
				t.Fatal(err)
			}
			if seen != len(want) {
				t.Fatalf("the table holds %d keys, the input %d", seen, len(want))
			}
			for i := range n {
				if _, err := os.Stat(filepath.Join(run, fmt.Sprintf("rejected.%d.err", i))); err == nil {
					t.Errorf("split %d wrote an error file", i)
				}
			}
			merged := filepath.Join(run, "merged.json")
			code, out, stderr := runCLI(t, "", append([]string{"summarize", "--summary-json", merged}, sums...)...)
			if code != exitOK {
				t.Fatalf("summarize: exit %d\n%s%s", code, out, stderr)
			}
			// The large file was cut: the splits read more parts than
			// there are files and splits.
			parts := 0
			var resent int64 // at most, by the retries
			for _, p := range sums {
				var s jsonSummary
				raw, _ := os.ReadFile(p)
				if err := json.Unmarshal(raw, &s); err != nil {
					t.Fatal(err)
				}
				parts += s.Files
				resent += s.Retries * int64(s.BatchRowsMax)
				// With a plan a split checks the bytes before its cut,
				// never the prefix of the large file.
				if c.planned && s.SplitFindBytes > 1<<20 {
					t.Errorf("%s: with a plan the split read %d bytes to find its start", p, s.SplitFindBytes)
				}
			}
			// One write per record, but for the rows of attempts a
			// process gave up on and sent again (on a machine this
			// loaded, a request may outlast its timeout); never fewer.
			if extra := coordinated - int64(len(want)); extra < 0 || extra > resent {
				t.Errorf("the cluster coordinated %d writes for %d records (the retries may account for %d more)", coordinated, len(want), resent)
			}
			// The large file is cut: each split reads a range of it,
			// and every other file once.
			if parts < len(files)-1+n {
				t.Errorf("the %d splits read %d parts of %d files: the large file was not cut into ranges", n, parts, len(files))
			}
			var m jsonSummary
			raw, _ := os.ReadFile(merged)
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatal(err)
			}
			if m.RowsRead != int64(len(want)) || m.RowsWritten != int64(len(want)) {
				t.Fatalf("summarize: %d rows read, %d written; the input has %d records", m.RowsRead, m.RowsWritten, len(want))
			}
			if c.planned {
				// A plan made for other splits is a usage error: a
				// scheduler must not retry it.
				args := []string{"--table", "ks.s", "--header", "true", "--progress", "none",
					"--split", fmt.Sprintf("0/%d", n+1), "--split-size", "262144"}
				cmd := sim.Cmd(ctx, t, append(append(args, planArgs...), files...)...)
				out, err := cmd.CombinedOutput()
				if code := cmd.ProcessState.ExitCode(); code != exitUsage || !strings.Contains(string(out), fmt.Sprintf("made for %d splits", n)) {
					t.Errorf("a plan for %d splits given to --split 0/%d: exit %d (%v), want %d naming the plan's N\n%s", n, n+1, code, err, exitUsage, out)
				}
			}
		})
	}
}
