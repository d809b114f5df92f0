package cqlsim

import (
	"crypto/md5"
	"errors"
	"strings"
	"time"

	"github.com/cqlload/cqlload/cqlsim/internal/cql"
	"github.com/datastax/go-cassandra-native-protocol/datatype"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
)

type planKind int

const (
	planDDL planKind = iota // schema statements and USE, executed from the AST
	planInsert
	planUpdate
	planDelete
	planSelect
	planBatch
)

// plan is a compiled statement: table resolved, bind markers typed, literal
// values encoded once. Prepared statements and repeated QUERY strings reuse
// their plan, so the hot path never parses.
type plan struct {
	kind planKind
	stmt cql.Statement
	t    *table
	vars []varSpec
	// pkIdx are the bind marker indexes of the partition key columns, in key
	// order, when every one is bound by `= ?` (drivers route with them).
	pkIdx []uint16

	write *writePlan
	sel   *selectPlan
	batch []*plan
	// binds is, for a statement of a BEGIN BATCH, the range of the batch's
	// bind markers it holds (a statement's markers are consecutive); zero
	// for anything else.
	binds struct{ lo, hi int }
	// batchType for a BEGIN BATCH statement.
	batchType cql.BatchType
	batchTS   *source
}

type varSpec struct {
	ks, table, name string
	typ             *cql.Type
	dt              datatype.DataType
}

// source yields one value at execution: a bound variable, a constant, or a
// term re-evaluated every time (now(), uuid()).
type source struct {
	bind int // bind marker index, -1 when not bound
	val  []byte
	fn   cql.Term
	typ  *cql.Type
	// parts are the elements of a tuple, UDT or collection literal holding
	// bind markers, e.g. (?, ?) for a tuple column; for a map, keys and
	// values alternate. For a UDT, parts follow the type's fields (nil
	// parts are fields the literal leaves out).
	parts []*source
}

type compiler struct {
	n    *Node
	sess *session
	vars map[int]varSpec
	ks   string
	tbl  string
}

func (cp *compiler) term(t cql.Term, typ *cql.Type, name string) (*source, error) {
	switch x := t.(type) {
	case *cql.BindMarker:
		vn := name
		if x.Name != "" {
			vn = x.Name
		}
		cp.vars[x.Index] = varSpec{ks: cp.ks, table: cp.tbl, name: vn, typ: typ, dt: wireType(typ)}
		return &source{bind: x.Index, typ: typ}, nil
	case *cql.TypeHint:
		return cp.term(x.Term, typ, name)
	}
	if hasBind(t) {
		return cp.composite(t, typ, name)
	}
	if hasFunc(t) {
		if _, err := cql.EncodeTerm(typ, t); err != nil {
			if f, ok := t.(*cql.FuncCall); ok {
				if rt := funcReturnType(f); rt != "" && rt != typ.String() {
					return nil, invalidf("Type error: cannot assign result of function system.%s (type %s) to %s (type %s)", strings.ToLower(f.Name), rt, name, typ)
				}
			}
			return nil, invalidf("Invalid value for %s of type %s: %v", name, typ, err)
		}
		return &source{bind: -1, fn: t, typ: typ}, nil
	}
	v, err := cql.EncodeTerm(typ, t)
	if err != nil {
		return nil, invalidf("Invalid value for %s of type %s: %v", name, typ, err)
	}
	return &source{bind: -1, val: v, typ: typ}, nil
}

// composite compiles a tuple, UDT or collection literal with bind markers
// inside: each element becomes a source of its own and the value is
// serialized at execution.
func (cp *compiler) composite(t cql.Term, typ *cql.Type, name string) (*source, error) {
	src := &source{bind: -1, typ: typ}
	add := func(e cql.Term, et *cql.Type) error {
		s, err := cp.term(e, et, name)
		if err == nil {
			src.parts = append(src.parts, s)
		}
		return err
	}
	switch x := t.(type) {
	case *cql.TupleLit:
		if typ.Kind != cql.Tuple || len(x.Elems) > len(typ.Elems) {
			return nil, invalidf("Invalid tuple literal for %s of type %s", name, typ)
		}
		for i, e := range x.Elems {
			if err := add(e, typ.Elems[i]); err != nil {
				return nil, err
			}
		}
	case *cql.UDTLit:
		if typ.Kind != cql.UDT {
			return nil, invalidf("Invalid user type literal for %s of type %s", name, typ)
		}
		src.parts = make([]*source, len(typ.Fields))
		for i, f := range x.Fields {
			k := -1
			for j, tf := range typ.Fields {
				if tf.Name == f {
					k = j
				}
			}
			if k < 0 {
				return nil, invalidf("Unknown field '%s' in value of user defined type %s", f, typ.Name)
			}
			s, err := cp.term(x.Values[i], typ.Fields[k].Type, name)
			if err != nil {
				return nil, err
			}
			src.parts[k] = s
		}
	case *cql.ListLit:
		if typ.Kind != cql.List && typ.Kind != cql.Set && typ.Kind != cql.Vector {
			return nil, invalidf("Invalid list literal for %s of type %s", name, typ)
		}
		for _, e := range x.Elems {
			if err := add(e, typ.Elems[0]); err != nil {
				return nil, err
			}
		}
	case *cql.SetLit:
		if typ.Kind != cql.Set {
			return nil, invalidf("Invalid set literal for %s of type %s", name, typ)
		}
		for _, e := range x.Elems {
			if err := add(e, typ.Elems[0]); err != nil {
				return nil, err
			}
		}
	case *cql.MapLit:
		if typ.Kind != cql.Map {
			return nil, invalidf("Invalid map literal for %s of type %s", name, typ)
		}
		for i := range x.Keys {
			if err := add(x.Keys[i], typ.Elems[0]); err != nil {
				return nil, err
			}
			if err := add(x.Values[i], typ.Elems[1]); err != nil {
				return nil, err
			}
		}
	default:
		return nil, invalidf("cqlsim does not support bind markers inside %s (column %s)", cql.TermString(t), name)
	}
	return src, nil
}

// funcReturnType is the CQL type a native function of the time and uuid
// families returns, "" for others.
func funcReturnType(f *cql.FuncCall) string {
	switch strings.ToLower(f.Name) {
	case "now", "currenttimeuuid":
		return "timeuuid"
	case "uuid":
		return "uuid"
	case "currenttimestamp", "totimestamp":
		return "timestamp"
	case "currentdate", "todate":
		return "date"
	case "currenttime":
		return "time"
	case "tounixtimestamp":
		return "bigint"
	}
	return ""
}

func hasBind(t cql.Term) bool {
	found := false
	cql.WalkTerm(t, func(x cql.Term) {
		if _, ok := x.(*cql.BindMarker); ok {
			found = true
		}
	})
	return found
}

func hasFunc(t cql.Term) bool {
	found := false
	cql.WalkTerm(t, func(x cql.Term) {
		if _, ok := x.(*cql.FuncCall); ok {
			found = true
		}
	})
	return found
}

var (
	intType    = &cql.Type{Kind: cql.Int}
	bigintType = &cql.Type{Kind: cql.Bigint}
	boolType   = &cql.Type{Kind: cql.Boolean}
)

// finish orders the collected bind markers.
func (cp *compiler) finish(p *plan) error {
	p.vars = make([]varSpec, len(cp.vars))
	for i := range p.vars {
		v, ok := cp.vars[i]
		if !ok {
			return invalidf("bind marker %d is not in a position cqlsim can type", i)
		}
		p.vars[i] = v
	}
	return nil
}

func (cp *compiler) resolveTable(ks, name string) (*table, error) {
	if ks == "" {
		ks = cp.sess.keyspace
	}
	if ks == "" {
		return nil, invalidf("No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename")
	}
	t, err := cp.n.cl.cat.table(ks, name)
	if err != nil {
		return nil, err
	}
	cp.ks, cp.tbl = t.ks, t.name
	return t, nil
}

// dml compiles an INSERT, UPDATE or DELETE into p; ok is false for any
// other statement (a batch may hold only these).
func (cp *compiler) dml(p *plan, s cql.Statement) (ok bool, err error) {
	switch st := s.(type) {
	case *cql.Insert:
		p.kind = planInsert
		return true, cp.insert(p, st)
	case *cql.Update:
		p.kind = planUpdate
		return true, cp.update(p, st)
	case *cql.Delete:
		p.kind = planDelete
		return true, cp.delete(p, st)
	}
	return false, nil
}

// compile builds the plan of one statement.
func (n *Node) compile(sess *session, s cql.Statement) (*plan, error) {
	cp := &compiler{n: n, sess: sess, vars: map[int]varSpec{}}
	p := &plan{stmt: s}
	var err error
	switch st := s.(type) {
	case *cql.Insert, *cql.Update, *cql.Delete:
		_, err = cp.dml(p, st)
	case *cql.Select:
		p.kind = planSelect
		err = cp.selectPlan(p, st)
	case *cql.Batch:
		p.kind = planBatch
		p.batchType = st.Type
		if st.Timestamp != nil {
			if p.batchTS, err = cp.term(st.Timestamp, bigintType, "[timestamp]"); err != nil {
				return nil, err
			}
		}
		for _, child := range st.Statements {
			c := &plan{stmt: child}
			if ms := cql.BindMarkers(child); len(ms) > 0 {
				c.binds.lo, c.binds.hi = ms[0].Index, ms[len(ms)-1].Index+1
			}
			ok, err := cp.dml(c, child)
			if !ok {
				err = invalidf("Only INSERT, UPDATE and DELETE statements are allowed in a batch")
			}
			if err != nil {
				return nil, err
			}
			p.batch = append(p.batch, c)
		}
	default:
		p.kind = planDDL
		// Bind markers in DDL are a syntax matter; report them rather than ignore.
		if len(cql.BindMarkers(s)) > 0 {
			return nil, invalidf("bind markers are not supported in this statement")
		}
		return p, nil
	}
	if err != nil {
		return nil, err
	}
	if err := cp.finish(p); err != nil {
		return nil, err
	}
	return p, nil
}

// preparedID is Cassandra's statement id: MD5 of keyspace + query text.
func preparedID(keyspace, query string) [16]byte {
	return md5.Sum([]byte(keyspace + query))
}

// maxCachedQueries bounds the unprepared-statement plan cache per node and
// maxPrepared the prepared statements, as Cassandra's caches are bounded: a
// full cache drops one arbitrary entry (an evicted prepared statement gets
// Unprepared and the driver prepares it again).
const (
	maxCachedQueries = 4096
	maxPrepared      = 16384
)

func evictOne[K comparable, V any](m map[K]V) {
	for k := range m {
		delete(m, k)
		return
	}
}

func (n *Node) parse(sess *session, query string) (*plan, error) {
	st, err := cql.Parse(query)
	if err != nil {
		var se *cql.SyntaxError
		if errors.As(err, &se) {
			return nil, &reqError{&message.SyntaxError{ErrorMessage: err.Error()}}
		}
		var ue *cql.UnsupportedError
		if errors.As(err, &ue) {
			if strings.HasPrefix(ue.Statement, "DESC") {
				// Before 4.0 Cassandra had no server-side DESCRIBE and drivers
				// (gocql's metadata) fall back on exactly this SyntaxError.
				return nil, &reqError{&message.SyntaxError{ErrorMessage: "cqlsim does not support " + ue.Statement + "; read system_schema instead"}}
			}
			return nil, invalidf("cqlsim does not support %s", ue.Statement)
		}
		return nil, &reqError{&message.SyntaxError{ErrorMessage: err.Error()}}
	}
	return n.compile(sess, st)
}

// planFor returns the plan for a QUERY, from the cache when possible.
func (n *Node) planFor(sess *session, query string) (*plan, error) {
	key := sess.keyspace + "\x00" + query
	n.prepMu.RLock()
	p := n.queries[key]
	n.prepMu.RUnlock()
	if p != nil && (p.t == nil || !p.t.dropped.Load()) {
		return p, nil
	}
	p, err := n.parse(sess, query)
	if err != nil {
		return nil, err
	}
	if p.kind != planDDL && !p.nodeLocal() {
		n.prepMu.Lock()
		if len(n.queries) >= maxCachedQueries {
			evictOne(n.queries)
		}
		n.queries[key] = p
		n.prepMu.Unlock()
	}
	return p, nil
}

func (p *plan) nodeLocal() bool { return p.t != nil && p.t.nodeLocal }

func (n *Node) prepare(sess *session, query string) (*plan, [16]byte, error) {
	id := preparedID(sess.keyspace, query)
	p, err := n.parse(sess, query)
	if err != nil {
		return nil, id, err
	}
	n.prepMu.Lock()
	if _, ok := n.prepared[id]; !ok && len(n.prepared) >= maxPrepared {
		evictOne(n.prepared)
	}
	n.prepared[id] = p
	n.prepMu.Unlock()
	return p, id, nil
}

func (n *Node) lookupPrepared(id []byte) *plan {
	if len(id) != 16 {
		return nil
	}
	var k [16]byte
	copy(k[:], id)
	n.prepMu.RLock()
	p := n.prepared[k]
	n.prepMu.RUnlock()
	if p == nil {
		return nil
	}
	if p.dropped() {
		// Cassandra evicts statements of dropped tables; the driver re-prepares.
		n.prepMu.Lock()
		delete(n.prepared, k)
		n.prepMu.Unlock()
		return nil
	}
	return p
}

func (p *plan) dropped() bool {
	if p.t != nil && p.t.dropped.Load() {
		return true
	}
	for _, c := range p.batch {
		if c.dropped() {
			return true
		}
	}
	return false
}

func (p *plan) preparedResult(id [16]byte, v primitive.ProtocolVersion) message.Message {
	vm := &message.VariablesMetadata{}
	for i, vs := range p.vars {
		vm.Columns = append(vm.Columns, &message.ColumnMetadata{Keyspace: vs.ks, Table: vs.table, Name: vs.name, Index: int32(i), Type: vs.dt})
	}
	if v >= primitive.ProtocolVersion4 {
		vm.PkIndices = p.pkIdx
	}
	rm := &message.RowsMetadata{}
	if p.sel != nil {
		rm.Columns = p.sel.meta
		rm.ColumnCount = int32(len(p.sel.meta))
	}
	return &message.PreparedResult{PreparedQueryId: id[:], VariablesMetadata: vm, ResultMetadata: rm}
}

// execArgs are the inputs of one execution.
type execArgs struct {
	values []value
	ts     int64 // default write timestamp
	now    time.Time
	opts   *message.QueryOptions
}

// consistency is the request's consistency level; false for requests that
// did not come from a client (Cluster.Exec).
func (a *execArgs) consistency() (primitive.ConsistencyLevel, bool) {
	if a.opts == nil {
		return 0, false
	}
	return a.opts.Consistency, true
}

func (a *execArgs) value(s *source) (v []byte, unset bool, err error) {
	switch {
	case s.bind >= 0:
		pv := a.values[s.bind]
		return pv.b, pv.unset, nil
	case s.fn != nil:
		v, err := cql.EncodeTerm(s.typ, s.fn)
		if err != nil {
			return nil, false, invalidf("%v", err)
		}
		return v, false, nil
	case s.parts != nil:
		v, err := a.compose(s)
		return v, false, err
	}
	return s.val, false, nil
}

// bindValues takes the bound variables from library-decoded options,
// resolving named ones by the plan's variable names.
func (p *plan) bindValues(opts *message.QueryOptions) ([]value, error) {
	if opts == nil {
		return p.checkCount(nil)
	}
	if len(opts.NamedValues) > 0 {
		vals := make([]value, len(p.vars))
		for i, vs := range p.vars {
			v, ok := opts.NamedValues[vs.name]
			if !ok {
				return nil, invalidf("No value provided for bind variable %s", vs.name)
			}
			vals[i] = fromLibrary([]*primitive.Value{v})[0]
		}
		return vals, nil
	}
	return p.checkCount(fromLibrary(opts.PositionalValues))
}

func (p *plan) checkCount(vals []value) ([]value, error) {
	if len(vals) != len(p.vars) {
		return nil, invalidf("There were %d markers(?) in CQL but %d bound variables", len(p.vars), len(vals))
	}
	return vals, nil
}

func validate(col *column, v []byte) error {
	if v == nil {
		return nil
	}
	if err := cql.Validate(col.typ, v); err != nil {
		return invalidf("Invalid value for column %s of type %s: %v", col.name, col.typ, err)
	}
	return nil
}
