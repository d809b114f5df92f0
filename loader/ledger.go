package loader

import (
	"fmt"
	"math"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cqlload/cqlload/csvparse"
	"github.com/cqlload/cqlload/loader/internal/runlog"
)

// The ledger is the one place that decides when a chunk is done. Every
// chunk has a record in it from the moment it is read; every row of the
// chunk gets one outcome (written, rejected, unknown, not sent, skipped).
// When the last row has its outcome and the converter has let go, the
// chunk settles, and settling is the only path to three effects, in this
// order:
//
//  1. its non-written rows are appended to the error files and the log,
//     and synced;
//  2. the checkpoint (with --resume) may name the chunk as settled, with
//     the error files' lengths of that moment;
//  3. its memory (input block, slabs) is released.
//
// Progress and the summary read their row counts from here.
type ledger struct {
	errs    *runlog.ErrFiles
	cp      *checkpointer   // nil without --resume
	journal *runlog.Journal // counter updates about to be sent; nil without --resume
	// release recycles a settled chunk's memory.
	release func(*chunkRecord)
	// fail stops the run when an error file or the checkpoint cannot be
	// written: going on would lose rows.
	fail func(error)
	// stamp gives record i of a chunk its write timestamp, which the log
	// records with the row (Loader.stampOf).
	stamp func(cr *chunkRecord, i int) int64

	// Row counts by outcome, and input bytes whose rows have outcomes.
	read, written, skipped, failedParse, failedInsert atomic.Int64
	unknown, notSent, resumed, bytesDone              atomic.Int64
	dryRun, byDuration                                atomic.Int64
	bytesTotal                                        atomic.Int64
	// reasons counts the rows not written by reason, for the summary.
	reasons reasonTable

	mu sync.Mutex
	// settled holds the settled chunks (with an earlier run's, when
	// resumed), for the checkpoint.
	settled settledChunks
	// prior is what a resumed run's checkpoint settled.
	prior runlog.Ranges
	// inDoubt: counter chunks with updates sent and not settled.
	inDoubt map[int64]*chunkRecord
	// priorDoubt: an earlier run's in-doubt chunks, by sequence number.
	priorDoubt map[int64]priorDoubt
	// priorSentBelow: on a resumed run, the chunks below it may have had
	// rows sent by the stopped run (runlog.Checkpoint.SentBelow).
	priorSentBelow int64
	// sentBelow is the checkpoint's SentBelow: no insert chunk at or
	// past it has been sent. durableBelow is the value a saved checkpoint
	// holds; sendingInsert moves both, one at a time (frontierMu).
	sentBelow    int64
	durableBelow atomic.Int64
	frontierMu   sync.Mutex
	// tail: rows of chunks that a resumed run loads again (some row was
	// not sent). With a checkpoint they are written after the last one,
	// beyond the lengths it records, so that the resumed run's cut
	// removes them.
	tail     []reject
	tailKeep []*csvparse.Chunk // chunks whose long records the tail streams
	rowsDone int64
}

// priorDoubt is what an earlier run knew of a counter chunk it had sent
// updates of: which records were acknowledged and which were proved not
// applied (so may be sent).
type priorDoubt struct{ acked, sendable, sent runlog.Bitmap }

// mayResend says whether record i of a chunk the stopped run had in doubt
// can be sent without risk of counting it twice: it was never sent, or
// was refused.
func (pd *priorDoubt) mayResend(i int) bool {
	return !pd.sent.Has(i) || pd.sendable.Has(i)
}

// chunkRecord is one chunk's entry in the ledger.
type chunkRecord struct {
	seq     int64
	source  int
	file    string
	records int
	// ordinal is the input's count of records before this chunk: the
	// write timestamp of its record i is the run's base plus ordinal + i,
	// or stamps[i] when its file is an error file whose log gives them
	// (stamps.go).
	ordinal int64
	stamps  []int64
	// ownBytes is the input this chunk accounts for in percent done: its
	// own records (and what precedes them in the file), not what the
	// reader had read ahead when it cut the chunk.
	ownBytes int64
	header   int // error file index (runlog.ErrFiles.FileFor)
	chunk    *csvparse.Chunk
	slabs    *slabs // where its converted rows live (slabs.go)
	counter  bool
	// priorSent: an insert chunk the run this one resumed may have sent
	// rows of: a row of it the cluster refuses may be in the table.
	priorSent bool

	pending  atomic.Int64 // rows without an outcome, plus the converter's hold
	outcomes atomic.Int64

	mu      sync.Mutex
	rejects []reject
	// incomplete: the input's failure cut the chunk short, or some row
	// was not sent (or, for inserts, may not have been applied); a
	// resumed run loads the chunk again.
	incomplete bool
	// For counter chunks with a checkpoint, from the first update sent
	// (nil before): the records acknowledged, those proved not applied,
	// and those sent.
	acked, sendable, sent runlog.Bitmap
	// prior, on a resumed run, is what the stopped run knew of this
	// chunk's counter updates; nil when it sent none.
	prior *priorDoubt
}

func newLedger(errs *runlog.ErrFiles) *ledger {
	return &ledger{errs: errs, settled: settledChunks{ahead: map[int64]struct{}{}}, inDoubt: map[int64]*chunkRecord{}}
}

// open registers a chunk as it is read. ownBytes is its share of the
// input for percent done.
func (lg *ledger) open(c *csvparse.Chunk, ownBytes int64, header int, counter bool) *chunkRecord {
	// A chunk the input's failure cut short is not the chunk of that
	// number a resumed run reads, which holds more records: it must not
	// be settled, or the resumed run would skip those.
	cr := &chunkRecord{seq: c.Seq, source: c.Source, file: c.File, records: c.Records, ownBytes: ownBytes,
		header: header, chunk: c, counter: counter, incomplete: c.CutShort, priorSent: !counter && c.Seq < lg.priorSentBelow}
	cr.pending.Store(int64(c.Records) + 1)
	if pd, ok := lg.priorDoubt[c.Seq]; ok {
		cr.prior = &pd
	}
	return cr
}

// settledBefore says whether an earlier run settled the chunk.
func (lg *ledger) settledBefore(seq int64) bool { return lg.prior.Has(seq) }

// skipResumed accounts for a chunk an earlier run settled: none of its
// rows is read again.
func (lg *ledger) skipResumed(cr *chunkRecord) {
	lg.resumed.Add(int64(cr.records + cr.chunk.Skipped))
	lg.bytesDone.Add(cr.ownBytes)
	cr.chunk.Release()
}

// readRows counts a chunk's rows as read, with those SKIPROWS dropped
// while it was cut, which are skipped by an option.
func (lg *ledger) readRows(cr *chunkRecord) {
	sk := int64(cr.chunk.Skipped)
	// Resolved counts first, so that a snapshot never shows more rows
	// resolved than read.
	lg.read.Add(int64(cr.records) + sk)
	lg.skipped.Add(sk)
}

// written accounts for rows the cluster acknowledged.
func (lg *ledger) wrote(cr *chunkRecord, rows []*row) {
	if cr.acked != nil {
		idx := make([]int32, len(rows))
		cr.mu.Lock()
		for i, r := range rows {
			cr.acked.Set(int(r.idx))
			idx[i] = r.idx
		}
		cr.mu.Unlock()
		if lg.journal != nil {
			// Not waited for: an acknowledgement that is lost only
			// makes its rows unknown, never counts them twice.
			lg.journal.Ack(cr.seq, idx)
		}
	}
	lg.written.Add(int64(len(rows)))
	lg.resolve(cr, len(rows))
}

// skipDone accounts for rows of a chunk that an earlier run wrote (counter
// updates it had acknowledged): they are skipped, not sent again.
func (lg *ledger) skipDone(cr *chunkRecord, n int) {
	lg.skipped.Add(int64(n))
	lg.resolve(cr, n)
}

// notSentDryRun accounts for rows a dry run would have written: skipped.
func (lg *ledger) notSentDryRun(cr *chunkRecord, n int) {
	lg.dryRun.Add(int64(n))
	lg.skipDone(cr, n)
}

// notSentByDuration accounts for rows read but not sent because the run's
// --duration ended: skipped by option, not failures.
func (lg *ledger) notSentByDuration(cr *chunkRecord, n int) {
	lg.byDuration.Add(int64(n))
	lg.skipDone(cr, n)
}

// reject records a row that was not written, with its reason. kind says
// how: rejectedParse, rejectedInsert, unknown or notSent. The count of
// rows so far with that outcome is returned, for the error limits.
func (lg *ledger) reject(cr *chunkRecord, kind outcome, r reject, sendable bool) int64 {
	r.kind, r.header = kind, cr.header
	if kind == notSent && cr.priorSent {
		// "Not sent" is this run's; the table may hold the row all the
		// same, and whoever reads the error file should know.
		r.reason += "; the run this one resumed may have written it"
	}
	lg.reasons.add(r.reason, r.group, r.where)
	if lg.stamp != nil && r.idx >= 0 {
		r.ts = lg.stamp(cr, r.idx)
	}
	cr.mu.Lock()
	cr.rejects = append(cr.rejects, r)
	if kind == notSent || kind == unknown && !cr.counter {
		cr.incomplete = true
	}
	// Only a dispatched chunk is in doubt; one never sent is loaded
	// again whole by a resumed run.
	if sendable && cr.sendable != nil && r.idx >= 0 {
		cr.sendable.Set(r.idx)
	}
	cr.mu.Unlock()
	var n int64
	switch kind {
	case rejectedParse:
		n = lg.failedParse.Add(1)
	case rejectedInsert:
		n = lg.failedInsert.Add(1)
	case unknown:
		n = lg.unknown.Add(1)
	case notSent:
		n = lg.notSent.Add(1)
	}
	lg.resolve(cr, 1)
	return n
}

// converted gives up the converter's hold: every row of the chunk is in
// a batch or has an outcome.
func (lg *ledger) converted(cr *chunkRecord) { lg.resolve(cr, 0) }

// resolve accounts n more rows of cr as having outcomes (n = 0: the
// converter's hold) and credits the matching share of the chunk's bytes.
// Each call credits the bytes between its own before and after counts, so
// the shares add up to exactly ownBytes.
func (lg *ledger) resolve(cr *chunkRecord, n int) {
	if n > 0 {
		after := cr.outcomes.Add(int64(n))
		before := after - int64(n)
		recs := int64(cr.records)
		lg.bytesDone.Add(cr.ownBytes*after/recs - cr.ownBytes*before/recs)
	}
	left := cr.pending.Add(-int64(max(n, 1)))
	if n > 0 && left == 0 && cr.outcomes.Load() != int64(cr.records) {
		panic("ledger: chunk settled with rows lacking an outcome")
	}
	if left == 0 {
		lg.settle(cr)
	}
}

// settleEmpty settles a chunk holding no records (an empty file, a file
// whose rows SKIPROWS took).
func (lg *ledger) settleEmpty(cr *chunkRecord) {
	lg.bytesDone.Add(cr.ownBytes)
	lg.settle(cr)
}

// dispatch is called before a counter chunk's first update is sent. With
// a checkpoint it records the chunk as in doubt, durably, so that a run
// killed from now on never has its updates applied twice by a resumed run.
func (lg *ledger) dispatch(cr *chunkRecord) error {
	// acked is set here only, by the chunk's converter: no lock to read.
	if lg.cp == nil || !cr.counter || cr.acked != nil {
		return nil
	}
	words := (cr.records + 63) / 64
	cr.mu.Lock()
	cr.acked, cr.sendable, cr.sent = make(runlog.Bitmap, words), make(runlog.Bitmap, words), make(runlog.Bitmap, words)
	if cr.prior != nil {
		// What the stopped run knew stays known if this one stops too.
		copy(cr.acked, cr.prior.acked)
		copy(cr.sent, cr.prior.sent)
	}
	cr.mu.Unlock()
	lg.mu.Lock()
	lg.inDoubt[cr.seq] = cr
	lg.mu.Unlock()
	return lg.cp.save(false)
}

// sending records, durably, that rows of a counter chunk are about to be
// sent, so that a resumed run knows the others were not.
func (lg *ledger) sending(cr *chunkRecord, rows []*row) error {
	if lg.journal == nil || cr.sent == nil {
		return nil
	}
	idx := make([]int32, len(rows))
	cr.mu.Lock()
	for i, r := range rows {
		idx[i] = r.idx
		cr.sent.Set(int(r.idx))
	}
	cr.mu.Unlock()
	return lg.journal.Mark(cr.seq, idx)
}

// refused records that the cluster refused rows of a counter chunk and
// applied none of them, so that a resumed run may send them (see
// runlog.Journal.Refused).
func (lg *ledger) refused(cr *chunkRecord, rows []*row) {
	if lg.journal == nil || cr.sent == nil {
		return
	}
	idx := make([]int32, len(rows))
	for i, r := range rows {
		idx[i] = r.idx
	}
	lg.journal.Refused(cr.seq, idx)
}

// settle writes a chunk's rejects, marks it settled and releases it.
func (lg *ledger) settle(cr *chunkRecord) {
	cr.mu.Lock()
	rejects, incomplete := cr.rejects, cr.incomplete
	cr.rejects = nil
	cr.mu.Unlock()
	// In the chunk's order, not the order the outcomes came in (parse
	// errors first, then batches as they finished).
	slices.SortStableFunc(rejects, func(a, b reject) int { return a.idx - b.idx })
	if incomplete && lg.cp != nil {
		// A resumed run does this chunk again: its rows go after the
		// last checkpoint. They point into the chunk, which is released
		// now, so they are copied (a long record keeps its chunk).
		keep := false
		for i := range rejects {
			rejects[i].raw = slices.Clone(rejects[i].raw)
			keep = keep || rejects[i].long != nil
		}
		lg.mu.Lock()
		lg.tail = append(lg.tail, rejects...)
		if keep {
			lg.tailKeep = append(lg.tailKeep, cr.chunk)
		}
		lg.mu.Unlock()
		if !keep {
			lg.release(cr)
		}
		return
	}
	// Writing and marking under one lock: a checkpoint taken between the
	// two would record error-file bytes of a chunk it does not name as
	// settled, and the resumed run would write those rows again.
	lg.mu.Lock()
	err := writeRejects(lg.errs, rejects)
	if err == nil && !incomplete {
		lg.settled.add(cr.seq)
		lg.rowsDone += int64(cr.records)
		delete(lg.inDoubt, cr.seq)
	}
	lg.mu.Unlock()
	lg.release(cr)
	if err != nil {
		lg.fail(err)
		return
	}
	if lg.cp != nil {
		lg.cp.kick()
	}
}

// finish writes the rows of chunks a resumed run loads again, after the
// final checkpoint.
func (lg *ledger) finish() error {
	lg.mu.Lock()
	tail, keep := lg.tail, lg.tailKeep
	lg.tail, lg.tailKeep = nil, nil
	lg.mu.Unlock()
	err := writeRejects(lg.errs, tail)
	for _, c := range keep {
		c.Release()
	}
	return err
}

// snapshot is the checkpoint's content of this moment.
func (lg *ledger) snapshot(base runlog.Checkpoint, complete bool) runlog.Checkpoint {
	lg.mu.Lock()
	defer lg.mu.Unlock()
	f := base
	f.Complete = complete
	f.Settled = lg.settled.ranges()
	f.RowsDone = lg.rowsDone
	f.ErrFiles, f.LogBytes = lg.errs.State()
	f.Saved = time.Now().UTC()
	f.InDoubt = nil
	for _, cr := range lg.inDoubt {
		cr.mu.Lock()
		f.InDoubt = append(f.InDoubt, runlog.InDoubt{Seq: cr.seq, Acked: cr.acked.String(), Sendable: cr.sendable.String(), Sent: cr.sent.String()})
		cr.mu.Unlock()
	}
	// An earlier run's in-doubt chunks stay in doubt until they settle:
	// dropping one that this run has not sent (so has not dispatched)
	// would let the next resumed run send all its updates again.
	for seq, pd := range lg.priorDoubt {
		settled := lg.settled.has(seq)
		_, redone := lg.inDoubt[seq]
		if !settled && !redone {
			f.InDoubt = append(f.InDoubt, runlog.InDoubt{Seq: seq, Acked: pd.acked.String(), Sendable: pd.sendable.String(), Sent: pd.sent.String()})
		}
	}
	slices.SortFunc(f.InDoubt, func(a, b runlog.InDoubt) int { return int(a.Seq - b.Seq) })
	if lg.journal != nil && !complete {
		f.JournalBytes = lg.journal.Durable()
	}
	below := lg.sentBelow
	f.SentBelow = &below
	return f
}

// frontierStep is how many chunks past the one about to be sent the
// checkpoint's SentBelow is moved at a time: a checkpoint write every
// thousand chunks (a few a second at most), at the price of a resumed
// run taking up to that many chunks the stopped run never sent for ones
// it may have sent.
const frontierStep = 1024

// sendingInsert is called before rows of insert chunk seq are first
// sent. Past the checkpoint's SentBelow it moves it on and writes the
// checkpoint before returning, so that a run killed at any moment leaves
// a checkpoint that covers every chunk it sent rows of (see
// runlog.Checkpoint.SentBelow). Without a checkpoint it does nothing.
func (lg *ledger) sendingInsert(seq int64) error {
	if lg.cp == nil || seq < lg.durableBelow.Load() {
		return nil
	}
	lg.frontierMu.Lock()
	defer lg.frontierMu.Unlock()
	if seq < lg.durableBelow.Load() {
		return nil
	}
	lg.mu.Lock()
	below := max(lg.sentBelow, seq+frontierStep)
	lg.sentBelow = below
	lg.mu.Unlock()
	if err := lg.cp.save(false); err != nil {
		return err
	}
	lg.durableBelow.Store(below)
	return nil
}

// resumeFrom loads an earlier run's checkpoint: its settled chunks stay
// settled, its in-doubt chunks are remembered, and its error files are
// cut back to what it recorded.
func (lg *ledger) resumeFrom(f *runlog.Checkpoint) error {
	lg.prior = f.Settled
	lg.priorSentBelow = math.MaxInt64 // an older checkpoint: any chunk
	if f.SentBelow != nil {
		lg.priorSentBelow = *f.SentBelow
	}
	lg.sentBelow = lg.priorSentBelow
	lg.durableBelow.Store(lg.priorSentBelow)
	for _, r := range f.Settled {
		for s := r[0]; s < r[1]; s++ {
			lg.settled.add(s)
		}
	}
	lg.rowsDone = f.RowsDone
	lg.priorDoubt = map[int64]priorDoubt{}
	for _, d := range f.InDoubt {
		acked, err := runlog.ParseBitmap(d.Acked)
		if err != nil {
			return &ResumeError{Reason: fmt.Sprintf("checkpoint: in-doubt chunk %d: %v", d.Seq, err)}
		}
		sendable, err := runlog.ParseBitmap(d.Sendable)
		if err != nil {
			return &ResumeError{Reason: fmt.Sprintf("checkpoint: in-doubt chunk %d: %v", d.Seq, err)}
		}
		sent, err := runlog.ParseBitmap(d.Sent)
		if err != nil {
			return &ResumeError{Reason: fmt.Sprintf("checkpoint: in-doubt chunk %d: %v", d.Seq, err)}
		}
		lg.priorDoubt[d.Seq] = priorDoubt{acked: acked, sendable: sendable, sent: sent}
	}
	if lg.journal != nil {
		// The journal knows what was sent, and acknowledged, since the
		// checkpoint was written.
		err := runlog.HoldsRecorded(lg.journal.Path(), f.JournalBytes, "the counter updates the stopped run sent",
			"put it back to resume: without it, updates sent after the checkpoint was written cannot be told from updates never sent, and sending them again would count them twice")
		if err != nil {
			return resumeError(err)
		}
		js, err := lg.journal.Reopen()
		if err != nil {
			return err
		}
		for seq, idx := range js.Acked {
			pd, ok := lg.priorDoubt[seq]
			if !ok {
				continue // settled, or never sent
			}
			for _, i := range idx {
				for len(pd.acked) <= i/64 {
					pd.acked = append(pd.acked, 0)
				}
				pd.acked.Set(i)
			}
			lg.priorDoubt[seq] = pd
		}
		for seq, idx := range js.Sent {
			pd, ok := lg.priorDoubt[seq]
			if !ok {
				// Settled, or a chunk the checkpoint never saw dispatched:
				// dispatch is recorded before the first send, so the
				// latter cannot be; be safe anyway.
				if lg.prior.Has(seq) {
					continue
				}
				pd = priorDoubt{}
			}
			for _, i := range idx {
				for len(pd.sent) <= i/64 {
					pd.sent = append(pd.sent, 0)
				}
				pd.sent.Set(i)
			}
			lg.priorDoubt[seq] = pd
		}
		// Refused since the checkpoint recorded them sent, and not sent
		// again: never applied, so sent now.
		for seq, idx := range js.Refused {
			if pd, ok := lg.priorDoubt[seq]; ok {
				for _, i := range idx {
					pd.sent.Clear(i)
				}
			}
		}
	}
	return resumeError(lg.errs.Restore(f.ErrFiles, f.LogBytes))
}

// checkpointer writes the checkpoint: after chunks settle (at most one
// write at a time, coalescing the settles that arrive meanwhile), once a
// second for the counter chunks' acknowledgements, before a counter chunk
// is first sent, and at the end.
type checkpointer struct {
	path string
	base runlog.Checkpoint
	lg   *ledger
	sync func(*os.File) error

	kicks chan struct{}
	mu    sync.Mutex // one write at a time
	err   error
}

func newCheckpointer(path string, base runlog.Checkpoint, lg *ledger) *checkpointer {
	return &checkpointer{path: path, base: base, lg: lg, sync: (*os.File).Sync, kicks: make(chan struct{}, 1)}
}

func (cp *checkpointer) kick() {
	select {
	case cp.kicks <- struct{}{}:
	default:
	}
}

// save writes the checkpoint now.
func (cp *checkpointer) save(complete bool) error {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if cp.err != nil {
		return cp.err
	}
	f := cp.lg.snapshot(cp.base, complete)
	if err := f.Save(cp.path, cp.sync); err != nil {
		cp.err = err
		return err
	}
	return nil
}

// run writes the checkpoint when kicked or every second, until stop is
// closed.
func (cp *checkpointer) run(stop <-chan struct{}) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-cp.kicks:
		case <-t.C:
		}
		if err := cp.save(false); err != nil {
			cp.lg.fail(err)
			return
		}
	}
}

// settledChunks is a set of chunk sequence numbers kept as the prefix
// every chunk below which is settled, plus the settled chunks beyond it:
// chunks settle nearly in order, so the set stays small however long the
// load.
type settledChunks struct {
	next  int64
	ahead map[int64]struct{}
}

func (s *settledChunks) add(seq int64) {
	if seq < s.next {
		return
	}
	s.ahead[seq] = struct{}{}
	for {
		if _, ok := s.ahead[s.next]; !ok {
			return
		}
		delete(s.ahead, s.next)
		s.next++
	}
}

func (s *settledChunks) has(seq int64) bool {
	_, ok := s.ahead[seq]
	return seq < s.next || ok
}

// ranges lists the set as [from, to) ranges, in order.
func (s *settledChunks) ranges() [][2]int64 {
	seqs := make([]int64, 0, len(s.ahead))
	for q := range s.ahead {
		seqs = append(seqs, q)
	}
	slices.Sort(seqs)
	var out [][2]int64
	if s.next > 0 {
		out = append(out, [2]int64{0, s.next})
	}
	return append(out, runlog.RangesOf(seqs)...)
}
