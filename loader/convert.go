package loader

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gocql/gocql"

	"github.com/cqlload/cqlload/csvparse"
	"github.com/cqlload/cqlload/internal/murmur3"
	"github.com/cqlload/cqlload/internal/termsafe"
	"github.com/cqlload/cqlload/loader/internal/tokenorder"
	"github.com/cqlload/cqlload/schema"
)

// value is one bound value, serialized in its chunk's arena: a 4-byte
// big-endian length (-1 for a null), then the bytes, as the protocol
// lays out a tuple's elements, so that each element of a converted tuple
// already is a value. Rows bind *value so that putting it in an
// interface does not allocate; a nil *value is a null (gocql marshals
// nil pointers as null). A slice header per value instead took 24 bytes
// in a slab of its own, a third of what a converted narrow row held.
type value byte

// MarshalCQL hands gocql the bytes the converter produced: no reflection
// and no second conversion on the hot path.
func (v *value) MarshalCQL(gocql.TypeInfo) ([]byte, error) { return v.bytes(), nil }

// bytes is the serialized value, nil for a null.
func (v *value) bytes() []byte {
	p := unsafe.Pointer(v)
	n := int32(binary.BigEndian.Uint32(unsafe.Slice((*byte)(p), 4)))
	if n < 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Add(p, 4)), n)
}

// valueAt is the value whose length begins at arena[off].
func valueAt(arena []byte, off int) *value { return (*value)(&arena[off]) }

// inPlace is a value bound as the bytes it already is in the chunk's
// Data (planField.verbatim): long text is not copied.
type inPlace struct{ b []byte }

func (c *inPlace) MarshalCQL(gocql.TypeInfo) ([]byte, error) { return c.b, nil }

// row is a converted record waiting to be written. Many thousands of them
// wait at once (a few chunks' worth), so it is kept small.
type row struct {
	values []any
	rec    *chunkRecord // its chunk: a batch may hold rows of several
	// stmt, when set, replaces the plan's statement for this row: one
	// that writes its null tuple columns as null (plan.nullTupleRow).
	stmt  string
	line  int64
	token int64
	key   *value // the partition key as hashed for the token
	// The record as read is Data[rawAt:rawAt+rawLen] of its chunk.
	rawAt, rawLen int32
	idx           int32 // the record's index in its chunk (the ledger's bitmaps)
	size          int32 // serialized value bytes
}

// raw is the record as read, for the error file; it lives in the chunk's
// Data, which nothing writes to until the chunk is released.
func (r *row) raw(cr *chunkRecord) []byte {
	return cr.chunk.Data[r.rawAt : r.rawAt+r.rawLen : r.rawAt+r.rawLen]
}

// plan says how the fields of a record become the bound values of one
// prepared statement. There is one per distinct file layout (one for the
// whole run unless files with headers name their columns differently).
type plan struct {
	stmt    string
	nfields int
	fields  []planField // per file field
	nbind   int
	// nverbatim is the number of fields that may be bound in place; a
	// row's inPlace values are nverbatim apart in their slab.
	nverbatim int
	pk        []int // bind positions of the partition key, in key order
	counter   bool
	// tsBind is the bind position of the write timestamp, -1 for counter
	// updates, which take none.
	tsBind int
	// using are the fields that give a row's write time and TTL, and
	// ttlBind the TTL's bind position (-1 when none is bound); writeTime
	// reads the write time field.
	using     usingFields
	ttlBind   int
	writeTime *schema.WriteTimeParser
	// tuples are the bind positions of the top-level tuple columns (64
	// at most), and nullTuples builds the statement for a row whose
	// tuples in a mask of them are null.
	tuples     []tupleBind
	nullTuples func(mask uint64) string
	// cache holds the statements derived from stmt; plans with the same
	// stmt share it (Loader.planFor). nil: nothing is cached.
	cache *stmtCache
}

// stmtCache holds the statements derived from one statement text.
type stmtCache struct {
	// null caches nullTuples' statement per mask (uint64 → string):
	// plans with the same text name the same columns in the same order,
	// so a mask means the same tuples in each.
	null sync.Map
	// batch caches batchStatement's text per row count.
	batch [maxBatchStatementRows + 1]atomic.Pointer[string]
}

// maxBatchStatementRows bounds the batches sent as one prepared BEGIN
// BATCH: each row count up to it may be one more statement the cluster
// keeps prepared (20 at cqlsh's MAXBATCHSIZE).
const maxBatchStatementRows = 128

// batchStatement is "BEGIN UNLOGGED BATCH s; s; … APPLY BATCH" (COUNTER
// for counter updates) with n copies of the plan's statement s: rows bound
// one after another make it the batch a BATCH of n entries would be, sent
// as one prepared statement. n is at most maxBatchStatementRows.
func (p *plan) batchStatement(n int) string {
	if p.cache != nil {
		if s := p.cache.batch[n].Load(); s != nil {
			return *s
		}
	}
	kind := "UNLOGGED"
	if p.counter {
		kind = "COUNTER"
	}
	var b strings.Builder
	b.Grow(len(kind) + 20 + n*(len(p.stmt)+2))
	b.WriteString("BEGIN " + kind + " BATCH ")
	for range n {
		b.WriteString(p.stmt)
		b.WriteString("; ")
	}
	b.WriteString("APPLY BATCH")
	s := b.String()
	if p.cache != nil {
		p.cache.batch[n].Store(&s)
	}
	return s
}

// tupleBind is where a top-level tuple column's elements are bound.
type tupleBind struct{ bind, n int }

// nullTupleRow gives a row whose tuple columns in mask are null the
// statement that writes them as null, and its values without their
// element markers: bound element by element, a null tuple would be
// stored as a tuple of nulls.
func (p *plan) nullTupleRow(vals []any, mask uint64) (string, []any) {
	stmt, ok := p.cache.null.Load(mask)
	if !ok {
		stmt, _ = p.cache.null.LoadOrStore(mask, p.nullTuples(mask))
	}
	out := make([]any, 0, len(vals))
	next := 0
	for i, tb := range p.tuples {
		if mask&(1<<i) != 0 {
			out = append(out, vals[next:tb.bind]...)
			next = tb.bind + tb.n
		}
	}
	return stmt.(string), append(out, vals[next:]...)
}

type planField struct {
	col  *schema.Column // nil: skipped by SKIPCOLS
	bind int
	conv schema.Converter
	key  bool // primary key column: a null is an error
	// verbatim, when set, says a field may be bound as the bytes it
	// already is in the chunk (schema.Verbatim): long text is not copied.
	// Never set for key columns, whose converters check a size limit.
	verbatim    func([]byte) bool
	verbatimIdx int // its place among the row's inPlace values
	// emptyNull: an empty field is a null whatever NULL is; for text,
	// varchar and ascii it is the empty string unless NULL is empty.
	emptyNull bool
	// tuple > 0: a top-level tuple column, bound element by element at
	// bind, bind+1, … (gocql flattens tuple bind markers; see
	// schema.InsertStatement); tupleIdx is its index in plan.tuples.
	tuple, tupleIdx int
}

// newPlan builds the statement and field mapping for fileCols, the table
// columns in the order the file holds them (nil for a skipped field, and
// for the fields using names).
func newPlan(t *schema.Table, fileCols []*schema.Column, using usingFields, o *Options) (*plan, error) {
	if t.Counter && using != noUsing {
		return nil, errCounterUsing
	}
	var loaded []*schema.Column
	present := map[string]bool{}
	for _, c := range fileCols {
		if c == nil {
			continue
		}
		if present[c.Name] {
			return nil, fmt.Errorf("column %s is listed twice", c.Name)
		}
		present[c.Name] = true
		loaded = append(loaded, c)
	}
	var missing []string
	for _, c := range append(append([]*schema.Column{}, t.PartitionKey...), t.Clustering...) {
		if !present[c.Name] {
			missing = append(missing, c.Name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("primary key column(s) %s missing from the input's columns", strings.Join(missing, ", "))
	}
	// The statement names its columns in the table's order, not the
	// file's: files whose headers hold the same columns in another order
	// share one statement, and so one set of prepared statements (a
	// load of many files with as many headers prepared 127 batch
	// statements on every node for each).
	slices.SortFunc(loaded, func(a, b *schema.Column) int { return a.Index - b.Index })
	tupleIdx := map[*schema.Column]int{}
	for _, c := range loaded {
		if c.Type.Kind == schema.KindTuple {
			tupleIdx[c] = len(tupleIdx)
		}
	}
	p := &plan{nfields: len(fileCols), counter: t.Counter, cache: new(stmtCache), using: using}
	stmtUsing := schema.Using{TTL: o.TTL, TTLBound: using.ttl >= 0, Timestamp: true}
	if using.writeTime >= 0 {
		wt, err := schema.NewWriteTimeParser(o.Formats)
		if err != nil {
			return nil, err
		}
		p.writeTime = wt
	}
	p.tuples = make([]tupleBind, len(tupleIdx))
	// Fields find their markers by column, never by a name: a column
	// may be called anything a bind name could be ("[timestamp]", "t[0]").
	var binds schema.Binds
	if t.Counter {
		p.stmt, binds = schema.CounterStatement(t, loaded)
	} else {
		p.stmt, binds = schema.InsertStatement(t, loaded, stmtUsing)
	}
	p.tsBind, p.ttlBind = binds.Timestamp(), binds.TTL()
	p.nbind = len(binds)
	isKey := map[*schema.Column]bool{}
	for _, c := range t.PartitionKey {
		p.pk = append(p.pk, binds.Of(c))
		isKey[c] = true
	}
	for _, c := range t.Clustering {
		isKey[c] = true
	}
	for _, c := range fileCols {
		if c == nil {
			p.fields = append(p.fields, planField{bind: -1})
			continue
		}
		conv, err := schema.NewColumnConverter(c, o.Formats)
		if err != nil {
			return nil, err
		}
		b := binds.Of(c)
		if b < 0 {
			return nil, fmt.Errorf("column %s is not bound by the statement %q", c.Name, p.stmt)
		}
		tuple := 0
		if binds[b].Elem >= 0 {
			tuple = len(c.Type.Elems)
		}
		pf := planField{col: c, bind: b, conv: conv, key: isKey[c], tuple: tuple, emptyNull: !c.Type.IsText()}
		if tuple > 0 {
			pf.tupleIdx = tupleIdx[c]
			p.tuples[pf.tupleIdx] = tupleBind{b, tuple}
		}
		if !pf.key && tuple == 0 {
			if pf.verbatim = schema.Verbatim(c.Type, o.Formats); pf.verbatim != nil {
				pf.verbatimIdx = p.nverbatim
				p.nverbatim++
			}
		}
		p.fields = append(p.fields, pf)
	}
	if len(p.tuples) > 64 {
		return nil, fmt.Errorf("%d tuple columns: at most 64 are supported", len(p.tuples))
	}
	// Bind positions follow the statement's column order, as tupleIdx
	// does, so p.tuples is ordered.
	p.nullTuples = func(mask uint64) string {
		null := map[*schema.Column]bool{}
		for _, pf := range p.fields {
			if pf.tuple > 0 && mask&(1<<pf.tupleIdx) != 0 {
				null[pf.col] = true
			}
		}
		stmt, _ := schema.InsertNullTuples(t, loaded, stmtUsing, null, o.NullMode == NullUnset)
		return stmt
	}
	return p, nil
}

// convertLoop is one converter: it turns chunks into batches.
// It ends when chunks is closed, or when the reader is abandoned.
//
// Small chunks (the files of a directory of small files, each its own
// chunk) are gathered: while the chunks waiting on the channel fit in one
// chunk's size and share the first one's plan, they are converted
// together and their rows batched as one chunk's would be. Batched alone,
// 10 rows of a file made three requests of three rows or so, one per
// replica set, and the load ran at a fifth of the speed of the same rows
// in one file. Each row keeps its own chunk (row.rec), which the ledger
// settles as before, chunk by chunk; only chunks already waiting are
// taken, so gathering never holds a chunk back to wait for another.
// Counter updates are not gathered: their chunks' doubt is recorded
// chunk by chunk before any update is sent (ledger.dispatch).
func (l *Loader) convertLoop(chunks <-chan *chunkRecord, abandoned <-chan struct{}, out chan<- *batch) error {
	var g grouper
	var tally tokenorder.Tally
	// wait bounds a gathering; waiting: it is running.
	wait := time.NewTimer(time.Hour)
	wait.Stop()
	defer wait.Stop()
	waiting := false
	var next *chunkRecord // taken while gathering, not gathered
	var gathered []*chunkRecord
	var rows []*row
	for {
		cr := next
		next = nil
		if cr == nil {
			select {
			case cr = <-chunks:
			case <-abandoned:
				return nil
			}
			if cr == nil {
				return nil // closed
			}
		}
		p, ok := l.startChunk(cr)
		if !ok {
			continue
		}
		gathered, rows = append(gathered[:0], cr), rows[:0]
		rows = l.convertRows(cr, p, rows, &tally)
		records, bytes := cr.records, len(cr.chunk.Data)
		closed := false
		if waiting {
			wait.Stop() // since Go 1.23, no stale tick is left in wait.C
			waiting = false
		}
	gather:
		for !p.counter && records < l.opts.ChunkSize && bytes < MaxChunkBytes {
			var c *chunkRecord
			select {
			case c = <-chunks:
			default:
				// None waiting: wait for the next one, but let no row
				// wait longer than gatherWait for others.
				if !waiting {
					waiting = true
					wait.Reset(gatherWait)
				}
				select {
				case c = <-chunks:
				case <-wait.C:
					waiting = false
					break gather
				case <-abandoned:
					break gather
				}
			}
			if c == nil {
				closed = true
				break
			}
			if c.records+records > l.opts.ChunkSize || len(c.chunk.Data)+bytes > MaxChunkBytes {
				next = c
				break
			}
			cp, ok := l.startChunk(c)
			if !ok {
				continue
			}
			if cp != p {
				// Another layout: its rows go with their own plan.
				next = c
				break
			}
			gathered = append(gathered, c)
			rows = l.convertRows(c, p, rows, &tally)
			records += c.records
			bytes += len(c.chunk.Data)
		}
		for _, b := range l.batchesOf(p, rows, &g) {
			out <- b
		}
		for _, c := range gathered {
			l.ledger.converted(c)
		}
		clear(gathered)
		clear(rows)
		if closed {
			return nil
		}
	}
}

// gatherWait is the longest a converter holds a small chunk's rows while
// it waits for the next chunk to batch them with: reading a file of a few
// rows takes some tens of microseconds, so a millisecond gathers rows
// enough for full batches, and a slow input (a pipe, objects in storage)
// delays its rows by no more than that.
const gatherWait = time.Millisecond

// startChunk finds cr's plan. A chunk that has none (its file's header is
// too long or does not fit the table) has all its rows rejected here, and
// ok is false.
func (l *Loader) startChunk(cr *chunkRecord) (p *plan, ok bool) {
	c := cr.chunk
	if c.HeaderTooLong {
		l.longHeaderChunk(cr)
		return nil, false
	}
	p, err := l.planFor(c.Source, c.File, c.Header, c.HeaderFields)
	if err != nil {
		// Only a file's own header can fail here: columns given
		// for all files were checked before reading (setup).
		l.badHeaderChunk(cr, err)
		return nil, false
	}
	return p, true
}

// convertRows converts cr's records with p and appends its rows to
// rows; the converter keeps its hold on cr (ledger.converted). t counts
// the chunk's rows by replica set for the token-order hint (noteOrder).
func (l *Loader) convertRows(cr *chunkRecord, p *plan, rows []*row, t *tokenorder.Tally) []*row {
	converted := l.convertChunk(cr, p)
	if cr.prior != nil {
		converted = l.sortPriorDoubt(cr, converted)
	}
	l.noteOrder(cr, converted, t)
	if len(converted) > 0 {
		if err := l.ledger.dispatch(cr); err != nil {
			// Not recorded in doubt: its updates must not be sent.
			l.ledger.fail(err)
		}
	}
	for i := range converted {
		rows = append(rows, &converted[i])
	}
	return rows
}

// sortPriorDoubt handles a counter chunk that a stopped run had sent
// updates of: rows it saw acknowledged are skipped, rows it never sent or
// saw refused are sent, and the rest may have been applied, so they are
// reported unknown instead of being counted twice.
func (l *Loader) sortPriorDoubt(cr *chunkRecord, rows []row) []row {
	keep := rows[:0]
	for _, r := range rows {
		switch {
		case cr.prior.acked.Has(int(r.idx)):
			l.ledger.skipDone(cr, 1)
		case cr.prior.mayResend(int(r.idx)):
			keep = append(keep, r)
		default:
			l.ledger.reject(cr, unknown, reject{where: at(cr.file, r.line), raw: r.raw(cr), idx: int(r.idx),
				reason: "counter update may have been applied: it was sent by the run that stopped, and not acknowledged; not sent again (check the counter before loading this row)"}, false)
		}
	}
	return keep
}

// batchesOf groups rows, of one chunk or of several gathered
// (convertLoop), into batches, with gr's working memory.
func (l *Loader) batchesOf(p *plan, rows []*row, gr *grouper) []*batch {
	if len(rows) == 0 {
		return nil
	}
	rg := l.tokens.Load()
	gr.rows = grow(gr.rows, len(rows))
	g := gr.rows
	for i, r := range rows {
		// The key lives in the chunk's arena, which nothing modifies
		// while the converter holds the chunk: no copy per row. The
		// grouper keeps the string past this call but never reads it
		// again.
		k := r.key.bytes()
		g[i] = groupRow{partition: unsafe.String(unsafe.SliceData(k), len(k)), replicas: rg.GroupOf(r.token), size: int(r.size)}
	}
	lim := batchLimits{minRows: l.opts.MinBatchSize, maxRows: l.opts.MaxBatchSize, maxBytes: l.opts.MaxBatchBytes}
	groups := gr.group(g, lim)
	// One slab each for the batches and their row pointers.
	out := make([]*batch, len(groups))
	bs := make([]batch, len(groups))
	ptrs := make([]*row, 0, len(rows))
	for i, idx := range groups {
		from := len(ptrs)
		for _, k := range idx {
			ptrs = append(ptrs, rows[k])
		}
		bs[i] = batch{rows: ptrs[from:len(ptrs):len(ptrs)], plan: p, host: rg.Primary(rows[idx[0]].token)}
		out[i] = &bs[i]
	}
	return out
}

// rejectParse records a row that could not be read or converted.
func (l *Loader) rejectParse(cr *chunkRecord, idx int, where, reason string, raw []byte) {
	l.rejectParseRecord(cr, reject{where: where, reason: reason, raw: raw, idx: idx})
}

func (l *Loader) rejectParseRecord(cr *chunkRecord, r reject) {
	n := l.ledger.reject(cr, rejectedParse, r, false)
	if max := l.opts.MaxParseErrors; max >= 0 && n > int64(max) {
		l.life.abort(fmt.Sprintf("too many parse errors: more than MAXPARSEERRORS = %d", max), false, draining)
	}
}

// convertChunk parses and converts every record of a chunk. Rejected
// records go to the error file at once; the rest come back as rows. All
// of a chunk's values live in a few slabs allocated here, so the cost per
// row is parsing and converting, not allocation.
func (l *Loader) convertChunk(cr *chunkRecord, p *plan) []row {
	c := cr.chunk
	n := p.nbind
	// Eight bytes a value covers the fixed-size types; text bound in
	// place needs none, and an arena that is short grows by append.
	sl := l.getSlabs(c.Records, c.Records*n, c.Records*p.nverbatim, c.Records*n*8)
	rows, values, inPlaces, arena := sl.rows, sl.values, sl.inPlace, sl.arena
	nullMarker := []byte(l.opts.Null)
	var tupleOffs []int

	rd := csvparse.NewReader(c, l.opts.Dialect)
	// A row uses nfields fields: a record of more is rejected, and need
	// not cost memory for the rest (a line of delimiters would).
	rd.MaxFields = p.nfields
	k := 0 // rows kept
	for ri := 0; ; ri++ {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csvparse.ParseError
			where := termsafe.Name(c.File) + ":?"
			if errors.As(err, &pe) {
				where = fmt.Sprintf("%s:%d", at(pe.File, pe.Line), pe.Column)
				err = pe.Err
			}
			r := reject{where: where, reason: err.Error(), raw: rd.Raw(), idx: ri}
			if c.TooLong {
				r.raw, r.long = nil, longRecord(c)
				r.reason = l.tooLongReason(err, c)
			}
			l.rejectParseRecord(cr, r)
			continue
		}
		if rec.FieldCount != p.nfields {
			line, col := rec.Line, 1
			if rec.FieldCount > p.nfields {
				// Where the first field too many starts.
				line, col = rec.FieldPos(p.nfields)
			}
			where := at(c.File, line) + ":" + strconv.Itoa(col)
			reason := fmt.Sprintf("%d fields, expected %d", rec.FieldCount, p.nfields)
			if rec.FieldCount == 1 && p.nfields > 1 {
				reason = withHint(reason, l.delimiterHint(rec.Raw, p.nfields))
			}
			l.rejectParse(cr, ri, where, reason, rec.Raw)
			continue
		}
		vals := values[k*n : (k+1)*n : (k+1)*n]
		var nullTuples uint64
		var bad string
		badField := 0
		start0 := len(arena)
		size := 0
		for i, f := range rec.Fields {
			pf := &p.fields[i]
			if pf.bind < 0 {
				continue
			}
			// A field equal to NULL is null quoted or not, as in cqlsh,
			// whose CSV reader drops the quotes before it compares. So
			// is an empty top-level tuple, which cqlsh sends as an empty
			// value, read back as null.
			if len(f) == 0 && pf.emptyNull || bytes.Equal(f, nullMarker) || pf.tuple > 0 && emptyBrackets(f) {
				if pf.key {
					bad, badField = fmt.Sprintf("column %s: null value for a primary key column", pf.col.Name), i
					break
				}
				if p.counter {
					// Binding it unset would count the row as written
					// though nothing was.
					bad, badField = fmt.Sprintf("column %s: no value for a counter column (a counter update needs a number; write 0 to leave it unchanged)", pf.col.Name), i
					break
				}
				switch {
				case pf.tuple > 0:
					// Bound by another statement (nullTupleRow); the
					// elements' places are kept until the row is done.
					nullTuples |= 1 << pf.tupleIdx
					for j := range pf.tuple {
						vals[pf.bind+j] = (*value)(nil)
					}
				case l.opts.NullMode == NullUnset:
					vals[pf.bind] = gocql.UnsetValue
				default:
					vals[pf.bind] = (*value)(nil)
				}
				continue
			}
			if pf.verbatim != nil && within(f, c.Data) && pf.verbatim(f) {
				ip := &inPlaces[k*p.nverbatim+pf.verbatimIdx]
				ip.b = f[:len(f):len(f)]
				vals[pf.bind] = ip
				size += len(f)
				continue
			}
			if pf.tuple > 0 {
				// The tuple's elements are values as converted: the
				// tuple is not given a length of its own.
				start := len(arena)
				if arena, err = pf.conv(arena, f); err != nil {
					bad, badField = fmt.Sprintf("column %s: %v", pf.col.Name, err), i
					break
				}
				if tupleOffs, err = schema.TupleElements(tupleOffs[:0], arena[start:], pf.tuple); err != nil {
					bad, badField = fmt.Sprintf("column %s: %v", pf.col.Name, err), i
					break
				}
				for j, off := range tupleOffs {
					vals[pf.bind+j] = valueAt(arena, start+off)
				}
				size += len(arena) - start - 4*pf.tuple
				continue
			}
			start := len(arena)
			arena = append(arena, 0, 0, 0, 0)
			if arena, err = pf.conv(arena, f); err != nil {
				bad, badField = fmt.Sprintf("column %s: %v", pf.col.Name, err), i
				break
			}
			vlen := len(arena) - start - 4
			if vlen == 0 && pf.key && pf.col.Kind == schema.PartitionKey {
				bad, badField = fmt.Sprintf("column %s: empty value for a partition key column", pf.col.Name), i
				break
			}
			binary.BigEndian.PutUint32(arena[start:], uint32(vlen))
			vals[pf.bind] = valueAt(arena, start)
			size += vlen
		}
		var own rowUsing
		if bad == "" && p.using != noUsing {
			own, bad, badField = p.usingOf(rec.Fields, nullMarker)
		}
		if bad != "" {
			arena = arena[:start0]
			clear(vals)
			line, col := rec.FieldPos(badField)
			where := fmt.Sprintf("%s:%d", at(c.File, line), col)
			l.rejectParse(cr, ri, where, withHint(bad, l.headerHint(p, rec.Fields)), rec.Raw)
			continue
		}
		if p.tsBind >= 0 {
			// Write timestamps increase in input order, so that of rows
			// with one primary key the later in the file wins, in a batch
			// or not (with equal timestamps Cassandra keeps the greater
			// value).
			stamp := own.writeTime
			if !own.stamped {
				stamp = l.stampOf(cr, ri)
			}
			start := len(arena)
			arena = binary.BigEndian.AppendUint32(arena, 8)
			arena = binary.BigEndian.AppendUint64(arena, uint64(stamp))
			vals[p.tsBind] = valueAt(arena, start)
			size += 8
		}
		if p.ttlBind >= 0 {
			ttl := own.ttl
			if !own.hasTTL {
				ttl = int32(max(l.opts.TTL, 0)) // --ttl's, or none
			}
			start := len(arena)
			arena = binary.BigEndian.AppendUint32(arena, 4)
			arena = binary.BigEndian.AppendUint32(arena, uint32(ttl))
			vals[p.ttlBind] = valueAt(arena, start)
			size += 4
		}
		var rk *value
		arena, rk = routingKey(arena, p, vals)
		var stmt string
		if nullTuples != 0 {
			stmt, vals = p.nullTupleRow(vals, nullTuples)
		}
		// The record as read stays in the chunk's Data, which nothing
		// writes to once cut: no copy for the error file's sake.
		rows = append(rows, row{
			rec:    cr,
			stmt:   stmt,
			idx:    int32(ri),
			values: vals,
			rawAt:  int32(rec.Offset - c.Offset),
			rawLen: int32(len(rec.Raw)),
			line:   rec.Line,
			key:    rk,
			token:  murmur3.Token(rk.bytes()),
			size:   int32(size),
		})
		k++
	}
	sl.rows, sl.arena = rows, arena[:0]
	cr.slabs = sl
	return rows
}

// rowUsing is a row's own write time and TTL, from its fields.
type rowUsing struct {
	writeTime       int64
	ttl             int32
	stamped, hasTTL bool
}

// usingOf reads a record's write time and TTL fields (plan.using); an
// empty one, or one equal to NULL, gives none. bad is why a field is
// wrong, at field badField.
func (p *plan) usingOf(fields [][]byte, nullMarker []byte) (u rowUsing, bad string, badField int) {
	field := func(i int) []byte {
		if bytes.Equal(fields[i], nullMarker) {
			return nil
		}
		return fields[i]
	}
	var err error
	if i := p.using.writeTime; i >= 0 {
		if u.writeTime, u.stamped, err = p.writeTime.Parse(field(i)); err != nil {
			return u, fmt.Sprintf("--writetime-field: %v", err), i
		}
	}
	if i := p.using.ttl; i >= 0 {
		if u.ttl, u.hasTTL, err = schema.ParseTTL(field(i)); err != nil {
			return u, fmt.Sprintf("--ttl-field: %v", err), i
		}
	}
	return u, "", 0
}

// within reports whether f is a non-empty sub-slice of data. A field the
// Reader had to unquote or unescape lives in its own buffer, which the
// next record overwrites; only fields inside the chunk's Data, which
// stays unchanged until the chunk is released, may be bound in place.
func within(f, data []byte) bool {
	if len(f) == 0 || len(data) == 0 {
		return false
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(f)))
	d := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
	return p >= d && p+uintptr(len(f)) <= d+uintptr(len(data))
}

// routingKey is the serialized partition key: the value itself for one
// column, else, appended to arena, each component as <uint16
// length><bytes><0x00>, which is what Cassandra hashes (CompositeType).
// Key columns are never null, nor bound in place.
func routingKey(arena []byte, p *plan, vals []any) ([]byte, *value) {
	if len(p.pk) == 1 {
		return arena, vals[p.pk[0]].(*value)
	}
	start := len(arena)
	arena = append(arena, 0, 0, 0, 0)
	for _, b := range p.pk {
		v := vals[b].(*value).bytes()
		arena = binary.BigEndian.AppendUint16(arena, uint16(len(v)))
		arena = append(arena, v...)
		arena = append(arena, 0)
	}
	binary.BigEndian.PutUint32(arena[start:], uint32(len(arena)-start-4))
	return arena, valueAt(arena, start)
}

// emptyBrackets says f is a pair of brackets with nothing but blanks
// around and between them: "()", " ( ) ", "[]".
func emptyBrackets(f []byte) bool {
	f = bytes.TrimSpace(f)
	if len(f) < 2 {
		return false
	}
	open, inner := f[0], bytes.TrimSpace(f[1:len(f)-1])
	return len(inner) == 0 && (open == '(' && f[len(f)-1] == ')' || open == '[' && f[len(f)-1] == ']' || open == '{' && f[len(f)-1] == '}')
}
