package loader

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/cqlload/cqlload/csvparse"
	"github.com/cqlload/cqlload/internal/cputime"
	"github.com/cqlload/cqlload/internal/wholefile"
	"github.com/cqlload/cqlload/loader/internal/runlog"
	"github.com/cqlload/cqlload/source"
	"github.com/cqlload/cqlload/split"
)

// A split plan (--write-split-plan, read with --split-plan) holds the
// record starts at every cut of a split run, found once by one process.
//
// Without one, each split finds its own range's start, and in a file
// without quote characters that means reading everything before it: the
// split holding a file's last range reads (N-1)/N of the file before it
// loads a row, and the N splits together read N/2 file lengths. With a
// plan, one pass reads up to the file's last cut once, and every split
// starts at once. The plan names the inputs it was made from (name and
// size of every input; for a cut file also its modification time and a
// hash of its edges, as a checkpoint does) and the options that decide
// the cuts; a split refuses a plan that does not match its own inputs
// and options, and checks each start it takes against the bytes around
// the cut (see plannedStarts).

const splitPlanVersion = 1

// planCheckBytes is how far before a cut a split reads to check the
// plan's record start there (csvparse.RecordStarts.Check).
const planCheckBytes = 256 << 10

type splitPlanFile struct {
	Version int               `json:"version"`
	Splits  int               `json:"splits"`
	Options map[string]string `json:"options"`
	Files   []planFile        `json:"files"`
}

// planFile is one input of a planned run.
type planFile struct {
	Name string `json:"name"`
	Size int64  `json:"size"`
	// ID identifies the content of a file that is cut; Starts pairs each
	// cut's offset with the first record that begins at or after it.
	ID     *runlog.Input `json:"id,omitempty"`
	Starts [][2]int64    `json:"starts,omitempty"`
}

// planOptions are the options that decide where the splits' ranges and
// their record starts lie.
func planOptions(o *Options) map[string]string {
	shape := shapeOptions(o, 0)
	out := map[string]string{"splitplan": split.PlanVersion}
	for _, k := range []string{"splitsize", "header", "delimiter", "quote", "escape", "encoding", "skiprows", "maxrows"} {
		out[k] = shape[k]
	}
	return out
}

// SplitPlanStats is what WriteSplitPlan did.
type SplitPlanStats struct {
	Files    int           // inputs cut into ranges
	Starts   int           // record starts found
	Searched int64         // bytes the searches read
	CPU      time.Duration // CPU time of the searches
}

// WriteSplitPlan finds the record starts at every cut of the run that o
// describes split SplitCount ways and writes them to path as a split
// plan for --split-plan. It loads nothing and needs no cluster.
func WriteSplitPlan(ctx context.Context, o Options, path string) (SplitPlanStats, error) {
	var st SplitPlanStats
	if o.SplitCount < 2 {
		return st, errors.New("a split plan needs --split I/N with N of 2 or more")
	}
	objects, err := source.ExpandObjectsConfig(ctx, o.Files, o.Stdin, o.sourceConfig())
	if err != nil {
		return st, err
	}
	plan := []outputFile{{what: "--write-split-plan", path: path, replaced: true}}
	if err := checkReplaceable(plan); err != nil {
		return st, err
	}
	// The inputs the splits will load: without their own files, as
	// each split leaves them out, and each once.
	errFile, isDefault := o.ErrFile, o.ErrFile == ""
	if isDefault {
		errFile = defaultErrFileName(&o)
		o.ErrFile = errFile
	}
	if objects, _, err = leaveOutOwn(objects, &o, errFile, isDefault, plan...); err != nil {
		return st, err
	}
	if err := checkInputsOnce(objects); err != nil {
		return st, err
	}
	if err := checkOutputs(objects, plan); err != nil {
		return st, err
	}
	var p splitPlanFile
	st.CPU = cputime.Of(func() { p, st, err = planSplits(objects, &o) })
	if err != nil {
		return st, err
	}
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return st, err
	}
	// Whole or not at all: a split must never read half a plan.
	if err := wholefile.Write(path, append(b, '\n'), (*os.File).Sync, 0o644); err != nil {
		return st, fmt.Errorf("split plan: %w", err)
	}
	return st, nil
}

// planSplits lays the splits out and finds the record start at each cut.
func planSplits(objects []source.Object, o *Options) (splitPlanFile, SplitPlanStats, error) {
	var st SplitPlanStats
	p := splitPlanFile{Version: splitPlanVersion, Splits: o.SplitCount, Options: planOptions(o)}
	byName, layout, closeFiles, err := layoutSplits(objects, o)
	defer closeFiles()
	if err != nil {
		return p, st, err
	}
	// The offsets each file is cut at, as the splits will ask for them.
	cuts := map[string][]int64{}
	for _, units := range layout {
		for _, u := range split.Merge(units) {
			if !wholeUnit(u, byName[u.Name]) {
				// What rangeSource asks for: the start, and the end
				// where the parse cannot find it (RawOffsets).
				cuts[u.Name] = append(cuts[u.Name], u.Start)
				if !csvparse.RawOffsets(o.Dialect) {
					cuts[u.Name] = append(cuts[u.Name], u.End)
				}
			}
		}
	}
	for _, obj := range objects {
		f := planFile{Name: obj.Name, Size: obj.Size}
		// The nearest cut first: each search goes back only to what the
		// one before proved, a stretch free of quotes or the record
		// start it found (see csvparse.RecordStarts), so the file is
		// read about once in all.
		offs := slices.DeleteFunc(cuts[obj.Name], func(off int64) bool { return off <= 0 || off >= obj.Size })
		slices.Sort(offs)
		offs = slices.Compact(offs)
		if len(offs) > 0 {
			obj = byName[obj.Name] // with the opened local file
			id, err := identifyOne(obj)
			if err != nil {
				return p, st, fmt.Errorf("split plan: %w", err)
			}
			f.ID = &id
			starts := searchStarts(obj, o.Dialect) // one for all the cuts
			for _, off := range offs {
				s, err := starts.At(off)
				if err != nil {
					return p, st, fmt.Errorf("split plan: %s: %w", obj.Name, err)
				}
				f.Starts = append(f.Starts, [2]int64{off, s})
			}
			slices.SortFunc(f.Starts, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
			st.Files++
			st.Starts += len(offs)
			st.Searched += starts.Searched()
		}
		p.Files = append(p.Files, f)
	}
	return p, st, nil
}

// splitPlan is a split plan read and checked against a run's inputs.
type splitPlan struct {
	path   string
	starts map[string]map[int64]int64 // file name → cut → record start
}

// readSplitPlan reads the plan at path and checks that it was made for
// objects and o: the same inputs (names and sizes; a cut file's identity
// too), the same number of splits and the options that decide the cuts.
func readSplitPlan(path string, objects []source.Object, o *Options) (*splitPlan, error) {
	fail := func(format string, args ...any) error {
		return &SplitPlanError{Path: path, Reason: fmt.Sprintf(format, args...)}
	}
	b, err := wholefile.Read(path, "split plan", wholefile.MaxState)
	if err != nil {
		return nil, fail("%v", err)
	}
	var f splitPlanFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fail("not a split plan: %v", err)
	}
	if f.Version != splitPlanVersion {
		return nil, fail("format %d, this cqlload reads %d: write it again with this version", f.Version, splitPlanVersion)
	}
	if f.Splits != o.SplitCount {
		return nil, fail("made for %d splits, this run is --split %d/%d", f.Splits, o.SplitIndex, o.SplitCount)
	}
	if d := runlog.Diff(nil, nil, f.Options, planOptions(o)); d != "" {
		return nil, fail("made with other options: %s", d)
	}
	if len(f.Files) != len(objects) {
		return nil, fail("made for %d inputs, this run has %d", len(f.Files), len(objects))
	}
	p := &splitPlan{path: path, starts: map[string]map[int64]int64{}}
	byName := map[string]planFile{}
	for _, pf := range f.Files {
		byName[pf.Name] = pf
	}
	for _, obj := range objects {
		pf, ok := byName[obj.Name]
		switch {
		case !ok:
			return nil, fail("made without %s", obj.Name)
		case pf.Size != obj.Size:
			return nil, fail("made when %s had %d bytes; it has %d now", obj.Name, pf.Size, obj.Size)
		case pf.ID == nil:
			continue
		}
		id, err := identifyOne(obj)
		if err != nil {
			return nil, fmt.Errorf("--split-plan: %w", err)
		}
		if d := runlog.Diff([]runlog.Input{*pf.ID}, []runlog.Input{id}, nil, nil); d != "" {
			return nil, fail("made for another %s: %s", obj.Name, d)
		}
		m := map[int64]int64{}
		for _, s := range pf.Starts {
			m[s[0]] = s[1]
		}
		p.starts[obj.Name] = m
	}
	return p, nil
}

// finder gives obj's record starts from the plan.
func (p *splitPlan) finder(obj source.Object, d csvparse.Dialect) startFinder {
	return &plannedStarts{plan: p, obj: obj, starts: p.starts[obj.Name], check: searchStarts(obj, d)}
}

// plannedStarts is a startFinder that takes its answers from a plan and
// checks each against the file's bytes around its cut
// (csvparse.RecordStarts.Check): the bytes just before it where they
// decide the parse state, else the answer of a state they leave open.
type plannedStarts struct {
	plan   *splitPlan
	obj    source.Object
	starts map[int64]int64
	check  *csvparse.RecordStarts
}

func (s *plannedStarts) Searched() int64 { return s.check.Searched() }

func (s *plannedStarts) At(off int64) (int64, error) {
	fail := func(format string, args ...any) (int64, error) {
		return 0, &SplitPlanError{Path: s.plan.path, Reason: s.obj.Name + ": " + fmt.Sprintf(format, args...)}
	}
	start, ok := s.starts[off]
	switch {
	case off <= 0:
		return 0, nil
	case off >= s.obj.Size:
		return s.obj.Size, nil
	case !ok:
		return fail("no record start for the cut at byte %d", off)
	case start < off || start > s.obj.Size:
		return fail("the record start %d for the cut at byte %d is outside [%d, %d]", start, off, off, s.obj.Size)
	}
	ok, err := s.check.Check(off, start, planCheckBytes)
	if err != nil {
		return 0, fmt.Errorf("--split-plan: %s: %w", s.obj.Name, err)
	}
	if !ok {
		return fail("the plan's record start %d for the cut at byte %d is not where the file's bytes put it", start, off)
	}
	return start, nil
}
