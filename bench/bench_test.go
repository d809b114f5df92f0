package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
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
