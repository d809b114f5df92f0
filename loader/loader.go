// Package loader streams CSV files into a Cassandra or ScyllaDB table.
//
// It is the library behind the cqlload command: build Options (start from
// DefaultOptions, whose values are cqlsh COPY FROM's defaults), call New
// and Run. Run reads the input once, converts it on Workers goroutines,
// groups rows by partition and replica set into batches, and writes them
// with at most MaxInFlight requests outstanding. Progress can be polled
// with (*Loader).Progress at any time; every count in it is final (rows
// are counted as written only once the cluster acknowledged them).
package loader

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gocql/gocql"
	"golang.org/x/sync/errgroup"
	"golang.org/x/time/rate"

	"github.com/cqlload/cqlload/csvparse"
	"github.com/cqlload/cqlload/internal/shard"
	"github.com/cqlload/cqlload/schema"
)

// maxChunkBytes caps a chunk as CHUNKSIZE caps its rows. Without it 5,000
// rows of 1 KB make 5 MB chunks: the splitter copies them as they outgrow
// its 1 MiB read blocks, and every chunk in the pipeline (queued, being
// converted, or waiting on its batches) holds its data and arena, so
// memory grows with the row size. Half a block keeps a chunk inside one
// block; narrow rows still fill CHUNKSIZE.
const maxChunkBytes = 512 << 10

// AbortError says why a run stopped before reading all its input.
type AbortError struct{ Reason string }

func (e *AbortError) Error() string { return "aborted: " + e.Reason }

// Loader runs one load. It is not reusable.
type Loader struct {
	opts    Options
	session *gocql.Session
	owned   bool // the session was opened here and is closed by Run
	table   *schema.Table
	ring    atomic.Pointer[ring] // replaced while running when the table uses tablets
	limiter *rate.Limiter
	tracker *tracker
	errs    *errFile

	idleSlabs chan *slabs // released slabs for the next chunks (slabs.go)

	planMu sync.Mutex
	plans  map[int]*plan // per source index (layouts differ only with headers)

	abortOnce sync.Once
	abortErr  atomic.Pointer[AbortError]
	dropping  atomic.Bool // unsent batches are dropped (counted as aborted)
	stopRead  context.CancelFunc
	cp        *checkpoint // nil without --resume
	files     int
}

// New checks the options and returns a Loader ready to Run.
func New(opts Options) (*Loader, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if opts.ErrFile == "" {
		opts.ErrFile = fmt.Sprintf("import_%s_%s.err", opts.Keyspace, opts.Table)
	}
	l := &Loader{opts: opts, plans: map[int]*plan{}, errs: &errFile{path: opts.ErrFile}}
	// A chunk's slabs come back when its last row is resolved, often
	// several at once. New ones are made only when none is idle, so the
	// list never raises the peak; too short a one (Workers+2 was) made
	// 1 KB loads, with many small chunks in flight, drop and reallocate
	// one slab in eight.
	l.idleSlabs = make(chan *slabs, opts.Workers+16)
	if opts.IngestRate > 0 {
		burst := opts.MaxBatchSize
		l.limiter = rate.NewLimiter(rate.Limit(opts.IngestRate), burst)
	}
	l.tracker = newTracker()
	l.opts.countWarnings = l.tracker.warn
	return l, nil
}

// Progress returns a snapshot of the run's counters; safe at any time.
func (l *Loader) Progress() Progress { return l.tracker.snapshot() }

// Run loads all input. It returns an *AbortError (with the summary so far)
// when a limit was crossed or the input could not be read, the context's
// error when cancelled, and nil when every row was written, rejected into
// the error file, or skipped by an option.
func (l *Loader) Run(ctx context.Context) (Summary, error) {
	if err := l.setup(ctx); err != nil {
		return Summary{}, err
	}
	if l.owned {
		defer l.session.Close()
	}
	sources, err := csvparse.Sources(l.opts.Files, l.opts.Stdin)
	if err != nil {
		return Summary{}, err
	}
	l.files = len(sources)
	splitter := csvparse.NewSplitter(sources, l.opts.Dialect, l.opts.ChunkSize, maxChunkBytes)
	defer splitter.Close()
	l.tracker.begin(splitter.TotalBytes())
	if l.opts.Resume != "" {
		cp, err := openCheckpoint(l.opts.Resume, inputKey(sources, l.opts.Dialect, l.opts.ChunkSize, maxChunkBytes))
		if err != nil {
			return Summary{}, err
		}
		l.cp = cp
		l.tracker.chunkDone = cp.done
		l.errs.appendTo = cp.skip > 0
	}

	readCtx, stopRead := context.WithCancel(ctx)
	defer stopRead()
	l.stopRead = stopRead

	chunks := make(chan *csvparse.Chunk, l.opts.Workers)
	// A short queue in front of the senders is enough to keep them busy
	// (a worker adds a whole chunk's batches at a time); each queued
	// batch pins its chunk's slabs, so a deep one costs memory.
	batches := make(chan *batch, max(l.opts.MaxInFlight/4, 1))
	var g errgroup.Group
	g.Go(func() error { return l.read(readCtx, splitter, chunks) })
	var workers sync.WaitGroup
	for range l.opts.Workers {
		workers.Add(1)
		g.Go(func() error {
			defer workers.Done()
			return l.convertLoop(chunks, batches)
		})
	}
	g.Go(func() error {
		workers.Wait()
		close(batches)
		return nil
	})
	for range l.opts.MaxInFlight {
		g.Go(func() error {
			for b := range batches {
				l.send(ctx, b)
			}
			return nil
		})
	}
	stopReports := l.reportRate()
	stopTablets := l.followTablets()
	stopCheckpoints := l.saveCheckpoints()
	runErr := g.Wait()
	stopReports()
	stopTablets()
	stopCheckpoints()
	if err := l.errs.close(); err != nil && runErr == nil {
		runErr = err
	}

	if l.cp != nil {
		complete := runErr == nil && l.abortErr.Load() == nil && ctx.Err() == nil && l.tracker.aborted.Load() == 0
		if err := l.cp.save(complete); err != nil && runErr == nil {
			runErr = err
		}
	}
	sum := l.summary()
	if runErr != nil {
		return sum, runErr
	}
	if a := l.abortErr.Load(); a != nil {
		sum.Aborted = a.Reason
		return sum, a
	}
	if err := ctx.Err(); err != nil {
		sum.Aborted = "interrupted"
		return sum, err
	}
	return sum, nil
}

func (l *Loader) summary() Summary {
	p := l.tracker.snapshot()
	s := Summary{Progress: p, Files: l.files, ElapsedS: p.Elapsed.Seconds(), Latency: l.tracker.latency()}
	if s.ElapsedS > 0 {
		s.RowsPerSec = float64(p.RowsWritten) / s.ElapsedS
	}
	if p.Requests > 0 {
		s.RowsPerBatch = float64(p.RowsWritten) / float64(p.Requests)
	}
	s.Warnings = l.tracker.warnings.Load()
	if w := l.tracker.firstWarning.Load(); w != nil {
		s.FirstWarning = *w
	}
	s.BatchRowsMax = int(l.tracker.batchRowsMax.Load())
	s.BatchBytesMax = int(l.tracker.batchBytesMax.Load())
	if l.errs.used() {
		s.ErrFile = l.errs.path
	}
	return s
}

// setup connects (unless given a session), reads the table and the ring.
func (l *Loader) setup(ctx context.Context) error {
	l.session = l.opts.Session
	if l.session == nil {
		s, err := Connect(l.opts)
		if err != nil {
			return err
		}
		l.session, l.owned = s, true
	}
	t, err := schema.LoadTable(l.session, l.opts.Keyspace, l.opts.Table)
	if err != nil {
		l.closeOwned()
		return err
	}
	l.table = t
	r, err := loadRing(l.session, l.opts.Keyspace)
	if err != nil {
		l.closeOwned()
		return err
	}
	l.ring.Store(r)
	if r.shards > 0 {
		shard.AwaitPools(ctx, l.session, l.opts.ConnectTimeout)
	}
	if !l.opts.Dialect.Header || len(l.opts.Columns) > 0 {
		// One layout for every file: check it before reading anything.
		if _, err := l.planFor(-1, nil); err != nil {
			l.closeOwned()
			return err
		}
	}
	return ctx.Err()
}

func (l *Loader) closeOwned() {
	if l.owned {
		l.session.Close()
	}
}

// planFor returns the statement and field mapping for a file: the same
// for all files unless they map columns by header name.
func (l *Loader) planFor(source int, header []string) (*plan, error) {
	key := source
	byHeader := l.opts.Dialect.Header && len(l.opts.Columns) == 0
	if !byHeader {
		key = -1
	}
	l.planMu.Lock()
	defer l.planMu.Unlock()
	if p, ok := l.plans[key]; ok {
		return p, nil
	}
	cols, err := l.fileColumns(byHeader, header)
	if err != nil {
		return nil, err
	}
	p, err := newPlan(l.table, cols, &l.opts)
	if err != nil {
		return nil, err
	}
	l.plans[key] = p
	return p, nil
}

// fileColumns lists the table column of each field of the file (nil for a
// field dropped by SKIPCOLS).
func (l *Loader) fileColumns(byHeader bool, header []string) ([]*schema.Column, error) {
	skip := map[string]bool{}
	for _, s := range l.opts.SkipCols {
		skip[strings.ToLower(s)] = true
	}
	var names []string
	switch {
	case len(l.opts.Columns) > 0:
		names = l.opts.Columns
	case byHeader:
		names = header
	default:
		for _, c := range l.table.Columns {
			names = append(names, c.Name)
		}
	}
	cols := make([]*schema.Column, len(names))
	var unknown []string
	for i, n := range names {
		if skip[strings.ToLower(n)] {
			continue
		}
		c, ok := l.table.Column(n)
		if !ok {
			unknown = append(unknown, n)
			continue
		}
		cols[i] = c
	}
	if len(unknown) > 0 {
		what := "the column list"
		if byHeader {
			what = "the header"
		}
		return nil, fmt.Errorf("%s names columns that %s.%s does not have: %s", what, l.table.Keyspace, l.table.Name, strings.Join(unknown, ", "))
	}
	return cols, nil
}

// read is the only goroutine doing input I/O: it cuts chunks and counts
// rows as read when they enter the pipeline.
func (l *Loader) read(ctx context.Context, s *csvparse.Splitter, out chan<- *csvparse.Chunk) error {
	defer close(out)
	for {
		if ctx.Err() != nil {
			return nil
		}
		c, err := s.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			l.abort(err.Error())
			return nil
		}
		l.tracker.read.Add(int64(c.Records + c.Skipped))
		if l.cp != nil && c.Seq < l.cp.skip {
			// Done by an earlier run: skipped by --resume.
			l.tracker.skipped.Add(int64(c.Records + c.Skipped))
			l.tracker.resumed.Add(int64(c.Records))
			l.tracker.bytesDone.Add(c.InputBytes)
			c.Release()
			continue
		}
		l.tracker.skipped.Add(int64(c.Skipped))
		if c.Records == 0 {
			l.tracker.bytesDone.Add(c.InputBytes)
			if l.cp != nil {
				l.cp.done(c.Seq, 0)
			}
			c.Release()
			continue
		}
		select {
		case out <- c:
		case <-ctx.Done():
			// Read but never converted: its rows go to the error file as
			// aborted, so that nothing read is unaccounted for.
			l.abortChunk(c)
			return nil
		}
	}
}

func (l *Loader) convertLoop(chunks <-chan *csvparse.Chunk, out chan<- *batch) error {
	var g grouper
	for c := range chunks {
		cs := &chunkState{seq: c.Seq, records: int64(c.Records), inputBytes: c.InputBytes}
		if c.Header != nil && l.opts.Dialect.Header {
			l.errs.setHeader(c.Header, l.opts.Dialect)
		}
		p, err := l.planFor(c.Source, c.Header)
		if err != nil {
			l.abort(fmt.Sprintf("%s: %v", c.File, err))
			l.abortChunkState(c, cs)
			continue
		}
		conv := l.convertChunk(c, p, cs)
		for _, b := range l.batchesOf(conv, &g) {
			out <- b
		}
		l.release(cs, 1)
	}
	return nil
}

// batchesOf groups a chunk's rows into batches, with gr's working memory.
func (l *Loader) batchesOf(c converted, gr *grouper) []*batch {
	rg := l.ring.Load()
	gr.rows = grow(gr.rows, len(c.rows))
	g := gr.rows
	for i := range c.rows {
		r := &c.rows[i]
		size := 0
		for _, v := range r.values {
			if cl, ok := v.(*cell); ok && cl != nil {
				size += len(cl.b)
			}
		}
		r.size = size
		// The key lives in the chunk's arena, which nothing modifies
		// while the converter holds the chunk: no copy per row. The
		// grouper keeps the string past this call but never reads it
		// again.
		key := unsafe.String(unsafe.SliceData(r.key), len(r.key))
		g[i] = groupRow{partition: key, replicas: rg.groupOf(r.token), size: size}
	}
	lim := batchLimits{minRows: l.opts.MinBatchSize, maxRows: l.opts.MaxBatchSize, maxBytes: l.opts.MaxBatchBytes}
	groups := gr.group(g, lim)
	// One slab each for the batches and their row pointers.
	out := make([]*batch, len(groups))
	bs := make([]batch, len(groups))
	ptrs := make([]*row, 0, len(c.rows))
	for i, idx := range groups {
		from := len(ptrs)
		for _, k := range idx {
			ptrs = append(ptrs, &c.rows[k])
		}
		bs[i] = batch{rows: ptrs[from:len(ptrs):len(ptrs)], file: c.file, plan: c.plan, state: c.state}
		out[i] = &bs[i]
	}
	return out
}

// abort stops reading; with an insert-error limit also stops sending.
func (l *Loader) abort(reason string) {
	l.abortOnce.Do(func() {
		l.abortErr.Store(&AbortError{Reason: reason})
		if l.stopRead != nil {
			l.stopRead()
		}
	})
}

func (l *Loader) rejectParse(cs *chunkState, where, reason string, raw []byte) {
	if err := l.errs.reject(rejectParse, where, reason, raw); err != nil {
		l.abort(err.Error())
	}
	n := l.tracker.failedParse.Add(1)
	l.tracker.resolve(cs, 1)
	if max := l.opts.MaxParseErrors; max >= 0 && n > int64(max) {
		l.abort(fmt.Sprintf("too many parse errors: more than MAXPARSEERRORS = %d", max))
	}
}

func (l *Loader) rejectInsert(b *batch, rows []*row, reason string) {
	for _, r := range rows {
		if err := l.errs.reject(rejectInsert, fmt.Sprintf("%s:%d", b.file, r.line), reason, r.raw); err != nil {
			l.abort(err.Error())
		}
	}
	n := l.tracker.failedInsert.Add(int64(len(rows)))
	l.tracker.resolve(b.state, len(rows))
	l.release(b.state, len(rows))
	if max := l.opts.MaxInsertErrors; max >= 0 && n > int64(max) {
		l.dropping.Store(true)
		l.abort(fmt.Sprintf("too many insert errors: more than MAXINSERTERRORS = %d (last: %s)", max, reason))
	}
}

func (l *Loader) abortRows(b *batch, rows []*row) {
	for _, r := range rows {
		_ = l.errs.reject(rejectAbort, fmt.Sprintf("%s:%d", b.file, r.line), "not sent: the run was aborted", r.raw)
	}
	b.state.aborted.Store(true)
	l.tracker.aborted.Add(int64(len(rows)))
	l.tracker.resolve(b.state, len(rows))
	l.release(b.state, len(rows))
}

// abortChunk accounts for a chunk that was read but will not be converted.
func (l *Loader) abortChunk(c *csvparse.Chunk) {
	l.abortChunkState(c, &chunkState{seq: c.Seq, records: int64(c.Records), inputBytes: c.InputBytes})
}

func (l *Loader) abortChunkState(c *csvparse.Chunk, cs *chunkState) {
	rd := csvparse.NewReader(c, l.opts.Dialect)
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		raw := rd.Raw()
		where := c.File
		if err == nil {
			raw = rec.Raw
			where = fmt.Sprintf("%s:%d", c.File, rec.Line)
		}
		_ = l.errs.reject(rejectAbort, where, "not sent: the run was aborted", raw)
	}
	cs.aborted.Store(true)
	l.tracker.aborted.Add(int64(c.Records))
	l.tracker.resolve(cs, c.Records)
	c.Release()
}

// every runs f every d on its own goroutine until stop is called; stop
// waits for a running f to return.
func every(d time.Duration, f func()) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				f()
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}

// followTablets refreshes the ring from the driver's tablet map while the
// run lasts, when the table uses tablets (ScyllaDB): the driver learns
// tablets from responses, so the map fills in as the load goes.
func (l *Loader) followTablets() (stop func()) {
	if !tabletsInUse(l.session, l.opts.Keyspace, l.opts.Table) {
		return func() {}
	}
	refresh := func() {
		if r := loadTabletRing(l.session, l.opts.Keyspace, l.opts.Table); r != nil {
			l.ring.Store(r)
		}
	}
	refresh()
	return every(time.Second, refresh)
}

// saveCheckpoints writes the --resume checkpoint every second while the
// run lasts, so that a killed process loses at most a second of progress.
func (l *Loader) saveCheckpoints() (stop func()) {
	if l.cp == nil {
		return func() {}
	}
	return every(time.Second, func() {
		if err := l.cp.save(false); err != nil {
			l.abort(err.Error())
		}
	})
}

// reportRate appends a progress line to RATEFILE every REPORTFREQUENCY.
func (l *Loader) reportRate() (stop func()) {
	if l.opts.RateFile == "" {
		return func() {}
	}
	f, err := os.OpenFile(l.opts.RateFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		l.abort(fmt.Sprintf("rate file: %v", err))
		return func() {}
	}
	stopTicks := every(l.opts.ReportFrequency, func() {
		p := l.Progress()
		fmt.Fprintf(f, "%.3f %d %.0f\n", p.Elapsed.Seconds(), p.RowsWritten, float64(p.RowsWritten)/p.Elapsed.Seconds())
	})
	return func() {
		stopTicks()
		f.Close()
	}
}
