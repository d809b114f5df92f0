package cqlsim

import (
	"bytes"
	"encoding/binary"
	"sort"
	"strings"

	"github.com/cqlload/cqlload/cqlsim/internal/cql"
	"github.com/datastax/go-cassandra-native-protocol/message"
)

type selItem struct {
	kind cql.SelectorKind
	col  *column
	typ  *cql.Type
}

// filter is a WHERE relation checked row by row.
type filter struct {
	col   *column // nil for token(…)
	op    cql.RelOp
	vals  []*source
	list  *source // IN ?
	token bool
}

type selectPlan struct {
	t *table
	// pk fixes every partition key column (= or IN); nil means a scan.
	pk       []keyRestr
	filters  []filter
	items    []selItem
	meta     []*message.ColumnMetadata
	agg      bool // count(…) present: one result row
	limit    *source
	ppl      *source
	reverse  bool
	distinct bool
}

func (cp *compiler) selectPlan(p *plan, st *cql.Select) error {
	t, err := cp.resolveTable(st.Keyspace, st.Table)
	if err != nil {
		return err
	}
	p.t = t
	if st.JSON {
		return invalidf("cqlsim does not support SELECT JSON")
	}
	if len(st.GroupBy) > 0 {
		return invalidf("cqlsim does not support GROUP BY")
	}
	s := &selectPlan{t: t, distinct: st.Distinct}
	addMeta := func(name string, typ *cql.Type) {
		s.meta = append(s.meta, &message.ColumnMetadata{Keyspace: t.ks, Table: t.name, Name: name, Index: int32(len(s.meta)), Type: wireType(typ)})
	}
	if st.Star {
		for _, c := range t.cols {
			s.items = append(s.items, selItem{kind: cql.SelColumn, col: c, typ: c.typ})
			addMeta(c.name, c.typ)
		}
	}
	for _, sel := range st.Selectors {
		it := selItem{kind: sel.Kind}
		name := sel.Name
		switch sel.Kind {
		case cql.SelColumn, cql.SelWritetime, cql.SelTTL:
			col := t.byName[sel.Name]
			if col == nil {
				return invalidf("Undefined column name %s in selection clause", sel.Name)
			}
			it.col, it.typ = col, col.typ
			if sel.Kind != cql.SelColumn {
				if col.kind == kindPartition || col.kind == kindClustering {
					return invalidf("Cannot use selection function %s on PRIMARY KEY part %s", map[bool]string{true: "writeTime", false: "ttl"}[sel.Kind == cql.SelWritetime], col.name)
				}
				if isMultiCell(col.typ) {
					// Cassandra 4.0.5 and later (CASSANDRA-17628); 5.0 allows it.
					kind := "UDT"
					if col.typ.Kind == cql.List || col.typ.Kind == cql.Set || col.typ.Kind == cql.Map {
						kind = "collection"
					}
					return invalidf("Cannot use selection function %s on non-frozen %s %s", map[bool]string{true: "writeTime", false: "ttl"}[sel.Kind == cql.SelWritetime], kind, col.name)
				}
				it.typ = bigintType
				name = "writetime(" + col.name + ")"
				if sel.Kind == cql.SelTTL {
					it.typ = intType
					name = "ttl(" + col.name + ")"
				}
			}
		case cql.SelCount:
			it.typ = bigintType
			name = "count"
			if len(sel.Args) == 1 && sel.Args[0] != "*" && sel.Args[0] != "1" {
				col := t.byName[sel.Args[0]]
				if col == nil {
					return invalidf("Undefined column name %s in selection clause", sel.Args[0])
				}
				it.col = col
				name = "system.count(" + col.name + ")"
			}
			s.agg = true
		case cql.SelToken:
			if len(sel.Args) != len(t.pk) {
				return invalidf("Invalid number of arguments in call to function token: %d required but %d provided", len(t.pk), len(sel.Args))
			}
			for i, a := range sel.Args {
				if a != t.pk[i].name {
					return invalidf("Invalid argument %s for function token: token() takes the partition key columns in order", a)
				}
			}
			it.typ = bigintType
			name = "system.token(" + strings.Join(sel.Args, ", ") + ")"
		default:
			return invalidf("cqlsim does not support function %s in a selection", sel.Name)
		}
		if sel.Alias != "" {
			name = sel.Alias
		}
		s.items = append(s.items, it)
		addMeta(name, it.typ)
	}
	if err := cp.selectWhere(s, st.Where); err != nil {
		return err
	}
	if st.Limit != nil {
		if s.limit, err = cp.term(st.Limit, intType, "[limit]"); err != nil {
			return err
		}
	}
	if st.PerPartitionLimit != nil {
		if s.ppl, err = cp.term(st.PerPartitionLimit, intType, "[per_partition_limit]"); err != nil {
			return err
		}
	}
	if len(st.OrderBy) > 0 {
		col := t.byName[st.OrderBy[0].Column]
		if col == nil || col.kind != kindClustering {
			return invalidf("Order by is currently only supported on the clustered columns of the PRIMARY KEY, got %s", st.OrderBy[0].Column)
		}
		if s.pk == nil {
			return invalidf("ORDER BY is only supported when the partition key is restricted by an EQ or an IN.")
		}
		s.reverse = st.OrderBy[0].Desc != col.desc
	}
	p.sel = s
	if s.pk != nil {
		p.pkIdx = pkIndexes(s.pk)
	}
	return nil
}

func (cp *compiler) selectWhere(s *selectPlan, rels []cql.Relation) error {
	t := s.t
	pk := make([]keyRestr, len(t.pk))
	var pkRels []cql.Relation
	for _, r := range rels {
		if r.Token {
			f := filter{token: true, op: r.Op}
			for _, v := range r.Values {
				src, err := cp.term(v, bigintType, "partition key token")
				if err != nil {
					return err
				}
				f.vals = append(f.vals, src)
			}
			s.filters = append(s.filters, f)
			continue
		}
		if len(r.Columns) != 1 {
			return invalidf("cqlsim does not support multi-column relations")
		}
		col := t.byName[r.Columns[0]]
		if col == nil {
			return invalidf("Undefined column name %s", r.Columns[0])
		}
		if col.kind == kindPartition && (r.Op == cql.RelEq || r.Op == cql.RelIn) && pk[col.pos].col == nil {
			kr, err := cp.keyRestr(col, r)
			if err != nil {
				return err
			}
			pk[col.pos] = kr
			pkRels = append(pkRels, r)
			continue
		}
		f, err := cp.filter(col, r)
		if err != nil {
			return err
		}
		s.filters = append(s.filters, f)
	}
	if len(pkRels) == len(t.pk) {
		s.pk = pk
		return nil
	}
	// A partly restricted partition key is a filtered scan.
	for i, kr := range pk {
		if kr.col == nil {
			continue
		}
		f := filter{col: t.pk[i], op: cql.RelEq}
		switch {
		case kr.eq != nil:
			f.vals = []*source{kr.eq}
		case kr.inList != nil:
			f.op, f.list = cql.RelIn, kr.inList
		default:
			f.op, f.vals = cql.RelIn, kr.in
		}
		s.filters = append(s.filters, f)
	}
	return nil
}

func (cp *compiler) filter(col *column, r cql.Relation) (filter, error) {
	f := filter{col: col, op: r.Op}
	switch r.Op {
	case cql.RelEq, cql.RelLt, cql.RelLte, cql.RelGt, cql.RelGte, cql.RelNeq:
	case cql.RelIn:
		var err error
		f.list, f.vals, err = cp.inValues(col, r.Values)
		return f, err
	default:
		return f, invalidf("cqlsim does not support this operator on column %s", col.name)
	}
	for _, v := range r.Values {
		src, err := cp.term(v, col.typ, col.name)
		if err != nil {
			return f, err
		}
		f.vals = append(f.vals, src)
	}
	return f, nil
}

// boundFilter is a filter with its values evaluated for one execution.
type boundFilter struct {
	*filter
	vals [][]byte
	toks []int64
}

func (f *boundFilter) match(typ *cql.Type, v []byte) bool {
	if v == nil {
		return false
	}
	switch f.op {
	case cql.RelIn:
		for _, x := range f.vals {
			if cql.Compare(typ, v, x) == 0 {
				return true
			}
		}
		return false
	case cql.RelNeq:
		return cql.Compare(typ, v, f.vals[0]) != 0
	}
	return cmpOp(f.op, cql.Compare(typ, v, f.vals[0]))
}

func cmpOp(op cql.RelOp, d int) bool {
	switch op {
	case cql.RelEq:
		return d == 0
	case cql.RelLt:
		return d < 0
	case cql.RelLte:
		return d <= 0
	case cql.RelGt:
		return d > 0
	case cql.RelGte:
		return d >= 0
	}
	return false
}

func (f *boundFilter) matchToken(tok int64) bool {
	for _, x := range f.toks {
		d := 0
		if tok < x {
			d = -1
		} else if tok > x {
			d = 1
		}
		if f.op == cql.RelIn {
			if d == 0 {
				return true
			}
			continue
		}
		if !cmpOp(f.op, d) {
			return false
		}
	}
	return f.op != cql.RelIn
}

// cursor is where a page of a table scan ended: after the row with
// clustering key ck in partition (token, key), or after the whole partition
// when ck is empty. done counts the rows returned so far, for LIMIT.
type cursor struct {
	token int64
	key   []byte
	ck    [][]byte
	done  int
	// inPart counts the rows already returned from the cursor's partition,
	// for PER PARTITION LIMIT.
	inPart int
}

// Paging states start with a kind byte: an offset into a recomputed result
// (partition key lookups, which are small) or a scan cursor.
const (
	pagingOffset = 1
	pagingCursor = 2
)

func (c *cursor) encode() []byte {
	b := []byte{pagingCursor}
	b = binary.BigEndian.AppendUint64(b, uint64(c.done))
	b = binary.BigEndian.AppendUint32(b, uint32(c.inPart))
	b = binary.BigEndian.AppendUint64(b, uint64(c.token))
	b = binary.BigEndian.AppendUint32(b, uint32(len(c.key)))
	b = append(b, c.key...)
	b = binary.BigEndian.AppendUint16(b, uint16(len(c.ck)))
	for _, v := range c.ck {
		b = binary.BigEndian.AppendUint32(b, uint32(len(v)))
		b = append(b, v...)
	}
	return b
}

func decodeCursor(b []byte) (*cursor, bool) {
	r := &bodyReader{b: b}
	if r.byte1() != pagingCursor {
		return nil, false
	}
	c := &cursor{done: int(r.int64())}
	c.inPart = int(r.int32())
	c.token = r.int64()
	c.key = r.take(int(r.int32()))
	n := r.short()
	for i := 0; i < n && r.err == nil; i++ {
		c.ck = append(c.ck, r.take(int(r.int32())))
	}
	return c, r.err == nil && len(r.b) == 0 && c.done >= 0 && c.inPart >= 0
}

// run executes the select. With page > 0 it stops after page rows and
// returns the cursor after the last one (scans; from resumes a scan). With
// max > 0 it stops after max rows (offset paging of key lookups).
func (s *selectPlan) run(a *execArgs, d *tableData, max, page int, from *cursor) ([][][]byte, *cursor, error) {
	limit := -1
	if s.limit != nil {
		v, unset, err := a.value(s.limit)
		if err != nil {
			return nil, nil, err
		}
		if !unset && v != nil {
			n, ok := decInt(v)
			if !ok || n <= 0 {
				return nil, nil, invalidf("LIMIT must be strictly positive")
			}
			limit = int(n)
		}
	}
	ppl := -1
	if s.ppl != nil {
		v, unset, err := a.value(s.ppl)
		if err != nil {
			return nil, nil, err
		}
		if !unset && v != nil {
			n, ok := decInt(v)
			if !ok || n <= 0 {
				return nil, nil, invalidf("PER PARTITION LIMIT must be strictly positive")
			}
			ppl = int(n)
		}
	}
	if s.agg {
		limit = -1
	} else if max > 0 && (limit < 0 || max < limit) {
		limit = max
	}
	if from != nil && limit >= 0 {
		limit -= from.done
		if limit <= 0 {
			return nil, nil, nil
		}
	}
	var lastP *partition
	var lastR *row
	lastN := 0 // rows returned from lastP, earlier pages included
	byPage := false
	// startN is how many rows of p earlier pages returned.
	startN := func(p *partition) int {
		if from != nil && p.token == from.token && bytes.Equal(p.key, from.key) {
			return from.inPart
		}
		return 0
	}
	bound := make([]boundFilter, len(s.filters))
	for i := range s.filters {
		f := &s.filters[i]
		bf := boundFilter{filter: f}
		srcs := f.vals
		if f.list != nil {
			v, _, err := a.value(f.list)
			if err != nil {
				return nil, nil, err
			}
			elems, ok := decList(v)
			if !ok {
				return nil, nil, invalidf("Invalid IN list value")
			}
			bf.vals = elems
		}
		for _, src := range srcs {
			v, unset, err := a.value(src)
			if err != nil {
				return nil, nil, err
			}
			if unset || v == nil {
				return nil, nil, invalidf("Invalid null or unset value in WHERE clause")
			}
			bf.vals = append(bf.vals, v)
		}
		if f.token {
			for _, v := range bf.vals {
				tok, ok := decBigint(v)
				if !ok {
					return nil, nil, invalidf("Invalid token value: expected 8 bytes")
				}
				bf.toks = append(bf.toks, tok)
			}
		}
		bound[i] = bf
	}
	now := a.now.Unix()
	var out [][][]byte
	counts := make([]int64, len(s.items))
	var first [][]byte
	emit := func(row [][]byte, p *partition, r *row) bool {
		if s.agg {
			if first == nil {
				first = row
			}
			for i, it := range s.items {
				if it.kind == cql.SelCount && (it.col == nil || row[i] != nil) {
					counts[i]++
				}
			}
			return true
		}
		out = append(out, row)
		if p != lastP {
			lastN = startN(p)
		}
		lastP, lastR = p, r
		lastN++
		if page > 0 && len(out) >= page {
			byPage = true
			return false
		}
		return limit < 0 || len(out) < limit
	}
	visit := func(p *partition, after [][]byte) bool {
		for i := range bound {
			f := &bound[i]
			if f.token && !f.matchToken(p.token) {
				return true
			}
			if f.col != nil && f.col.kind == kindPartition && !f.match(f.col.typ, p.pk[f.col.pos]) {
				return true
			}
		}
		return s.partitionRows(p, after, startN(p), bound, now, ppl, emit)
	}
	if s.pk != nil {
		keys, err := a.product(s.pk)
		if err != nil {
			return nil, nil, err
		}
		d.mu.RLock()
		for _, pk := range keys {
			if p := d.parts[string(routingKey(nil, pk))]; p != nil {
				if !visit(p, nil) {
					break
				}
			}
		}
		d.mu.RUnlock()
	} else {
		d.mu.Lock()
		parts := d.ordered()
		start, end := tokenBounds(parts, bound)
		var after [][]byte
		if from != nil {
			i := sort.Search(len(parts), func(i int) bool {
				p := parts[i]
				return p.token > from.token || p.token == from.token && bytes.Compare(p.key, from.key) >= 0
			})
			if i < len(parts) && parts[i].token == from.token && bytes.Equal(parts[i].key, from.key) {
				if len(from.ck) == 0 {
					i++
				} else {
					after = from.ck
				}
			}
			if i >= start {
				start = i
			} else {
				after = nil
			}
		}
		for k := start; k < end; k++ {
			if !visit(parts[k], after) {
				break
			}
			after = nil
		}
		d.mu.Unlock()
	}
	if s.agg {
		row := make([][]byte, len(s.items))
		for i, it := range s.items {
			if it.kind == cql.SelCount {
				row[i] = encBigint(counts[i])
			} else if first != nil {
				row[i] = first[i]
			}
		}
		return [][][]byte{row}, nil, nil
	}
	if !byPage || lastP == nil {
		return out, nil, nil
	}
	next := &cursor{token: lastP.token, key: lastP.key, done: len(out), inPart: lastN}
	if from != nil {
		next.done += from.done
	}
	// DISTINCT and a reached PER PARTITION LIMIT resume at the next partition.
	if lastR != nil && !s.distinct && (ppl <= 0 || lastN < ppl) {
		next.ck = lastR.ck
	}
	return out, next, nil
}

// tokenBounds narrows a scan to the partitions that token(…) restrictions
// allow, by binary search on the token-ordered partitions.
func tokenBounds(parts []*partition, bound []boundFilter) (start, end int) {
	start, end = 0, len(parts)
	for i := range bound {
		f := &bound[i]
		if !f.token || len(f.toks) != 1 {
			continue
		}
		tok := f.toks[0]
		switch f.op {
		case cql.RelGt:
			start = max(start, sort.Search(len(parts), func(i int) bool { return parts[i].token > tok }))
		case cql.RelGte:
			start = max(start, sort.Search(len(parts), func(i int) bool { return parts[i].token >= tok }))
		case cql.RelLt:
			end = min(end, sort.Search(len(parts), func(i int) bool { return parts[i].token >= tok }))
		case cql.RelLte:
			end = min(end, sort.Search(len(parts), func(i int) bool { return parts[i].token > tok }))
		}
	}
	if start > end {
		start = end
	}
	return start, end
}

// partitionRows emits the partition's live rows that pass the filters; it
// returns false once the consumer wants no more.
func (s *selectPlan) partitionRows(p *partition, after [][]byte, seen int, bound []boundFilter, now int64, ppl int, emit func([][]byte, *partition, *row) bool) bool {
	t := s.t
	n := seen
	match := func(r *row) bool {
		for i := range bound {
			f := &bound[i]
			if f.token || f.col.kind == kindPartition {
				continue
			}
			var v []byte
			switch f.col.kind {
			case kindClustering:
				if r == nil {
					return false
				}
				v = r.ck[f.col.pos]
			case kindStatic:
				if c := slotOf(p.static, f.col.ri); c != nil && c.live(now) {
					v = c.value
				}
			default:
				if r == nil {
					return false
				}
				if c := slotOf(r.cells, f.col.ri); c != nil && c.live(now) {
					v = c.value
				}
			}
			if !f.match(f.col.typ, v) {
				return false
			}
		}
		return true
	}
	for k := range p.rows {
		i := k
		if s.reverse {
			i = len(p.rows) - 1 - k
		}
		r := p.rows[i]
		if after != nil && t.compareCK(r.ck, after) <= 0 {
			continue
		}
		if !r.live(now, t) || !match(r) {
			continue
		}
		n++
		if !emit(s.project(p, r, now), p, r) {
			return false
		}
		if s.distinct || (ppl > 0 && n >= ppl) {
			return true
		}
	}
	// A partition with only static values reads as one row with null
	// clustering and regular columns, as in Cassandra.
	if n == 0 && after == nil && t.hasStatic && match(nil) {
		for _, c := range t.regular {
			if sc := slotOf(p.static, c.ri); c.kind == kindStatic && sc != nil && sc.live(now) {
				return emit(s.project(p, nil, now), p, nil)
			}
		}
	}
	return true
}

func (s *selectPlan) project(p *partition, r *row, now int64) [][]byte {
	out := make([][]byte, len(s.items))
	for i, it := range s.items {
		switch it.kind {
		case cql.SelToken:
			out[i] = encBigint(p.token)
		case cql.SelCount:
			if it.col != nil {
				out[i] = s.cellOf(p, r, it.col, now)
			}
		case cql.SelColumn:
			out[i] = s.cellOf(p, r, it.col, now)
		case cql.SelWritetime, cql.SelTTL:
			var c *cell
			if it.col.kind == kindStatic {
				c = slotOf(p.static, it.col.ri)
			} else if r != nil {
				c = slotOf(r.cells, it.col.ri)
			}
			if c == nil || !c.live(now) {
				continue
			}
			if it.kind == cql.SelWritetime {
				out[i] = encBigint(c.ts)
			} else if c.expires > 0 {
				out[i] = encInt(int32(int64(c.expires) - now))
			}
		}
	}
	return out
}

func (s *selectPlan) cellOf(p *partition, r *row, col *column, now int64) []byte {
	switch col.kind {
	case kindPartition:
		return p.pk[col.pos]
	case kindClustering:
		if r == nil {
			return nil
		}
		return r.ck[col.pos]
	case kindStatic:
		if c := slotOf(p.static, col.ri); c != nil && c.live(now) {
			return c.value
		}
		return nil
	}
	if r == nil {
		return nil
	}
	if c := slotOf(r.cells, col.ri); c != nil && c.live(now) {
		return c.value
	}
	return nil
}
