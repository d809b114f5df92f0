package cqlsim

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cqlload/cqlload/cqlsim/internal/cql"
	"github.com/cqlload/cqlload/internal/murmur3"
	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
)

func (cl *Cluster) codec() frame.RawCodec { return frame.NewRawCodec() }

// userData reports whether a plan touches user data, the requests faults apply to.
func (p *plan) userData() bool {
	if p.kind == planBatch {
		return true
	}
	return p.t != nil && !isSystemKeyspace(p.t.ks)
}

func (p *plan) writeKind() writeKind {
	switch p.kind {
	case planSelect:
		return readKind
	case planBatch:
		switch p.batchType {
		case cql.UnloggedBatch:
			return writeUnloggedBatch
		case cql.CounterBatch:
			return writeCounter
		}
		return writeBatch
	}
	if p.t != nil && p.t.counter {
		return writeCounter
	}
	if w := p.write; w != nil && w.conditional() {
		return writeCAS
	}
	return writeSimple
}

// respond executes a QUERY or EXECUTE and returns the response. vals are
// the bound values when the caller decoded them itself; nil takes them from opts.
func (n *Node) respond(sess *session, p *plan, opts *message.QueryOptions, vals []value) (message.Message, []string) {
	n.stats.statements.Add(int64(max(1, len(p.batch))))
	var cl primitive.ConsistencyLevel
	if opts != nil {
		cl = opts.Consistency
	}
	var late message.Error
	if p.userData() {
		if l := n.limit.Load(); l != nil {
			e, lt, apply := n.admit(l, sess, max(1, len(p.batch)), cl, p.writeKind())
			if !apply {
				return e, nil
			}
			late = lt
		}
		if e := n.injected(cl, p.writeKind()); e != nil {
			return e, nil
		}
	}
	var err error
	if vals == nil {
		vals, err = p.bindValues(opts)
	} else {
		vals, err = p.checkCount(vals)
	}
	if err != nil {
		return errorMessage(err), nil
	}
	msg, warn, err := n.execute(sess, p, opts, vals)
	if err != nil {
		return errorMessage(err), nil
	}
	if p.userData() {
		if e := n.timedOut(cl, p.writeKind()); e != nil {
			return e, nil
		}
	}
	if late != nil {
		return n.lateAnswer(msg, late), nil
	}
	return msg, warn
}

func (n *Node) newArgs(opts *message.QueryOptions) *execArgs {
	a := &execArgs{now: n.cl.clock(), opts: opts}
	if opts != nil && opts.DefaultTimestamp != nil {
		a.ts = *opts.DefaultTimestamp
	} else {
		a.ts = n.cl.timestamp()
	}
	return a
}

// run compiles and executes one statement (Cluster.Exec).
func (n *Node) run(sess *session, s cql.Statement, opts *message.QueryOptions) (message.Message, error) {
	p, err := n.compile(sess, s)
	if err != nil {
		return nil, err
	}
	vals, err := p.bindValues(opts)
	if err != nil {
		return nil, err
	}
	msg, _, err := n.execute(sess, p, opts, vals)
	return msg, err
}

func (n *Node) execute(sess *session, p *plan, opts *message.QueryOptions, vals []value) (message.Message, []string, error) {
	if p.kind == planDDL {
		msg, err := n.ddl(sess, p.stmt)
		return msg, nil, err
	}
	a := n.newArgs(opts)
	a.values = vals
	switch p.kind {
	case planSelect:
		return n.selectRows(p, a)
	case planBatch:
		if p.batchTS != nil {
			v, unset, err := a.value(p.batchTS)
			if err != nil {
				return nil, nil, err
			}
			if ts, ok := decBigint(v); ok && !unset {
				a.ts = ts
			}
		}
		children := make([]batchChild, len(p.batch))
		for i, c := range p.batch {
			children[i] = batchChild{p: c, args: a}
		}
		if n.cl.cfg.Blackhole {
			return n.blackholeBatch(sess, p.batchType, children)
		}
		return n.applyBatch(sess, p.batchType, children, p.batchTS != nil)
	}
	muts, err := p.write.mutations(a, nil)
	if err != nil {
		return nil, nil, err
	}
	if cl, ok := a.consistency(); ok {
		if err := n.checkMutations(muts, cl); err != nil {
			return nil, nil, err
		}
	}
	w := p.write
	if w.conditional() {
		return n.conditional(sess, p, muts, a)
	}
	if n.cl.cfg.Blackhole {
		n.count(sess, p.t, muts)
		return voidResult, nil, nil
	}
	now := a.now.Unix()
	for _, m := range muts {
		if err := p.t.data.apply(p.t, m, now); err != nil {
			return nil, nil, err
		}
	}
	n.count(sess, p.t, muts)
	return voidResult, nil, nil
}

// voidResult is shared: encoding does not modify it.
var voidResult = &message.VoidResult{}

// count records written rows, whether this node replicates them and
// whether they came in on the shard that owns them.
func (n *Node) count(sess *session, t *table, muts []*mutation) {
	if len(muts) == 0 {
		return
	}
	n.stats.rows.Add(int64(len(muts)))
	ks := t.keyspace
	var rep, onShard int64
	for _, m := range muts {
		if n.isReplica(ks, m.token) {
			rep++
		}
		if sess.onShard(m.token) {
			onShard++
		}
	}
	n.stats.replicaRows.Add(rep)
	n.stats.shardRows.Add(onShard)
}

func (n *Node) isReplica(ks *keyspace, token int64) bool {
	if ks.repl.strategy == strategyLocal {
		return true
	}
	for _, r := range ks.placement[n.cl.topo.ringIndex(token)] {
		if r == n.info.index {
			return true
		}
	}
	return false
}

// conditional applies a lightweight transaction (IF [NOT] EXISTS, IF
// col op v) atomically per table and answers with the [applied] row
// Cassandra sends: when not applied, the row's current values (every
// column for IF [NOT] EXISTS, the columns of the conditions otherwise) if
// the row exists.
func (n *Node) conditional(sess *session, p *plan, muts []*mutation, a *execArgs) (message.Message, []string, error) {
	w := p.write
	verb := "updates"
	if p.kind == planDelete {
		verb = "deletions"
	}
	if err := checkSerial(a); err != nil {
		return nil, nil, err
	}
	if len(muts) != 1 {
		if len(muts) > 1 && string(muts[0].key) != string(muts[1].key) {
			return nil, nil, invalidf("IN on the partition key is not supported with conditional %s", verb)
		}
		return nil, nil, invalidf("IN on the clustering key columns is not supported with conditional %s", verb)
	}
	m := muts[0]
	want, err := w.condValues(a)
	if err != nil {
		return nil, nil, err
	}
	now := a.now.Unix()
	d := w.t.data
	d.mu.Lock()
	cur, exists := d.currentRow(w.t, m, now)
	applied := w.holds(cur, exists, want)
	if applied {
		err = d.applyLocked(w.t, m, now)
	}
	d.mu.Unlock()
	if err != nil {
		return nil, nil, err
	}
	if applied {
		n.count(sess, w.t, muts)
	}
	var cols []*column
	if !applied && exists {
		cols = w.condCols
		if cols == nil {
			cols = w.t.cols
		}
	}
	return casResult(w.t, applied, cols, [][][]byte{cur}), nil, nil
}

// checkSerial refuses a serial consistency that is not one, as Cassandra
// does for conditional writes.
func checkSerial(a *execArgs) error {
	if a.opts == nil || a.opts.SerialConsistency == nil {
		return nil
	}
	switch *a.opts.SerialConsistency {
	case primitive.ConsistencyLevelSerial, primitive.ConsistencyLevelLocalSerial:
		return nil
	}
	return invalidf("Invalid consistency for conditional update. Must be one of SERIAL or LOCAL_SERIAL")
}

// casResult is the answer to a conditional write: [applied], then, when
// cols is not empty, those columns of each of rows (full rows in table
// column order).
func casResult(t *table, applied bool, cols []*column, rows [][][]byte) message.Message {
	meta := []*message.ColumnMetadata{{Keyspace: t.ks, Table: t.name, Name: "[applied]", Type: wireType(boolType)}}
	for i, c := range cols {
		meta = append(meta, &message.ColumnMetadata{Keyspace: t.ks, Table: t.name, Name: c.name, Index: int32(i + 1), Type: wireType(c.typ)})
	}
	var data [][][]byte
	if len(cols) == 0 {
		data = [][][]byte{{encBool(applied)}}
	} else {
		for _, r := range rows {
			out := [][]byte{encBool(applied)}
			for _, c := range cols {
				out = append(out, r[c.idx])
			}
			data = append(data, out)
		}
	}
	return &message.RowsResult{
		Metadata: &message.RowsMetadata{ColumnCount: int32(len(meta)), Columns: meta},
		Data:     data,
	}
}

func (n *Node) selectRows(p *plan, a *execArgs) (message.Message, []string, error) {
	s := p.sel
	d := p.t.data
	if p.t.nodeLocal {
		d = n.cl.nodeLocalData(p.t, n.info.index)
	}
	var pageSize, offset int
	var from *cursor
	if a.opts != nil && a.opts.PageSize > 0 {
		pageSize = int(a.opts.PageSize)
		if st := a.opts.PagingState; len(st) > 0 {
			ok := false
			switch {
			case st[0] == pagingOffset && len(st) == 9:
				o, _ := decBigint(st[1:])
				offset, ok = int(o), o >= 0
			case st[0] == pagingCursor:
				from, ok = decodeCursor(st)
			}
			if !ok {
				return nil, nil, &reqError{&message.ProtocolError{ErrorMessage: "Invalid value for the paging state"}}
			}
		}
	}
	if cl, ok := a.consistency(); ok && s.pk != nil && !p.t.nodeLocal {
		keys, err := a.product(s.pk)
		if err != nil {
			return nil, nil, err
		}
		for _, pk := range keys {
			if err := n.unavailable(p.t.keyspace, murmur3.Token(routingKey(nil, pk)), cl); err != nil {
				return nil, nil, err
			}
		}
	}
	md := &message.RowsMetadata{ColumnCount: int32(len(s.meta))}
	if a.opts == nil || !a.opts.SkipMetadata {
		md.Columns = s.meta
	}
	if s.pk == nil && !s.agg {
		// Scans page by cursor, so each page costs its own rows only.
		rows, next, err := s.run(a, d, 0, pageSize, from)
		if err != nil {
			return nil, nil, err
		}
		if next != nil {
			md.PagingState = next.encode()
		}
		return &message.RowsResult{Metadata: md, Data: rows}, nil, nil
	}
	max := 0
	if pageSize > 0 {
		max = offset + pageSize + 1
	}
	rows, _, err := s.run(a, d, max, 0, nil)
	if err != nil {
		return nil, nil, err
	}
	if pageSize > 0 && !s.agg {
		// Key lookups page by offset into the recomputed result: they are
		// bounded by the partitions named in the query.
		offset = min(offset, len(rows))
		rows = rows[offset:]
		if len(rows) > pageSize {
			rows = rows[:pageSize]
			md.PagingState = append([]byte{pagingOffset}, encBigint(int64(offset+pageSize))...)
		}
	}
	return &message.RowsResult{Metadata: md, Data: rows}, nil, nil
}

type batchChild struct {
	p    *plan
	args *execArgs
}

// batch executes a BATCH.
func (n *Node) batch(sess *session, req *batchRequest) (message.Message, []string) {
	n.stats.statements.Add(int64(len(req.children)))
	var bt cql.BatchType
	wk := writeBatch
	switch req.typ {
	case primitive.BatchTypeUnlogged:
		bt, wk = cql.UnloggedBatch, writeUnloggedBatch
	case primitive.BatchTypeCounter:
		bt, wk = cql.CounterBatch, writeCounter
	}
	var late message.Error
	if l := n.limit.Load(); l != nil {
		e, lt, apply := n.admit(l, sess, len(req.children), req.consistency, wk)
		if !apply {
			return e, nil
		}
		late = lt
	}
	if e := n.injected(req.consistency, wk); e != nil {
		return e, nil
	}
	opts := &message.QueryOptions{Consistency: req.consistency, DefaultTimestamp: req.ts}
	base := n.newArgs(opts)
	children := make([]batchChild, 0, len(req.children))
	args := make([]execArgs, len(req.children))
	for i := range req.children {
		c := &req.children[i]
		var p *plan
		if c.id != nil {
			if p = n.lookupPrepared(c.id); p == nil {
				return unprepared(append([]byte(nil), c.id...)), nil
			}
		} else {
			var err error
			if p, err = n.planFor(sess, c.query); err != nil {
				return errorMessage(err), nil
			}
		}
		if p.kind != planInsert && p.kind != planUpdate && p.kind != planDelete {
			return &message.Invalid{ErrorMessage: "Invalid statement in batch: only UPDATE, INSERT and DELETE statements are allowed."}, nil
		}
		vals, err := p.checkCount(c.vals)
		if err != nil {
			return errorMessage(err), nil
		}
		args[i] = *base
		args[i].values = vals
		children = append(children, batchChild{p: p, args: &args[i]})
	}
	var msg message.Message
	var warn []string
	var err error
	if n.cl.cfg.Blackhole {
		msg, warn, err = n.blackholeBatch(sess, bt, children)
	} else {
		msg, warn, err = n.applyBatch(sess, bt, children, false)
	}
	if err != nil {
		return errorMessage(err), nil
	}
	if e := n.timedOut(req.consistency, wk); e != nil {
		return e, nil
	}
	if late != nil {
		return n.lateAnswer(msg, late), nil
	}
	return msg, warn
}

// applyBatch executes a batch's statements; customTS says the batch has
// USING TIMESTAMP.
func (n *Node) applyBatch(sess *session, bt cql.BatchType, children []batchChild, customTS bool) (message.Message, []string, error) {
	for _, c := range children {
		if c.p.write.conditional() {
			return n.conditionalBatch(sess, children, customTS)
		}
	}
	var muts []*mutation
	tables := map[*table]bool{}
	for _, c := range children {
		w := c.p.write
		if bt == cql.CounterBatch && !c.p.t.counter {
			return nil, nil, invalidf("Cannot include non-counter statement in a counter batch")
		}
		if bt != cql.CounterBatch && c.p.t.counter {
			return nil, nil, invalidf("Cannot include a counter statement in a logged batch")
		}
		var err error
		if muts, err = w.mutations(c.args, muts); err != nil {
			return nil, nil, err
		}
		tables[c.p.t] = true
	}
	// Cassandra groups a batch into one mutation per keyspace and partition.
	partitions, size := 0, 0
	for i, m := range muts {
		size += m.size()
		dup := false
		// A linear scan beats a map for the tens of rows a batch holds.
		for _, o := range muts[:i] {
			if o.t.keyspace == m.t.keyspace && o.token == m.token && string(o.key) == string(m.key) {
				dup = true
				break
			}
		}
		if !dup {
			partitions++
		}
	}
	warnings, err := n.checkBatch(bt, partitions, size, tables)
	if err != nil {
		return nil, nil, err
	}
	if len(children) > 0 {
		if cl, ok := children[0].args.consistency(); ok {
			if err := n.checkMutations(muts, cl); err != nil {
				return nil, nil, err
			}
		}
	}
	now := n.cl.clock().Unix()
	for _, m := range muts {
		if err := m.t.data.apply(m.t, m, now); err != nil {
			return nil, nil, err
		}
	}
	if len(tables) == 1 {
		n.count(sess, muts[0].t, muts)
		return voidResult, warnings, nil
	}
	for t := range tables {
		var tm []*mutation
		for _, m := range muts {
			if m.t == t {
				tm = append(tm, m)
			}
		}
		n.count(sess, t, tm)
	}
	return voidResult, warnings, nil
}

// checkBatch applies Cassandra's batch size thresholds, which only concern
// batches spanning several partitions, and counts the batch.
func (n *Node) checkBatch(bt cql.BatchType, partitions, size int, tables map[*table]bool) ([]string, error) {
	n.stats.batch(partitions)
	if partitions <= 1 || bt == cql.CounterBatch {
		return nil, nil
	}
	warn, fail := n.cl.batchLimits()
	if fail > 0 && size > fail {
		n.stats.batchRejected.Add(1)
		return nil, invalidf("Batch too large")
	}
	if warn > 0 && size > warn {
		n.stats.warnings.Add(1)
		names := make([]string, 0, len(tables))
		for t := range tables {
			names = append(names, t.qualified())
		}
		sort.Strings(names)
		return []string{fmt.Sprintf("Batch for [%s] is of size %s, exceeding specified threshold of %s by %s.",
			strings.Join(names, ", "), kib(size), kib(warn), kib(size-warn))}, nil
	}
	return nil, nil
}

// kib formats a size as Cassandra's FBUtilities.prettyPrintMemory does.
func kib(b int) string {
	if b < 1024 {
		return fmt.Sprintf("%dB", b)
	}
	return fmt.Sprintf("%.3fKiB", float64(b)/1024)
}

// ddl executes USE and schema statements.
func (n *Node) ddl(sess *session, s cql.Statement) (message.Message, error) {
	cl := n.cl
	ksOr := func(ks string) (string, error) {
		if ks != "" {
			return ks, nil
		}
		if sess.keyspace == "" {
			return "", invalidf("No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename")
		}
		return sess.keyspace, nil
	}
	var ch *schemaChange
	var err error
	switch st := s.(type) {
	case *cql.Use:
		if cl.cat.keyspace(st.Keyspace) == nil {
			return nil, invalidf("Keyspace '%s' does not exist", st.Keyspace)
		}
		sess.keyspace = st.Keyspace
		return &message.SetKeyspaceResult{Keyspace: st.Keyspace}, nil
	case *cql.CreateKeyspace:
		if isSystemKeyspace(st.Name) {
			return nil, &reqError{&message.Unauthorized{ErrorMessage: st.Name + " keyspace is not user-modifiable."}}
		}
		ch, err = cl.cat.createKeyspace(st, false)
	case *cql.DropKeyspace:
		ch, err = cl.cat.dropKeyspace(st)
	case *cql.CreateTable:
		c := *st
		if c.Keyspace, err = ksOr(st.Keyspace); err != nil {
			return nil, err
		}
		if isSystemKeyspace(c.Keyspace) {
			return nil, &reqError{&message.Unauthorized{ErrorMessage: c.Keyspace + " keyspace is not user-modifiable."}}
		}
		ch, err = cl.cat.createTable(&c, false)
	case *cql.DropTable:
		c := *st
		if c.Keyspace, err = ksOr(st.Keyspace); err != nil {
			return nil, err
		}
		ch, err = cl.cat.dropTable(&c)
	case *cql.AlterTable:
		c := *st
		if c.Keyspace, err = ksOr(st.Keyspace); err != nil {
			return nil, err
		}
		ch, err = cl.cat.alterTable(&c)
	case *cql.CreateType:
		c := *st
		if c.Keyspace, err = ksOr(st.Keyspace); err != nil {
			return nil, err
		}
		ch, err = cl.cat.createType(&c)
	case *cql.DropType:
		c := *st
		if c.Keyspace, err = ksOr(st.Keyspace); err != nil {
			return nil, err
		}
		ch, err = cl.cat.dropType(&c)
	case *cql.Truncate:
		ks, err := ksOr(st.Keyspace)
		if err != nil {
			return nil, err
		}
		t, err := cl.cat.table(ks, st.Table)
		if err != nil {
			return nil, err
		}
		if isSystemKeyspace(ks) {
			return nil, &reqError{&message.Unauthorized{ErrorMessage: ks + " keyspace is not user-modifiable."}}
		}
		t.data.truncate()
		return &message.VoidResult{}, nil
	default:
		return nil, invalidf("cqlsim does not support %T statements", s)
	}
	if err != nil {
		return nil, err
	}
	if ch == nil {
		// IF [NOT] EXISTS matched: nothing changed, no event.
		return &message.VoidResult{}, nil
	}
	cl.refreshSchemaTables()
	cl.broadcastSchema(ch)
	return ch.result(), nil
}
