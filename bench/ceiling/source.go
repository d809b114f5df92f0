package ceiling

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlload/cqlload/csvparse"
	"github.com/cqlload/cqlload/internal/murmur3"
	"github.com/cqlload/cqlload/internal/shard"
	"github.com/cqlload/cqlload/loader"
	"github.com/cqlload/cqlload/schema"
)

// DefaultSegmentRows bounds how many converted rows are held at once, so
// that a 1 GB input does not need 1 GB of memory before sending starts.
const DefaultSegmentRows = 200_000

// value is one pre-serialized bound value; a nil *value is a null.
type value struct{ b []byte }

func (v *value) MarshalCQL(gocql.TypeInfo) ([]byte, error) { return v.b, nil }

// Row is one converted row, ready to bind.
type Row struct {
	// Values are in the insert statement's bind order, each given to the
	// driver as it is (a gocql.Marshaler); Bytes reads them.
	Values []any
	// Token is the partition key's Murmur3 token.
	Token     int64
	partition string
	size      int
}

// Bytes is the i-th bound value as serialized, nil for a null, which is
// how gocql puts both on the wire (a length of -1).
func (r *Row) Bytes(i int) []byte {
	if v, ok := r.Values[i].(*value); ok && v != nil {
		return v.b
	}
	return nil
}

// Source reads the single input file of a loader.Options and gives its
// rows converted and cut into the loader's batches, a segment at a time:
// the work the ceiling and the floor do before their clocks start.
type Source struct {
	opts        *loader.Options
	session     *gocql.Session
	ring        *ring
	dialect     csvparse.Dialect
	sp          *csvparse.Splitter
	segmentRows int
	done        bool

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

// NewSource opens o.Files[0], which must be the only input file, and
// reads the keyspace's ring from session; the first Next reads the
// table's schema from it too. segmentRows <= 0 means DefaultSegmentRows.
func NewSource(session *gocql.Session, o *loader.Options, segmentRows int) (*Source, error) {
	if len(o.Files) != 1 {
		return nil, fmt.Errorf("ceiling: want exactly one input file, got %d", len(o.Files))
	}
	if segmentRows <= 0 {
		segmentRows = DefaultSegmentRows
	}
	r, err := loadRing(session, o.Keyspace)
	if err != nil {
		return nil, err
	}
	d := o.Dialect
	d.Header = true
	sources, err := csvparse.Sources(o.Files, nil)
	if err != nil {
		return nil, err
	}
	return &Source{
		opts: o, session: session, ring: r, dialect: d, segmentRows: segmentRows,
		sp: csvparse.NewSplitter(sources, d, o.ChunkSize, loader.MaxChunkBytes), // the loader's chunks, so the same batches
	}, nil
}

// Close releases the input file.
func (s *Source) Close() error { return s.sp.Close() }

// Statement is the insert (or counter update) statement the rows bind
// to, known from the first Next on.
func (s *Source) Statement() (stmt string, counter bool) { return s.stmt, s.counter }

// Hosts are the cluster's hosts, numbered as Route numbers them.
func (s *Source) Hosts() []*gocql.HostInfo { return s.ring.hosts }

// Shards is the ScyllaDB shards per node the batches are grouped by; 0:
// the nodes announce none (or not alike), and batches go by replica set.
func (s *Source) Shards() int { return s.ring.shards }

// Route is where the driver's token-aware policy sends a request whose
// routing token (its first row's) is token: the token's first replica,
// as an index into Hosts, and on it the shard owning the token.
func (s *Source) Route(token int64) (host, shard int) {
	return s.ring.route(token)
}

// Next gives the batches of the next segment: whole chunks, at least the
// segment's rows but at the end. It returns io.EOF after the last.
func (s *Source) Next() ([][]*Row, error) {
	var seg [][]*Row
	segRows := 0
	for !s.done {
		c, err := s.sp.Next()
		if err == io.EOF {
			s.done = true
			break
		}
		if err != nil {
			return nil, fmt.Errorf("ceiling: read: %w", err)
		}
		if c.Records == 0 {
			continue
		}
		if s.fields == nil {
			if err := s.plan(c.Header); err != nil {
				return nil, err
			}
		}
		rows, err := s.convert(c)
		if err != nil {
			return nil, err
		}
		o := s.opts
		seg = append(seg, groupBatches(rows, o.MinBatchSize, o.MaxBatchSize, o.MaxBatchBytes, s.ring)...)
		segRows += len(rows)
		if segRows >= s.segmentRows {
			return seg, nil
		}
	}
	if len(seg) == 0 {
		return nil, io.EOF
	}
	return seg, nil
}

// plan maps header names to bind positions of the insert statement.
func (s *Source) plan(header []string) error {
	t, err := schema.LoadTable(s.session, s.opts.Keyspace, s.opts.Table)
	if err != nil {
		return err
	}
	var cols []*schema.Column
	for _, h := range header {
		c, err := t.Named(h)
		if err != nil {
			return fmt.Errorf("ceiling: header of %s.%s: %w", t.Keyspace, t.Name, err)
		}
		cols = append(cols, c)
	}
	var binds schema.Binds
	if t.Counter {
		s.stmt, binds = schema.CounterStatement(t, cols)
		s.counter = true
	} else {
		// The loader's statement, write timestamp included.
		s.stmt, binds = schema.InsertStatement(t, cols, schema.Using{TTL: s.opts.TTL, Timestamp: true})
	}
	s.nbind = len(binds)
	s.tsBind = binds.Timestamp()
	if s.tsBind >= 0 {
		s.ts = time.Now().UnixMicro()
	}
	for _, c := range t.PartitionKey {
		s.pk = append(s.pk, binds.Of(c))
	}
	for _, c := range cols {
		conv, err := schema.NewConverter(c.Type, s.opts.Formats)
		if err != nil {
			return fmt.Errorf("ceiling: column %s: %w", c.Name, err)
		}
		s.fields = append(s.fields, field{bind: binds.Of(c), conv: conv})
	}
	return nil
}

// convert turns a chunk into rows; any bad record is an error, since the
// benchmark's datasets are valid by construction.
func (s *Source) convert(c *csvparse.Chunk) ([]*Row, error) {
	rd := csvparse.NewReader(c, s.dialect)
	out := make([]*Row, 0, c.Records)
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
		r := &Row{Values: make([]any, s.nbind)}
		for i, f := range rec.Fields {
			pf := s.fields[i]
			if string(f) == s.opts.Null {
				r.Values[pf.bind] = (*value)(nil)
				continue
			}
			b, err := pf.conv(nil, f)
			if err != nil {
				return nil, fmt.Errorf("ceiling: %s:%d field %d: %w", c.File, rec.Line, i+1, err)
			}
			r.Values[pf.bind] = &value{b: b}
			r.size += len(b)
		}
		if s.tsBind >= 0 {
			r.Values[s.tsBind] = &value{b: binary.BigEndian.AppendUint64(nil, uint64(s.ts))}
			r.size += 8 // the loader counts it in a batch's bytes too
			s.ts++
		}
		key := s.routingKey(r)
		r.partition = string(key)
		r.Token = murmur3.Token(key)
		out = append(out, r)
	}
}

// routingKey is what Cassandra hashes: the value for a one-column key,
// else each component as <uint16 length><bytes><0x00>.
func (s *Source) routingKey(r *Row) []byte {
	if len(s.pk) == 1 {
		return r.Bytes(s.pk[0])
	}
	var k []byte
	for _, i := range s.pk {
		v := r.Bytes(i)
		k = binary.BigEndian.AppendUint16(k, uint16(len(v)))
		k = append(k, v...)
		k = append(k, 0)
	}
	return k
}

// ring maps a token to its replica set for SimpleStrategy, the only
// strategy the benchmark keyspace uses, and to its shard when the nodes
// announce ScyllaDB sharding alike (as the loader's ring does).
type ring struct {
	ends      []int64 // range i is (ends[i-1], ends[i]]
	set       []uint64
	first     []int // range i's first replica, an index into hosts
	hosts     []*gocql.HostInfo
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

// rangeOf is the index of the range holding token, -1 on an empty ring.
func (r *ring) rangeOf(token int64) int {
	if len(r.ends) == 0 {
		return -1
	}
	i := sort.Search(len(r.ends), func(i int) bool { return r.ends[i] >= token })
	if i == len(r.ends) {
		i = 0
	}
	return i
}

func (r *ring) replicaSet(token int64) uint64 {
	if i := r.rangeOf(token); i >= 0 {
		return r.set[i]
	}
	return 0
}

func (r *ring) route(token int64) (host, sh int) {
	if i := r.rangeOf(token); i >= 0 {
		host = r.first[i]
	}
	if r.shards > 1 {
		sh = shard.Of(token, r.shards, r.ignoreMSB)
	}
	return host, sh
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
	r := &ring{hosts: hosts}
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
		r.first = append(r.first, owners[i].host)
	}
	return r, nil
}

// groupBatches applies the loader's batching rules to one chunk: a
// partition with at least minRows rows is cut into batches of its own;
// smaller partitions are pooled by replica set (and shard), kept whole, and the pool
// is cut before a batch would pass maxRows rows or maxBytes value bytes.
func groupBatches(rows []*Row, minRows, maxRows, maxBytes int, rg *ring) [][]*Row {
	order := map[string]int{}
	var parts [][]*Row
	for _, r := range rows {
		k, ok := order[r.partition]
		if !ok {
			k = len(parts)
			order[r.partition] = k
			parts = append(parts, nil)
		}
		parts[k] = append(parts[k], r)
	}
	var out [][]*Row
	cutter := func() (add func(*Row), done func()) {
		var cur []*Row
		size := 0
		add = func(r *Row) {
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
	var pools [][][]*Row
	for _, p := range parts {
		if len(p) >= minRows {
			add, done := cutter()
			for _, r := range p {
				add(r)
			}
			done()
			continue
		}
		g := rg.groupOf(p[0].Token)
		k, ok := poolOf[g]
		if !ok {
			k = len(pools)
			poolOf[g] = k
			pools = append(pools, nil)
		}
		pools[k] = append(pools[k], p)
	}
	for _, pool := range pools {
		var cur []*Row
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
