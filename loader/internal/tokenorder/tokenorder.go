// Package tokenorder tells an input whose rows come in token order from
// one whose rows are spread over the ring. A full-table export is written
// in token order; read in order, every stretch of it belongs to one
// replica set, so one node works while the others wait. The loader
// counts each chunk's rows by replica set (a Tally per converter), and a
// Detector adds the tallies up in windows of rows and says, once, when
// one replica set took most of the rows of several recent windows.
//
// The rule: a window is skewed when one replica set took at least half
// way from its fair share to all of the window's rows, (1+share)/2 of
// them, where its share is the part of the token ring it owns (what a
// shuffled or key-sorted input gives it, as Murmur3 spreads keys). With
// 3 equal sets that is two thirds, with 2 sets three quarters, with many
// small ones just over half. The input is found in token order when
// Need of the last Of windows were skewed. A set owning more than
// MaxShare of the ring is never counted skewed: its fair share is
// already most of the rows, and order makes little difference.
//
// Rows of one partition, or of a few, go to one replica set in any
// order: the Finding then says how many partitions they were in, so that
// the loader names that instead of the file's order. A window is counted
// by replica set, so with many of them (many nodes, many tokens each)
// and a file holding fewer rows a token range than a window, a window
// straddles ranges and the order may go unsaid; an export of the size
// where order matters holds far more rows a range than a window.
package tokenorder

import (
	"slices"
	"sync"
)

// Defaults: windows of 10,000 rows, a few chunks, about what the
// pipeline holds in flight, so that a skewed window means that what was
// being sent at one time went to one replica set. A shuffled window's
// top share is within a percent of its fair share at this size, far
// below the threshold. Three skewed windows of the last four: a token
// order found within 40,000 rows, well inside the first tenth of a
// large export, yet a window that straddles two nodes' ranges (half of
// one and half of the other) does not hide it.
const (
	DefaultWindowRows = 10_000
	DefaultNeed       = 3
	DefaultOf         = 4
	MaxShare          = 0.9
	// MaxPartitions is how many distinct tokens a tally keeps: rows of
	// at most this many partitions are named as such.
	MaxPartitions = 8
)

// Tally is one chunk's rows counted by replica set. A converter keeps
// one and resets it for each chunk, so counting costs no allocation.
type Tally struct {
	File                string
	FirstLine, LastLine int64
	Rows                int64
	counts              []int64 // by set
	touched             []int   // sets with counts, to reset
	tokens              [MaxPartitions]int64
	ntokens             int
	manyTokens          bool
	last                int64
}

// Reset readies t for a chunk of file, with sets replica sets.
func (t *Tally) Reset(file string, sets int) {
	for _, s := range t.touched {
		t.counts[s] = 0
	}
	if len(t.counts) != sets {
		t.counts = make([]int64, sets)
	}
	t.touched = t.touched[:0]
	t.File, t.FirstLine, t.LastLine, t.Rows = file, 0, 0, 0
	t.ntokens, t.manyTokens = 0, false
}

// Add counts a row of replica set set, with its token and line.
func (t *Tally) Add(set int, token, line int64) {
	if set < 0 || set >= len(t.counts) {
		return
	}
	if t.counts[set] == 0 {
		t.touched = append(t.touched, set)
	}
	t.counts[set]++
	if t.Rows == 0 || line < t.FirstLine {
		t.FirstLine = line
	}
	t.LastLine = max(t.LastLine, line)
	if t.Rows == 0 || token != t.last {
		t.addToken(token)
	}
	t.last = token
	t.Rows++
}

// addToken keeps the first MaxPartitions distinct tokens; past them the
// tally only knows there are many.
func (t *Tally) addToken(token int64) {
	if t.manyTokens {
		return
	}
	for _, k := range t.tokens[:t.ntokens] {
		if k == token {
			return
		}
	}
	if t.ntokens == MaxPartitions {
		t.manyTokens = true
		return
	}
	t.tokens[t.ntokens] = token
	t.ntokens++
}

// Finding is what the Detector saw: the stretch of the input whose
// windows were skewed.
type Finding struct {
	File                string // the file of the last skewed window
	FirstLine, LastLine int64  // the stretch's lines in File
	Rows                int64  // rows in the skewed windows
	Sets                []int  // the sets that took them, in the order they did, at most 3
	// Partitions, when the rows of every skewed window were in at most
	// MaxPartitions partitions (distinct tokens), is the most of any
	// window, else 0: rows of one partition go to one replica set in any
	// order, and no order of the file changes that.
	Partitions int
}

// Detector adds tallies up into windows. Safe for concurrent use; it
// holds a window's counts, O(replica sets), and Of windows' summaries.
type Detector struct {
	mu         sync.Mutex
	shares     []float64
	windowRows int64
	need, of   int

	counts  []int64
	touched []int
	rows    int64
	file    string
	first   int64
	last    int64
	tokens  Tally // the window's distinct tokens (only its token fields are used)

	recent []window // the last `of` windows, oldest first
	done   bool
}

// window is a closed window's summary.
type window struct {
	skewed      bool
	set         int
	rows        int64
	file        string
	first, last int64
	partitions  int // distinct tokens, 0 for many
}

// New returns a detector for a ring whose replica sets own shares of it
// (by set id); windowRows, need and of are the rule's (zero: the
// defaults).
func New(shares []float64, windowRows int64, need, of int) *Detector {
	if windowRows <= 0 {
		windowRows = DefaultWindowRows
	}
	if of <= 0 {
		of = DefaultOf
	}
	if need <= 0 || need > of {
		need = min(DefaultNeed, of)
	}
	return &Detector{shares: shares, windowRows: windowRows, need: need, of: of, counts: make([]int64, len(shares))}
}

// Watching says whether the ring can show token order at all: it needs
// two replica sets, one of them owning at most MaxShare (with one set,
// every node takes every row whatever the order).
func (d *Detector) Watching() bool {
	if len(d.shares) < 2 {
		return false
	}
	for _, s := range d.shares {
		if s <= MaxShare {
			return true
		}
	}
	return false
}

// Add adds a chunk's tally. It returns a Finding and true once: when
// the windows first show token order.
func (d *Detector) Add(t *Tally) (Finding, bool) {
	if t.Rows == 0 || len(t.counts) != len(d.counts) {
		return Finding{}, false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.done {
		return Finding{}, false
	}
	if d.rows == 0 || t.File != d.file {
		if d.rows > 0 {
			// A window is of one file, so that its lines name rows.
			d.close()
		}
		d.file, d.first, d.last = t.File, t.FirstLine, t.LastLine
	}
	d.first, d.last = min(d.first, t.FirstLine), max(d.last, t.LastLine)
	for _, s := range t.touched {
		if d.counts[s] == 0 {
			d.touched = append(d.touched, s)
		}
		d.counts[s] += t.counts[s]
	}
	d.rows += t.Rows
	if t.manyTokens {
		d.tokens.manyTokens = true
	}
	for _, k := range t.tokens[:t.ntokens] {
		d.tokens.addToken(k)
	}
	if d.rows < d.windowRows {
		return Finding{}, false
	}
	d.close()
	return d.judge()
}

// close ends the current window and keeps its summary.
func (d *Detector) close() {
	w := window{set: -1, rows: d.rows, file: d.file, first: d.first, last: d.last}
	if !d.tokens.manyTokens {
		w.partitions = d.tokens.ntokens
	}
	var top int64
	for _, s := range d.touched {
		if d.counts[s] > top {
			top, w.set = d.counts[s], s
		}
		d.counts[s] = 0
	}
	// A window shorter than a full one (the end of a file) is judged
	// too; the rule needs several, so a short file's one never counts
	// alone.
	if w.set >= 0 && d.rows >= d.windowRows/2 {
		share := d.shares[w.set]
		w.skewed = share <= MaxShare && float64(top) >= (1+share)/2*float64(d.rows)
	}
	d.touched = d.touched[:0]
	d.rows = 0
	d.tokens.ntokens, d.tokens.manyTokens = 0, false
	d.recent = append(d.recent, w)
	if len(d.recent) > d.of {
		d.recent = d.recent[1:]
	}
}

// judge applies the rule to the recent windows.
func (d *Detector) judge() (Finding, bool) {
	n := 0
	for _, w := range d.recent {
		if w.skewed {
			n++
		}
	}
	if n < d.need {
		return Finding{}, false
	}
	d.done = true
	f := Finding{File: d.recent[len(d.recent)-1].file, FirstLine: -1}
	few := true
	for _, w := range d.recent {
		if !w.skewed {
			continue
		}
		f.Rows += w.rows
		if w.file == f.File {
			if f.FirstLine < 0 || w.first < f.FirstLine {
				f.FirstLine = w.first
			}
			f.LastLine = max(f.LastLine, w.last)
		}
		if len(f.Sets) < 3 && !slices.Contains(f.Sets, w.set) {
			f.Sets = append(f.Sets, w.set)
		}
		few = few && w.partitions > 0
		f.Partitions = max(f.Partitions, w.partitions)
	}
	if !few {
		f.Partitions = 0
	}
	return f, true
}
