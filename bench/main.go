// Command bench measures cqlload against a raw-driver ceiling and a wire
// floor: it generates the standard datasets, starts cqlsim as a separate
// process, runs bin/cqlload on each dataset, then the ceiling (this
// program's "ceiling" subcommand, see package bench/ceiling) and the
// floor ("floor", see package bench/floor) on the same file, and prints
// one table; the figures also go to a JSON file.
//
//	go run ./bench [-rows N] [-bin DIR] [-json FILE] [-datasets a,b] [-scale K] [-only capacity|splits|shapes]
//
// BENCH_ROWS sets the default of -rows (1,000,000) and BENCH_DIR keeps the
// generated datasets in that directory instead of a temporary one.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cqlload/cqlload/bench/ceiling"
	"github.com/cqlload/cqlload/bench/floor"
	"github.com/cqlload/cqlload/loader"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// loaderDefaults are the options both cqlload (through its own defaults)
// and the ceiling run with: cqlsh's defaults, with a header line.
func loaderDefaults() loader.Options {
	o := loader.DefaultOptions()
	o.Dialect.Header = true
	return o
}

type config struct {
	bin, dir, jsonPath, self string
	rows, allocRows          int64
	scale                    int
	datasets                 []dataset
	store                    string
	keep                     bool
	profileDir               string
	shards                   int
	repeat                   int
	capacity                 bool
	splits                   bool
	shapes                   bool
	capacityPhase            time.Duration
	plotPath                 string
	log                      io.Writer
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "ceiling" {
		return childMain("ceiling", args[1:], stdout, stderr, func(ctx context.Context, o loader.Options) (any, error) {
			return ceiling.Run(ctx, ceiling.Config{Options: o})
		})
	}
	if len(args) > 0 && args[0] == "floor" {
		return childMain("floor", args[1:], stdout, stderr, func(ctx context.Context, o loader.Options) (any, error) {
			return floor.Run(ctx, floor.Config{Options: o})
		})
	}
	defRows := int64(1_000_000)
	if v := os.Getenv("BENCH_ROWS"); v != "" {
		n, err := strconv.ParseInt(strings.ReplaceAll(v, "_", ""), 10, 64)
		if err != nil || n < 1 {
			fmt.Fprintf(stderr, "bench: BENCH_ROWS=%q is not a positive integer\n", v)
			return 64
		}
		defRows = n
	}
	fs := newFlagSet("bench", stderr)
	cfg := config{log: stderr}
	fs.StringVar(&cfg.bin, "bin", "bin", "directory holding cqlload and cqlsim (make build)")
	fs.Int64Var(&cfg.rows, "rows", defRows, "rows per dataset (default from BENCH_ROWS)")
	fs.StringVar(&cfg.dir, "dir", os.Getenv("BENCH_DIR"), "keep generated datasets here (default from BENCH_DIR; empty: a temporary directory, removed)")
	fs.StringVar(&cfg.jsonPath, "json", filepath.Join("bench", "results.json"), "write the results here as JSON; empty: do not")
	names := fs.String("datasets", "narrow,1kb,wide,rich", "datasets to run, comma separated")
	fs.StringVar(&cfg.store, "store", "narrow", "dataset also run against cqlsim in store mode; empty: none")
	fs.IntVar(&cfg.scale, "scale", 10, "memory scaling: also load narrow at this many times -rows; 0: skip")
	fs.Int64Var(&cfg.allocRows, "alloc-rows", 200_000, "rows of the in-process run that counts allocations per row")
	fs.IntVar(&cfg.repeat, "repeat", 3, "run cqlload and the ceiling this many times per dataset and keep each one's cheapest run")
	fs.StringVar(&cfg.profileDir, "profile", "", "write CPU and allocation profiles of the in-process runs to this directory")
	fs.BoolVar(&cfg.capacity, "capacity", true, "also run the capacity scenarios (nodes with a capacity, narrow dataset)")
	fs.BoolVar(&cfg.splits, "splits", true, "also load twice -rows narrow rows with 1, 2 and 4 --split processes")
	fs.BoolVar(&cfg.shapes, "shapes", true, "also run the shapes scenarios (narrow rows token-sorted, key-sorted, shuffled, in many small files, as one gzip member, against nodes with a capacity)")
	only := fs.String("only", "", "run only this part: capacity, splits or shapes (no datasets table, store mode or memory scaling)")
	fs.DurationVar(&cfg.capacityPhase, "capacity-phase", 5*time.Second, "each phase of the capacity change scenario (full, halved, restored)")
	fs.StringVar(&cfg.plotPath, "plot", filepath.Join("bench", "capacity.png"), "draw the capacity change here (PNG or SVG by extension); empty: do not")
	fs.IntVar(&cfg.shards, "shards", 0, "make cqlsim announce ScyllaDB sharding with this many shards per node, and report the share of rows written on their shard")
	if err := fs.Parse(args); err != nil {
		return 64
	}
	if fs.NArg() > 0 || cfg.rows < 1 {
		fmt.Fprintln(stderr, "bench: unexpected arguments; see -help")
		return 64
	}
	switch *only {
	case "":
	case "capacity", "splits", "shapes":
		*names, cfg.store, cfg.scale = "", "", 0
		cfg.capacity, cfg.splits, cfg.shapes = *only == "capacity", *only == "splits", *only == "shapes"
	default:
		fmt.Fprintf(stderr, "bench: -only %q: want capacity, splits or shapes\n", *only)
		return 64
	}
	for _, n := range strings.Split(*names, ",") {
		if strings.TrimSpace(n) == "" {
			continue // -datasets "": the other parts only
		}
		d, ok := findDataset(strings.TrimSpace(n))
		if !ok {
			fmt.Fprintf(stderr, "bench: unknown dataset %q\n", n)
			return 64
		}
		cfg.datasets = append(cfg.datasets, d)
	}
	if cfg.store != "" {
		if _, ok := findDataset(cfg.store); !ok {
			fmt.Fprintf(stderr, "bench: unknown store dataset %q\n", cfg.store)
			return 64
		}
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 1
	}
	cfg.self = self

	// The in-process allocation runs would otherwise log every driver
	// warning (batch size thresholds, connections closed at the end)
	// through the standard logger, the driver's default.
	log.SetOutput(io.Discard)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := bench(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		if len(rep.Results) == 0 {
			return 1
		}
		fmt.Fprintln(stdout, "PARTIAL RESULTS: the run failed (see above)")
	}
	printReport(stdout, rep)
	if cfg.jsonPath != "" {
		if err := writeReport(cfg.jsonPath, rep); err != nil {
			fmt.Fprintf(stderr, "bench: %v\n", err)
			return 1
		}
		fmt.Fprintf(stderr, "bench: results written to %s\n", cfg.jsonPath)
	}
	if err != nil {
		return 1
	}
	return 0
}

// bench runs everything; on error the report holds what was measured.
func bench(ctx context.Context, cfg config) (*report, error) {
	rep := &report{Machine: describeMachine(), RowsPerDataset: cfg.rows, Repeat: max(cfg.repeat, 1), Shards: cfg.shards}
	err := runAll(ctx, cfg, rep)
	rep.Machine.LoadAfter = loadAverage()
	rep.Targets = checkTargets(rep)
	return rep, err
}

func runAll(ctx context.Context, cfg config, rep *report) error {
	for _, b := range []string{"cqlload", "cqlsim"} {
		if _, err := os.Stat(filepath.Join(cfg.bin, b)); err != nil {
			return fmt.Errorf("%s not found in %s: run make build first (%w)", b, cfg.bin, err)
		}
	}
	work, err := os.MkdirTemp("", "cqlload-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	dataDir := work
	if cfg.dir != "" {
		cfg.keep = true
		dataDir = cfg.dir
		if err := os.MkdirAll(dataDir, 0o755); err != nil {
			return err
		}
	}
	logf := func(format string, a ...any) { fmt.Fprintf(cfg.log, "bench: "+format+"\n", a...) }

	sm, err := startSim(ctx, cfg.bin, work, true, cfg.shards)
	if err != nil {
		return err
	}
	defer func() { sm.close() }()

	var narrowRSS float64
	for _, d := range cfg.datasets {
		file, size, err := prepare(dataDir, d, cfg.rows, logf)
		if err != nil {
			return err
		}
		logf("%s: %d rows, %.1f MiB; running cqlload, the ceiling, the floor, and the in-process allocation count", d.name, cfg.rows, float64(size)/(1<<20))
		r, err := measureRetry(ctx, cfg, &sm, d, file, work, true, logf)
		if err != nil {
			return err
		}
		r.InputBytes = size
		rep.Results = append(rep.Results, r)
		if d.name == "narrow" {
			narrowRSS = r.Loader.PeakRSSMiB
		}
		if !cfg.keep && d.name != cfg.store && !(d.name == "narrow" && cfg.scale > 0) {
			os.Remove(file)
		}
	}
	sm.close()

	if cfg.store != "" {
		d, _ := findDataset(cfg.store)
		file, size, err := prepare(dataDir, d, cfg.rows, logf)
		if err != nil {
			return err
		}
		logf("%s: store mode", d.name)
		st, err := startSim(ctx, cfg.bin, work, false, cfg.shards)
		if err != nil {
			return err
		}
		r, err := measureRetry(ctx, cfg, &st, d, file, work, false, logf)
		st.close()
		if err != nil {
			return err
		}
		r.InputBytes = size
		rep.Results = append(rep.Results, r)
	}

	if cfg.capacity {
		d, _ := findDataset("narrow")
		file, _, err := prepare(dataDir, d, cfg.rows, logf)
		if err != nil {
			return err
		}
		logf("capacity scenarios on %s", filepath.Base(file))
		if err := runCapacity(ctx, cfg, rep, d, file, work, logf); err != nil {
			return err
		}
	}

	if cfg.shapes {
		d, _ := findDataset("narrow")
		file, _, err := prepare(dataDir, d, cfg.rows, logf)
		if err != nil {
			return err
		}
		logf("shapes scenarios on %s", filepath.Base(file))
		if err := runShapes(ctx, cfg, rep, d, file, work, logf); err != nil {
			return err
		}
	}

	if cfg.splits {
		d, _ := findDataset("narrow")
		file, _, err := prepare(dataDir, d, 2*cfg.rows, logf)
		if err != nil {
			return err
		}
		logf("split scenarios on %s", filepath.Base(file))
		if err := runSplits(ctx, cfg, rep, d, file, work, logf); err != nil {
			return err
		}
	}

	if cfg.scale > 0 {
		d, _ := findDataset("narrow")
		if narrowRSS == 0 {
			file, _, err := prepare(dataDir, d, cfg.rows, logf)
			if err != nil {
				return err
			}
			if narrowRSS, err = loaderRSS(ctx, cfg, d, file, work); err != nil {
				return err
			}
		}
		big := cfg.rows * int64(cfg.scale)
		file, _, err := prepare(dataDir, d, big, logf)
		if err != nil {
			return err
		}
		logf("narrow ×%d: %d rows, memory scaling", cfg.scale, big)
		rss, err := loaderRSS(ctx, cfg, d, file, work)
		if err != nil {
			return err
		}
		if !cfg.keep {
			os.Remove(file)
		}
		rep.Scaling = &scaling{Scale: cfg.scale, Rows1x: cfg.rows, Rows10x: big, RSS1xMiB: narrowRSS, RSS10xMiB: rss}
		rep.Scaling.GrowthPct = 100 * (rss - narrowRSS) / narrowRSS
	}
	return nil
}

// measureRetry is measure, once more on a fresh cqlsim if cqlsim died:
// a crash of the simulator says nothing about cqlload, and a long run
// should not be lost to it. The crash output is logged.
func measureRetry(ctx context.Context, cfg config, s **sim, d dataset, file, work string, blackhole bool, logf func(string, ...any)) (result, error) {
	mode := "store"
	if blackhole {
		mode = "blackhole"
	}
	r, err := measure(ctx, cfg, *s, d, file, work, mode)
	if err == nil || !(*s).exited() || ctx.Err() != nil {
		return r, err
	}
	logf("%s: cqlsim died (%v); its output:\n%s\nretrying on a new cqlsim", d.name, err, (*s).out.String())
	ns, serr := startSim(ctx, cfg.bin, work, blackhole, cfg.shards)
	if serr != nil {
		return r, errors.Join(err, serr)
	}
	*s = ns
	return measure(ctx, cfg, ns, d, file, work, mode)
}

// prepare generates a dataset file unless BENCH_DIR already holds it.
func prepare(dir string, d dataset, rows int64, logf func(string, ...any)) (string, int64, error) {
	path := filepath.Join(dir, fmt.Sprintf("%s-%d.csv", d.name, rows))
	if fi, err := os.Stat(path); err == nil && fi.Size() > 0 {
		return path, fi.Size(), nil
	}
	start := time.Now()
	n, err := generateFile(path, d, rows)
	if err != nil {
		os.Remove(path)
		return "", 0, err
	}
	logf("generated %s (%.1f MiB) in %.1fs", filepath.Base(path), float64(n)/(1<<20), time.Since(start).Seconds())
	return path, n, nil
}

// measure runs cqlload, the ceiling, the floor and the allocation count
// on one file.
func measure(ctx context.Context, cfg config, s *sim, d dataset, file, work, mode string) (result, error) {
	r := result{Dataset: d.name, Mode: mode, Rows: cfg.rows}
	// Other work on the machine only ever adds CPU time, so with several
	// repetitions the cheapest run of each program is the best estimate.
	var ratios []float64 // cqlload ÷ ceiling in each repetition
	for rep := range max(cfg.repeat, 1) {
		m, err := measureOnce(ctx, cfg, s, d, file, work)
		if err != nil {
			return r, err
		}
		if m.ceiling.CPUUsPerRow > 0 {
			ratios = append(ratios, m.loader.CPUUsPerRow/m.ceiling.CPUUsPerRow)
		}
		for _, p := range []struct{ best, got *figures }{{&r.Loader, &m.loader}, {&r.DryRun, &m.dryRun}, {&r.Ceiling, &m.ceiling}, {&r.Floor, &m.floor}} {
			if rep == 0 || p.got.CPUUsPerRow < p.best.CPUUsPerRow {
				*p.best = *p.got
			}
		}
	}
	if r.Ceiling.CPUUsPerRow > 0 {
		r.CPURatio = r.Loader.CPUUsPerRow / r.Ceiling.CPUUsPerRow
	}
	r.CPURatioMedian = median(ratios)
	if r.Ceiling.CPUUsPerRow > 0 {
		r.DryRunRatio = r.DryRun.CPUUsPerRow / r.Ceiling.CPUUsPerRow
	}
	if r.Floor.CPUUsPerRow > 0 {
		r.FloorRatio = r.Loader.CPUUsPerRow / r.Floor.CPUUsPerRow
		r.CeilingFloorRatio = r.Ceiling.CPUUsPerRow / r.Floor.CPUUsPerRow
	}

	prof := ""
	if cfg.profileDir != "" {
		prof = filepath.Join(cfg.profileDir, d.name+"-"+mode)
	}
	allocs, err := loaderAllocs(ctx, s, d, file, work, min(cfg.allocRows, cfg.rows), prof)
	if err != nil {
		return r, err
	}
	r.Loader.AllocsPerRow = allocs
	return r, nil
}

// median is the middle of xs (the mean of the two middle ones for an
// even count), 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

// measured is one run of each program on one file.
type measured struct{ loader, dryRun, ceiling, floor figures }

// measureOnce runs cqlload, then its dry run, then the ceiling, then the
// floor, on one file.
func measureOnce(ctx context.Context, cfg config, s *sim, d dataset, file, work string) (m measured, err error) {
	// The TRUNCATEs come before the counters are read, so that they
	// count as no program's requests.
	if err := s.empty(d.table); err != nil {
		return m, err
	}
	c0, err := s.counters()
	if err != nil {
		return m, err
	}
	lr, err := runLoader(ctx, cfg.bin, s, d.table, file, work)
	if err != nil {
		return m, err
	}
	c1, err := s.counters()
	if err != nil {
		return m, err
	}
	if lr.Summary.RowsWritten != cfg.rows {
		return m, fmt.Errorf("%s: cqlload wrote %d rows of %d", d.name, lr.Summary.RowsWritten, cfg.rows)
	}
	m.loader = figures{
		RowsWritten:    lr.Summary.RowsWritten,
		WallS:          lr.WallS,
		RowsPerS:       float64(lr.Summary.RowsWritten) / lr.WallS,
		SteadyRowsPerS: steadyRate(lr.Samples, time.Second),
		CPUS:           lr.CPUS,
		CPUUsPerRow:    1e6 * lr.CPUS / float64(lr.Summary.RowsWritten),
		PeakRSSMiB:     float64(lr.MaxRSSKiB) / 1024,
	}
	if m.loader.SteadyRowsPerS == 0 {
		// Too short a run for a window past the start-up: the whole run
		// is all there is.
		m.loader.SteadyRowsPerS = float64(lr.Summary.RowsWritten) / lr.Summary.ElapsedS
	}
	m.loader.fromCluster(c1.sub(c0))
	if m.dryRun, err = measureDryRun(ctx, cfg, s, d, file, work); err != nil {
		return m, err
	}

	// The ceiling and the floor: each on an emptied table, counted
	// from after its TRUNCATE.
	sender := func(name string, run func() (ceiling.Result, procStats, error)) (figures, error) {
		if err := s.empty(d.table); err != nil {
			return figures{}, err
		}
		c0, err := s.counters()
		if err != nil {
			return figures{}, err
		}
		res, st, err := run()
		if err != nil {
			return figures{}, err
		}
		c1, err := s.counters()
		if err != nil {
			return figures{}, err
		}
		if res.Rows != cfg.rows {
			return figures{}, fmt.Errorf("%s: the %s wrote %d rows of %d", d.name, name, res.Rows, cfg.rows)
		}
		f := figures{
			RowsWritten:    res.Rows,
			WallS:          res.SendS,
			RowsPerS:       res.RowsPerSec(),
			SteadyRowsPerS: res.RowsPerSec(),
			CPUS:           res.CPUS,
			CPUUsPerRow:    1e6 * res.CPUS / float64(res.Rows),
			PeakRSSMiB:     float64(st.MaxRSSKiB) / 1024,
			AllocsPerRow:   float64(res.Mallocs) / float64(res.Rows),
		}
		f.fromCluster(c1.sub(c0))
		return f, nil
	}
	if m.ceiling, err = sender("ceiling", func() (ceiling.Result, procStats, error) {
		var cr ceiling.Result
		st, err := runChild(ctx, cfg.self, "ceiling", s, d.table, file, &cr)
		return cr, st, err
	}); err != nil {
		return m, err
	}
	m.floor, err = sender("floor", func() (ceiling.Result, procStats, error) {
		var fr floor.Result
		st, err := runChild(ctx, cfg.self, "floor", s, d.table, file, &fr)
		return fr.Result, st, err
	})
	return m, err
}

// measureDryRun runs cqlload --dry-run on file: everything cqlload does to
// a row before the driver has it (read, split, parse, convert, batch,
// account), and nothing sent. Its CPU is the share of cqlload's that the
// ceiling, which converts and batches before its clock starts, never
// pays; cqlload's CPU less it is, near enough, what sending costs.
func measureDryRun(ctx context.Context, cfg config, s *sim, d dataset, file, work string) (figures, error) {
	c0, err := s.counters()
	if err != nil {
		return figures{}, err
	}
	lr, err := runLoader(ctx, cfg.bin, s, d.table, file, work, "--dry-run")
	if err != nil {
		return figures{}, err
	}
	c1, err := s.counters()
	if err != nil {
		return figures{}, err
	}
	if n := lr.Summary.RowsDryRun; n != cfg.rows {
		return figures{}, fmt.Errorf("%s: cqlload --dry-run took %d rows of %d", d.name, n, cfg.rows)
	}
	n := float64(lr.Summary.RowsDryRun)
	f := figures{
		RowsWritten:    lr.Summary.RowsDryRun,
		WallS:          lr.WallS,
		RowsPerS:       n / lr.WallS,
		SteadyRowsPerS: n / lr.WallS,
		CPUS:           lr.CPUS,
		CPUUsPerRow:    1e6 * lr.CPUS / n,
		PeakRSSMiB:     float64(lr.MaxRSSKiB) / 1024,
	}
	// Its requests are connecting and reading the schema; a row would
	// make the figures a load's.
	if f.fromCluster(c1.sub(c0)); f.ClusterRows != 0 {
		return f, fmt.Errorf("%s: cqlload --dry-run wrote %d rows", d.name, f.ClusterRows)
	}
	return f, nil
}

// loaderRSS runs cqlload alone for its peak RSS.
func loaderRSS(ctx context.Context, cfg config, d dataset, file, work string) (float64, error) {
	s, err := startSim(ctx, cfg.bin, work, true, cfg.shards)
	if err != nil {
		return 0, err
	}
	defer s.close()
	lr, err := runLoader(ctx, cfg.bin, s, d.table, file, work)
	if err != nil {
		return 0, err
	}
	if lr.Summary.RowsWritten != lr.Summary.RowsRead || lr.Summary.RowsWritten == 0 {
		return 0, fmt.Errorf("%s: cqlload wrote %d of %d rows read", file, lr.Summary.RowsWritten, lr.Summary.RowsRead)
	}
	return float64(lr.MaxRSSKiB) / 1024, nil
}

// loaderAllocs counts Go heap allocations per row of the loader library,
// run in this process (cqlload has no switch to report its own, on
// purpose). The cost of connecting and reading the schema is measured by
// a run that reads no rows and subtracted.
func loaderAllocs(ctx context.Context, s *sim, d dataset, file, work string, rows int64, profile string) (float64, error) {
	once := func(maxRows int64) (mallocs uint64, written int64, err error) {
		o := loaderDefaults()
		ks, t, _ := strings.Cut(d.table, ".")
		o.Hosts, o.Port, o.Keyspace, o.Table, o.Files = []string{"127.0.0.1"}, s.port, ks, t, []string{file}
		o.Dialect.MaxRows = int(maxRows)
		o.ErrFile = filepath.Join(work, "allocs.err")
		l, err := loader.New(o)
		if err != nil {
			return 0, 0, err
		}
		runtime.GC()
		var m0, m1 runtime.MemStats
		stopProfile := func() error { return nil }
		if profile != "" && maxRows > 0 {
			if stopProfile, err = startProfile(profile); err != nil {
				return 0, 0, err
			}
		}
		runtime.ReadMemStats(&m0)
		sum, err := l.Run(ctx)
		runtime.ReadMemStats(&m1)
		if perr := stopProfile(); perr != nil && err == nil {
			err = perr
		}
		if err != nil {
			return 0, 0, fmt.Errorf("in-process load of %s: %w", d.name, err)
		}
		return m1.Mallocs - m0.Mallocs, sum.RowsWritten, nil
	}
	base, _, err := once(0)
	if err != nil {
		return 0, err
	}
	m, n, err := once(rows)
	if err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, fmt.Errorf("in-process load of %s: %w", d.name, errNoRows)
	}
	if m < base {
		m = base
	}
	return float64(m-base) / float64(n), nil
}

// startProfile starts a CPU profile to prefix.cpu.pprof; the returned
// function stops it and writes the allocation profile to prefix.allocs.pprof.
func startProfile(prefix string) (stop func() error, err error) {
	if err := os.MkdirAll(filepath.Dir(prefix), 0o755); err != nil {
		return nil, err
	}
	cpu, err := os.Create(prefix + ".cpu.pprof")
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(cpu); err != nil {
		cpu.Close()
		return nil, err
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := cpu.Close(); err != nil {
			return err
		}
		f, err := os.Create(prefix + ".allocs.pprof")
		if err != nil {
			return err
		}
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}, nil
}

// runChild runs one of this program's measuring subcommands in a child
// process, so that its memory and CPU are its own, and decodes the JSON
// it prints into out.
func runChild(ctx context.Context, self, sub string, s *sim, table, file string, out any) (procStats, error) {
	cmd := exec.CommandContext(ctx, self, sub, "-port", strconv.Itoa(s.port), "-table", table, file)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return procStats{}, fmt.Errorf("start %s: %w", sub, err)
	}
	rss := watchRSS(cmd.Process.Pid)
	err := cmd.Wait()
	st := statsOf(cmd.ProcessState, time.Since(start), rss.finish())
	if err != nil {
		return st, fmt.Errorf("%s %s: %w\n%s", sub, table, err, stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		return st, fmt.Errorf("%s %s: output: %w", sub, table, err)
	}
	return st, nil
}

// childMain is the child side of runChild: it loads FILE into the table
// with run and prints run's result as JSON.
func childMain(sub string, args []string, stdout, stderr io.Writer, run func(context.Context, loader.Options) (any, error)) int {
	fs := newFlagSet(sub, stderr)
	port := fs.Int("port", 9042, "CQL port of the cluster")
	host := fs.String("host", "127.0.0.1", "contact point")
	table := fs.String("table", "", "keyspace.table")
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 || *table == "" {
		fmt.Fprintf(stderr, "usage: bench %s [-host H] [-port P] -table ks.t FILE.csv\n", sub)
		return 64
	}
	ks, t, _ := strings.Cut(*table, ".")
	o := loaderDefaults()
	o.Hosts, o.Port, o.Keyspace, o.Table, o.Files = []string{*host}, *port, ks, t, fs.Args()
	res, err := run(context.Background(), o)
	if err == nil {
		err = json.NewEncoder(stdout).Encode(res)
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", sub, err)
		return 1
	}
	return 0
}
