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
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gocql/gocql"
	"golang.org/x/sync/errgroup"

	"github.com/cqlload/cqlload/csvparse"
	"github.com/cqlload/cqlload/internal/cputime"
	"github.com/cqlload/cqlload/internal/lifo"
	"github.com/cqlload/cqlload/internal/redact"
	"github.com/cqlload/cqlload/internal/shard"
	"github.com/cqlload/cqlload/internal/termsafe"
	"github.com/cqlload/cqlload/loader/internal/ring"
	"github.com/cqlload/cqlload/loader/internal/runlog"
	"github.com/cqlload/cqlload/loader/internal/stall"
	"github.com/cqlload/cqlload/schema"
	"github.com/cqlload/cqlload/source"
)

// MaxChunkBytes caps a chunk's input as CHUNKSIZE caps its rows. A chunk
// is the unit the pipeline holds: it stays in memory, input and converted
// rows, until its last row has an outcome, and a few are in use at once.
// Without a cap 5,000 rows of 1 KB made 5 MB chunks. 256 KiB still lets
// narrow rows group by replica set into full batches and 48-byte rows
// fill CHUNKSIZE, and holds less memory than 512 KiB for batches barely
// smaller (the figures are in docs/benchmarks.md). The benchmark's
// ceiling cuts chunks by it too.
const MaxChunkBytes = 256 << 10

// Loader runs one load. It is not reusable.
type Loader struct {
	opts    Options
	session *gocql.Session
	owned   bool // the session was opened here and is closed by Run
	table   *schema.Table
	tokens  atomic.Pointer[ring.Ring] // replaced while running when the table uses tablets
	pacer   *stall.Pacer              // INGESTRATE's schedule; nil without a rate
	// limits are the coordinators' in-flight limits; dispatch lets
	// batches go by them.
	limits   *hostLimits
	dispatch *dispatcher
	// stalls are the spells the process did not run (stall.Clock): the
	// clocks that judge the cluster leave them out.
	stalls  *stall.Clock
	tracker *tracker
	ledger  *ledger
	errs    *runlog.ErrFiles

	idleSlabs *lifo.Pool[*slabs] // released slabs for the next chunks (slabs.go)
	bindBufs  sync.Pool          // of *[]any: batch statements' values (exec)
	hints     hints
	order     orderWatch // is the input in token order? (order.go)
	// tsBase is the run's start in microseconds, or that of the run a
	// resumed one resumes: write timestamps are tsBase plus each record's
	// ordinal in the input (plan.tsBind).
	tsBase int64
	// stamps: the write timestamps that the logs of inputs that are error
	// files give their rows, by input name (stamps.go).
	stamps map[string][]int64

	planMu sync.Mutex
	plans  map[int]*plan // per source index (layouts differ only with headers)
	// byHeader holds the plans of files with headers by their header
	// (headerKey): files with one header share one plan, built once
	// (10,000 small files built 10,000 plans, converters and all).
	byHeader map[string]*plan
	// badHeaders holds the error of each file whose header does not fit.
	badHeaders map[int]*HeaderError
	// stmts holds each statement's caches by its text: plans of files
	// whose headers name the same columns share them, and the statement
	// is prepared once, by the first.
	stmts map[string]*stmtCache
	// statementBatches: batches go as one prepared BEGIN BATCH (exec),
	// which the driver routes by the key the loader gives, in the
	// session's keyspace. Not for tables on tablets, which it routes by
	// the table a statement names, nor for a session given in another
	// keyspace.
	statementBatches bool

	// schemaCheck: whether the table is still there when requests are
	// refused as invalid (schemacheck.go).
	schemaCheck schemaCheck

	// life decides how the run ends: aborts, interrupts, --duration
	// (lifecycle.go).
	life *lifecycle
	// insertErrors: rows of this run that could not be written, failed
	// or unknown, for MAXINSERTERRORS (write.go checkInsertErrors).
	insertErrors atomic.Int64
	busy         atomic.Int64 // batches being sent or retried
	lastActivity atomic.Int64 // unix ns: a request succeeded, or none was outstanding
	files        int
	split        *SplitOf // which split of which load, with --split
	keptErrFiles []string // an earlier run's error files, renamed (runlog.ErrFiles.Keep)
	// doneErrFiles: the error files, holding rows, of the completed run
	// a --resume run found nothing left to do of.
	doneErrFiles []string
	// defaultErrFile: ERRFILE was not given, so settleErrFile may move
	// it out of the inputs' way.
	defaultErrFile bool
	// errFileOption is ERRFILE before --split adds its index.
	errFileOption string
	// red masks the run's secrets in what it writes: the error files'
	// log, the checkpoint's input names, the summary's texts.
	red *redact.Redactor
	// fresh: the run starts from the beginning, so startFresh moves the
	// earlier error files aside once the table is known.
	fresh bool
	// leftOut are listed inputs that are the run's own files (leaveOutOwn).
	leftOut   []string
	splitFind time.Duration // --split's search for record starts
	// splitSearched is the input that search read.
	splitSearched int64
	// stripes: the inputs are read as stripes (stripes.go); nil when
	// they are read in order.
	stripes *stripes
}

// Redactor returns the redactor of a run with o: it masks o.Password and
// the passwords of o.Files' URLs (those of endpoint= parameters
// included), and any URL's password, in whatever text passes through it.
// The CLI passes its output through one made alike.
func Redactor(o *Options) *redact.Redactor {
	r := redact.New(o.Password)
	r.AddURLs(o.Files...)
	return r
}

// defaultErrFileName is cqlsh's ERRFILE: import_<keyspace>_<table>.err in
// the working directory. The names are the cluster's, and a quoted one
// may hold anything: "a/../../x" put the file in another directory, and a
// control character reached the terminal in every message naming it. So
// each name is made a plain part of one file name (fileNamePart).
func defaultErrFileName(o *Options) string {
	return fmt.Sprintf("import_%s_%s.err", fileNamePart(o.Keyspace), fileNamePart(o.Table))
}

// fileNamePart makes s safe as part of a file name on every system, and
// still readable: path separators, characters Windows refuses in names
// (: * ? " < > |), control characters and ".." each become "_". Names
// made of letters, digits and underscores, as unquoted CQL names are,
// are left as they are.
func fileNamePart(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) || r == utf8.RuneError || strings.ContainsRune(`/\:*?"<>|`, r) {
			r = '_'
		}
		b.WriteRune(r)
	}
	return strings.ReplaceAll(b.String(), "..", "_")
}

// New checks the options and returns a Loader ready to Run.
func New(opts Options) (*Loader, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	defaultErrFile := opts.ErrFile == ""
	if defaultErrFile {
		opts.ErrFile = defaultErrFileName(&opts)
	}
	errFileOption := opts.ErrFile
	if opts.SplitCount > 1 {
		// One error file per split: the split's index before the
		// extension, so that N runs in one directory do not collide.
		ext := filepath.Ext(opts.ErrFile)
		opts.ErrFile = fmt.Sprintf("%s.%d%s", strings.TrimSuffix(opts.ErrFile, ext), opts.SplitIndex, ext)
	}
	// A device, a directory or a pipe where files are replaced is named
	// as such before CheckCreatable looks at it.
	if err := checkReplaceable(outputFiles(&opts)); err != nil {
		return nil, err
	}
	if err := checkDistinct(outputFiles(&opts)); err != nil {
		return nil, err
	}
	if err := CheckCreatable(opts.ErrFile); err != nil {
		return nil, fmt.Errorf("ERRFILE %s: %w", opts.ErrFile, err)
	}
	// The other outputs the run may create, checked as ERRFILE is: a
	// RATEFILE that could not be opened stopped the run once loading.
	for _, out := range []struct{ what, path string }{{"--resume", opts.Resume}, {"RATEFILE", opts.RateFile}, {"HISTOGRAMLOG", opts.HistogramLog}} {
		if out.path == "" {
			continue
		}
		if err := CheckCreatable(out.path); err != nil {
			return nil, fmt.Errorf("%s %s: %w", out.what, out.path, err)
		}
	}
	l := &Loader{opts: opts, plans: map[int]*plan{}, errs: runlog.NewErrFiles(opts.ErrFile, opts.Dialect), life: newLifecycle(), defaultErrFile: defaultErrFile, errFileOption: errFileOption}
	l.red = Redactor(&opts)
	l.errs.Red = l.red
	l.ledger = newLedger(l.errs)
	l.ledger.release = l.release
	l.ledger.stamp = l.stampOf
	l.ledger.fail = func(err error) {
		// Rows whose outcome cannot be recorded must not be sent.
		l.life.abort(err.Error(), true, stopping)
	}
	// A chunk's slabs come back when it settles, often several at once.
	// New ones are made only when none is idle, so the list never raises
	// the peak; too short a one (Workers+2 was) made 1 KB loads, with
	// many small chunks in flight, drop and reallocate one slab in eight.
	l.idleSlabs = &lifo.Pool[*slabs]{Max: opts.Workers + 16}
	l.stalls = new(stall.Clock)
	l.tracker = newTracker(opts.IngestRate > 0)
	l.limits = newHostLimits(&opts, l.stalls)
	l.ledger.bytesTotal.Store(-1)
	l.opts.countWarnings = l.tracker.warn
	return l, nil
}

// Progress returns a snapshot of the run's counters; safe at any time.
func (l *Loader) Progress() Progress { return progress(l.ledger, l.tracker) }

// drainTimeout is how long an interrupted run waits for the requests it
// already sent, so that their rows are settled as written rather than
// unknown; it keeps the whole stop well inside two seconds.
const drainTimeout = time.Second

// readGrace is how long a stopping run waits for a reader blocked in I/O.
const readGrace = 300 * time.Millisecond

// Run loads all input. It returns an *AbortError (with the summary so far)
// when a limit was crossed or the run could not go on, a *ResumeError when
// --resume cannot be honoured, a *LockedError when another run holds its
// checkpoint or error file, an *InputClashError when an output is an
// input, the context's error when cancelled, and nil
// when every row was written, rejected into an error file, or skipped.
//
// No secret leaves Run: a URL's password or the run's password that a
// driver's or a store's message brings back is masked in the error's
// message and in the summary's text (the types errors.As finds are the
// same).
func (l *Loader) Run(ctx context.Context) (Summary, error) {
	sum, err := l.run(ctx)
	return maskSummary(l.red, sum), l.red.Error(err)
}

func (l *Loader) run(ctx context.Context) (Summary, error) {
	objects, err := source.ExpandObjectsConfig(ctx, l.opts.Files, l.opts.Stdin, l.opts.sourceConfig())
	if err != nil {
		return Summary{}, err
	}
	if objects, l.leftOut, err = leaveOutOwn(objects, &l.opts, l.errFileOption, l.defaultErrFile); err != nil {
		return Summary{}, err
	}
	l.order.inputs = objects
	if err := checkInputsOnce(objects); err != nil {
		return Summary{}, err
	}
	if err := l.settleErrFile(objects); err != nil {
		return Summary{}, err
	}
	if err := checkOutputs(objects, outputFiles(&l.opts)); err != nil {
		return Summary{}, err
	}
	if l.stamps, err = recordedStamps(objects, l.opts.Dialect, l.opts.SplitCount > 1); err != nil {
		return Summary{}, err
	}
	l.split = splitOf(objects, &l.opts)
	var spans []span
	// CPU time: on a busy machine the wall clock would count other
	// processes' turns.
	var searched int64
	find := cputime.Of(func() { spans, searched, err = splitSpans(objects, &l.opts) })
	if err != nil {
		return Summary{}, err
	}
	sources := spanSources(spans)
	if l.opts.SplitCount > 1 {
		l.splitFind, l.splitSearched = find, searched
		if h := splitSearchHint(searched, sources); h != "" {
			l.hints.add("split search", h)
		}
	}
	l.files = len(sources)
	if sources, err = repeatSources(sources, l.opts.Repeat); err != nil {
		return Summary{}, err
	}
	// Striped, the sources are the spans' stripes, read side by side.
	count := cputime.Of(func() { l.stripes, err = stripeSources(spans, &l.opts, len(l.stamps) > 0) })
	if err != nil {
		return Summary{}, err
	}
	interleave := 1
	if l.stripes != nil {
		sources, interleave = l.stripes.sources, l.opts.Readers
		l.stripes.counted = count
	}
	// Held until the error files and the checkpoint are closed: see
	// lock.go.
	locks, err := lockOutputs(l.opts.Resume, l.opts.ErrFile)
	if err != nil {
		return Summary{}, err
	}
	defer locks.Release()
	// The checkpoint identifies the inputs whole; the split, if any, is
	// one of the options it records.
	done, err := l.openLedger(objects)
	if err != nil || done {
		sum := l.summary()
		sum.NothingToDo = done
		return sum, err
	}
	if err := l.setup(ctx); err != nil {
		return Summary{}, err
	}
	if l.fresh {
		if err := l.startFresh(); err != nil {
			l.closeOwned()
			return Summary{}, err
		}
	}
	splitter := csvparse.NewSplitter(sources, l.opts.Dialect, l.opts.ChunkSize, l.stripes.chunkBytes())
	splitter.FlushInterval = l.opts.FlushInterval
	splitter.VerifyBuffer = l.opts.VerifyBuffer
	splitter.KeepTooLong = l.opts.MaxErrorRecordBytes
	splitter.MaxHeaderFields = l.maxHeaderFields()
	splitter.Interleave = interleave
	// MAXROWS's one-input rule belongs to the whole load: a split dealt
	// one file of several, or one file read --repeat times, is not a
	// load of one input.
	splitter.InputFiles = len(objects)
	l.ledger.bytesTotal.Store(splitter.TotalBytes())
	l.tracker.begin()
	stopStalls := l.stalls.Start()
	defer stopStalls()
	if l.opts.IngestRate > 0 {
		// The schedule starts with the load, not before connecting:
		// rows due while the driver connected would go at once.
		l.pacer = stall.NewPacer(l.opts.IngestRate, l.stalls)
	}
	l.lastActivity.Store(time.Now().UnixNano())

	readCtx, sendCtx, endLife := l.life.start(ctx, l.opts.Duration)
	defer endLife()

	// The stages: read → convert (and batch) → write; the ledger settles.
	// Unbuffered: the reader holds the next chunk ready, and reading a
	// chunk takes a fraction of converting it. Each chunk buffered here
	// kept another half block of input alive.
	chunks := make(chan *chunkRecord)
	// A short queue in front of the dispatcher is enough to keep the
	// senders busy: the dispatcher's own queues hold the backlog, and a
	// worker adds a whole chunk's batches at a time. Each queued batch
	// pins its chunk's input block and slabs: a longer queue kept more
	// RSS on 1 KB rows for the same rows/s and CPU (docs/benchmarks.md).
	batches := make(chan *batch, max(l.opts.MaxInFlight/16, 1))
	ready := make(chan *batch)
	var g errgroup.Group
	rd := l.startReader(readCtx, splitter, sources, chunks)
	var workers sync.WaitGroup
	for range l.opts.Workers {
		workers.Add(1)
		g.Go(func() error {
			defer workers.Done()
			return l.convertLoop(chunks, rd.abandoned, batches)
		})
	}
	g.Go(func() error {
		workers.Wait()
		close(batches)
		return nil
	})
	// The dispatcher holds batches back per coordinator until its
	// in-flight limit lets them go; MaxInFlight senders execute them.
	// It charges no batch to a node the driver holds down, from the first.
	stopHostStates := l.followHostStates()
	l.dispatch = newDispatcher(l, batches, ready, max(l.opts.MaxInFlight/2, 16))
	g.Go(func() error {
		l.dispatch.run()
		return nil
	})
	for range l.opts.MaxInFlight {
		g.Go(func() error {
			ctx := stall.NewAttempts(sendCtx, l.stalls, gocql.ErrTimeoutNoResponse)
			defer ctx.Close()
			for b := range ready {
				l.send(ctx, b)
			}
			return nil
		})
	}
	stopWatch := stall.Every(time.Second, l.watchCluster)
	stopFinish := stall.Every(finishCheck, l.checkFinishing)
	stopReports := l.startReports()
	stopTablets := l.followTablets()
	stopCheckpoints := l.saveCheckpoints()
	runErr := g.Wait()
	rd.finish(splitter, chunks, l.notSentChunk)
	stopWatch()
	stopFinish()
	stopReports()
	stopTablets()
	stopCheckpoints()
	stopHostStates()

	if err := l.closeLedger(ctx); err != nil && runErr == nil {
		runErr = err
	}
	l.closeOwned()
	l.tracker.end.Store(time.Now().UnixNano())
	l.counterRerunHint()
	l.maxRowsHint()
	sum := l.summary()
	if runErr != nil {
		return sum, runErr
	}
	sum.Aborted, err = l.life.outcome(ctx)
	return sum, err
}

// closeLedger writes the final checkpoint, then the rows a resumed run
// loads again (after it, beyond the lengths it records), and closes the
// error files.
func (l *Loader) closeLedger(ctx context.Context) error {
	complete := l.life.complete(ctx) &&
		l.ledger.notSent.Load() == 0 && (l.table.Counter || l.ledger.unknown.Load() == 0)
	var errs []error
	if cp := l.ledger.cp; cp != nil {
		err := cp.save(complete)
		if err == nil && complete {
			// A completed run leaves nothing in doubt.
			err = l.ledger.journal.Remove()
		} else if cerr := l.ledger.journal.Close(); err == nil {
			err = cerr
		}
		errs = append(errs, err)
	}
	errs = append(errs, l.ledger.finish(), l.errs.Close())
	return errors.Join(errs...)
}

// openLedger prepares the error files and, with --resume, the checkpoint:
// it reports done when the checkpoint records a completed run of the same
// input, so that a job run again never loads twice.
func (l *Loader) openLedger(objects []source.Object) (done bool, err error) {
	l.tsBase = time.Now().UnixMicro()
	if l.opts.Resume == "" {
		l.fresh = true
		return false, nil
	}
	ids, err := identify(objects)
	if err != nil {
		return false, err
	}
	// The checkpoint names the inputs: an object's URL may hold a
	// password (endpoint=http://user:PASS@host). Masked here, where they
	// are compared with a stopped run's, which were masked alike.
	for i := range ids {
		ids[i].Path = l.red.String(ids[i].Path)
	}
	shape := shapeOptions(&l.opts, l.stripes.chunkBytes())
	if l.stripes != nil {
		// Whether the inputs are striped decides the chunks as the
		// options do: a run that could not count them first (an input
		// unreadable then) reads them in order, and must not take the
		// settled chunks of a striped run for its own.
		shape["stripes"] = strconv.Itoa(len(l.stripes.sources))
	}
	action, prev, err := decideResume(l.opts.Resume, ids, shape)
	if err != nil {
		return false, err
	}
	if action == runlog.Resume && prev.TimestampBase != 0 {
		// The stopped run's: rows stamped as it would have stamped them,
		// so that of rows with one key the later in the input still
		// wins, whichever run sent each.
		l.tsBase = prev.TimestampBase
	}
	base := runlog.Checkpoint{Version: runlog.Version, Inputs: ids, Options: shape, TimestampBase: l.tsBase}
	l.ledger.cp = newCheckpointer(l.opts.Resume, base, l.ledger)
	l.ledger.journal = runlog.NewJournal(l.opts.Resume + ".sent")
	switch action {
	case runlog.NothingToDo:
		l.ledger.resumed.Store(prev.RowsDone)
		l.ledger.bytesTotal.Store(0)
		// A job run again after it finished with rejected rows must not
		// report success: the rows are still not in the table.
		for _, e := range prev.ErrFiles {
			if e.Rows > 0 {
				l.doneErrFiles = append(l.doneErrFiles, e.Path)
			}
		}
		return true, nil
	case runlog.Resume:
		return false, l.ledger.resumeFrom(prev)
	}
	l.fresh = true
	return false, nil
}

// startFresh moves an earlier run's error files aside and, with
// --resume, replaces its checkpoint, for a run that starts from the
// beginning. Run calls it once the table is known to exist: a run that
// names a table there is not (a typo) must leave last night's rejected
// rows where they were.
func (l *Loader) startFresh() error {
	var err error
	if l.keptErrFiles, err = l.errs.Keep(time.Now()); err != nil {
		return err
	}
	if l.ledger.cp == nil {
		return nil
	}
	if err := l.ledger.journal.Remove(); err != nil {
		return err
	}
	// The new run's checkpoint replaces the old one at once: a completed
	// run of other input must not make this one look finished.
	return l.ledger.cp.save(false)
}

func (l *Loader) summary() Summary {
	p := l.Progress()
	s := Summary{Progress: p, Files: l.files, ElapsedS: p.Elapsed.Seconds()}
	s.Latency, s.LatencyRaw = l.tracker.latency()
	s.LatencyHistogram = l.tracker.encodedLatency()
	s.Split = l.split
	s.PreviousErrFiles = l.keptErrFiles
	s.InputsLeftOut = l.leftOut
	if l.stripes != nil {
		s.Stripes, s.StripeCountS = len(l.stripes.sources), l.stripes.counted.Seconds()
	}
	s.SplitFindS = l.splitFind.Seconds()
	s.SplitFindBytes = l.splitSearched
	s.StartedAt = time.Unix(0, l.tracker.start.Load()).UTC()
	s.EndedAt = s.StartedAt.Add(p.Elapsed)
	s.ErrorResponses = l.tracker.errors.Load()
	s.Adaptive, s.Limits = l.opts.Adaptive, l.Limits()
	if n := s.ErrorResponses + p.Requests; n > 0 {
		s.ErrorShare = float64(s.ErrorResponses) / float64(n)
	}
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
	s.Hints = l.hints.all()
	s.Reasons, s.OtherReasonRows = l.ledger.reasons.snapshot()
	s.DryRun = l.opts.DryRun
	s.ErrFiles = l.errs.Used()
	if len(s.ErrFiles) == 0 {
		s.ErrFiles = l.doneErrFiles
	}
	if len(s.ErrFiles) > 0 {
		s.ErrFile, s.ErrLog = s.ErrFiles[0], l.errs.Path()+".log"
		s.ErrLogs = []string{s.ErrLog}
	}
	return s
}

// setup connects (unless given a session), reads the table and the ring.
func (l *Loader) setup(ctx context.Context) error {
	l.session = l.opts.Session
	if l.session == nil {
		s, err := ConnectContext(ctx, l.opts)
		if err != nil {
			return err
		}
		l.session, l.owned = s, true
	}
	// The names as stored, exactly: LoadTable would take a bare "Ks" for
	// ks first, and a load into "Ks"."T" went into ks.t where both exist.
	t, err := schema.LoadTable(l.session, schema.QuoteIdent(l.opts.Keyspace), schema.QuoteIdent(l.opts.Table))
	if err != nil {
		l.closeOwned()
		return err
	}
	l.table = t
	if t.Counter && l.usingNamed() > 0 {
		l.closeOwned()
		return errCounterUsing
	}
	r, err := loadRing(l.session, l.opts.Keyspace, l.opts.LocalDC)
	if err != nil {
		l.closeOwned()
		return err
	}
	l.tokens.Store(r)
	if r.Shards > 0 {
		shard.AwaitPools(ctx, l.session, l.opts.ConnectTimeout)
	}
	q := l.session.Query("")
	l.statementBatches = q.Keyspace() == l.opts.Keyspace && !tabletsInUse(l.session, l.opts.Keyspace, l.opts.Table)
	q.Release()
	if !l.opts.Dialect.Header || len(l.opts.Columns) > 0 {
		// One layout for every file: check it before reading anything.
		if _, err := l.planFor(-1, "", nil, 0); err != nil {
			l.closeOwned()
			return err
		}
	}
	return ctx.Err()
}

// sessionCloseTimeout bounds closing the session: gocql's Close waits on
// the control connection's goroutine, which a node that accepts TCP but
// answers nothing (paused, frozen) can block for as long as it lasts.
const sessionCloseTimeout = 300 * time.Millisecond

// closeOwned closes the session if Run opened it, waiting at most
// sessionCloseTimeout: a session still closing then is left to finish on
// its own (or to the process's exit), so that a stop never waits on the
// cluster.
func (l *Loader) closeOwned() {
	if !l.owned {
		return
	}
	l.owned = false
	done := make(chan struct{})
	go func() {
		defer close(done)
		l.session.Close()
	}()
	select {
	case <-done:
	case <-time.After(sessionCloseTimeout):
	}
}

// maxHeaderSkipped is how many fields a header may have besides the
// table's columns when SKIPCOLS is given: a skipped name may repeat.
const maxHeaderSkipped = 1024

// maxHeaderFields bounds the fields of a header that can fit the table:
// one a column, those of the rows' write times and TTLs, and with
// SKIPCOLS maxHeaderSkipped more. The splitter
// keeps no more names than that, so a header that is a line of
// delimiters costs no more memory than any other line.
func (l *Loader) maxHeaderFields() int {
	n := len(l.table.Columns) + l.usingNamed()
	if len(l.opts.SkipCols) > 0 {
		n += maxHeaderSkipped
	}
	return n
}

// usingNamed is how many fields the options name to give the rows'
// write times and TTLs.
func (l *Loader) usingNamed() int {
	n := 0
	for _, f := range []string{l.opts.WriteTimeField, l.opts.TTLField} {
		if f != "" {
			n++
		}
	}
	return n
}

// planFor returns the statement and field mapping for a file: the same
// for all files unless they map columns by header name. headerFields is
// the header's field count (csvparse.Chunk.HeaderFields).
//
// A file whose header does not fit the table (file names it) gets a
// *HeaderError, the same for each of its chunks. The first also writes
// the reason once to the error log, as a line "FILE: header: REASON",
// before any of the file's rows can be logged (their chunks wait here):
// the rows' own lines only refer to it. Repeated on each row, a header's
// list of unknown names made a 62 KB file a 69 MB log.
func (l *Loader) planFor(source int, file string, header []string, headerFields int) (*plan, error) {
	key := source
	if l.stripes != nil && source >= 0 {
		key = l.stripes.first[source] // a file's stripes share its header
	}
	byHeader := l.opts.Dialect.Header && len(l.opts.Columns) == 0
	if !byHeader {
		key = -1
	}
	l.planMu.Lock()
	defer l.planMu.Unlock()
	if p, ok := l.plans[key]; ok {
		return p, nil
	}
	if err, ok := l.badHeaders[key]; ok {
		return nil, err
	}
	hkey := ""
	if byHeader && headerFields <= len(header) {
		hkey = headerKey(header)
		if p, ok := l.byHeader[hkey]; ok {
			l.plans[key] = p
			return p, nil
		}
	}
	var cols []*schema.Column
	var using usingFields
	var err error
	if byHeader && headerFields > len(header) {
		why := fmt.Sprintf("its %d columns", len(l.table.Columns))
		if n := l.usingNamed(); n > 0 {
			why += fmt.Sprintf(", %d for --writetime-field and --ttl-field", n)
		}
		if len(l.opts.SkipCols) > 0 {
			why += fmt.Sprintf(", and %d more for SKIPCOLS names", maxHeaderSkipped)
		}
		err = fmt.Errorf("it has %d fields, more than the %d that can fit %s.%s (%s)",
			headerFields, l.maxHeaderFields(), l.table.Keyspace, l.table.Name, why)
	} else {
		cols, using, err = l.fileColumns(byHeader, header)
	}
	var p *plan
	if err == nil {
		p, err = newPlan(l.table, cols, using, &l.opts)
	}
	if err != nil {
		if !byHeader {
			return nil, err
		}
		herr := &HeaderError{File: file, Err: err}
		if l.badHeaders == nil {
			l.badHeaders = map[int]*HeaderError{}
		}
		l.badHeaders[key] = herr
		// A log that cannot be written fails the first row's write,
		// which stops the run.
		_ = l.errs.Note(fmt.Sprintf("%s: header: %v", termsafe.Name(file), runlog.OneLine(herr.Error())))
		return nil, herr
	}
	if c, ok := l.stmts[p.stmt]; ok {
		p.cache = c
	} else {
		if l.stmts == nil {
			l.stmts = map[string]*stmtCache{}
		}
		l.stmts[p.stmt] = p.cache
		if l.statementBatches {
			l.prepareBatchStatements(p)
		}
	}
	l.plans[key] = p
	if hkey != "" {
		if l.byHeader == nil {
			l.byHeader = map[string]*plan{}
		}
		l.byHeader[hkey] = p
	}
	return p, nil
}

// headerKey is a header's fields as one string, each preceded by its
// length, so that no two headers share a key whatever their fields hold.
func headerKey(header []string) string {
	var b []byte
	for _, f := range header {
		b = binary.AppendUvarint(b, uint64(len(f)))
		b = append(b, f...)
	}
	return string(b)
}

// prepareBatchStatements prepares p's batch statement for every row count
// a batch can have on every node that is up, before any row of p is sent.
// Prepared lazily, each one would be prepared while rows are in flight, by
// whichever requests need it first, and the driver gives one failed
// prepare's error to all the requests that waited for it, which then
// write to it at once. A statement that fails to prepare here is prepared
// by its first request, as any is after a node restarts.
func (l *Loader) prepareBatchStatements(p *plan) {
	var stmts []string
	for n := 2; n <= min(l.opts.MaxBatchSize, maxBatchStatementRows); n++ {
		stmts = append(stmts, p.batchStatement(n))
	}
	var hosts []string
	for _, h := range l.session.GetHosts() {
		if h.IsUp() {
			hosts = append(hosts, h.HostID())
		}
	}
	work := make(chan [2]string)
	var wg sync.WaitGroup
	for range min(8, len(stmts)*len(hosts)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for w := range work {
				// Without values the driver prepares the statement on
				// the host, then refuses to send it: nothing is written.
				q := l.session.Query(w[0]).SetHostID(w[1])
				_ = q.Exec()
				q.Release()
			}
		}()
	}
	for _, h := range hosts {
		for _, s := range stmts {
			work <- [2]string{s, h}
		}
	}
	close(work)
	wg.Wait()
}

// usingFields are the places among a file's fields of the fields that
// give each row's write time and TTL (Options.WriteTimeField, TTLField),
// -1 for none.
type usingFields struct{ writeTime, ttl int }

// noUsing: no field gives a row's write time or TTL.
var noUsing = usingFields{-1, -1}

// fileColumns lists the table column of each field of the file (nil for a
// field dropped by SKIPCOLS, or one that gives the rows' write times or
// TTLs, whose places using gives). Header names and the column list's
// identifiers find their columns by one rule (schema.Table.Named and
// Ident): the exact name wins, and a name only case folding matches to two
// columns is an error naming both, never a guess.
func (l *Loader) fileColumns(byHeader bool, header []string) (cols []*schema.Column, using usingFields, err error) {
	var names []string
	cols = make([]*schema.Column, 0, max(len(l.opts.Columns), len(header), len(l.table.Columns)))
	what := "the column list"
	// A name's problem counts only if SKIPCOLS does not drop its field:
	// a file's extra column need not be the table's.
	problems := map[int]error{}
	switch {
	case len(l.opts.Columns) > 0:
		names = l.opts.Columns
	case byHeader:
		names, what = header, "the header"
	default:
		for _, c := range l.table.Columns {
			names = append(names, c.Name)
			cols = append(cols, c)
		}
	}
	if len(cols) == 0 {
		find := l.table.Ident
		if byHeader {
			find = l.table.Named
		}
		for i, n := range names {
			c, err := find(n)
			if err != nil {
				problems[i] = err
			}
			cols = append(cols, c)
		}
	}
	skip, err := l.skippedFields(len(l.opts.Columns) > 0, names, cols)
	var errs []error
	if err != nil {
		errs = append(errs, err)
	}
	using = noUsing
	for _, u := range []struct {
		opt, name string
		at        *int
	}{{"--writetime-field", l.opts.WriteTimeField, &using.writeTime}, {"--ttl-field", l.opts.TTLField, &using.ttl}} {
		if u.name == "" {
			continue
		}
		i, err := fieldNamed(u.name, names, len(l.opts.Columns) > 0)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("%s %s: %w", u.opt, u.name, err))
		case i < 0 && !byHeader && len(l.opts.Columns) == 0:
			errs = append(errs, fmt.Errorf("%s %s: the input's fields have no names: give a header (--header) or a column list that names it", u.opt, u.name))
		case i < 0:
			errs = append(errs, fmt.Errorf("%s %s: %s names no such field", u.opt, u.name, what))
		case i == using.writeTime:
			errs = append(errs, fmt.Errorf("--ttl-field %s: the field --writetime-field names", u.name))
		default:
			*u.at = i
		}
	}
	var unknown []string
	for i, n := range names {
		switch err := problems[i]; {
		case i == using.writeTime || i == using.ttl:
			cols[i] = nil // not a column
		case skip[i]:
			cols[i] = nil
		case errors.Is(err, schema.ErrNoColumn):
			unknown = append(unknown, termsafe.Name(n)) // a header's, from the file
		case err != nil:
			errs = append(errs, fmt.Errorf("%s's name %w", what, err))
		}
	}
	if len(unknown) > 0 {
		errs = append([]error{fmt.Errorf("%s names columns that %s.%s does not have: %s", what, l.table.Keyspace, l.table.Name, strings.Join(unknown, ", "))}, errs...)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, noUsing, err
	}
	return cols, using, nil
}

// fieldNamed is the place of the field called name among the file's
// names, -1 when there is none: exactly that name, else the one equal to
// it when case is ignored (foldedName), as SKIPCOLS finds its names. Of a
// column list (idents), names are compared unquoted; a "quoted" name
// matches only exactly.
func fieldNamed(name string, names []string, idents bool) (int, error) {
	exact, quoted := schema.UnquoteIdent(name)
	if !quoted {
		exact = name
	}
	plain := make([]string, len(names))
	found := -1
	for i, n := range names {
		if u, ok := schema.UnquoteIdent(n); ok && idents {
			n = u
		}
		plain[i] = n
		switch {
		case n == exact && found >= 0:
			return -1, fmt.Errorf("two fields are named %s", schema.QuoteIdent(exact))
		case n == exact:
			found = i
		}
	}
	if found >= 0 || quoted {
		return found, nil
	}
	return foldedName(exact, plain)
}

// foldedName is the place of the one name of names equal to name when
// case is ignored, -1 when there is none; two or more are an error
// naming them, never a guess.
func foldedName(name string, names []string) (int, error) {
	var folded []int
	for i, n := range names {
		if strings.EqualFold(n, name) {
			folded = append(folded, i)
		}
	}
	switch len(folded) {
	case 0:
		return -1, nil
	case 1:
		return folded[0], nil
	}
	var both []string
	for _, i := range folded {
		both = append(both, schema.QuoteIdent(names[i]))
	}
	return -1, fmt.Errorf("matches %s only when case is ignored (write the name exactly as one of them)", strings.Join(both, " and "))
}

// skippedFields says which of the file's fields SKIPCOLS drops. A SKIPCOLS
// name finds the file's names by the rule that finds columns: the fields
// of exactly that name; failing that, the one name equal to it when case
// is ignored (two such names are an error naming both); failing that, the
// fields of the table column it names. A "quoted" name matches exactly.
// cqlsh compares the column list's names unquoted: SKIPCOLS='Val' skips
// a quoted "Val" of the list. A name of neither is ignored, as in cqlsh.
func (l *Loader) skippedFields(idents bool, names []string, cols []*schema.Column) (map[int]bool, error) {
	skip := map[int]bool{}
	if len(l.opts.SkipCols) == 0 {
		return skip, nil
	}
	// The names as written in the file or the list, unquoted.
	plain := make([]string, len(names))
	for i, n := range names {
		plain[i] = n
		if u, ok := schema.UnquoteIdent(n); ok && idents {
			plain[i] = u
		}
	}
	var errs []error
	for _, s := range l.opts.SkipCols {
		exact, quoted := schema.UnquoteIdent(s)
		if !quoted {
			exact = s
		}
		found := false
		for i, n := range plain {
			if n == exact {
				skip[i], found = true, true
			}
		}
		if !found && !quoted {
			i, err := foldedName(s, plain)
			switch {
			case err != nil:
				errs = append(errs, fmt.Errorf("SKIPCOLS name %s %w", s, err))
				found = true
			case i >= 0:
				skip[i], found = true, true
			}
		}
		if found {
			continue
		}
		if c, err := l.table.Named(s); err == nil {
			for i, fc := range cols {
				if fc == c {
					skip[i] = true
				}
			}
		}
	}
	return skip, errors.Join(errs...)
}

// followTablets refreshes the ring from the driver's tablet map while the
// run lasts, when the table uses tablets (ScyllaDB): the driver learns
// tablets from responses, so the map fills in as the load goes.
func (l *Loader) followTablets() (stop func()) {
	if !tabletsInUse(l.session, l.opts.Keyspace, l.opts.Table) {
		return func() {}
	}
	refresh := func() {
		if r := loadTabletRing(l.session, l.opts.Keyspace, l.opts.Table, l.opts.LocalDC); r != nil {
			l.tokens.Store(r)
		}
	}
	refresh()
	return stall.Every(time.Second, refresh)
}

// followHostStates keeps the dispatcher's set of the hosts the driver
// holds down (hostLimits.down) while the run lasts, looking every
// rerouteCheck.
func (l *Loader) followHostStates() (stop func()) {
	refresh := func() {
		down := map[string]bool{}
		for _, h := range l.session.GetHosts() {
			if !h.IsUp() {
				down[h.HostID()] = true
			}
		}
		l.limits.setDown(down)
	}
	refresh()
	return stall.Every(rerouteCheck, refresh)
}

// saveCheckpoints runs the checkpoint writer while the run lasts.
func (l *Loader) saveCheckpoints() (stop func()) {
	cp := l.ledger.cp
	if cp == nil {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		cp.run(done)
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}
