// Package floor measures the least client work that puts a load's rows
// on the wire: the wire floor under the ceiling (package bench/ceiling)
// and cqlload.
//
// It sends the same rows as the ceiling: the same CSV file, converted
// and cut into the same batches by the same code (ceiling.Source), all
// before the clock starts. Before the clock it also opens raw TCP
// connections as the driver opens them (one per node and ScyllaDB shard,
// or gocql's default count per node without sharding), does OPTIONS,
// STARTUP and the password exchange when asked, prepares the insert on
// each connection, and encodes every request whole: a native protocol v4
// EXECUTE for a one-row batch, else an unlogged (or counter) BATCH of the
// prepared statement, sent down the connection of the batch's first
// row's first replica and shard, as the token-aware driver routes it.
//
// The timed phase is only what no client can do without: give each
// request a stream id, write it, read the answer and check that it is a
// RESULT. It keeps at most Options.MaxInFlight requests in flight in all,
// as the ceiling does, and writes the requests that are ready together
// in one system call. Its CPU (user and system, from getrusage) and wall
// time cover that phase only.
//
// What it leaves out, and the driver and the loader do not: reading and
// converting the CSV, forming batches and encoding requests in the timed
// phase; goroutines per request, timeouts, retries, speculative or
// idempotence bookkeeping; metadata, events and the control connection;
// the client timestamp gocql adds (the statement binds its own); paging
// and result metadata. The ratio of cqlload's CPU to the floor's is how
// much of cqlload's cost is not the work itself. It is a measuring
// instrument: nothing here belongs in the loader.
package floor

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cqlload/cqlload/bench/ceiling"
	"github.com/cqlload/cqlload/loader"
)

// Config says what to send and how, as ceiling.Config does.
type Config struct {
	// Options gives the connection, the table, the single input file (a
	// CSV with a header line), and Consistency, ChunkSize, MinBatchSize,
	// MaxBatchSize, MaxBatchBytes and MaxInFlight, as for the ceiling.
	// A Session there is used to read the ring and schema only.
	Options loader.Options
	// SegmentRows is the rows converted before each timed send phase;
	// 0 means ceiling.DefaultSegmentRows.
	SegmentRows int

	// mangle, set by tests, rewrites each encoded request before the
	// clock starts.
	mangle func(op byte, frame []byte) []byte
}

// Result covers the timed send phases only, as the ceiling's does.
type Result struct {
	ceiling.Result
	// Errors counts the answers that were not a RESULT; a run with any
	// fails.
	Errors      int64 `json:"errors"`
	Connections int   `json:"connections"`
}

// floor is one run's sending side.
type floor struct {
	cfg     *Config
	pool    *pool
	cons    uint16
	batch   byte
	streams chan uint16 // the free stream ids: at most MaxInFlight out
}

// Run sends cfg.Options.Files[0] and reports the timed phases.
func Run(ctx context.Context, cfg Config) (Result, error) {
	o := &cfg.Options
	if o.MaxInFlight < 1 || o.MaxInFlight > maxStreams {
		return Result{}, fmt.Errorf("floor: MaxInFlight %d: want 1 to %d, the stream ids of a connection", o.MaxInFlight, maxStreams)
	}
	sess := o.Session
	if sess == nil {
		s, err := loader.Connect(*o)
		if err != nil {
			return Result{}, err
		}
		defer s.Close() // a second Close is harmless
		sess = s
	}
	src, err := ceiling.NewSource(sess, o, cfg.SegmentRows)
	if err != nil {
		return Result{}, err
	}
	defer src.Close()
	// The first segment reads the table's schema through the session,
	// which after it has nothing left to do.
	seg, err := src.Next()
	if err == io.EOF {
		return Result{}, nil
	}
	if err != nil {
		return Result{}, err
	}
	if o.Session == nil {
		sess.Close()
	}
	stmt, counter := src.Statement()

	p, err := openPool(ctx, src.Hosts(), src.Shards(), o, stmt, o.MaxInFlight)
	if err != nil {
		return Result{}, err
	}
	defer p.close()
	f := &floor{cfg: &cfg, pool: p, cons: uint16(o.Consistency), batch: batchUnlogged, streams: make(chan uint16, o.MaxInFlight)}
	if counter {
		f.batch = batchCounter
	}
	for id := range o.MaxInFlight {
		f.streams <- uint16(id)
	}
	res := Result{Connections: len(p.conns)}
	for {
		jobs := f.encode(src, seg)
		seg = nil // the frames hold all the timed phase needs
		if err := f.send(ctx, jobs, &res); err != nil {
			return res, err
		}
		if seg, err = src.Next(); err == io.EOF {
			return res, nil
		} else if err != nil {
			return res, err
		}
	}
}

// job is one connection's requests of a segment, encoded back to back.
type job struct {
	buf  []byte
	ends []int   // where each request ends in buf
	rows []int32 // each request's rows
}

// start is where request i begins in buf.
func (j *job) start(i int) int {
	if i == 0 {
		return 0
	}
	return j.ends[i-1]
}

// encode turns a segment's batches into each connection's requests.
func (f *floor) encode(src *ceiling.Source, seg [][]*ceiling.Row) []job {
	jobs := make([]job, len(f.pool.conns))
	for k, b := range seg {
		seg[k] = nil // the rows can go as their frames are made
		host, shard := src.Route(b[0].Token)
		i := f.pool.route(host, shard)
		j := &jobs[i]
		start := len(j.buf)
		j.buf = appendRequest(j.buf, f.pool.conns[i].id, f.cons, f.batch, b)
		if f.cfg.mangle != nil {
			fr := f.cfg.mangle(j.buf[start+4], append([]byte(nil), j.buf[start:]...))
			j.buf = append(j.buf[:start], fr...)
		}
		j.ends = append(j.ends, len(j.buf))
		j.rows = append(j.rows, int32(len(b)))
	}
	return jobs
}

// appendRequest encodes one batch as the loader sends it: EXECUTE for a
// single row, else BATCH of the prepared statement. Neither sets a flag
// beyond the values: the statement binds its own write timestamp.
func appendRequest(dst, id []byte, cons uint16, typ byte, rows []*ceiling.Row) []byte {
	start := len(dst)
	if len(rows) == 1 {
		dst = beginFrame(dst, opExecute)
		dst = appendShortBytes(dst, id)
		dst = appendShort(dst, cons)
		dst = append(dst, queryFlagValues)
		dst = appendValues(dst, rows[0])
	} else {
		dst = beginFrame(dst, opBatch)
		dst = append(dst, typ)
		dst = appendShort(dst, uint16(len(rows)))
		for _, r := range rows {
			dst = append(dst, batchPrepared)
			dst = appendShortBytes(dst, id)
			dst = appendValues(dst, r)
		}
		dst = appendShort(dst, cons)
		dst = append(dst, 0)
	}
	endFrame(dst, start)
	return dst
}

func appendValues(dst []byte, r *ceiling.Row) []byte {
	dst = appendShort(dst, uint16(len(r.Values)))
	for i := range r.Values {
		dst = appendValue(dst, r.Bytes(i))
	}
	return dst
}

// send is one timed phase: a writer and a reader a connection.
func (f *floor) send(ctx context.Context, jobs []job, res *Result) error {
	requests := 0
	for _, j := range jobs {
		requests += len(j.ends)
	}
	var errs atomic.Int64
	var mu sync.Mutex
	var firstErr error // the first answer that was not a RESULT
	answerErr := func(err error) {
		errs.Add(1)
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
	}
	err := ceiling.Timed(&res.Result, requests, func() (int64, error) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		var failed error
		var failOnce sync.Once
		// A broken connection ends the run: closing them all ends the
		// readers, the cancel the writers waiting for a stream id.
		fail := func(err error) {
			failOnce.Do(func() {
				failed = err
				cancel()
				f.pool.close()
			})
		}
		stopOnCancel := context.AfterFunc(ctx, func() { fail(ctx.Err()) })
		defer stopOnCancel()
		done := make(chan struct{})
		go f.watch(done, fail)

		var rows atomic.Int64
		var wg sync.WaitGroup
		for i, c := range f.pool.conns {
			j := &jobs[i]
			if len(j.ends) == 0 {
				continue
			}
			wg.Add(2)
			go func() {
				defer wg.Done()
				if err := f.write(ctx, c, j); err != nil {
					fail(err)
				}
			}()
			go func() {
				defer wg.Done()
				n, err := f.read(c, len(j.ends), answerErr)
				rows.Add(n)
				if err != nil {
					fail(err)
				}
			}()
		}
		wg.Wait()
		close(done)
		stopOnCancel()
		var err error
		failOnce.Do(func() {}) // no failure from here on
		if failed != nil {
			err = fmt.Errorf("floor: %w", failed)
		}
		return rows.Load(), err
	})
	res.Errors += errs.Load()
	if err != nil {
		return err
	}
	if n := errs.Load(); n > 0 {
		return fmt.Errorf("floor: %d of %d requests answered with other than RESULT; the first: %w", n, requests, firstErr)
	}
	return nil
}

// watch fails the phase when no connection has read an answer for the
// request timeout: a raw connection has no timeout of its own, and a
// stalled cluster should not hang the benchmark.
func (f *floor) watch(done <-chan struct{}, fail func(error)) {
	limit := f.cfg.Options.RequestTimeout
	if limit <= 0 {
		limit = loader.DefaultOptions().RequestTimeout
	}
	t := time.NewTicker(limit)
	defer t.Stop()
	last := int64(-1)
	for {
		select {
		case <-done:
			return
		case <-t.C:
			var n int64
			for _, c := range f.pool.conns {
				n += c.answered.Load()
			}
			if n == last {
				fail(fmt.Errorf("no answer for %s", limit))
				return
			}
			last = n
		}
	}
}

// write sends a connection's requests, each with a free stream id, and
// every request that has one at that moment in the same write.
func (f *floor) write(ctx context.Context, c *conn, j *job) error {
	start := 0
	for i := 0; i < len(j.ends); {
		var id uint16
		select {
		case id = <-f.streams:
		case <-ctx.Done():
			return nil
		}
		for {
			binary.BigEndian.PutUint16(j.buf[j.start(i)+2:], id)
			c.rows[id].Store(j.rows[i])
			i++
			if i == len(j.ends) {
				break
			}
			ok := false
			select {
			case id = <-f.streams:
				ok = true
			default:
			}
			if !ok {
				break
			}
		}
		if _, err := c.nc.Write(j.buf[start:j.ends[i-1]]); err != nil {
			return fmt.Errorf("%s: %w", c.addr, err)
		}
		start = j.ends[i-1]
	}
	return nil
}

// read reads n answers, gives their stream ids back and returns the rows
// of those that were RESULTs; report gets the others.
func (f *floor) read(c *conn, n int, report func(error)) (int64, error) {
	var rows int64
	var h [headerLen]byte
	for range n {
		if _, err := io.ReadFull(c.br, h[:]); err != nil {
			return rows, fmt.Errorf("%s: %w", c.addr, err)
		}
		hd, err := parseHeader(h[:])
		if err != nil {
			return rows, err
		}
		if hd.stream < 0 || int(hd.stream) >= len(c.rows) {
			return rows, fmt.Errorf("%s: an answer on stream %d, which no request used", c.addr, hd.stream)
		}
		if hd.op == opResult {
			if _, err := c.br.Discard(hd.length); err != nil {
				return rows, fmt.Errorf("%s: %w", c.addr, err)
			}
			rows += int64(c.rows[hd.stream].Load())
		} else {
			body := make([]byte, hd.length)
			if _, err := io.ReadFull(c.br, body); err != nil {
				return rows, fmt.Errorf("%s: %w", c.addr, err)
			}
			if hd.op == opError {
				report(errorOf(hd, body))
			} else {
				report(fmt.Errorf("response opcode %#x", hd.op))
			}
		}
		c.answered.Add(1)
		f.streams <- uint16(hd.stream)
	}
	return rows, nil
}
