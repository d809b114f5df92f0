package main

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/cqlload/cqlload/internal/bgzf"
	"github.com/cqlload/cqlload/internal/murmur3"
)

// The shapes scenarios (issue 46): the same narrow rows in the orders and
// shapes users bring, each against 3 nodes with a capacity C (chosen as
// the capacity scenarios choose it), RF 1, queue mode, cqlload's default
// options. A run's bound is C over the busiest node's share of its rows:
// a token-sorted file read in order keeps one node busy at a time and
// reaches C alone, a third of the bound with equal shares.

// Orders of the same rows.
const (
	orderToken    = "token-sorted"
	orderKey      = "key-sorted"
	orderShuffled = "shuffled"
)

// Kinds of scenario.
const (
	kindOrder     = "order"
	kindOneFile   = "one file"
	kindManyFiles = "many files"
	kindGzip      = "gzip"
	kindHot       = "one partition"
)

// hotKey is the partition key of every row of the hot partition file
// (bench.wide's pk).
const hotKey = 7

// smallFileRows is the rows in each of the many small files.
const smallFileRows = 10

// tokenOrderPhrase is what cqlload's warning about an input in token
// order says, in its log and in the summary's hints: the benchmark finds
// the warning by it.
const tokenOrderPhrase = "token order"

// shapeRun is one shapes scenario's figures.
type shapeRun struct {
	Scenario string `json:"scenario"`
	// Kind is one of order (the whole rows in an order), one file and
	// many files (the first tenth of them), gzip (token-sorted, one
	// gzip member), one partition (a fifth as many rows of one
	// partition of bench.wide).
	Kind          string `json:"kind"`
	Order         string `json:"order"`
	TokensPerNode int    `json:"tokens_per_node"`
	Files         int    `json:"files"`
	Gzip          bool   `json:"gzip,omitempty"`
	Bgzip         bool   `json:"bgzip,omitempty"`
	Rows          int64  `json:"rows"` // written
	// BusiestShare is the busiest node's share of the rows, from the
	// rows' tokens and the cluster's ring; CoordinatedShare the busiest
	// node's share of the rows it coordinated, from cqlsim's counters
	// (the same, less the rows sent to a coordinator that is not their
	// replica).
	BusiestShare     float64 `json:"busiest_share"`
	CoordinatedShare float64 `json:"coordinated_busiest_share"`
	BoundRPS         float64 `json:"bound_rows_per_s"`
	RowsPerS         float64 `json:"rows_per_s"`
	Share            float64 `json:"share_of_bound"`
	Rejected         int64   `json:"rejected"`
	PeakRSSMiB       float64 `json:"peak_rss_mib"`
	// Warned: cqlload said the input is in token order; WarnedAtRows is
	// the rows written by its first progress line after the warning
	// (all the rows when the warning is only in the summary).
	Warned       bool  `json:"token_order_warning"`
	WarnedAtRows int64 `json:"token_order_warning_at_rows,omitempty"`
}

type shapesReport struct {
	PerNodeRPS float64    `json:"per_node_capacity_rows_per_s"`
	Rows       int64      `json:"rows"`
	Runs       []shapeRun `json:"runs"`
}

// shapeInputs are the files of the shapes scenarios and the tokens of
// their rows.
type shapeInputs struct {
	byOrder map[string]string // the rows in each order
	gzip    string            // the token-sorted file as one gzip member
	bgzip   string            // the token-sorted file compressed with bgzip
	// oneFile holds the first rows in one file, smallDir the same rows
	// in files of smallFileRows rows each.
	oneFile, smallDir string
	smallFiles        int
	tokens            []int64 // every row's
	smallTokens       []int64 // the small files' rows'
	// hot holds a fifth as many rows, all of one partition of
	// bench.wide (hotKey); hotTokens their tokens.
	hot       string
	hotTokens []int64
}

// runShapes runs the scenarios on file (a narrow dataset), writing the
// reordered inputs under work.
func runShapes(ctx context.Context, cfg config, rep *report, d dataset, file, work string, logf func(string, ...any)) error {
	in, err := writeShapes(file, filepath.Join(work, "shapes"), cfg.rows)
	if err != nil {
		return err
	}
	defer os.RemoveAll(filepath.Join(work, "shapes"))
	sr := &shapesReport{Rows: cfg.rows}
	rep.Shapes = sr
	if rep.Capacity != nil && rep.Capacity.PerNodeRPS > 0 {
		sr.PerNodeRPS = rep.Capacity.PerNodeRPS
	} else {
		u, err := unlimitedRate(ctx, cfg, d, file, work)
		if err != nil {
			return err
		}
		sr.PerNodeRPS = perNodeCapacity(u)
		logf("shapes: unlimited %.0f rows/s with a fixed limit", u)
	}
	c := sr.PerNodeRPS
	logf("shapes: each node at %.0f rows/s", c)

	type scenario struct {
		name   string
		kind   string
		order  string
		vnodes int
		file   string
		files  int
		gzip   bool
		bgzip  bool
		tokens []int64
		// d is the dataset whose table the file fills: d, narrow, unless
		// set.
		d *dataset
	}
	var scs []scenario
	for _, vn := range []int{1, 16} {
		for _, o := range []string{orderToken, orderKey, orderShuffled} {
			scs = append(scs, scenario{fmt.Sprintf("%s, %d %s per node", o, vn, plural(vn, "token")), kindOrder, o, vn, in.byOrder[o], 1, false, false, in.tokens, nil})
		}
	}
	scs = append(scs,
		// Read in stripes as the plain file is, so held to its target.
		scenario{"token-sorted, bgzip, 1 token per node", kindOrder, orderToken, 1, in.bgzip, 1, false, true, in.tokens, nil},
		scenario{fmt.Sprintf("%d rows in one file", len(in.smallTokens)), kindOneFile, orderShuffled, 1, in.oneFile, 1, false, false, in.smallTokens, nil},
		scenario{fmt.Sprintf("%d files of %d rows", in.smallFiles, smallFileRows), kindManyFiles, orderShuffled, 1, in.smallDir, in.smallFiles, false, false, in.smallTokens, nil},
		scenario{"token-sorted, one gzip member, 1 token per node", kindGzip, orderToken, 1, in.gzip, 1, true, false, in.tokens, nil})
	if wide, ok := findDataset("wide"); ok {
		scs = append(scs, scenario{fmt.Sprintf("%d rows of one partition", len(in.hotTokens)), kindHot, "", 1, in.hot, 1, false, false, in.hotTokens, &wide})
	}
	for _, sc := range scs {
		run := shapeRun{Scenario: sc.name, Kind: sc.kind, Order: sc.order, TokensPerNode: sc.vnodes, Files: sc.files, Gzip: sc.gzip, Bgzip: sc.bgzip}
		setup := capacitySetup{
			name:    sc.name,
			simArgs: []string{"--vnodes", fmt.Sprint(sc.vnodes), "--capacity", ftoa(c), "--overload", "queue"},
			bound: func(s *sim, delta simCounters) (float64, error) {
				nodes, err := nodeStates(s)
				if err != nil {
					return 0, err
				}
				var ring [][]int64
				for _, n := range nodes {
					ring = append(ring, n.Tokens)
				}
				run.BusiestShare = slices.Max(ringShares(sc.tokens, ring))
				for _, n := range delta.NodeRows {
					run.CoordinatedShare = max(run.CoordinatedShare, float64(n)/float64(max(delta.Rows, 1)))
				}
				return c / run.BusiestShare, nil
			},
		}
		sd := d
		if sc.d != nil {
			sd = *sc.d
		}
		r, lr, err := capacityScenario(ctx, cfg, sd, sc.file, work, setup)
		if err != nil {
			return fmt.Errorf("shapes, %s: %w", sc.name, err)
		}
		run.Rows = lr.Summary.RowsWritten
		run.BoundRPS, run.RowsPerS, run.Share, run.Rejected = r.CapacityRPS, r.RowsPerS, r.Share, r.Rejected
		run.PeakRSSMiB = float64(lr.MaxRSSKiB) / 1024
		run.Warned, run.WarnedAtRows = tokenOrderWarning(lr)
		if want := int64(len(sc.tokens)); run.Rows != want {
			return fmt.Errorf("shapes, %s: cqlload wrote %d rows of %d", sc.name, run.Rows, want)
		}
		sr.Runs = append(sr.Runs, run)
		logf("shapes, %s: %.0f rows/s (%.0f%% of the %.0f the busiest node's share %.2f allows)", sc.name, run.RowsPerS, 100*run.Share, run.BoundRPS, run.BusiestShare)
	}
	return nil
}

func plural(n int, s string) string {
	if n == 1 {
		return s
	}
	return s + "s"
}

// unlimitedRate is cqlload's rows/s against the unlimited cluster with
// a fixed in-flight limit, its cheapest run of cfg.repeat, as the
// capacity scenarios measure it.
func unlimitedRate(ctx context.Context, cfg config, d dataset, file, work string) (float64, error) {
	s, err := startSim(ctx, cfg.bin, work, true, 0)
	if err != nil {
		return 0, err
	}
	defer s.close()
	var best loaderRun
	for i := range max(cfg.repeat, 1) {
		r, err := runLoader(ctx, cfg.bin, s, d.table, file, work, "--adaptive=false")
		if err != nil {
			return 0, err
		}
		if i == 0 || r.CPUS < best.CPUS {
			best = r
		}
	}
	return best.Summary.RowsPerSec, nil
}

// tokenOrderWarning finds cqlload's warning that the input is in token
// order: in its log, placed by the rows written at the next progress
// line, or else in the summary's hints, placed at the end.
func tokenOrderWarning(lr loaderRun) (bool, int64) {
	for _, l := range lr.Log {
		if !strings.Contains(strings.ToLower(l.text), tokenOrderPhrase) {
			continue
		}
		if l.after < len(lr.Samples) {
			return true, lr.Samples[l.after].rows
		}
		return true, lr.Summary.RowsWritten
	}
	for _, h := range lr.Summary.Hints {
		if strings.Contains(strings.ToLower(h), tokenOrderPhrase) {
			return true, lr.Summary.RowsWritten
		}
	}
	return false, 0
}

// ringShares is each node's share of the rows with the given tokens
// under RF 1: a row belongs to the node holding the first token of the
// ring at or after its own, wrapping past the largest to the smallest.
func ringShares(tokens []int64, nodes [][]int64) []float64 {
	type entry struct {
		token int64
		node  int
	}
	var ring []entry
	for i, ts := range nodes {
		for _, t := range ts {
			ring = append(ring, entry{t, i})
		}
	}
	slices.SortFunc(ring, func(a, b entry) int { return cmp.Compare(a.token, b.token) })
	shares := make([]float64, len(nodes))
	if len(ring) == 0 || len(tokens) == 0 {
		return shares
	}
	for _, t := range tokens {
		k := sort.Search(len(ring), func(k int) bool { return ring[k].token >= t })
		if k == len(ring) {
			k = 0
		}
		shares[ring[k].node]++
	}
	for i := range shares {
		shares[i] /= float64(len(tokens))
	}
	return shares
}

// narrowToken is the partition token of a narrow row: Murmur3 of its id
// (the first field), a uuid's 16 bytes.
func narrowToken(line []byte) (int64, error) {
	id, _, _ := bytes.Cut(line, []byte{','})
	hexID := bytes.ReplaceAll(id, []byte{'-'}, nil)
	var key [16]byte
	if n, err := hex.Decode(key[:], hexID); err != nil || n != 16 {
		return 0, fmt.Errorf("narrow row %q: the id is not a uuid", line)
	}
	return murmur3.Token(key[:]), nil
}

// writeHot writes n rows (at least one) of one partition of bench.wide:
// rows for one replica set alone, in batches of that partition.
func writeHot(in *shapeInputs, dir string, n int) error {
	n = max(n, 1)
	var key [4]byte
	binary.BigEndian.PutUint32(key[:], hotKey)
	tok := murmur3.Token(key[:])
	var b bytes.Buffer
	b.WriteString("pk,ck,val\n")
	for i := range n {
		fmt.Fprintf(&b, "%d,%d,value %d of the one partition\n", hotKey, i, i)
	}
	in.hot = filepath.Join(dir, "wide-one-partition.csv")
	in.hotTokens = slices.Repeat([]int64{tok}, n)
	if err := os.WriteFile(in.hot, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("shapes: %w", err)
	}
	return nil
}

// writeShapes writes under dir the inputs of the scenarios from file, a
// narrow dataset of rows rows: its rows sorted by token and by key (the
// file itself is the shuffled order: generated rows are random in key
// and token), the token-sorted rows as one gzip member, and its first
// tenth (at least smallFileRows rows) in one file and in files of
// smallFileRows rows.
func writeShapes(file, dir string, rows int64) (shapeInputs, error) {
	in := shapeInputs{byOrder: map[string]string{orderShuffled: file}}
	b, err := os.ReadFile(file)
	if err != nil {
		return in, fmt.Errorf("shapes: %w", err)
	}
	header, body, _ := bytes.Cut(b, []byte{'\n'})
	lines := bytes.Split(bytes.TrimSuffix(body, []byte{'\n'}), []byte{'\n'})
	if int64(len(lines)) != rows || rows == 0 {
		return in, fmt.Errorf("shapes: %s holds %d rows, want %d", file, len(lines), rows)
	}
	in.tokens = make([]int64, len(lines))
	for i, l := range lines {
		if in.tokens[i], err = narrowToken(l); err != nil {
			return in, fmt.Errorf("shapes: %s line %d: %w", file, i+2, err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return in, fmt.Errorf("shapes: %w", err)
	}
	idx := make([]int, len(lines))
	for i := range idx {
		idx[i] = i
	}
	byToken := slices.Clone(idx)
	slices.SortStableFunc(byToken, func(a, b int) int { return cmp.Compare(in.tokens[a], in.tokens[b]) })
	byKey := slices.Clone(idx)
	slices.SortStableFunc(byKey, func(a, b int) int {
		ka, _, _ := bytes.Cut(lines[a], []byte{','})
		kb, _, _ := bytes.Cut(lines[b], []byte{','})
		return bytes.Compare(ka, kb)
	})
	write := func(name string, order []int, gz bool) (string, error) {
		path := filepath.Join(dir, name)
		err := writeLines(path, header, lines, order, gz)
		return path, err
	}
	if in.byOrder[orderToken], err = write("narrow-token-sorted.csv", byToken, false); err != nil {
		return in, err
	}
	if in.byOrder[orderKey], err = write("narrow-key-sorted.csv", byKey, false); err != nil {
		return in, err
	}
	if in.gzip, err = write("narrow-token-sorted.csv.gz", byToken, true); err != nil {
		return in, err
	}
	// bgzip's blocks: at most 65,280 bytes of text each.
	sorted, err := os.ReadFile(in.byOrder[orderToken])
	if err == nil {
		sorted, err = bgzf.Compress(sorted, 65280)
	}
	if err == nil {
		in.bgzip = filepath.Join(dir, "narrow-token-sorted.bgzip.csv.gz")
		err = os.WriteFile(in.bgzip, sorted, 0o644)
	}
	if err != nil {
		return in, fmt.Errorf("shapes: bgzip: %w", err)
	}

	small := max(len(lines)/10/smallFileRows*smallFileRows, smallFileRows)
	small = min(small, len(lines))
	in.smallTokens = in.tokens[:small]
	if in.oneFile, err = write("narrow-small-one.csv", idx[:small], false); err != nil {
		return in, err
	}
	if err := writeHot(&in, dir, len(lines)/5); err != nil {
		return in, err
	}
	in.smallDir = filepath.Join(dir, "small")
	if err := os.MkdirAll(in.smallDir, 0o755); err != nil {
		return in, fmt.Errorf("shapes: %w", err)
	}
	for from := 0; from < small; from += smallFileRows {
		name := filepath.Join("small", fmt.Sprintf("part-%06d.csv", in.smallFiles))
		if _, err := write(name, idx[from:min(from+smallFileRows, small)], false); err != nil {
			return in, err
		}
		in.smallFiles++
	}
	return in, nil
}

// writeLines writes header and lines[order[0]], lines[order[1]], … to
// path, compressed as one gzip member if gz.
func writeLines(path string, header []byte, lines [][]byte, order []int, gz bool) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("shapes: %w", err)
	}
	var w io.Writer = f
	var zw *gzip.Writer
	if gz {
		zw = gzip.NewWriter(f)
		w = zw
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	bw.Write(header)
	bw.WriteByte('\n')
	for _, i := range order {
		bw.Write(lines[i])
		bw.WriteByte('\n')
	}
	err = bw.Flush() // bufio keeps the first write error and returns it here
	if zw != nil && err == nil {
		err = zw.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("shapes: write %s: %w", path, err)
	}
	return nil
}

// shapesTargets are issue 46's goals: each order at least 90% of the
// bound with one token per node and 95% with 16, one partition's rows at
// least 90% of what its one node takes, none rejected, many small files at
// least half of one file's rows/s, the token-order warning within the
// first tenth of a gzip member's rows, and peak RSS of the other runs
// (the plain files', and bgzip's) within the 48 MiB of the other
// benchmarks. A gzip member is checked
// before its rows are used (VERIFYBUFFER, 8 MiB of compressed input
// and what it decompresses to), which its peak RSS shows beside.
func shapesTargets(sr *shapesReport) []target {
	var ts []target
	var one, many *shapeRun
	peak := 0.0
	for i := range sr.Runs {
		r := &sr.Runs[i]
		if r.Kind != kindGzip {
			peak = max(peak, r.PeakRSSMiB)
		}
		switch r.Kind {
		case kindGzip:
			what := "shapes: " + r.Scenario + ": token-order warning at % of the rows"
			if !r.Warned {
				ts = append(ts, target{What: what, Why: "not measured: cqlload gave no token-order warning"})
				continue
			}
			v := 100 * float64(r.WarnedAtRows) / float64(max(r.Rows, 1))
			ts = append(ts, target{What: what, Value: v, Limit: 10, Met: v <= 10})
		case kindHot:
			ts = append(ts, target{What: "shapes: " + r.Scenario + ": % of the bound", Value: 100 * r.Share, Limit: 90, Met: 100*r.Share >= 90 && r.Rejected == 0, AtLeast: true})
		case kindManyFiles:
			many = r
		case kindOneFile:
			one = r
		case kindOrder:
			limit := 90.0
			if r.TokensPerNode > 1 {
				limit = 95
			}
			ts = append(ts, target{What: "shapes: " + r.Scenario + ": % of the bound", Value: 100 * r.Share, Limit: limit, Met: 100*r.Share >= limit, AtLeast: true})
		}
	}
	if one != nil && many != nil && one.RowsPerS > 0 {
		v := 100 * many.RowsPerS / one.RowsPerS
		ts = append(ts, target{What: "shapes: " + many.Scenario + ": % of one file's rows/s", Value: v, Limit: 50, Met: v >= 50, AtLeast: true})
	}
	if len(sr.Runs) > 0 {
		ts = append(ts, target{What: "shapes: peak RSS MiB, largest of the runs but the gzip member's", Value: peak, Limit: 48, Met: peak <= 48})
	}
	return ts
}

// printShapes prints the scenarios' table.
func printShapes(w io.Writer, sr *shapesReport) {
	fmt.Fprintf(w, "\nShapes (3 cqlsim nodes, blackhole, RF 1, each at %.0f rows/s, queue mode; cqlload's default options; %d rows):\n", sr.PerNodeRPS, sr.Rows)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\trows\tbusiest node %\tbound rows/s\trows/s\t% of bound\trejected\tpeak RSS MiB\ttoken-order warning\t")
	for _, r := range sr.Runs {
		warn := "none"
		if r.Warned {
			warn = fmt.Sprintf("by row %d (%.1f%%)", r.WarnedAtRows, 100*float64(r.WarnedAtRows)/float64(max(r.Rows, 1)))
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.0f\t%.0f\t%.1f\t%d\t%.1f\t%s\t\n", r.Scenario, r.Rows, 100*r.BusiestShare, r.BoundRPS, r.RowsPerS, 100*r.Share,
			r.Rejected, r.PeakRSSMiB, warn)
	}
	tw.Flush()
	fmt.Fprintln(w, "The bound is each node's capacity over the busiest node's share of the rows (from the rows' tokens and the ring).")
}
