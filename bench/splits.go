package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"text/tabwriter"
)

// The split scenarios: 1, 2 and 4 --split processes at once on one file,
// against a blackhole cqlsim. On two cores the processes share the CPUs,
// so they show what splitting costs, not how the wall clock scales.
//
// Each of N processes gets GOMAXPROCS = cores/N (at least 1), the share
// of the machine it would have as one of N pods with a CPU limit (Go
// sizes GOMAXPROCS to the limit). Left at the number of cores, four
// processes on two cores each keep two schedulers spinning for work the
// others hold the CPUs for: that cost 18-24% more CPU per row here, a
// cost of oversubscribing the machine, not of splitting the input.

type splitRun struct {
	Processes   int     `json:"processes"`
	GoMaxProcs  int     `json:"gomaxprocs"` // each process's
	Rows        int64   `json:"rows_written"`
	CPUS        float64 `json:"cpu_s"` // all processes
	CPUUsPerRow float64 `json:"cpu_us_per_row"`
	WallS       float64 `json:"wall_s"` // the slowest process
	// FindShare is the largest share of a process's CPU spent finding
	// its ranges' record starts.
	FindShare float64 `json:"split_find_share"`
	// FindMsPerGB is the processes' split-finding CPU per GB their
	// searches read, all processes together.
	FindMsPerGB float64 `json:"split_find_ms_per_gb"`
}

// runSplits loads file with 1, 2 and 4 processes.
func runSplits(ctx context.Context, cfg config, rep *report, d dataset, file, work string, logf func(string, ...any)) error {
	s, err := startSim(ctx, cfg.bin, work, true, 0)
	if err != nil {
		return err
	}
	defer s.close()
	for _, n := range []int{1, 2, 4} {
		var best splitRun
		for rep := range max(cfg.repeat, 1) {
			r, err := splitOnce(ctx, cfg, s, d, file, work, n)
			if err != nil {
				return err
			}
			if rep == 0 || r.CPUUsPerRow < best.CPUUsPerRow {
				best = r
			}
		}
		rep.Splits = append(rep.Splits, best)
		logf("splits: %d processes, %.2f CPU µs per row, split finding %.3f%% of a process's CPU", n, best.CPUUsPerRow, 100*best.FindShare)
	}
	return nil
}

func splitOnce(ctx context.Context, cfg config, s *sim, d dataset, file, work string, n int) (splitRun, error) {
	r := splitRun{Processes: n, GoMaxProcs: runtime.NumCPU()}
	if n > 1 {
		r.GoMaxProcs = splitProcs(n)
	}
	runs := make([]loaderRun, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		dir := filepath.Join(work, "split-"+strconv.Itoa(i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return r, err
		}
		var extra, env []string
		if n > 1 {
			extra = []string{"--split", fmt.Sprintf("%d/%d", i, n)}
			env = []string{"GOMAXPROCS=" + strconv.Itoa(r.GoMaxProcs)}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			runs[i], errs[i] = runLoaderEnv(ctx, cfg.bin, s, env, d.table, file, dir, extra...)
		}()
	}
	wg.Wait()
	var findS float64
	var findBytes int64
	for i, lr := range runs {
		if errs[i] != nil {
			return r, errs[i]
		}
		findS += lr.Summary.SplitFindS
		findBytes += lr.Summary.SplitFindBytes
		r.Rows += lr.Summary.RowsWritten
		r.CPUS += lr.CPUS
		r.WallS = max(r.WallS, lr.WallS)
		if lr.CPUS > 0 {
			r.FindShare = max(r.FindShare, lr.Summary.SplitFindS/lr.CPUS)
		}
	}
	if r.Rows != cfg.rows*2 {
		return r, fmt.Errorf("%d split processes wrote %d rows of %d", n, r.Rows, cfg.rows*2)
	}
	r.CPUUsPerRow = 1e6 * r.CPUS / float64(r.Rows)
	if findBytes > 0 {
		r.FindMsPerGB = 1e3 * findS / (float64(findBytes) / 1e9)
	}
	return r, nil
}

// splitProcs is GOMAXPROCS for each of n split processes: their share of
// the cores.
func splitProcs(n int) int { return max(1, runtime.NumCPU()/n) }

// splitTargets are issue 15's goals.
func splitTargets(runs []splitRun) []target {
	var ts []target
	var one float64
	for _, r := range runs {
		if r.Processes == 1 {
			one = r.CPUUsPerRow
		}
	}
	for _, r := range runs {
		if r.Processes == 4 && one > 0 {
			ts = append(ts, target{What: "splits: CPU per row of 4 processes ÷ 1 process's", Value: r.CPUUsPerRow / one, Limit: 1.1, Met: r.CPUUsPerRow/one <= 1.1})
		}
		if r.Processes > 1 {
			ts = append(ts, target{What: fmt.Sprintf("splits: %d processes: split finding %% of a process's CPU", r.Processes), Value: 100 * r.FindShare, Limit: 2, Met: r.FindShare <= 0.02})
		}
	}
	return ts
}

func printSplits(w io.Writer, runs []splitRun, rows int64) {
	fmt.Fprintf(w, "\nSplits (%d narrow rows in one file, --split I/N processes at once, blackhole, each with GOMAXPROCS at its share of the cores; two cores: the processes share them, so this shows the cost of splitting, not wall-clock scaling):\n", rows)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "processes\tGOMAXPROCS\trows\tCPU s\tCPU µs/row\twall s\tsplit finding % of CPU\tsplit finding CPU ms/GB read\t")
	for _, r := range runs {
		fmt.Fprintf(tw, "%d\t%d\t%d\t%.2f\t%.2f\t%.2f\t%.3f\t%.0f\t\n", r.Processes, r.GoMaxProcs, r.Rows, r.CPUS, r.CPUUsPerRow, r.WallS, 100*r.FindShare, r.FindMsPerGB)
	}
	tw.Flush()
}
