package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cqlload/cqlload/csvparse"
	"github.com/cqlload/cqlload/schema"
)

// columnTypes gives each dataset's column types as the schema declares
// them, so that generated rows can be checked with the loader's converters.
var columnTypes = map[string]map[string]string{
	"narrow": {"id": "uuid", "n": "int", "big": "bigint", "name": "text", "ts": "timestamp", "score": "double"},
	"1kb":    {"pkey": "text", "ccol": "bigint", "data": "text"},
	"wide":   {"pk": "int", "ck": "int", "val": "text"},
	"rich":   {"id": "bigint", "tags": "list<text>", "nums": "set<int>", "attrs": "map<text, int>", "home": "frozen<address>", "at": "timestamp"},
}

func typeOf(t *testing.T, s string) *schema.Type {
	t.Helper()
	typ, err := schema.ParseType(s)
	if err != nil {
		t.Fatalf("ParseType(%q): %v", s, err)
	}
	if s == "frozen<address>" {
		text, _ := schema.ParseType("text")
		i, _ := schema.ParseType("int")
		typ.Fields = []schema.Field{{Name: "street", Type: text}, {Name: "city", Type: text}, {Name: "zip", Type: i}}
	}
	return typ
}

func TestGenerateIsDeterministicAndLoadable(t *testing.T) {
	const rows = 700
	for _, d := range datasets() {
		t.Run(d.name, func(t *testing.T) {
			var a, b bytes.Buffer
			na, err := generate(&a, d, rows)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := generate(&b, d, rows); err != nil {
				t.Fatal(err)
			}
			if na != int64(a.Len()) {
				t.Errorf("generate reported %d bytes, wrote %d", na, a.Len())
			}
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Fatal("two generations with the same size differ")
			}

			path := filepath.Join(t.TempDir(), d.name+".csv")
			if err := os.WriteFile(path, a.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			dia := csvparse.DefaultDialect()
			dia.Header = true
			src, err := csvparse.Sources([]string{path}, nil)
			if err != nil {
				t.Fatal(err)
			}
			sp := csvparse.NewSplitter(src, dia, 256, 0)
			defer sp.Close()
			types := columnTypes[d.name]
			var convs []schema.Converter
			records, bytesOut := 0, 0
			for {
				c, err := sp.Next()
				if err != nil {
					break
				}
				if convs == nil {
					if strings.Join(c.Header, ",") != d.header {
						t.Fatalf("header %v, want %s", c.Header, d.header)
					}
					for _, h := range c.Header {
						conv, err := schema.NewConverter(typeOf(t, types[h]), schema.DefaultFormats())
						if err != nil {
							t.Fatalf("column %s: %v", h, err)
						}
						convs = append(convs, conv)
					}
				}
				rd := csvparse.NewReader(c, dia)
				for {
					rec, err := rd.Next()
					if err != nil {
						break
					}
					records++
					bytesOut += len(rec.Raw) + 1
					if len(rec.Fields) != len(convs) {
						t.Fatalf("line %d: %d fields, want %d", rec.Line, len(rec.Fields), len(convs))
					}
					for i, f := range rec.Fields {
						if _, err := convs[i](nil, f); err != nil {
							t.Fatalf("line %d field %d %q: %v", rec.Line, i, f, err)
						}
					}
				}
			}
			if records != rows {
				t.Errorf("read %d records, want %d", records, rows)
			}
			perRow := float64(bytesOut) / rows
			want := map[string][2]float64{"narrow": {80, 130}, "1kb": {1000, 1050}, "wide": {40, 60}, "rich": {100, 250}}[d.name]
			if perRow < want[0] || perRow > want[1] {
				t.Errorf("%.0f bytes per row, want %v", perRow, want)
			}
		})
	}
}

func TestWideHasHundredPartitions(t *testing.T) {
	d, _ := findDataset("wide")
	var buf bytes.Buffer
	if _, err := generate(&buf, d, 1000); err != nil {
		t.Fatal(err)
	}
	parts := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n")[1:] {
		pk, _, _ := strings.Cut(line, ",")
		parts[pk]++
	}
	if len(parts) != wideRows {
		t.Fatalf("%d partitions, want %d", len(parts), wideRows)
	}
	for pk, n := range parts {
		if n != 10 {
			t.Errorf("partition %s has %d rows, want 10", pk, n)
		}
	}
}

func TestSteadyRate(t *testing.T) {
	s := func(ms int, rows int64) sample { return sample{t: time.Duration(ms) * time.Millisecond, rows: rows} }
	tests := []struct {
		name    string
		samples []sample
		want    float64
	}{
		{"empty", nil, 0},
		{"no rows", []sample{s(500, 0), s(1000, 0)}, 0},
		{"too short", []sample{s(500, 100), s(1000, 200)}, 0},
		{
			// Start-up (0→500 ms) and the final drain are excluded: the
			// window is 1500 ms → 3000 ms, 3000 rows in 1.5 s.
			"window", []sample{s(0, 0), s(500, 10), s(1000, 500), s(1500, 1000), s(2000, 2000), s(2500, 3000), s(3000, 4000), s(3100, 4100)},
			2000,
		},
		{"final sample only after window", []sample{s(500, 10), s(1500, 1000), s(2500, 1000)}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := steadyRate(tt.samples, time.Second); got != tt.want {
				t.Errorf("steadyRate = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParseHWM(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"Name:\tcqlload\nVmPeak:\t  900 kB\nVmHWM:\t   12345 kB\nVmRSS:\t 1000 kB\n", 12345, true},
		{"Name:\tzombie\nState:\tZ (zombie)\n", 0, false},
		{"VmHWM:\t12 MB\n", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseHWM([]byte(tt.in))
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseHWM(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestProgressLines(t *testing.T) {
	in := "Processed: 0 rows; Rate: 0 rows/s; Rejected: 0; Elapsed: 0.5s (0.0%)\n" +
		"2026/01/01 warning: something\n" +
		"Processed: 12345 rows; Rate: 24690 rows/s; Rejected: 0; Elapsed: 0.5s (50.0%)\n" +
		"Processed: 20000 rows; Rate: 0 rows/s; Rejected: 3; Elapsed: 2.0s; interval 0.5s: 15310 rows/s, 766 req/s, latency ms p50 0.60 p95 2.10 p99 5.00 max 12.00, 0 errors (0.0%), 0 retries, in-flight limit 48\n"
	var other bytes.Buffer
	got, lines := readSamples(strings.NewReader(in), &other)
	want := []sample{{t: 500 * time.Millisecond}, {t: 500 * time.Millisecond, rows: 12345}, {t: 2 * time.Second, rows: 20000, rate: 15310, limit: 48}}
	if len(got) != len(want) {
		t.Fatalf("samples %+v, want %+v", got, want)
	}
	for i := range want {
		if d := got[i].t - want[i].t; got[i].rows != want[i].rows || got[i].rate != want[i].rate || got[i].limit != want[i].limit || d < -time.Millisecond || d > time.Millisecond {
			t.Errorf("sample %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if !strings.Contains(other.String(), "warning: something") {
		t.Errorf("other lines %q lost the warning", other.String())
	}
	if len(lines) != 1 || lines[0].text != "2026/01/01 warning: something" || lines[0].after != 1 {
		t.Errorf("log lines %+v, want the warning after the first sample", lines)
	}
}

func TestCheckTargets(t *testing.T) {
	fig := func(cpu, rss, share float64) figures {
		return figures{CPUUsPerRow: cpu, PeakRSSMiB: rss, ReplicaShare: share}
	}
	r := &report{
		Results: []result{
			{Dataset: "narrow", Mode: "blackhole", Loader: fig(1.9, 47, 1), CPURatioMedian: 1.15},
			{Dataset: "1kb", Mode: "blackhole", Loader: fig(2.6, 49, 0.98), Ceiling: fig(2.1, 400, 1), CPURatioMedian: 1.3},
			{Dataset: "narrow", Mode: "store", Loader: fig(5, 48, 1), CPURatioMedian: 1.2},
		},
		Scaling: &scaling{Scale: 10, GrowthPct: 12, RSS10xMiB: 50},
	}
	got := map[string]bool{}
	for _, tg := range checkTargets(r) {
		got[tg.What] = tg.Met
	}
	want := map[string]bool{
		"narrow: CPU per row ÷ ceiling's, median of runs":         true,
		"narrow: CPU µs per row":                                  true,
		"narrow: peak RSS MiB":                                    true,
		"narrow: replica-coordinator share %":                     true,
		"1kb: CPU per row ÷ ceiling's, median of runs":            false,
		"1kb: CPU µs per row":                                     false,
		"1kb: peak RSS MiB":                                       false,
		"1kb: replica-coordinator share %":                        false,
		"narrow (store): CPU per row ÷ ceiling's, median of runs": true,
		"narrow (store): peak RSS MiB":                            true,
		"narrow (store): replica-coordinator share %":             true,
		"narrow: peak RSS growth % from 1× to 10×":                false,
		"narrow: peak RSS MiB at 10×":                             false,
	}
	if len(got) != len(want) {
		t.Errorf("checkTargets gave %d targets, want %d: %v", len(got), len(want), got)
	}
	for what, met := range want {
		if m, ok := got[what]; !ok || m != met {
			t.Errorf("%s: met=%v (present %v), want %v", what, m, ok, met)
		}
	}
	// A µs target is printed with the ceiling of the same run, where
	// there is one: what a miss is to be read against.
	var out bytes.Buffer
	printReport(&out, &report{Targets: checkTargets(r)})
	for _, line := range []string{
		"  MISSED 1kb: CPU µs per row: 2.60 (≤ 2.5; the ceiling 2.10 in the same run)\n",
		"  met    narrow: CPU µs per row: 1.90 (≤ 2)\n",
	} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("report lacks %q:\n%s", line, out.String())
		}
	}
}

// TestBenchSmoke runs the whole harness on tiny datasets through the real
// binaries. It checks that every dataset is measured and that the counts
// agree, never how fast anything was.
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

// TestSplitScenarios: processes run at most one per core at a time, each
// at its share of the cores; four on fewer than four cores also run all
// at once, as an extra scenario; four one per core run again with a plan.
func TestSplitScenarios(t *testing.T) {
	tests := []struct {
		cores int
		want  []splitScenario
	}{
		{1, []splitScenario{{1, 1, false}, {2, 1, false}, {4, 1, false}, {4, 4, false}, {4, 1, true}}},
		{2, []splitScenario{{1, 1, false}, {2, 2, false}, {4, 2, false}, {4, 4, false}, {4, 2, true}}},
		{4, []splitScenario{{1, 1, false}, {2, 2, false}, {4, 4, false}, {4, 4, true}}},
		{8, []splitScenario{{1, 1, false}, {2, 2, false}, {4, 4, false}, {4, 4, true}}},
	}
	for _, tc := range tests {
		if got := splitScenarios(tc.cores); !slices.Equal(got, tc.want) {
			t.Errorf("%d cores: %v, want %v", tc.cores, got, tc.want)
		}
	}
}

func TestMedian(t *testing.T) {
	tests := []struct {
		xs   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{1.3}, 1.3},
		{[]float64{1.5, 1.1, 1.3}, 1.3},
		{[]float64{1.4, 1.2, 1.1, 1.6}, 1.3},
	}
	for _, tc := range tests {
		if got := median(tc.xs); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("median(%v) = %v, want %v", tc.xs, got, tc.want)
		}
	}
}

// TestSplitTargets: the split-finding target is judged on the planned
// run; the share of runs without a plan is printed with the reason it
// has no target, whatever its value.
func TestSplitTargets(t *testing.T) {
	runs := []splitRun{
		{Processes: 1, AtOnce: 1, GoMaxProcs: 2, CPUUsPerRow: 2},
		{Processes: 2, AtOnce: 2, GoMaxProcs: 1, CPUUsPerRow: 2.1, FindShare: 0.01},
		{Processes: 4, AtOnce: 2, GoMaxProcs: 1, CPUUsPerRow: 2.1, FindShare: 0.03},
		{Processes: 4, AtOnce: 4, GoMaxProcs: 1, CPUUsPerRow: 2.5, FindShare: 0.03},
		{Processes: 4, AtOnce: 2, GoMaxProcs: 1, CPUUsPerRow: 2.3, FindShare: 0.025, Planned: true},
	}
	type want struct {
		met   bool
		noTgt bool
	}
	tests := []struct {
		what string
		want want
	}{
		{"splits: CPU per row of 4 processes ÷ 1 process's", want{met: true}},
		{"splits without a plan: 2 processes: split finding % of a process's CPU", want{noTgt: true}},
		{"splits without a plan: 4 processes: split finding % of a process's CPU", want{noTgt: true}},
		{"splits with a plan (its CPU counted): CPU per row of 4 processes ÷ 1 process's", want{met: false}},
		{"splits with a plan (its CPU counted): 4 processes: split finding % of a process's CPU", want{met: false}},
	}
	got := map[string]target{}
	for _, tg := range splitTargets(runs) {
		got[tg.What] = tg
	}
	if len(got) != len(tests) {
		t.Errorf("splitTargets gave %d lines, want %d: %v", len(got), len(tests), got)
	}
	for _, tc := range tests {
		tg, ok := got[tc.what]
		switch {
		case !ok:
			t.Errorf("%s: missing", tc.what)
		case (tg.Why != "") != tc.want.noTgt:
			t.Errorf("%s: no-target reason %q, want one: %v", tc.what, tg.Why, tc.want.noTgt)
		case !tc.want.noTgt && tg.Met != tc.want.met:
			t.Errorf("%s: met=%v, want %v", tc.what, tg.Met, tc.want.met)
		}
	}
	var out bytes.Buffer
	printReport(&out, &report{Targets: splitTargets(runs)})
	for _, line := range []string{
		"  MISSED splits with a plan (its CPU counted): 4 processes: split finding % of a process's CPU: 2.50 (≤ 2)",
		"  –      splits without a plan: 4 processes: split finding % of a process's CPU: 3.00 (no target: " + unplannedFinding + ")",
	} {
		if !strings.Contains(out.String(), line+"\n") {
			t.Errorf("report lacks %q:\n%s", line, out.String())
		}
	}
}
