// Package ceiling measures what the driver alone costs: it sends the rows
// of a CSV file the way the loader would (same session settings, same
// prepared statement, same batch shapes, same in-flight limit), but with
// every value converted and every batch formed before the clock starts.
// The CPU it spends per row is the floor the loader is compared with.
package ceiling

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlload/cqlload/csvparse"
	"github.com/cqlload/cqlload/internal/murmur3"
	"github.com/cqlload/cqlload/internal/shard"
	"github.com/cqlload/cqlload/loader"
	"github.com/cqlload/cqlload/schema"
)

// maxChunkBytes is the loader's cap on a chunk's bytes (loader.go): chunks
// are the unit of batching, so the ceiling must cut them the same way to
// send the same batch shapes.
const maxChunkBytes = 512 << 10

// DefaultSegmentRows bounds how many converted rows are held at once, so
// that a 1 GB input does not need 1 GB of memory before sending starts.
const DefaultSegmentRows = 200_000

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

// value is one pre-serialized bound value; a nil *value is a null.
type value struct{ b []byte }

func (v *value) MarshalCQL(gocql.TypeInfo) ([]byte, error) { return v.b, nil }

type row struct {
	values    []any
	partition string
	token     int64
	size      int
}

// sender holds what every segment shares.
type sender struct {
	cfg     Config
	opts    *loader.Options
	session *gocql.Session
	ring    *ring
	stmt    string
	counter bool
	fields  []field // per file field, from the header
	nbind   int
	pk      []int // bind positions of the partition key
	// tsBind is where the write timestamp is bound (-1: counters), and
	// ts the next one to give, as the loader gives them: increasing in
	// input order from the start.
	tsBind int
	ts     int64
}

type field struct {
	bind int // -1: not a column of the table
	conv schema.Converter
}

// Run sends cfg.Options.Files[0] and reports the timed phases.
func Run(ctx context.Context, cfg Config) (Result, error) {
	o := &cfg.Options
	if len(o.Files) != 1 {
		return Result{}, fmt.Errorf("ceiling: want exactly one input file, got %d", len(o.Files))
	}
	if cfg.SegmentRows <= 0 {
		cfg.SegmentRows = DefaultSegmentRows
	}
	s := &sender{cfg: cfg, opts: o, session: o.Session}
	if s.session == nil {
		sess, err := loader.Connect(*o)
		if err != nil {
			return Result{}, err
		}
		defer sess.Close()
		s.session = sess
	}
	r, err := loadRing(s.session, o.Keyspace)
	if err != nil {
		return Result{}, err
	}
	s.ring = r
	if r.shards > 0 {
		// As the loader does: rows sent before the driver has every
		// shard's connection go down another shard's.
		shard.AwaitPools(ctx, s.session, o.ConnectTimeout)
	}

	d := o.Dialect
	d.Header = true
	sources, err := csvparse.Sources(o.Files, nil)
	if err != nil {
		return Result{}, err
	}
	sp := csvparse.NewSplitter(sources, d, o.ChunkSize, maxChunkBytes)
	defer sp.Close()

	var res Result
	var seg [][]*row // batches of the current segment
	segRows := 0
	flush := func() error {
		if len(seg) == 0 {
			return nil
		}
		err := s.sendAll(ctx, seg, &res)
		seg, segRows = nil, 0
		return err
	}
	for {
		c, err := sp.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return res, fmt.Errorf("ceiling: read: %w", err)
		}
		if c.Records == 0 {
			continue
		}
		if s.fields == nil {
			if err := s.plan(c.Header); err != nil {
				return res, err
			}
		}
		rows, err := s.convert(c, d)
		if err != nil {
			return res, err
		}
		seg = append(seg, groupBatches(rows, o.MinBatchSize, o.MaxBatchSize, o.MaxBatchBytes, s.ring)...)
		segRows += len(rows)
		if segRows >= cfg.SegmentRows {
			if err := flush(); err != nil {
				return res, err
			}
		}
	}
	return res, flush()
}

// plan maps header names to bind positions of the insert statement.
func (s *sender) plan(header []string) error {
	t, err := schema.LoadTable(s.session, s.opts.Keyspace, s.opts.Table)
	if err != nil {
		return err
	}
	var cols []*schema.Column
	for _, h := range header {
		c, ok := t.Column(h)
		if !ok {
			return fmt.Errorf("ceiling: header names %q, which %s.%s does not have", h, t.Keyspace, t.Name)
		}
		cols = append(cols, c)
	}
	var names []string
	if t.Counter {
		s.stmt, names = schema.CounterStatement(t, cols)
		s.counter = true
	} else {
		// The loader's statement, write timestamp included.
		s.stmt, names = schema.InsertStatement(t, cols, s.opts.TTL, true)
	}
	pos := map[string]int{}
	for i, n := range names {
		pos[n] = i
	}
	s.nbind = len(names)
	s.tsBind = -1
	if b, ok := pos[schema.TimestampBind]; ok {
		s.tsBind, s.ts = b, time.Now().UnixMicro()
	}
	for _, c := range t.PartitionKey {
		s.pk = append(s.pk, pos[c.Name])
	}
	for _, c := range cols {
		conv, err := schema.NewConverter(c.Type, s.opts.Formats)
		if err != nil {
			return fmt.Errorf("ceiling: column %s: %w", c.Name, err)
		}
		s.fields = append(s.fields, field{bind: pos[c.Name], conv: conv})
	}
	return nil
}

// convert turns a chunk into rows; any bad record is an error, since the
// benchmark's datasets are valid by construction.
func (s *sender) convert(c *csvparse.Chunk, d csvparse.Dialect) ([]*row, error) {
	rd := csvparse.NewReader(c, d)
	out := make([]*row, 0, c.Records)
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("ceiling: %w", err)
		}
		if len(rec.Fields) != len(s.fields) {
			return nil, fmt.Errorf("ceiling: %s:%d: %d fields, want %d", c.File, rec.Line, len(rec.Fields), len(s.fields))
		}
		r := &row{values: make([]any, s.nbind)}
		for i, f := range rec.Fields {
			pf := s.fields[i]
			if !rec.Quoted[i] && string(f) == s.opts.Null {
				r.values[pf.bind] = (*value)(nil)
				continue
			}
			b, err := pf.conv(nil, f)
			if err != nil {
				return nil, fmt.Errorf("ceiling: %s:%d field %d: %w", c.File, rec.Line, i+1, err)
			}
			r.values[pf.bind] = &value{b: b}
			r.size += len(b)
		}
		if s.tsBind >= 0 {
			r.values[s.tsBind] = &value{b: binary.BigEndian.AppendUint64(nil, uint64(s.ts))}
			r.size += 8 // the loader counts it in a batch's bytes too
			s.ts++
		}
		key := s.routingKey(r)
		r.partition = string(key)
		r.token = murmur3.Token(key)
		out = append(out, r)
	}
}

// routingKey is what Cassandra hashes: the value for a one-column key,
// else each component as <uint16 length><bytes><0x00>.
func (s *sender) routingKey(r *row) []byte {
	bytesOf := func(i int) []byte {
		if v, ok := r.values[i].(*value); ok && v != nil {
			return v.b
		}
		return nil
	}
	if len(s.pk) == 1 {
		return bytesOf(s.pk[0])
	}
	var k []byte
	for _, i := range s.pk {
		v := bytesOf(i)
		k = binary.BigEndian.AppendUint16(k, uint16(len(v)))
		k = append(k, v...)
		k = append(k, 0)
	}
	return k
}

// sendAll is the timed phase: MaxInFlight senders drain the batches.
func (s *sender) sendAll(ctx context.Context, batches [][]*row, res *Result) error {
	runtime.GC() // garbage from converting is not the driver's cost
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	cpu0, err := cpuTime()
	if err != nil {
		return err
	}
	start := time.Now()

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

	elapsed := time.Since(start)
	cpu1, err := cpuTime()
	if err != nil {
		return err
	}
	runtime.ReadMemStats(&ms1)
	res.Rows += rows.Load()
	res.Requests += int64(len(batches))
	res.SendS += elapsed.Seconds()
	res.CPUS += (cpu1 - cpu0).Seconds()
	res.Mallocs += ms1.Mallocs - ms0.Mallocs
	if firstErr != nil {
		return fmt.Errorf("ceiling: write: %w", firstErr)
	}
	return ctx.Err()
}

// exec mirrors the loader's request shapes: a plain EXECUTE for one row,
// else an unlogged batch of the one prepared statement.
func (s *sender) exec(ctx context.Context, rows []*row) error {
	if len(rows) == 1 {
		q := s.session.Query(s.stmt, rows[0].values...).WithContext(ctx).
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
		b.Entries[i] = gocql.BatchEntry{Stmt: s.stmt, Args: r.values, Idempotent: !s.counter}
	}
	return s.session.ExecuteBatch(b)
}

func cpuTime() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, fmt.Errorf("getrusage: %w", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}

// ring maps a token to its replica set for SimpleStrategy, the only
// strategy the benchmark keyspace uses, and to its shard when the nodes
// announce ScyllaDB sharding alike (as the loader's ring does).
type ring struct {
	ends      []int64 // range i is (ends[i-1], ends[i]]
	set       []uint64
	shards    int
	ignoreMSB uint
}

// group is the batching group of a token: replica set and shard.
type group struct {
	set   uint64
	shard int
}

func (r *ring) groupOf(token int64) group {
	g := group{set: r.replicaSet(token)}
	if r.shards > 1 {
		g.shard = shard.Of(token, r.shards, r.ignoreMSB)
	}
	return g
}

func (r *ring) replicaSet(token int64) uint64 {
	if len(r.ends) == 0 {
		return 0
	}
	i := sort.Search(len(r.ends), func(i int) bool { return r.ends[i] >= token })
	if i == len(r.ends) {
		i = 0
	}
	return r.set[i]
}

func loadRing(s *gocql.Session, keyspace string) (*ring, error) {
	ks, err := s.KeyspaceMetadata(keyspace)
	if err != nil {
		return nil, fmt.Errorf("ceiling: keyspace %s: %w", keyspace, err)
	}
	if !strings.HasSuffix(ks.StrategyClass, "SimpleStrategy") {
		return nil, fmt.Errorf("ceiling: keyspace %s uses %s; only SimpleStrategy is supported", keyspace, ks.StrategyClass)
	}
	rf, err := strconv.Atoi(fmt.Sprint(ks.StrategyOptions["replication_factor"]))
	if err != nil {
		return nil, fmt.Errorf("ceiling: keyspace %s: replication_factor: %w", keyspace, err)
	}
	type owner struct {
		token int64
		host  int
	}
	var owners []owner
	hosts := s.GetHosts()
	if len(hosts) > 64 {
		return nil, errors.New("ceiling: more than 64 hosts")
	}
	for i, h := range hosts {
		for _, t := range h.Tokens() {
			v, err := strconv.ParseInt(t, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("ceiling: host %s token %q: %w", h.ConnectAddress(), t, err)
			}
			owners = append(owners, owner{v, i})
		}
	}
	sort.Slice(owners, func(a, b int) bool { return owners[a].token < owners[b].token })
	r := &ring{}
	r.shards, r.ignoreMSB = shard.Hosts(hosts)
	for i := range owners {
		var set uint64
		for k, n := 0, 0; k < len(owners) && n < rf; k++ {
			bit := uint64(1) << owners[(i+k)%len(owners)].host
			if set&bit == 0 {
				set |= bit
				n++
			}
		}
		r.ends = append(r.ends, owners[i].token)
		r.set = append(r.set, set)
	}
	return r, nil
}

// groupBatches applies the loader's batching rules to one chunk: a
// partition with at least minRows rows is cut into batches of its own;
// smaller partitions are pooled by replica set (and shard), kept whole, and the pool
// is cut before a batch would pass maxRows rows or maxBytes value bytes.
func groupBatches(rows []*row, minRows, maxRows, maxBytes int, rg *ring) [][]*row {
	order := map[string]int{}
	var parts [][]*row
	for _, r := range rows {
		k, ok := order[r.partition]
		if !ok {
			k = len(parts)
			order[r.partition] = k
			parts = append(parts, nil)
		}
		parts[k] = append(parts[k], r)
	}
	var out [][]*row
	cutter := func() (add func(*row), done func()) {
		var cur []*row
		size := 0
		add = func(r *row) {
			if len(cur) > 0 && (len(cur) >= maxRows || size+r.size > maxBytes) {
				out = append(out, cur)
				cur, size = nil, 0
			}
			cur = append(cur, r)
			size += r.size
		}
		done = func() {
			if len(cur) > 0 {
				out = append(out, cur)
			}
		}
		return add, done
	}
	poolOf := map[group]int{}
	var pools [][][]*row
	for _, p := range parts {
		if len(p) >= minRows {
			add, done := cutter()
			for _, r := range p {
				add(r)
			}
			done()
			continue
		}
		g := rg.groupOf(p[0].token)
		k, ok := poolOf[g]
		if !ok {
			k = len(pools)
			poolOf[g] = k
			pools = append(pools, nil)
		}
		pools[k] = append(pools[k], p)
	}
	for _, pool := range pools {
		var cur []*row
		size := 0
		for _, p := range pool {
			psize := 0
			for _, r := range p {
				psize += r.size
			}
			if len(cur) > 0 && (len(cur)+len(p) > maxRows || size+psize > maxBytes) {
				out = append(out, cur)
				cur, size = nil, 0
			}
			if len(p) > maxRows || psize > maxBytes {
				add, done := cutter()
				for _, r := range p {
					add(r)
				}
				done()
				continue
			}
			cur = append(cur, p...)
			size += psize
		}
		if len(cur) > 0 {
			out = append(out, cur)
		}
	}
	return out
}
