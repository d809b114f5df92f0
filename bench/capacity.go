package main

import (
	"context"
	"encoding/json"
	"fmt"
	"image/color"
	"io"
	"math"
	"net/http"
	"strconv"
	"text/tabwriter"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// The capacity scenarios: cqlload against a cluster with less capacity
// than it has speed, with its default options (the adaptive in-flight
// limits). Each node gets a capacity C such that 3·C is about half of what
// cqlload reaches against the unlimited cluster with a fixed limit.

// capacityRun is one scenario's figures.
type capacityRun struct {
	Scenario    string  `json:"scenario"`
	CapacityRPS float64 `json:"capacity_rows_per_s"` // the cluster's bound for this scenario
	RowsPerS    float64 `json:"rows_per_s"`
	Share       float64 `json:"share_of_capacity"` // RowsPerS ÷ CapacityRPS
	Rejected    int64   `json:"rejected"`
	Requests    int64   `json:"requests"`
	Overloaded  int64   `json:"overloaded"` // Overloaded and write timeouts the cluster sent
	P50         float64 `json:"p50_ms"`
	P99         float64 `json:"p99_ms"`
	CPUUsPerRow float64 `json:"cpu_us_per_row,omitempty"`
	// Recovery is, for the capacity change, the seconds after each change
	// until an interval reached 90% of the new capacity (the phase's
	// length, 5 s, when none did).
	Recovery []float64 `json:"recovery_s,omitempty"`
}

type capacityReport struct {
	PerNodeRPS  float64       `json:"per_node_capacity_rows_per_s"`
	UnloadedP50 float64       `json:"unloaded_p50_ms"`
	Runs        []capacityRun `json:"runs"`
	Plot        string        `json:"plot,omitempty"`
}

// runCapacity runs the scenarios on file (a narrow dataset).
func runCapacity(ctx context.Context, cfg config, rep *report, d dataset, file, work string, logf func(string, ...any)) error {
	cr := &capacityReport{}
	rep.Capacity = cr

	// Unlimited: adaptive against fixed, alternately, the cheapest run of
	// each kept, on one cluster.
	s, err := startSim(ctx, cfg.bin, work, true, 0)
	if err != nil {
		return err
	}
	var fixed, adaptive loaderRun
	for i := range max(cfg.repeat, 1) {
		f, err := runLoader(ctx, cfg.bin, s, d.table, file, work, "--adaptive=false")
		if err != nil {
			s.close()
			return err
		}
		a, err := runLoader(ctx, cfg.bin, s, d.table, file, work)
		if err != nil {
			s.close()
			return err
		}
		if i == 0 || f.CPUS < fixed.CPUS {
			fixed = f
		}
		if i == 0 || a.CPUS < adaptive.CPUS {
			adaptive = a
		}
	}
	s.close()
	perRow := func(r loaderRun) float64 { return 1e6 * r.CPUS / float64(max(r.Summary.RowsWritten, 1)) }
	cr.Runs = append(cr.Runs,
		capacityRun{Scenario: "unlimited, fixed limit", RowsPerS: fixed.Summary.RowsPerSec, CPUUsPerRow: perRow(fixed), Requests: fixed.Summary.Requests,
			P50: fixed.Summary.Latency.P50, P99: fixed.Summary.Latency.P99},
		capacityRun{Scenario: "unlimited, adaptive", RowsPerS: adaptive.Summary.RowsPerSec, CPUUsPerRow: perRow(adaptive), Requests: adaptive.Summary.Requests,
			CapacityRPS: fixed.Summary.RowsPerSec, Share: adaptive.Summary.RowsPerSec / fixed.Summary.RowsPerSec,
			P50: adaptive.Summary.Latency.P50, P99: adaptive.Summary.Latency.P99})
	cr.UnloadedP50 = adaptive.Summary.Latency.P50
	c := perNodeCapacity(fixed.Summary.RowsPerSec)
	cr.PerNodeRPS = c
	logf("capacity: unlimited %.0f rows/s fixed, %.0f adaptive; each node now at %.0f rows/s", fixed.Summary.RowsPerSec, adaptive.Summary.RowsPerSec, c)

	// The bound of each run is what the nodes' shares of the rows allow:
	// cqlsim's tokens give the nodes unequal shares, and the busiest node
	// at its capacity bounds the run (3·C only with equal shares).
	for _, mode := range []string{"shed", "queue", "timeout"} {
		r, _, err := capacityScenario(ctx, cfg, d, file, work, capacitySetup{name: "capacity, " + mode, simArgs: []string{"--capacity", ftoa(c), "--overload", mode}})
		if err != nil {
			return err
		}
		cr.Runs = append(cr.Runs, r)
		logf("capacity %s: %.0f rows/s (%.0f%% of the %.0f the shares allow), %d rejected", mode, r.RowsPerS, 100*r.Share, r.CapacityRPS, r.Rejected)
	}

	// One node at a quarter of the others' capacity: the run can go no
	// faster than that node's share of the tokens lets it.
	slow, _, err := capacityScenario(ctx, cfg, d, file, work, capacitySetup{name: "one node at C/4", simArgs: []string{"--capacity", ftoa(c)},
		prepare: func(s *sim) error { return setCapacity(s, 1, c/4) }})
	if err != nil {
		return err
	}
	cr.Runs = append(cr.Runs, slow)
	logf("capacity, one slow node: %.0f rows/s (%.0f%% of the %.0f its share allows)", slow.RowsPerS, 100*slow.Share, slow.CapacityRPS)

	// Capacity halved at one third of the run and restored at two thirds.
	change, samples, err := capacityChange(ctx, cfg, d, file, work, c, logf)
	if err != nil {
		return err
	}
	cr.Runs = append(cr.Runs, change)
	if len(samples) > 0 && cfg.plotPath != "" {
		cr.Plot = cfg.plotPath
		if err := plotCapacity(cr.Plot, samples, change.CapacityRPS, cfg.capacityPhase); err != nil {
			return err
		}
	}
	return nil
}

// perNodeCapacity is the capacity C of each of the 3 nodes given what
// cqlload reaches against the unlimited cluster with a fixed limit: 3·C
// is half of that, so that the cluster, not cqlload, sets the pace.
func perNodeCapacity(unlimited float64) float64 { return math.Round(unlimited / 2 / 3) }

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', 0, 64) }

// capacitySetup is one load against a cluster with a capacity: the
// capacity scenarios' and the shapes'.
type capacitySetup struct {
	name       string
	simArgs    []string         // cqlsim's flags beside startSim's own
	loaderArgs []string         // cqlload's flags beside runLoader's own
	prepare    func(*sim) error // shapes the started cluster; nil: nothing
	// bound is the cluster's capacity for the run in rows/s, given the
	// cluster and its counters over the run; nil derives it from each
	// node's share of the rows it coordinated (shareBound).
	bound func(*sim, simCounters) (float64, error)
}

// capacityScenario loads file into a fresh cluster started with
// sc.simArgs, after sc.prepare (if any) has shaped it, and returns the
// run's figures against its bound and the cqlload run itself.
func capacityScenario(ctx context.Context, cfg config, d dataset, file, work string, sc capacitySetup) (capacityRun, loaderRun, error) {
	r := capacityRun{Scenario: sc.name}
	var lr loaderRun
	s, err := startSim(ctx, cfg.bin, work, true, 0, sc.simArgs...)
	if err != nil {
		return r, lr, err
	}
	defer s.close()
	if sc.prepare != nil {
		if err := sc.prepare(s); err != nil {
			return r, lr, err
		}
	}
	before, err := s.counters()
	if err != nil {
		return r, lr, err
	}
	lr, err = runLoader(ctx, cfg.bin, s, d.table, file, work, sc.loaderArgs...)
	if err != nil {
		return r, lr, err
	}
	after, err := s.counters()
	if err != nil {
		return r, lr, err
	}
	delta := after.sub(before)
	boundOf := sc.bound
	if boundOf == nil {
		boundOf = shareBound
	}
	bound, err := boundOf(s, delta)
	if err != nil {
		return r, lr, err
	}
	sum := lr.Summary
	r.CapacityRPS, r.RowsPerS = bound, sum.RowsPerSec
	r.Share = sum.RowsPerSec / bound
	r.Rejected = sum.RowsFailedInsert + sum.RowsUnknown + sum.RowsNotSent
	r.Requests, r.Overloaded = sum.Requests, delta.Overloaded
	r.P50, r.P99 = sum.Latency.P50, sum.Latency.P99
	return r, lr, nil
}

// shareBound is the rate the slowest node lets the run reach: each node
// coordinates its share of the rows, so the run takes at least its rows ÷
// its capacity.
func shareBound(s *sim, delta simCounters) (float64, error) {
	caps, err := nodeCapacities(s)
	if err != nil {
		return 0, err
	}
	bound := math.Inf(1)
	for i, rows := range delta.NodeRows {
		if rows == 0 || i >= len(caps) || caps[i] == 0 {
			continue
		}
		share := float64(rows) / float64(delta.Rows)
		bound = min(bound, caps[i]/share)
	}
	return bound, nil
}

func getJSON(url string, v any) error {
	cl := http.Client{Timeout: 5 * time.Second}
	resp, err := cl.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// simNode is what the benchmark reads of a node's state (GET /nodes/{n}).
type simNode struct {
	Capacity struct {
		RowsPerSec float64 `json:"rows_per_sec"`
	} `json:"capacity"`
	Tokens []int64 `json:"tokens"`
}

// nodeStates reads the state of the 3 nodes startSim starts.
func nodeStates(s *sim) ([]simNode, error) {
	var out []simNode
	for n := 1; n <= 3; n++ {
		var st simNode
		if err := getJSON("http://"+s.statsAddr+"/nodes/"+strconv.Itoa(n), &st); err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

func nodeCapacities(s *sim) ([]float64, error) {
	nodes, err := nodeStates(s)
	if err != nil {
		return nil, err
	}
	var out []float64
	for _, n := range nodes {
		out = append(out, n.Capacity.RowsPerSec)
	}
	return out, nil
}

// setCapacity sets node n's capacity (n from 1) through cqlsim's control.
func setCapacity(s *sim, n int, rowsPerSec float64) error {
	cl := http.Client{Timeout: 5 * time.Second}
	resp, err := cl.Post(fmt.Sprintf("http://%s/nodes/%d/capacity?rows_per_sec=%s", s.statsAddr, n, ftoa(rowsPerSec)), "", nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("set capacity of node %d: %s: %s", n, resp.Status, b)
	}
	return nil
}

// capacityChange loads for about 15 s (the file repeated, --duration),
// halves every node's capacity a third of the way and restores it at two
// thirds, and reports how soon after each change an interval reached 90%
// of the new capacity. It returns the run's progress samples for the plot.
func capacityChange(ctx context.Context, cfg config, d dataset, file, work string, c float64, logf func(string, ...any)) (capacityRun, []sample, error) {
	phase := cfg.capacityPhase
	r := capacityRun{Scenario: "capacity halved, then restored"}
	s, err := startSim(ctx, cfg.bin, work, true, 0, "--capacity", ftoa(c))
	if err != nil {
		return r, nil, err
	}
	defer s.close()
	type change struct {
		at  time.Duration // in the loader's time line
		cap float64
	}
	var changes []change
	done := make(chan error, 1)
	var lr loaderRun
	go func() {
		var err error
		// Enough repetitions of the file for twice the run at full
		// capacity: --duration ends it.
		repeat := int(math.Ceil(2 * 3 * c * (3 * phase).Seconds() / float64(cfg.rows)))
		lr, err = runLoader(ctx, cfg.bin, s, d.table, file, work, "--repeat", strconv.Itoa(max(repeat, 2)),
			"--duration", (3 * phase).String(), "--report-frequency", "0.25")
		done <- err
	}()
	// The loader's clock starts when it has connected, a little after the
	// process; the changes are timed from the process start, which puts
	// them at most that little later in the loader's time line than the
	// recovery times assume: the measured recovery is an upper bound.
	before, err := s.counters()
	if err != nil {
		return r, nil, err
	}
	start := time.Now()
	for i, capNow := range []float64{c / 2, c} {
		select {
		case <-time.After(time.Until(start.Add(time.Duration(i+1) * phase))):
		case err := <-done:
			return r, nil, fmt.Errorf("the capacity change run ended early: %v", err)
		}
		for n := 1; n <= 3; n++ {
			if err := setCapacity(s, n, capNow); err != nil {
				return r, nil, err
			}
		}
		changes = append(changes, change{time.Since(start), capNow})
	}
	if err := <-done; err != nil {
		return r, nil, err
	}
	after, err := s.counters()
	if err != nil {
		return r, nil, err
	}
	// The busiest node's share of the rows sets the bound at each
	// capacity (see runCapacity).
	delta := after.sub(before)
	busiest := 1.0 / 3
	for _, n := range delta.NodeRows {
		if delta.Rows > 0 {
			busiest = max(busiest, float64(n)/float64(delta.Rows))
		}
	}
	bound := func(perNode float64) float64 { return perNode / busiest }
	sum := lr.Summary
	r.CapacityRPS = bound(c)
	r.RowsPerS, r.Share = sum.RowsPerSec, sum.RowsPerSec/r.CapacityRPS
	r.Rejected = sum.RowsFailedInsert + sum.RowsUnknown + sum.RowsNotSent
	r.Requests = sum.Requests
	for _, ch := range changes {
		rec := phase.Seconds() // not within the phase
		for _, smp := range lr.Samples {
			if smp.t > ch.at && smp.rate >= 0.9*bound(ch.cap) {
				rec = (smp.t - ch.at).Seconds()
				break
			}
		}
		r.Recovery = append(r.Recovery, rec)
	}
	logf("capacity change: recovered to 90%% of the new capacity after %v s", r.Recovery)
	return r, lr.Samples, nil
}

// plotCapacity draws rows/s and the in-flight limit over time.
// full is the bound at full capacity.
func plotCapacity(path string, samples []sample, full float64, phase time.Duration) error {
	p := plot.New()
	ph := phase.Seconds()
	p.Title.Text = fmt.Sprintf("Capacity halved at %g s, restored at %g s (3 nodes; the bound at full capacity %.0f rows/s)", ph, 2*ph, full)
	p.X.Label.Text = "seconds"
	p.Y.Label.Text = "rows/s (interval)"
	rate := make(plotter.XYs, 0, len(samples))
	limit := make(plotter.XYs, 0, len(samples))
	maxLimit := 1
	for _, s := range samples {
		maxLimit = max(maxLimit, s.limit)
	}
	scale := full / float64(maxLimit)
	for _, s := range samples {
		rate = append(rate, plotter.XY{X: s.t.Seconds(), Y: s.rate})
		limit = append(limit, plotter.XY{X: s.t.Seconds(), Y: float64(s.limit) * scale})
	}
	lr, err := plotter.NewLine(rate)
	if err != nil {
		return err
	}
	lr.Color = color.RGBA{B: 200, A: 255}
	ll, err := plotter.NewLine(limit)
	if err != nil {
		return err
	}
	ll.Color = color.RGBA{R: 200, A: 255}
	ll.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
	last := samples[len(samples)-1].t.Seconds()
	capLine, err := plotter.NewLine(plotter.XYs{{X: 0, Y: full}, {X: ph, Y: full}, {X: ph, Y: full / 2}, {X: 2 * ph, Y: full / 2}, {X: 2 * ph, Y: full}, {X: last, Y: full}})
	if err != nil {
		return err
	}
	capLine.Color = color.RGBA{G: 150, A: 255}
	p.Add(plotter.NewGrid(), capLine, lr, ll)
	p.Y.Min = 0
	p.Y.Tick.Marker = plot.TickerFunc(func(min, max float64) []plot.Tick {
		var ts []plot.Tick
		step := math.Pow(10, math.Floor(math.Log10(max/2)))
		for v := 0.0; v <= max; v += step {
			ts = append(ts, plot.Tick{Value: v, Label: ftoa(v)})
		}
		return ts
	})
	p.Legend.Add("the cluster's bound (the busiest node at its capacity)", capLine)
	p.Legend.Add("rows/s", lr)
	p.Legend.Add(fmt.Sprintf("in-flight limit (sum over nodes; %d = top)", maxLimit), ll)
	p.Legend.Top = true
	return p.Save(8*vg.Inch, 4*vg.Inch, path)
}

// capacityTargets are issue 14's goals.
func capacityTargets(cr *capacityReport) []target {
	var ts []target
	atLeast := func(what string, v, limit float64) {
		ts = append(ts, target{What: what, Value: v, Limit: limit, Met: v >= limit, AtLeast: true})
	}
	atMost := func(what string, v, limit float64) {
		ts = append(ts, target{What: what, Value: v, Limit: limit, Met: v <= limit})
	}
	var fixed capacityRun
	for _, r := range cr.Runs {
		switch r.Scenario {
		case "unlimited, fixed limit":
			fixed = r
		case "unlimited, adaptive":
			atMost("capacity: adaptive rows/s cost % on an unlimited cluster", 100*(1-r.RowsPerS/fixed.RowsPerS), 5)
			atMost("capacity: adaptive CPU/row cost % on an unlimited cluster", 100*(r.CPUUsPerRow/fixed.CPUUsPerRow-1), 5)
		case "capacity, shed":
			atLeast("capacity shed: % of capacity", 100*r.Share, 90)
			atMost("capacity shed: rejected rows", float64(r.Rejected), 0)
			atMost("capacity shed: Overloaded % of requests", 100*float64(r.Overloaded)/float64(max(r.Requests, 1)), 2)
		case "capacity, queue":
			atLeast("capacity queue: % of capacity", 100*r.Share, 95)
			atMost("capacity queue: p99 ÷ unloaded p50", r.P99/max(cr.UnloadedP50, 0.001), 5)
			atMost("capacity queue: rejected rows", float64(r.Rejected), 0)
		case "capacity, timeout":
			atLeast("capacity timeout: % of capacity", 100*r.Share, 80)
			atMost("capacity timeout: rejected rows", float64(r.Rejected), 0)
		case "one node at C/4":
			atLeast("capacity, one node at C/4: % of its share's bound", 100*r.Share, 90)
		case "capacity halved, then restored":
			for i, rec := range r.Recovery {
				atMost(fmt.Sprintf("capacity change %d: s to 90%% of the new capacity", i+1), rec, 2)
			}
		}
	}
	return ts
}

// printCapacity prints the scenarios' table.
func printCapacity(w io.Writer, cr *capacityReport) {
	fmt.Fprintf(w, "\nCapacity (3 cqlsim nodes, blackhole, each at %.0f rows/s where a capacity is set; unloaded p50 %.2f ms):\n", cr.PerNodeRPS, cr.UnloadedP50)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\tbound rows/s\trows/s\t% of bound\trejected\trequests\toverloaded\tp50 ms\tp99 ms\tCPU µs/row\t")
	for _, r := range cr.Runs {
		fmt.Fprintf(tw, "%s\t%.0f\t%.0f\t%.1f\t%d\t%d\t%d\t%.2f\t%.2f\t%.2f\t\n", r.Scenario, r.CapacityRPS, r.RowsPerS, 100*r.Share,
			r.Rejected, r.Requests, r.Overloaded, r.P50, r.P99, r.CPUUsPerRow)
	}
	tw.Flush()
	if cr.Plot != "" {
		fmt.Fprintf(w, "Rows/s and the in-flight limit over the capacity change: %s\n", cr.Plot)
	}
}
