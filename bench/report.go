package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"
)

// report is everything one run measured; it is also the JSON written.
type report struct {
	Machine        machine         `json:"machine"`
	RowsPerDataset int64           `json:"rows_per_dataset"`
	Repeat         int             `json:"repeat"`           // runs per program and dataset; the cheapest is kept
	Shards         int             `json:"shards,omitempty"` // ScyllaDB shards cqlsim announced per node
	Results        []result        `json:"results"`
	Scaling        *scaling        `json:"memory_scaling,omitempty"`
	Targets        []target        `json:"targets,omitempty"`
	Capacity       *capacityReport `json:"capacity,omitempty"`
	Splits         []splitRun      `json:"splits,omitempty"`
	Shapes         *shapesReport   `json:"shapes,omitempty"`
	// ScanFloorMsPerGB is the least CPU a scan of the split file for a
	// quote can cost on this machine: bytes.IndexByte over it in memory.
	ScanFloorMsPerGB float64 `json:"split_scan_floor_ms_per_gb,omitempty"`
}

// target is one of issue 5's goals checked against a run's figures.
type target struct {
	What  string  `json:"what"`
	Value float64 `json:"value"`
	Limit float64 `json:"limit"`
	Met   bool    `json:"met"`
	// AtLeast: the value must reach Limit rather than stay under it.
	AtLeast bool `json:"at_least,omitempty"`
	// Why, when set, makes the line a figure printed among the targets
	// with no target of its own, for the reason it gives; Limit and Met
	// are then unused.
	Why string `json:"no_target_because,omitempty"`
	// Beside, when set, is a figure of the same run to read the value
	// against: a µs target is judged on the machine's speed as much as
	// on cqlload's, and the ceiling measured beside it tells the two
	// apart.
	Beside string `json:"beside,omitempty"`
}

// checkTargets reads the goals off the figures: CPU per row within 1.2×
// the ceiling (the median of the repetitions' ratios), at most 2 µs per
// narrow row and 2.5 µs per 1 KB row, peak RSS at most 48 MiB at 1× and
// at 10× the input and within 10% from one to the other, and at least 99%
// of rows through a replica coordinator.
func checkTargets(r *report) []target {
	var ts []target
	atMost := func(what string, v, limit float64) {
		ts = append(ts, target{What: what, Value: v, Limit: limit, Met: v <= limit})
	}
	for _, res := range r.Results {
		name := res.Dataset
		if res.Mode != "blackhole" {
			name += " (" + res.Mode + ")"
		}
		atMost(name+": CPU per row ÷ ceiling's, median of runs", res.CPURatioMedian, 1.2)
		if res.Mode == "blackhole" {
			limit := map[string]float64{"narrow": 2, "1kb": 2.5}[res.Dataset]
			if limit > 0 {
				atMost(name+": CPU µs per row", res.Loader.CPUUsPerRow, limit)
				if c := res.Ceiling.CPUUsPerRow; c > 0 {
					ts[len(ts)-1].Beside = fmt.Sprintf("the ceiling %.2f in the same run", c)
				}
			}
		}
		atMost(name+": peak RSS MiB", res.Loader.PeakRSSMiB, 48)
		ts = append(ts, target{What: name + ": replica-coordinator share %", Value: 100 * res.Loader.ReplicaShare, Limit: 99, Met: res.Loader.ReplicaShare >= 0.99, AtLeast: true})
	}
	if s := r.Scaling; s != nil {
		atMost(fmt.Sprintf("narrow: peak RSS growth %% from 1× to %d×", s.Scale), s.GrowthPct, 10)
		atMost(fmt.Sprintf("narrow: peak RSS MiB at %d×", s.Scale), s.RSS10xMiB, 48)
	}
	if r.Capacity != nil {
		ts = append(ts, capacityTargets(r.Capacity)...)
	}
	ts = append(ts, splitTargets(r.Splits)...)
	if r.Shapes != nil {
		ts = append(ts, shapesTargets(r.Shapes)...)
	}
	return ts
}

type machine struct {
	CPU        string `json:"cpu"`
	Cores      int    `json:"cores"`
	GoVersion  string `json:"go"`
	OS         string `json:"os"`
	Date       string `json:"date"`
	LoadBefore string `json:"load_before"`
	LoadAfter  string `json:"load_after"`
}

// result is one dataset in one cqlsim mode.
type result struct {
	Dataset    string  `json:"dataset"`
	Mode       string  `json:"mode"` // blackhole or store
	Rows       int64   `json:"rows"`
	InputBytes int64   `json:"input_bytes"`
	Loader     figures `json:"cqlload"`
	// DryRun is cqlload --dry-run: reading, parsing, converting and
	// batching, nothing sent (measureDryRun).
	DryRun  figures `json:"cqlload_dry_run"`
	Ceiling figures `json:"ceiling"`
	Floor   figures `json:"floor"`
	// CPURatio is cqlload's CPU per row over the ceiling's, each
	// program's cheapest run.
	CPURatio float64 `json:"cpu_ratio"`
	// CPURatioMedian is the median over the repetitions of the ratio
	// within each (cqlload, then the ceiling, back to back): what
	// the target is judged on, as drift on a shared machine moves both.
	CPURatioMedian float64 `json:"cpu_ratio_median"`
	// DryRunRatio is the dry run's CPU per row over the ceiling's: how
	// much of the 1.2× the target allows cqlload's input work takes
	// before a row is sent. Reported, with no target.
	DryRunRatio float64 `json:"dry_run_ratio"`
	// FloorRatio is cqlload's CPU per row over the floor's, and
	// CeilingFloorRatio the ceiling's: how far each is from the least
	// work that puts the rows on the wire. Reported, with no target.
	FloorRatio        float64 `json:"floor_ratio"`
	CeilingFloorRatio float64 `json:"ceiling_floor_ratio"`
}

// figures are one program's measurements on one dataset.
type figures struct {
	RowsWritten    int64   `json:"rows_written"`
	WallS          float64 `json:"wall_s"`
	RowsPerS       float64 `json:"rows_per_s"`
	SteadyRowsPerS float64 `json:"steady_rows_per_s"`
	CPUS           float64 `json:"cpu_s"`
	CPUUsPerRow    float64 `json:"cpu_us_per_row"`
	PeakRSSMiB     float64 `json:"peak_rss_mib"`
	AllocsPerRow   float64 `json:"allocs_per_row"`
	// From cqlsim's counters over the run.
	ClusterRows    int64   `json:"cluster_rows"`
	ReplicaShare   float64 `json:"replica_share"`         // 0..1
	ShardShare     float64 `json:"shard_share,omitempty"` // 0..1, with shards: rows on their shard's connection
	Requests       int64   `json:"requests"`
	RowsPerRequest float64 `json:"rows_per_request"`
}

func (f *figures) fromCluster(c simCounters) {
	f.ClusterRows, f.Requests = c.Rows, c.Requests
	if c.Rows > 0 {
		f.ReplicaShare = float64(c.ReplicaRows) / float64(c.Rows)
		f.ShardShare = float64(c.ShardRows) / float64(c.Rows)
	}
	if c.Requests > 0 {
		f.RowsPerRequest = float64(c.Rows) / float64(c.Requests)
	}
}

type scaling struct {
	Scale     int     `json:"scale"`
	Rows1x    int64   `json:"rows_1x"`
	Rows10x   int64   `json:"rows_scaled"`
	RSS1xMiB  float64 `json:"peak_rss_1x_mib"`
	RSS10xMiB float64 `json:"peak_rss_scaled_mib"`
	GrowthPct float64 `json:"growth_pct"`
}

func printReport(w io.Writer, r *report) {
	m := r.Machine
	best := ""
	if r.Repeat > 1 {
		best = fmt.Sprintf(", cheapest of %d runs each", r.Repeat)
	}
	fmt.Fprintf(w, "cqlload benchmark, %d rows per dataset%s; %s, %d cores, %s, %s; load average before %s, after %s\n\n",
		r.RowsPerDataset, best, m.CPU, m.Cores, m.GoVersion, m.OS, m.LoadBefore, m.LoadAfter)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	if len(r.Results) == 0 {
		tw = tabwriter.NewWriter(io.Discard, 0, 0, 2, ' ', tabwriter.AlignRight) // -datasets "": no table
	}
	// The columns of what a program sent: allocs/row, replica %, shard %
	// (with shards), rows/batch.
	shardHead, sentCells := "", 3
	if r.Shards > 0 {
		shardHead, sentCells = "shard %\t", 4
	}
	fmt.Fprintln(tw, "dataset\tprogram\trows\trows/s\tsteady rows/s\tCPU µs/row\t× ceiling\t× ceiling, median\t× floor\tpeak RSS MiB\tallocs/row\treplica %\t"+shardHead+"rows/batch\t")
	for _, res := range r.Results {
		name := res.Dataset
		if res.Mode != "blackhole" {
			name += " (" + res.Mode + ")"
		}
		for i, f := range []figures{res.Loader, res.DryRun, res.Ceiling, res.Floor} {
			prog, ratio, med, floorRatio := "cqlload", fmt.Sprintf("%.2f", res.CPURatio), fmt.Sprintf("%.2f", res.CPURatioMedian), fmt.Sprintf("%.2f", res.FloorRatio)
			switch i {
			case 1:
				prog, ratio, med, floorRatio = "dry run", fmt.Sprintf("%.2f", res.DryRunRatio), "", ""
			case 2:
				prog, ratio, med, floorRatio = "ceiling", "", "", fmt.Sprintf("%.2f", res.CeilingFloorRatio)
			case 3:
				prog, ratio, med, floorRatio = "floor", "", "", ""
			}
			// The dry run sends nothing: no allocation count, no
			// cluster figures, empty cells.
			sent := strings.Repeat("\t", sentCells)
			if i != 1 {
				sent = fmt.Sprintf("%.1f\t%.2f\t", f.AllocsPerRow, 100*f.ReplicaShare)
				if r.Shards > 0 {
					sent += fmt.Sprintf("%.2f\t", 100*f.ShardShare)
				}
				sent += fmt.Sprintf("%.1f\t", f.RowsPerRequest)
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%.0f\t%.0f\t%.2f\t%s\t%s\t%s\t%.1f\t%s\n",
				name, prog, f.RowsWritten, f.RowsPerS, f.SteadyRowsPerS, f.CPUUsPerRow, ratio, med, floorRatio,
				f.PeakRSSMiB, sent)
		}
	}
	tw.Flush()
	if s := r.Scaling; s != nil {
		fmt.Fprintf(w, "\nMemory scaling (narrow, cqlload): %d rows %.1f MiB peak RSS; %d rows (×%d) %.1f MiB; growth %+.1f%%\n",
			s.Rows1x, s.RSS1xMiB, s.Rows10x, s.Scale, s.RSS10xMiB, s.GrowthPct)
	}
	if r.Capacity != nil {
		printCapacity(w, r.Capacity)
	}
	if len(r.Splits) > 0 {
		printSplits(w, r.Splits, 2*r.RowsPerDataset, r.ScanFloorMsPerGB)
	}
	if r.Shapes != nil {
		printShapes(w, r.Shapes)
	}
	if len(r.Targets) > 0 {
		if r.RowsPerDataset < 100_000 {
			fmt.Fprintln(w, "\nTargets (not meaningful below 100,000 rows per dataset: start-up dominates):")
		} else {
			fmt.Fprintln(w, "\nTargets:")
		}
		for _, t := range r.Targets {
			if t.Why != "" {
				fmt.Fprintf(w, "  %-6s %s: %.2f (no target: %s)\n", "–", t.What, t.Value, t.Why)
				continue
			}
			mark := "met"
			if !t.Met {
				mark = "MISSED"
			}
			op := "≤"
			if t.AtLeast {
				op = "≥"
			}
			beside := ""
			if t.Beside != "" {
				beside = "; " + t.Beside
			}
			fmt.Fprintf(w, "  %-6s %s: %.2f (%s %g%s)\n", mark, t.What, t.Value, op, t.Limit, beside)
		}
	}
	fmt.Fprintln(w, "\nceiling: the same rows, converted and batched before the clock starts, sent with the same driver settings;")
	fmt.Fprintln(w, "its CPU and allocations cover the send phase only. floor: the same batches as pre-encoded v4 frames on raw")
	fmt.Fprintln(w, "connections (bench/floor); × floor is CPU per row over the floor's, with no target.")
	fmt.Fprintln(w, "cqlload: whole process (rusage); allocs/row from an in-process run. dry run: cqlload --dry-run, which reads,")
	fmt.Fprintln(w, "parses, converts and batches every row and sends none; its × ceiling is that work's CPU over the ceiling's,")
	fmt.Fprintln(w, "which does it before its clock starts.")
}

func writeReport(path string, r *report) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	return nil
}

func describeMachine() machine {
	return machine{
		CPU:        cpuModel(),
		Cores:      runtime.NumCPU(),
		GoVersion:  runtime.Version(),
		OS:         runtime.GOOS + "/" + runtime.GOARCH,
		Date:       time.Now().UTC().Format(time.RFC3339),
		LoadBefore: loadAverage(),
	}
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

// loadAverage is the 1-minute load average: a busy machine makes every
// figure noisy, so the report says how busy it was.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	if f := strings.Fields(string(b)); len(f) > 0 {
		return f[0]
	}
	return "?"
}
