// Package ceiling measures what the driver alone costs: it sends the rows
// of a CSV file as a plain gocql program would (same session settings,
// same prepared statement, same batch shapes, same in-flight limit), but
// with every value converted and every batch formed before the clock
// starts. The CPU it spends per row is what the loader is compared with.
//
// A batch goes through the driver's Batch API, one entry per row. The
// loader sends the same batch as an EXECUTE of a prepared BEGIN BATCH
// statement, which costs the driver less (loader.Loader's exec); the
// ceiling keeps the plain API, so that the comparison counts that as the
// loader's gain, as it counts any other way of using the driver better.
//
// Source, the conversion and batching done before the clock, is shared
// with the wire floor (package bench/floor), so that both send the same
// batches.
package ceiling

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlload/cqlload/internal/cputime"
	"github.com/cqlload/cqlload/internal/shard"
	"github.com/cqlload/cqlload/loader"
)

// Config says what to send and how.
type Config struct {
	// Options gives the connection, the table, the single input file (a
	// CSV with a header line naming the columns), and the knobs the loader
	// shares: Consistency, ChunkSize, MinBatchSize, MaxBatchSize,
	// MaxBatchBytes and MaxInFlight.
	Options loader.Options
	// SegmentRows is the rows converted before each timed send phase;
	// 0 means DefaultSegmentRows.
	SegmentRows int
}

// Result covers the timed send phases only.
type Result struct {
	Rows     int64   `json:"rows"`
	Requests int64   `json:"requests"`
	SendS    float64 `json:"send_s"`  // wall time
	CPUS     float64 `json:"cpu_s"`   // user + system CPU of this process
	Mallocs  uint64  `json:"mallocs"` // Go heap allocations
}

// RowsPerSec is the send rate.
func (r Result) RowsPerSec() float64 {
	if r.SendS <= 0 {
		return 0
	}
	return float64(r.Rows) / r.SendS
}

// sender is the driver side of a run.
type sender struct {
	opts    *loader.Options
	session *gocql.Session
	stmt    string
	counter bool
}

// Run sends cfg.Options.Files[0] and reports the timed phases.
func Run(ctx context.Context, cfg Config) (Result, error) {
	o := &cfg.Options
	if len(o.Files) != 1 {
		return Result{}, fmt.Errorf("ceiling: want exactly one input file, got %d", len(o.Files))
	}
	s := &sender{opts: o, session: o.Session}
	if s.session == nil {
		sess, err := loader.Connect(*o)
		if err != nil {
			return Result{}, err
		}
		defer sess.Close()
		s.session = sess
	}
	src, err := NewSource(s.session, o, cfg.SegmentRows)
	if err != nil {
		return Result{}, err
	}
	defer src.Close()
	if src.Shards() > 0 {
		// As the loader does: rows sent before the driver has every
		// shard's connection go down another shard's.
		shard.AwaitPools(ctx, s.session, o.ConnectTimeout)
	}

	var res Result
	for {
		seg, err := src.Next()
		if err == io.EOF {
			return res, nil
		}
		if err != nil {
			return res, err
		}
		s.stmt, s.counter = src.Statement()
		if err := s.sendAll(ctx, seg, &res); err != nil {
			return res, err
		}
	}
}

// Timed runs send as one timed phase and adds what it cost to res: its
// wall time, this process's CPU and Go heap allocations, requests, and
// the rows send reports sent. It adds them when send fails too, and
// returns send's error.
func Timed(res *Result, requests int, send func() (rows int64, err error)) error {
	runtime.GC() // garbage from converting is not the sending's cost
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	cpu0, err := cputime.Process()
	if err != nil {
		return err
	}
	start := time.Now()

	rows, sendErr := send()

	elapsed := time.Since(start)
	cpu1, err := cputime.Process()
	if err != nil {
		return err
	}
	runtime.ReadMemStats(&ms1)
	res.Rows += rows
	res.Requests += int64(requests)
	res.SendS += elapsed.Seconds()
	res.CPUS += (cpu1 - cpu0).Seconds()
	res.Mallocs += ms1.Mallocs - ms0.Mallocs
	return sendErr
}

// sendAll is the timed phase: MaxInFlight senders drain the batches.
func (s *sender) sendAll(ctx context.Context, batches [][]*Row, res *Result) error {
	return Timed(res, len(batches), func() (int64, error) {
		var next, rows atomic.Int64
		var firstErr error
		var errOnce sync.Once
		var wg sync.WaitGroup
		for range s.opts.MaxInFlight {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := int(next.Add(1) - 1)
					if i >= len(batches) || ctx.Err() != nil {
						return
					}
					if err := s.exec(ctx, batches[i]); err != nil {
						errOnce.Do(func() { firstErr = err })
						return
					}
					rows.Add(int64(len(batches[i])))
				}
			}()
		}
		wg.Wait()
		if firstErr != nil {
			return rows.Load(), fmt.Errorf("ceiling: write: %w", firstErr)
		}
		return rows.Load(), ctx.Err()
	})
}

// exec sends a plain EXECUTE for one row, else a BATCH of one entry per
// row of the one prepared statement.
func (s *sender) exec(ctx context.Context, rows []*Row) error {
	if len(rows) == 1 {
		q := s.session.Query(s.stmt, rows[0].Values...).WithContext(ctx).
			Consistency(s.opts.Consistency).Idempotent(!s.counter)
		err := q.Exec()
		q.Release()
		return err
	}
	typ := gocql.UnloggedBatch
	if s.counter {
		typ = gocql.CounterBatch
	}
	b := s.session.Batch(typ).WithContext(ctx)
	b.SetConsistency(s.opts.Consistency)
	b.Entries = make([]gocql.BatchEntry, len(rows))
	for i, r := range rows {
		b.Entries[i] = gocql.BatchEntry{Stmt: s.stmt, Args: r.Values, Idempotent: !s.counter}
	}
	return s.session.ExecuteBatch(b)
}
