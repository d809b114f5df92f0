package cqlsim

import (
	"bytes"
	"cmp"
	"math"
	"slices"
	"sort"
	"sync"

	"github.com/cqlload/cqlload/cqlsim/internal/cql"
)

// noDeletion marks a row or partition that was never deleted.
const noDeletion = math.MinInt64

// cell is one stored value with its write metadata. A zero cell is absent.
// It is kept small (40 bytes): a loader test may store millions of them.
type cell struct {
	value   []byte // nil with set=true is a tombstone (a null write)
	ts      int64  // write timestamp, microseconds
	expires uint32 // unix seconds after which the value reads as null; 0 never
	set     bool
}

func (c *cell) live(now int64) bool {
	return c.set && c.value != nil && (c.expires == 0 || now < int64(c.expires))
}

// wins reports whether a write n supersedes the stored cell c, as Cassandra
// reconciles: higher timestamp wins; on a tie a tombstone beats a value and
// otherwise the greater value wins.
func (c *cell) wins(n *cell) bool {
	if !c.set {
		return true
	}
	if n.ts != c.ts {
		return n.ts > c.ts
	}
	if (n.value == nil) != (c.value == nil) {
		return n.value == nil
	}
	if d := bytes.Compare(n.value, c.value); d != 0 {
		return d > 0
	}
	// Equal values: the longer-lived wins, a value that never expires most.
	return expiry(n.expires) > expiry(c.expires)
}

func expiry(e uint32) uint64 {
	if e == 0 {
		return math.MaxUint64
	}
	return uint64(e)
}

// slotOf is the cell of slot ri (column.ri) in cells, nil when cells
// were stored before ALTER TABLE added the column.
func slotOf(cells []cell, ri int) *cell {
	if ri < len(cells) {
		return &cells[ri]
	}
	return nil
}

// growSlot is the cell of slot ri in *cells, which it lengthens first
// when they were stored before ALTER TABLE added the column.
func growSlot(cells *[]cell, ri int) *cell {
	if ri >= len(*cells) {
		*cells = append(*cells, make([]cell, ri+1-len(*cells))...)
	}
	return &(*cells)[ri]
}

// liveness is a row marker: a cell without a value.
type liveness struct {
	ts      int64
	expires uint32
	set     bool
}

type row struct {
	ck        [][]byte
	marker    liveness // primary key liveness, set by INSERT
	deletedAt int64
	cells     []cell // by column index; key columns stay unset
}

func (r *row) live(now int64, t *table) bool {
	if r.marker.set && r.marker.ts > r.deletedAt && (r.marker.expires == 0 || now < int64(r.marker.expires)) {
		return true
	}
	for _, c := range t.regular {
		if s := slotOf(r.cells, c.ri); s != nil && s.live(now) {
			return true
		}
	}
	return false
}

type partition struct {
	key       []byte // routing key
	token     int64
	pk        [][]byte
	static    []cell // by column index, nil when the table has no static column
	rows      []*row // sorted by clustering key
	deletedAt int64
	// ranges are the partition's range deletions, newest last.
	ranges []rangeTombstone
}

// tableData holds a table's rows. One lock per table: writers to different
// tables never contend, and a row write holds it for a map lookup and a copy.
type tableData struct {
	mu    sync.RWMutex
	parts map[string]*partition
	order []*partition // partitions in token order, rebuilt lazily
	dirty bool
}

func newTableData() *tableData { return &tableData{parts: map[string]*partition{}} }

// compareCK orders clustering keys column by column with each column's
// declared order; a shorter prefix sorts first.
func (t *table) compareCK(a, b [][]byte) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		c := t.ck[i]
		d := cql.Compare(c.typ, a[i], b[i])
		if c.desc {
			d = -d
		}
		if d != 0 {
			return d
		}
	}
	return len(a) - len(b)
}

// findRow returns the index of the row with clustering key ck, or where it would go.
func (t *table) findRow(p *partition, ck [][]byte) (int, bool) {
	n := len(p.rows)
	// Loaders append in clustering order; check the tail before searching.
	if n == 0 || t.compareCK(p.rows[n-1].ck, ck) < 0 {
		return n, false
	}
	i := sort.Search(n, func(i int) bool { return t.compareCK(p.rows[i].ck, ck) >= 0 })
	return i, i < n && t.compareCK(p.rows[i].ck, ck) == 0
}

// mutation is a write to one row (or one partition) of a table.
type mutation struct {
	t      *table
	key    []byte // routing key
	token  int64
	pk     [][]byte
	ck     [][]byte // nil for partition-level writes (static cells, partition deletes)
	ts     int64
	ttl    int32
	insert bool // INSERT sets the row marker
	// deleteRow deletes the row at ck, or the whole partition when ck is nil.
	deleteRow bool
	// rangeDelete deletes every row whose clustering key starts with ck
	// and, when rng is set, whose next column lies in rng.
	rangeDelete bool
	rng         *ckRange
	cells       []cellWrite
}

// ckRange bounds one clustering column: nil lo or hi is unbounded.
type ckRange struct {
	lo, hi         []byte
	loIncl, hiIncl bool
}

// rangeTombstone is a DELETE of a range of rows: it shadows every write
// at or before ts to a row it covers, including rows written afterwards.
type rangeTombstone struct {
	prefix [][]byte
	rng    *ckRange
	ts     int64
}

// covers reports whether the row with clustering key ck is in the range.
func (rt *rangeTombstone) covers(t *table, ck [][]byte) bool {
	if len(ck) < len(rt.prefix) {
		return false
	}
	for i, v := range rt.prefix {
		if cql.Compare(t.ck[i].typ, ck[i], v) != 0 {
			return false
		}
	}
	if rt.rng == nil {
		return true
	}
	i := len(rt.prefix)
	if i >= len(ck) {
		return false
	}
	typ := t.ck[i].typ
	if rt.rng.lo != nil {
		if d := cql.Compare(typ, ck[i], rt.rng.lo); d < 0 || d == 0 && !rt.rng.loIncl {
			return false
		}
	}
	if rt.rng.hi != nil {
		if d := cql.Compare(typ, ck[i], rt.rng.hi); d > 0 || d == 0 && !rt.rng.hiIncl {
			return false
		}
	}
	return true
}

type cellWrite struct {
	col     *column
	value   []byte // nil writes a tombstone
	delta   int64  // counter increment
	counter bool
	op      collOp // collection update; collSet for plain writes
	key     []byte // map key or list index of collPut and collDelete
}

// size approximates Cassandra's PartitionUpdate.dataSize for batch limits:
// clustering bytes, 8 bytes of liveness timestamp per INSERT, and per cell
// its value plus an 8-byte timestamp (16 with a TTL).
func (m *mutation) size() int {
	n := 0
	for _, c := range m.ck {
		n += len(c)
	}
	if m.insert {
		n += 8
	}
	per := 8
	if m.ttl > 0 {
		per = 16
	}
	for _, c := range m.cells {
		if c.counter {
			n += 8 + per
		} else {
			n += len(c.key) + len(c.value) + per
		}
	}
	return n
}

// newPartition allocates a partition together with its first row, the
// common case of a loader writing one row per partition: one allocation for
// both and one for all their cells.
func newPartition(t *table, m *mutation) *partition {
	type partAndRow struct {
		p    partition
		r    row
		rows [1]*row
	}
	n := t.slots
	if t.hasStatic {
		n *= 2
	}
	cells := make([]cell, n)
	a := &partAndRow{}
	a.p = partition{key: m.key, token: m.token, pk: m.pk, deletedAt: noDeletion}
	a.r = row{ck: m.ck, deletedAt: noDeletion, cells: cells[:t.slots:t.slots]}
	if t.hasStatic {
		a.p.static = cells[t.slots:]
	}
	if m.ck != nil {
		a.rows[0] = &a.r
		a.p.rows = a.rows[:1:1]
	}
	return &a.p
}

func (d *tableData) partitionFor(t *table, m *mutation) *partition {
	p := d.parts[string(m.key)]
	if p == nil {
		p = newPartition(t, m)
		d.parts[string(m.key)] = p
		d.dirty = true
	}
	return p
}

// apply stores m. now is the current unix time in seconds, for TTLs. Only
// collection updates can fail (a list index out of bounds).
func (d *tableData) apply(t *table, m *mutation, now int64) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.applyLocked(t, m, now)
}

func (d *tableData) applyLocked(t *table, m *mutation, now int64) error {
	p := d.partitionFor(t, m)
	var expires uint32
	if m.ttl > 0 {
		expires = uint32(now + int64(m.ttl))
	}
	if m.deleteRow && m.ck == nil {
		if m.ts > p.deletedAt {
			p.deletedAt = m.ts
			// Shadowed data is dropped now so reads need not consult
			// tombstones: whole rows, or the older cells of newer rows.
			rows := p.rows[:0]
			for _, r := range p.rows {
				// A row tombstone newer than the partition's must stay too.
				if r.marker.set && r.marker.ts > m.ts || r.deletedAt > m.ts || anyNewer(r.cells, m.ts) {
					shadowCells(r, m.ts)
					rows = append(rows, r)
				}
			}
			clear(p.rows[len(rows):])
			p.rows = rows
			for i := range p.static {
				if p.static[i].set && p.static[i].ts <= m.ts {
					p.static[i] = cell{}
				}
			}
			// Range deletions the partition's covers shadow nothing more.
			ranges := p.ranges[:0]
			for _, rt := range p.ranges {
				if rt.ts > m.ts {
					ranges = append(ranges, rt)
				}
			}
			clear(p.ranges[len(ranges):])
			p.ranges = ranges
		}
		return nil
	}
	if m.rangeDelete {
		rt := rangeTombstone{prefix: m.ck, rng: m.rng, ts: m.ts}
		for _, r := range p.rows {
			if rt.covers(t, r.ck) && m.ts > r.deletedAt {
				r.deletedAt = m.ts
				shadowCells(r, m.ts)
			}
		}
		p.ranges = append(p.ranges, rt)
		return nil
	}
	var r *row
	if len(m.ck) > 0 {
		i, found := t.findRow(p, m.ck)
		if found {
			r = p.rows[i]
		} else {
			if m.deleteRow && m.ts <= p.deletedAt {
				return nil
			}
			r = &row{ck: m.ck, deletedAt: noDeletion, cells: make([]cell, t.slots)}
			p.rows = append(p.rows, nil)
			copy(p.rows[i+1:], p.rows[i:])
			p.rows[i] = r
		}
	} else if len(t.ck) == 0 {
		if len(p.rows) == 0 {
			p.rows = append(p.rows, &row{deletedAt: noDeletion, cells: make([]cell, t.slots)})
		}
		r = p.rows[0]
	}
	shadow := p.deletedAt
	if r != nil && r.deletedAt > shadow {
		shadow = r.deletedAt
	}
	if r != nil {
		for i := range p.ranges {
			if rt := &p.ranges[i]; rt.ts > shadow && rt.covers(t, r.ck) {
				shadow = rt.ts
			}
		}
	}
	if m.deleteRow {
		if r != nil && m.ts > r.deletedAt {
			r.deletedAt = m.ts
			shadowCells(r, m.ts)
		}
		return nil
	}
	if m.ts <= shadow {
		return nil
	}
	if m.insert && r != nil {
		// Newer wins; on a tie an expiring marker beats a permanent one and
		// the later expiry the earlier, as in Cassandra's LivenessInfo.
		if mk := &r.marker; !mk.set || m.ts > mk.ts || m.ts == mk.ts && expires != 0 && (mk.expires == 0 || expires > mk.expires) {
			*mk = liveness{ts: m.ts, expires: expires, set: true}
		}
	}
	for i := range m.cells {
		w := &m.cells[i]
		var dst *cell
		if w.col.kind == kindStatic {
			dst = growSlot(&p.static, w.col.ri)
		} else if r != nil {
			dst = growSlot(&r.cells, w.col.ri)
		} else {
			continue
		}
		if w.counter {
			var cur int64
			if dst.live(now) {
				cur, _ = decBigint(dst.value)
			}
			*dst = cell{value: encBigint(cur + w.delta), ts: max(dst.ts, m.ts), set: true}
			continue
		}
		val := w.value
		if w.op != collSet {
			var cur []byte
			if dst.live(now) {
				cur = dst.value
			}
			var err error
			if val, err = applyColl(w.col.typ, w.op, cur, w.value, w.key); err != nil {
				return err
			}
		}
		n := cell{value: val, ts: m.ts, set: true}
		if val != nil {
			n.expires = expires
		}
		if dst.wins(&n) {
			*dst = n
		}
	}
	return nil
}

// shadowCells drops what a deletion at ts covers in row r.
func shadowCells(r *row, ts int64) {
	if r.marker.ts <= ts {
		r.marker = liveness{}
	}
	for i := range r.cells {
		if r.cells[i].set && r.cells[i].ts <= ts {
			r.cells[i] = cell{}
		}
	}
}

func anyNewer(cells []cell, ts int64) bool {
	for i := range cells {
		if cells[i].set && cells[i].ts > ts {
			return true
		}
	}
	return false
}

// currentRow returns the live values of m's target row, every column in
// table order (static columns from the partition), and whether the row
// exists, for the conditions of a lightweight transaction.
func (d *tableData) currentRow(t *table, m *mutation, now int64) ([][]byte, bool) {
	out := make([][]byte, len(t.cols))
	p := d.parts[string(m.key)]
	if p == nil {
		return out, false
	}
	var r *row
	if len(t.ck) == 0 {
		if len(p.rows) > 0 {
			r = p.rows[0]
		}
	} else if m.ck != nil {
		if i, found := t.findRow(p, m.ck); found {
			r = p.rows[i]
		}
	}
	exists := r != nil && r.live(now, t)
	for i, c := range t.cols {
		switch c.kind {
		case kindPartition:
			out[i] = p.pk[c.pos]
		case kindClustering:
			if m.ck != nil && c.pos < len(m.ck) {
				out[i] = m.ck[c.pos]
			}
		case kindStatic:
			if s := slotOf(p.static, c.ri); s != nil && s.live(now) {
				out[i] = s.value
			}
		default:
			if !exists {
				continue
			}
			if s := slotOf(r.cells, c.ri); s != nil && s.live(now) {
				out[i] = s.value
			}
		}
	}
	return out, exists
}

// ordered returns the partitions in token order (ties by key bytes), the
// order of a full-table scan. The sort runs on (token, partition) pairs, so
// that comparing two partitions reads no partition: a scan of a table of
// millions of rows sorts it once, and the first page is served within a
// client's timeout.
func (d *tableData) ordered() []*partition {
	if d.dirty || len(d.order) != len(d.parts) {
		type entry struct {
			token int64
			p     *partition
		}
		es := make([]entry, 0, len(d.parts))
		for _, p := range d.parts {
			es = append(es, entry{p.token, p})
		}
		slices.SortFunc(es, func(a, b entry) int {
			if c := cmp.Compare(a.token, b.token); c != 0 {
				return c
			}
			return bytes.Compare(a.p.key, b.p.key)
		})
		d.order = d.order[:0]
		for _, e := range es {
			d.order = append(d.order, e.p)
		}
		d.dirty = false
	}
	return d.order
}

func (d *tableData) truncate() {
	d.mu.Lock()
	d.parts = map[string]*partition{}
	d.order = nil
	d.dirty = true
	d.mu.Unlock()
}
