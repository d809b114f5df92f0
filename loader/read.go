package loader

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/cqlload/cqlload/csvparse"
	"github.com/cqlload/cqlload/internal/termsafe"
)

// reader runs read on its own goroutine. It is the one stage that can
// block where no context reaches: a read of stdin or a FIFO with no data,
// the open of a FIFO with no writer. Once reading should stop it gets
// readGrace; a reader still blocked then is abandoned (its goroutine and
// the splitter are left to the process's exit), so that a stop never
// waits on a producer. Rows it has not handed out were never read.
//
// An abandoned reader may still return from its blocked read, and a slow
// one (a busy machine) may only seem blocked. gate orders its ledger work
// with finish: once finish has closed it, the reader counts nothing more
// and hands nothing out, so the summary never misses a chunk read after
// it was taken.
type reader struct {
	done      chan struct{}
	abandoned chan struct{} // closed when the reader is given up on
	gate      sync.Mutex
	closed    bool // under gate: the run is done with the reader
}

func (l *Loader) startReader(ctx context.Context, s *csvparse.Splitter, sources []csvparse.Source, out chan *chunkRecord) *reader {
	rd := &reader{done: make(chan struct{}), abandoned: make(chan struct{})}
	go func() {
		defer close(rd.done)
		_ = l.read(ctx, rd, s, sources, out)
	}()
	go func() {
		select {
		case <-rd.done:
			return
		case <-ctx.Done():
		}
		select {
		case <-rd.done:
		case <-time.After(readGrace):
			close(rd.abandoned)
		}
	}()
	return rd
}

// finish, once the converters have stopped, closes the splitter, or, if
// the reader was abandoned, settles as not sent the chunks it had handed
// out that no converter took (it hands out no more: its context is done).
func (rd *reader) finish(s *csvparse.Splitter, chunks chan *chunkRecord, notSent func(*chunkRecord)) {
	rd.gate.Lock()
	rd.closed = true
	rd.gate.Unlock()
	select {
	case <-rd.done:
		s.Close()
		return
	default:
	}
	for {
		select {
		case cr := <-chunks:
			if cr == nil {
				return
			}
			notSent(cr)
		default:
			return
		}
	}
}

// read is the only goroutine doing input I/O: it cuts chunks, enters each
// in the ledger and hands it to the converters.
func (l *Loader) read(ctx context.Context, rd *reader, s *csvparse.Splitter, sources []csvparse.Source, out chan<- *chunkRecord) error {
	defer close(out)
	errFileOf := map[int]int{} // source → error file
	// owns holds each source's share of percent done, while it is read.
	owns := map[int]*ownBytes{}
	// next holds, for each source being read, the ordinal of its next
	// chunk's first record: the input's records before it, those of
	// chunks an earlier run settled included, for write timestamps. The
	// same in every run of the input. Sources read one after another
	// count from where the one before ended; stripes read side by side
	// from the count the load made before (stripes.bases).
	next := map[int]int64{}
	var ordinal int64
	// Of a file with recorded write timestamps, the records before a
	// chunk: where its stamps begin.
	fileSource, inFile := -1, 0
	// enter counts chunk c in the ledger and hands it out, or settles it;
	// it reports whether reading is over.
	enter := func(c *csvparse.Chunk) (over bool) {
		rd.gate.Lock()
		defer rd.gate.Unlock()
		if rd.closed {
			return true // abandoned: the run ended without this chunk
		}
		h, ok := errFileOf[c.Source]
		if !ok {
			h = l.errs.FileFor(l.headerLine(c))
			errFileOf[c.Source] = h
		}
		own := owns[c.Source]
		if own == nil {
			own = &ownBytes{decoded: c.DecodedSize}
			owns[c.Source] = own
		}
		cr := l.ledger.open(c, own.of(c, sources[c.Source].Size), h, l.table.Counter)
		ord, ok := next[c.Source]
		switch {
		case ok:
		case l.stripes != nil:
			ord = l.stripes.bases[c.Source]
		default:
			ord = ordinal
		}
		cr.ordinal = ord
		ordinal = ord + int64(c.Records)
		next[c.Source] = ordinal
		if c.LastOfFile {
			delete(owns, c.Source)
			delete(next, c.Source)
		}
		if c.Source != fileSource {
			fileSource, inFile = c.Source, 0
		}
		if st := l.stamps[sources[c.Source].Name]; st != nil {
			cr.stamps = st[min(inFile, len(st)):]
		}
		inFile += c.Records
		if l.ledger.settledBefore(c.Seq) {
			// Settled by an earlier run: skipped by --resume.
			l.ledger.skipResumed(cr)
			return false
		}
		l.ledger.readRows(cr)
		if c.Records == 0 {
			l.ledger.settleEmpty(cr)
			return false
		}
		if ctx.Err() != nil {
			l.notSentChunk(cr)
			return true
		}
		select {
		case out <- cr:
			return false
		case <-ctx.Done():
			// Read but never converted: its rows go to the error file as
			// not sent, so that nothing read is unaccounted for.
			l.notSentChunk(cr)
			return true
		}
	}
	for {
		c, err := s.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if ctx.Err() != nil {
				// The run is stopping (an interrupt, --duration): a
				// read it cut off, in object storage say, is no input
				// failure, and the run ends as stopped.
				return nil
			}
			var ie *csvparse.InputError
			if errors.As(err, &ie) && ie.SuspectFrom > 0 {
				// Rows already written from a compressed member that then
				// failed its check: say which, where the rows are listed.
				note := fmt.Sprintf("%s-%d: suspect: these rows were written from a compressed member that then failed its check (%v); they may hold altered data", at(ie.File, ie.SuspectFrom), ie.SuspectTo, ie.Err)
				if werr := l.errs.Note(note); werr != nil {
					err = errors.Join(err, werr)
				}
			}
			l.life.abort(fmt.Sprintf("input: %v", err), true, draining)
			return nil
		}
		if enter(c) {
			return nil
		}
	}
}

// headerLine is the line an error file for c's rows starts with: the
// file's header as read, or "" without HEADER.
func (l *Loader) headerLine(c *csvparse.Chunk) string {
	if !l.opts.Dialect.Header || c.Header == nil {
		return ""
	}
	return strings.TrimSuffix(string(csvparse.AppendRecord(nil, l.opts.Dialect, c.Header...)), "\n")
}

// ownBytes works out each chunk's share of its file for percent done:
// the bytes from the end of the previous chunk to the end of its own
// records. The splitter reads ahead (a megabyte at a time), so crediting
// the bytes read so far, as cqlload once did, ran ten points ahead. For
// compressed or re-encoded input the decoded offsets are not file bytes:
// the share is then capped by the raw bytes consumed, and a file's last
// chunk gets whatever is left, so the shares always add up to its size.
type ownBytes struct {
	raw, credited int64
	decoded       int64 // the file's decompressed size when compressed and known (Chunk.DecodedSize)
}

func (o *ownBytes) of(c *csvparse.Chunk, size int64) int64 {
	o.raw += c.InputBytes
	upto := o.raw
	switch {
	case c.LastOfFile && size >= 0:
		upto = size
	case size >= 0:
		end := c.Offset + int64(len(c.Data))
		switch {
		case c.Records == 0:
			end = c.Offset
		case c.TooLong:
			end = c.Offset + c.RecordBytes
		}
		if o.decoded > 0 {
			// Compressed: prorate the decompressed offset.
			end = int64(float64(end) / float64(o.decoded) * float64(size))
		}
		upto = min(upto, end)
	}
	n := max(upto-o.credited, 0)
	o.credited += n
	return n
}

// notSentChunk accounts for a chunk that was read but will not be
// converted: every record goes to the error file as not sent.
func (l *Loader) notSentChunk(cr *chunkRecord) {
	if l.life.skipping() {
		// --duration ended the run: skipped, not failed.
		rd := csvparse.NewReader(cr.chunk, l.opts.Dialect)
		rd.MaxFields = 1 // only counted: fields are not looked at
		n := 0
		for _, err := rd.Next(); err != io.EOF; _, err = rd.Next() {
			n++
		}
		l.ledger.notSentByDuration(cr, n)
		l.ledger.converted(cr)
		return
	}
	l.rejectEach(cr, "the run stopped before this row was sent", func(r reject) {
		l.ledger.reject(cr, notSent, r, true)
	})
	l.ledger.converted(cr)
}

// badHeaderChunk rejects every record of a chunk whose file's header
// does not fit the table (a column it does not have, one named twice):
// parse errors of that file, not the run's end, so that the other files
// load. In the error file the rows keep their header, to be mended there.
func (l *Loader) badHeaderChunk(cr *chunkRecord, err error) {
	var he *HeaderError
	if !errors.As(err, &he) {
		he = &HeaderError{File: cr.chunk.File, Err: err}
	}
	// The log gives the reason in full once, on the file's "header"
	// line (planFor); the summary counts the rows under it.
	l.rejectEach(cr, headerRef, func(r reject) {
		r.group = he.Error()
		l.rejectParseRecord(cr, r)
	})
	l.ledger.converted(cr)
}

// longHeaderChunk rejects a file whose header is over the size limit:
// the splitter hands out the header as the file's one record, and its
// rows are not read (there are no names to map them by).
func (l *Loader) longHeaderChunk(cr *chunkRecord) {
	c := cr.chunk
	l.rejectParseRecord(cr, reject{where: at(c.File, c.FirstLine) + ":1",
		reason: l.tooLongReason(csvparse.ErrRecordTooLong, c), long: longRecord(c)})
	l.ledger.converted(cr)
}

// headerRef is the reason logged for each row of a file whose header
// does not fit the table.
const headerRef = `the file's header does not fit the table (see its "header" line above)`

// rejectEach calls rej with every record of cr's chunk as a reject for
// reason, where it is and its bytes filled in.
func (l *Loader) rejectEach(cr *chunkRecord, reason string, rej func(reject)) {
	c := cr.chunk
	rd := csvparse.NewReader(c, l.opts.Dialect)
	rd.MaxFields = 1 // only Raw is used
	for i := 0; ; i++ {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		r := reject{where: termsafe.Name(c.File), reason: reason, idx: i}
		var pe *csvparse.ParseError
		switch {
		case c.TooLong:
			r.long, r.where = longRecord(c), at(c.File, c.FirstLine)
		case err == nil:
			r.raw, r.where = rec.Raw, at(c.File, rec.Line)
		case errors.As(err, &pe):
			r.raw, r.where = rd.Raw(), at(c.File, pe.Line)
		default:
			r.raw = rd.Raw()
		}
		rej(r)
	}
}

// repeatSources lists the inputs n times over, for --repeat; a stream
// cannot be read again.
func repeatSources(sources []csvparse.Source, n int) ([]csvparse.Source, error) {
	if n <= 1 {
		return sources, nil
	}
	for _, s := range sources {
		if s.Size < 0 {
			return nil, fmt.Errorf("--repeat: %s is a stream, which can be read only once", s.Name)
		}
	}
	out := make([]csvparse.Source, 0, n*len(sources))
	for range n {
		out = append(out, sources...)
	}
	return out, nil
}

// watchCluster stops a run that no node has answered for the retry
// window while requests waited: a frozen cluster, or one gone for good.
// Time with no request outstanding (a slow input) does not count.
func (l *Loader) watchCluster() {
	now := time.Now().UnixNano()
	if l.busy.Load() == 0 {
		l.lastActivity.Store(now)
		return
	}
	if idle := l.silence(); atWindowEnd(idle, l.opts.RetryWindow, l.opts.MaxBackoff) == clusterIsSilent {
		l.clusterSilent(idle)
	}
}

// silence is how long no request has been answered while some were
// waiting: since the last answer, or since requests began to wait again
// after a pause in the input (lastActivity). A spell in which the
// process itself was stopped does not count (stall.Clock).
func (l *Loader) silence() time.Duration {
	last := max(l.lastActivity.Load(), l.tracker.lastSuccess.Load())
	return l.stalls.Running(last, time.Now().UnixNano())
}

// clusterSilent stops the run because no node answered for idle, at
// least the retry window, while requests were waiting: a frozen or
// vanished cluster, not a fault of the rows in flight (fatal, exit 3;
// they settle as not sent or unknown, and a resumed run loads those not
// sent).
// watchCluster finds it, or a batch whose retry window closes while the
// silence has lasted a window (writeRows), whichever comes first; both
// judge by atWindowEnd.
func (l *Loader) clusterSilent(idle time.Duration) {
	what, why := l.tracker.silence(idle, time.Now())
	l.life.abort(fmt.Sprintf("%s for %s (--retry-window %s): %s", what, idle.Round(time.Second), l.opts.RetryWindow, why), true, cancelled)
}
