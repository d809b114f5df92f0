//go:build check

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestBenchSmoke runs the whole harness on tiny datasets through the real
// binaries. It checks that every dataset is measured and that the counts
// agree, never how fast anything was. It runs in make check only: it
// builds the harness and the binaries without the race detector, which
// on a fresh machine compiles every package a second time.
func TestBenchSmoke(t *testing.T) {
	dir := t.TempDir()
	build := exec.Command("go", "build", "-o", dir+string(os.PathSeparator), "../cmd/cqlload", "../cmd/cqlsim")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	self := filepath.Join(dir, "bench")
	if out, err := exec.Command("go", "build", "-o", self, ".").CombinedOutput(); err != nil {
		t.Fatalf("build bench: %v\n%s", err, out)
	}
	const rows = 2000
	jsonPath := filepath.Join(dir, "results.json")
	// With cqlsim announcing ScyllaDB shards, so that the ceiling's
	// batches must follow the loader's per-shard grouping too.
	const shards = 4
	cmd := exec.Command(self, "-bin", dir, "-rows", "2000", "-scale", "2", "-alloc-rows", "2000", "-repeat", "2",
		"-shards", fmt.Sprint(shards), "-json", jsonPath,
		"-capacity-phase", "1s", "-plot", filepath.Join(dir, "capacity.svg"))
	cmd.Env = append(os.Environ(), "BENCH_DIR=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("bench: %v\n%s", err, stderr.String())
	}
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var rep report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"narrow/blackhole": true, "1kb/blackhole": true, "wide/blackhole": true, "rich/blackhole": true, "narrow/store": true}
	for _, r := range rep.Results {
		key := r.Dataset + "/" + r.Mode
		if !want[key] {
			t.Errorf("unexpected or repeated result %s", key)
		}
		delete(want, key)
		for prog, f := range map[string]figures{"cqlload": r.Loader, "ceiling": r.Ceiling} {
			if f.RowsWritten != rows || f.ClusterRows != rows {
				t.Errorf("%s %s: %d rows written, cluster saw %d; want %d", key, prog, f.RowsWritten, f.ClusterRows, rows)
			}
			if f.ReplicaShare < 0.99 {
				t.Errorf("%s %s: replica share %.3f, want at least 0.99", key, prog, f.ReplicaShare)
			}
			// Both wait for the driver to connect every shard, then
			// batch per shard; random connections would land a quarter
			// of the rows on their shard.
			if f.ShardShare < 0.95 {
				t.Errorf("%s %s: shard share %.3f, want nearly every row on its shard's connection", key, prog, f.ShardShare)
			}
			if f.CPUUsPerRow <= 0 || f.PeakRSSMiB <= 0 || f.RowsPerS <= 0 || f.AllocsPerRow <= 0 || f.RowsPerRequest < 1 {
				t.Errorf("%s %s: implausible figures %+v", key, prog, f)
			}
		}
		// The dry run took every row and sent none.
		if dr := r.DryRun; dr.RowsWritten != rows || dr.CPUUsPerRow <= 0 || dr.ClusterRows != 0 || r.DryRunRatio <= 0 {
			t.Errorf("%s dry run: implausible figures %+v, ratio %.2f", key, dr, r.DryRunRatio)
		}
		if r.Loader.RowsPerRequest != r.Ceiling.RowsPerRequest {
			t.Errorf("%s: %.2f rows per request against the ceiling's %.2f: the batch shapes differ", key, r.Loader.RowsPerRequest, r.Ceiling.RowsPerRequest)
		}
		if !strings.Contains(stdout.String(), r.Dataset) {
			t.Errorf("the table lacks %s", r.Dataset)
		}
	}
	for k := range want {
		t.Errorf("no result for %s", k)
	}
	if s := rep.Scaling; s == nil || s.Rows10x != 2*rows || s.RSS10xMiB <= 0 || s.RSS1xMiB <= 0 {
		t.Errorf("memory scaling %+v, want both sizes measured", rep.Scaling)
	}
	// The capacity scenarios: each ran, wrote every row it read (none
	// rejected), and the change has its two recovery times and its plot.
	if rep.Capacity == nil || len(rep.Capacity.Runs) != 7 || rep.Capacity.PerNodeRPS <= 0 {
		t.Fatalf("capacity scenarios %+v, want 7 with a per-node capacity", rep.Capacity)
	}
	for _, r := range rep.Capacity.Runs {
		if r.RowsPerS <= 0 || r.Rejected != 0 || r.Requests == 0 {
			t.Errorf("capacity scenario %q: %.0f rows/s, %d rejected, %d requests", r.Scenario, r.RowsPerS, r.Rejected, r.Requests)
		}
	}
	if last := rep.Capacity.Runs[6]; len(last.Recovery) != 2 {
		t.Errorf("capacity change: recovery %v, want two", last.Recovery)
	}
	if len(rep.Splits) != len(splitScenarios(runtime.NumCPU())) {
		t.Errorf("split scenarios %+v, want 1, 2 and 4 processes (and 4 at once on fewer than 4 cores)", rep.Splits)
	}
	for _, r := range rep.Splits {
		if r.Rows != 2*rows || r.CPUS <= 0 || r.Planned != (r.PlanCPUS > 0) {
			t.Errorf("%d split processes (planned %v): %d rows, %.2f CPU s, plan %.3f CPU s; want %d rows", r.Processes, r.Planned, r.Rows, r.CPUS, r.PlanCPUS, 2*rows)
		}
	}
	if fi, err := os.Stat(rep.Capacity.Plot); err != nil || fi.Size() == 0 {
		t.Errorf("capacity plot %q: %v", rep.Capacity.Plot, err)
	}
	checkShapesSmoke(t, &rep, stdout.String(), rows)
}

// checkShapesSmoke: the shapes table has every scenario, each wrote all
// its rows and none was rejected, and the figures are plausible: the
// busiest node's share from the rows' tokens is what cqlsim counted.
func checkShapesSmoke(t *testing.T, rep *report, stdout string, rows int64) {
	t.Helper()
	sr := rep.Shapes
	if sr == nil || sr.PerNodeRPS <= 0 || sr.PerNodeRPS != rep.Capacity.PerNodeRPS || sr.Rows != rows {
		t.Fatalf("shapes %+v, want a per-node capacity (the capacity scenarios', %v) and %d rows", sr, rep.Capacity.PerNodeRPS, rows)
	}
	if !strings.Contains(stdout, "\nShapes (") {
		t.Error("the report lacks the shapes table")
	}
	small := rows / 10
	want := map[string]int64{
		"token-sorted, 1 token per node": rows, "key-sorted, 1 token per node": rows, "shuffled, 1 token per node": rows,
		"token-sorted, 16 tokens per node": rows, "key-sorted, 16 tokens per node": rows, "shuffled, 16 tokens per node": rows,
		fmt.Sprintf("%d rows in one file", small): small, fmt.Sprintf("%d files of 10 rows", small/10): small,
		"token-sorted, one gzip member, 1 token per node": rows,
		"token-sorted, bgzip, 1 token per node":           rows,
		fmt.Sprintf("%d rows of one partition", rows/5):   rows / 5,
	}
	for _, r := range sr.Runs {
		n, ok := want[r.Scenario]
		if !ok {
			t.Errorf("unexpected or repeated shapes scenario %q", r.Scenario)
			continue
		}
		delete(want, r.Scenario)
		if r.Rows != n || r.Rejected != 0 {
			t.Errorf("%s: %d rows written, %d rejected; want %d, none", r.Scenario, r.Rows, r.Rejected, n)
		}
		if r.BusiestShare < 1.0/3 || r.BusiestShare > 1 || r.BoundRPS <= 0 || r.RowsPerS <= 0 || r.Share <= 0 || r.PeakRSSMiB <= 0 {
			t.Errorf("%s: implausible figures %+v", r.Scenario, r)
		}
		if d := r.BusiestShare - r.CoordinatedShare; d < -0.02 || d > 0.02 {
			t.Errorf("%s: the busiest node's share %.3f from the tokens, %.3f from cqlsim's counts", r.Scenario, r.BusiestShare, r.CoordinatedShare)
		}
		if (r.Kind == kindManyFiles) != (int64(r.Files) == small/10) {
			t.Errorf("%s: %d files", r.Scenario, r.Files)
		}
		if !strings.Contains(stdout, r.Scenario) {
			t.Errorf("the table lacks %s", r.Scenario)
		}
	}
	for name := range want {
		t.Errorf("no shapes scenario %q", name)
	}
	// One target per order and token count, the bgzip file's, the one
	// partition's, the small files', the warning's (met, missed or not
	// measured) and peak RSS.
	n := 0
	for _, tg := range rep.Targets {
		if strings.HasPrefix(tg.What, "shapes: ") {
			n++
		}
	}
	if n != 11 {
		t.Errorf("%d shapes targets, want 11", n)
	}
}
