package cqlsim

import (
	"github.com/cqlload/cqlload/cqlsim/internal/cql"
	"github.com/cqlload/cqlload/internal/murmur3"
)

// keyRestr is how a WHERE clause (or INSERT column list) fixes one key column.
type keyRestr struct {
	col    *column
	eq     *source
	in     []*source
	inList *source // IN ?: one bound list
	// lo and hi bound a clustering column of a range deletion (c > ?, c <= ?).
	lo, hi         *source
	loIncl, hiIncl bool
}

// isRange reports whether r bounds its column instead of naming values.
func (r *keyRestr) isRange() bool { return r.lo != nil || r.hi != nil }

// condition is one IF col op value of an UPDATE or DELETE.
type condition struct {
	col  *column
	op   cql.RelOp
	vals []*source // one value, or the IN (…) list
	// inList is IF c IN ?: one bound list.
	inList *source
}

type assign struct {
	col  *column
	op   cql.AssignOp
	src  *source
	coll collOp
	key  *source // map key or list index for m[k] = v, l[i] = v, DELETE m[k]
}

type writePlan struct {
	t       *table
	pk, ck  []keyRestr
	cells   []assign
	ttl, ts *source
	insert  bool
	// deleteRow is DELETE without a column list.
	deleteRow             bool
	ifNotExists, ifExists bool
	// conds are the IF col op v conditions; condCols the columns they
	// name, each once in order of appearance: a write whose conditions do
	// not hold answers with their current values.
	conds    []condition
	condCols []*column
	// rangeDelete is a DELETE of a range of rows: ck holds a prefix of
	// the clustering key, whose last restriction may bound a slice.
	rangeDelete bool
}

// conditional reports whether the write is a lightweight transaction.
func (w *writePlan) conditional() bool {
	return w.ifExists || w.ifNotExists || len(w.conds) > 0
}

// checkAttrs refuses the USING clauses and conditions Cassandra refuses
// together, with its messages, in its order.
func checkAttrs(t *table, w *writePlan, ttl, ts cql.Term) error {
	switch {
	case t.counter && w.conditional():
		return invalidf("Conditional updates are not supported on counter tables")
	case w.conditional() && ts != nil:
		return invalidf("Cannot provide custom timestamp for conditional updates")
	case t.counter && ts != nil:
		return invalidf("Cannot provide custom timestamp for counter updates")
	case t.counter && ttl != nil:
		return invalidf("Cannot provide custom TTL for counter updates")
	}
	return nil
}

const maxTTL = 20 * 365 * 24 * 60 * 60

func (cp *compiler) insert(p *plan, st *cql.Insert) error {
	t, err := cp.resolveTable(st.Keyspace, st.Table)
	if err != nil {
		return err
	}
	p.t = t
	if st.JSON {
		return invalidf("cqlsim does not support INSERT JSON")
	}
	if t.counter {
		return invalidf("INSERT statements are not allowed on counter tables, use UPDATE instead")
	}
	if len(st.Columns) != len(st.Values) {
		return invalidf("Unmatched column names/values")
	}
	w := &writePlan{t: t, pk: make([]keyRestr, len(t.pk)), ck: make([]keyRestr, len(t.ck)), insert: true, ifNotExists: st.IfNotExists}
	seen := map[string]bool{}
	for i, name := range st.Columns {
		col := t.byName[name]
		if col == nil {
			return invalidf("Undefined column name %s in table %s", name, t.qualified())
		}
		if seen[name] {
			return invalidf("Multiple definitions found for column %s", name)
		}
		seen[name] = true
		src, err := cp.term(st.Values[i], col.typ, col.name)
		if err != nil {
			return err
		}
		switch col.kind {
		case kindPartition:
			w.pk[col.pos] = keyRestr{col: col, eq: src}
		case kindClustering:
			w.ck[col.pos] = keyRestr{col: col, eq: src}
		default:
			w.cells = append(w.cells, assign{col: col, op: cql.AssignSet, src: src})
		}
	}
	return cp.finishWrite(p, t, w, true, st.TTL, st.Timestamp)
}

// finishWrite checks an INSERT's or UPDATE's key restrictions (the
// clustering key too when needCK), compiles its USING clause and sets it
// as p's write.
func (cp *compiler) finishWrite(p *plan, t *table, w *writePlan, needCK bool, ttl, ts cql.Term) error {
	if err := checkAttrs(t, w, ttl, ts); err != nil {
		return err
	}
	if err := checkKeys(t, w, needCK); err != nil {
		return err
	}
	if err := cp.using(w, ttl, ts); err != nil {
		return err
	}
	p.write = w
	p.pkIdx = pkIndexes(w.pk)
	return nil
}

func (cp *compiler) using(w *writePlan, ttl, ts cql.Term) error {
	var err error
	if ttl != nil {
		if w.ttl, err = cp.term(ttl, intType, "[ttl]"); err != nil {
			return err
		}
	}
	if ts != nil {
		if w.ts, err = cp.term(ts, bigintType, "[timestamp]"); err != nil {
			return err
		}
	}
	return nil
}

func checkKeys(t *table, w *writePlan, fullCK bool) error {
	var missing []string
	for i, r := range w.pk {
		if r.col == nil {
			missing = append(missing, t.pk[i].name)
		}
	}
	if len(missing) > 0 {
		return invalidf("Some partition key parts are missing: %s", join(missing))
	}
	n := 0
	for n < len(w.ck) && w.ck[n].col != nil {
		n++
	}
	for i := n; i < len(w.ck); i++ {
		if w.ck[i].col != nil {
			return invalidf("PRIMARY KEY column \"%s\" cannot be restricted as preceding column \"%s\" is not restricted", w.ck[i].col.name, t.ck[n].name)
		}
	}
	for i := 0; i+1 < n; i++ {
		if w.ck[i].isRange() {
			return invalidf("Clustering column \"%s\" cannot be restricted (preceding column \"%s\" is restricted by a non-EQ relation)", w.ck[i+1].col.name, w.ck[i].col.name)
		}
	}
	ranged := n > 0 && w.ck[n-1].isRange()
	if fullCK && n < len(w.ck) {
		for i := n; i < len(w.ck); i++ {
			missing = append(missing, t.ck[i].name)
		}
		return invalidf("Some clustering keys are missing: %s", join(missing))
	}
	if n > 0 && (n < len(w.ck) || ranged) {
		// A DELETE of a clustering prefix or slice deletes a range of rows;
		// nothing else may name part of a clustering key.
		if !w.deleteRow {
			return invalidf("Range deletions are not supported for specific columns")
		}
		if w.conditional() {
			return invalidf("DELETE statements must restrict all PRIMARY KEY columns with equality relations in order to use IF conditions")
		}
		w.ck = w.ck[:n]
		w.rangeDelete = true
		return nil
	}
	if n == 0 {
		w.ck = nil
	}
	return nil
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}

func pkIndexes(pk []keyRestr) []uint16 {
	var idx []uint16
	for _, r := range pk {
		if r.eq == nil || r.eq.bind < 0 {
			return nil
		}
		idx = append(idx, uint16(r.eq.bind))
	}
	return idx
}

// where compiles key relations of UPDATE and DELETE; slices of a
// clustering column only when allowSlice (DELETE).
func (cp *compiler) where(t *table, w *writePlan, rels []cql.Relation, allowSlice bool) error {
	w.pk = make([]keyRestr, len(t.pk))
	w.ck = make([]keyRestr, len(t.ck))
	for _, r := range rels {
		if isSliceOp(r.Op) && !r.Token && len(r.Columns) == 1 {
			if col := t.byName[r.Columns[0]]; col != nil && col.kind == kindClustering {
				if !allowSlice {
					return invalidf("Slice restrictions are not supported on the clustering columns in UPDATE statements")
				}
				if err := cp.sliceRestr(&w.ck[col.pos], col, r); err != nil {
					return err
				}
				continue
			}
		}
		if r.Token || len(r.Columns) != 1 {
			return invalidf("cqlsim supports only column = value and column IN (…) restrictions in UPDATE and DELETE")
		}
		col := t.byName[r.Columns[0]]
		if col == nil {
			return invalidf("Undefined column name %s", r.Columns[0])
		}
		if col.kind != kindPartition && col.kind != kindClustering {
			return invalidf("Non PRIMARY KEY columns found in where clause: %s ", col.name)
		}
		kr, err := cp.keyRestr(col, r)
		if err != nil {
			return err
		}
		if col.kind == kindPartition {
			w.pk[col.pos] = kr
		} else {
			if w.ck[col.pos].isRange() {
				return invalidf("Column \"%s\" cannot be restricted by both an equality and an inequality relation", col.name)
			}
			w.ck[col.pos] = kr
		}
	}
	return nil
}

func isSliceOp(op cql.RelOp) bool {
	return op == cql.RelLt || op == cql.RelLte || op == cql.RelGt || op == cql.RelGte
}

// sliceRestr adds one bound of a clustering slice to kr.
func (cp *compiler) sliceRestr(kr *keyRestr, col *column, r cql.Relation) error {
	if kr.eq != nil || kr.in != nil || kr.inList != nil {
		return invalidf("Column \"%s\" cannot be restricted by both an equality and an inequality relation", col.name)
	}
	kr.col = col
	src, err := cp.term(r.Values[0], col.typ, col.name)
	if err != nil {
		return err
	}
	lower := r.Op == cql.RelGt || r.Op == cql.RelGte
	if lower && kr.lo != nil || !lower && kr.hi != nil {
		return invalidf("More than one restriction was found for the %s bound on %s", map[bool]string{true: "start", false: "end"}[lower], col.name)
	}
	if lower {
		kr.lo, kr.loIncl = src, r.Op == cql.RelGte
	} else {
		kr.hi, kr.hiIncl = src, r.Op == cql.RelLte
	}
	return nil
}

// inValues compiles the values of col IN (…): one bind marker for the
// whole list (IN ?), or each value.
func (cp *compiler) inValues(col *column, values []cql.Term) (list *source, each []*source, err error) {
	if len(values) == 1 {
		if _, ok := values[0].(*cql.BindMarker); ok {
			lt := &cql.Type{Kind: cql.List, Elems: []*cql.Type{col.typ}}
			list, err = cp.term(values[0], lt, "in("+col.name+")")
			return list, nil, err
		}
	}
	for _, v := range values {
		src, err := cp.term(v, col.typ, col.name)
		if err != nil {
			return nil, nil, err
		}
		each = append(each, src)
	}
	return nil, each, nil
}

func (cp *compiler) keyRestr(col *column, r cql.Relation) (keyRestr, error) {
	kr := keyRestr{col: col}
	switch r.Op {
	case cql.RelEq:
		src, err := cp.term(r.Values[0], col.typ, col.name)
		if err != nil {
			return kr, err
		}
		kr.eq = src
	case cql.RelIn:
		var err error
		if kr.inList, kr.in, err = cp.inValues(col, r.Values); err != nil {
			return kr, err
		}
	default:
		return kr, invalidf("cqlsim supports only = and IN on primary key column %s here", col.name)
	}
	return kr, nil
}

func (cp *compiler) update(p *plan, st *cql.Update) error {
	t, err := cp.resolveTable(st.Keyspace, st.Table)
	if err != nil {
		return err
	}
	p.t = t
	w := &writePlan{t: t, ifExists: st.IfExists}
	// SET before WHERE in the text, so its markers come first; compile in
	// text order so that marker types line up either way.
	for _, a := range st.Set {
		col := t.byName[a.Column]
		if col == nil {
			return invalidf("Undefined column name %s in table %s", a.Column, t.qualified())
		}
		if col.kind == kindPartition || col.kind == kindClustering {
			return invalidf("PRIMARY KEY part %s found in SET part", col.name)
		}
		if a.Field != "" {
			return invalidf("cqlsim does not support setting a UDT field (%s.%s)", col.name, a.Field)
		}
		counter := col.typ.Kind == cql.Counter
		coll := hasCollection(col.typ) && !col.typ.Frozen
		switch {
		case counter && a.Op == cql.AssignSet:
			return invalidf("Cannot set the value of counter column %s (counters can only be incremented/decremented, not set)", col.name)
		case counter && (a.Op == cql.AssignAdd || a.Op == cql.AssignSub):
		case a.Op == cql.AssignSet:
		case coll:
			as, err := cp.collAssign(col, a)
			if err != nil {
				return err
			}
			w.cells = append(w.cells, as)
			continue
		case a.Op == cql.AssignAdd || a.Op == cql.AssignSub || a.Op == cql.AssignPrepend:
			return invalidf("Invalid operation (%s = %s + ?) for non counter column %s", col.name, col.name, col.name)
		default:
			return invalidf("Invalid element access on %s of type %s", col.name, col.typ)
		}
		typ := col.typ
		if counter {
			typ = &cql.Type{Kind: cql.Counter}
		}
		src, err := cp.term(a.Value, typ, col.name)
		if err != nil {
			return err
		}
		w.cells = append(w.cells, assign{col: col, op: a.Op, src: src})
	}
	if err := cp.where(t, w, st.Where, false); err != nil {
		return err
	}
	if err := cp.conditions(t, w, st.Conditions); err != nil {
		return err
	}
	staticOnly := len(w.cells) > 0
	for _, a := range w.cells {
		staticOnly = staticOnly && a.col.kind == kindStatic
	}
	return cp.finishWrite(p, t, w, !staticOnly, st.TTL, st.Timestamp)
}

func (cp *compiler) delete(p *plan, st *cql.Delete) error {
	t, err := cp.resolveTable(st.Keyspace, st.Table)
	if err != nil {
		return err
	}
	p.t = t
	w := &writePlan{t: t, ifExists: st.IfExists, deleteRow: len(st.Columns) == 0}
	for i, name := range st.Columns {
		col := t.byName[name]
		if col == nil {
			return invalidf("Undefined column name %s in table %s", name, t.qualified())
		}
		if col.kind == kindPartition || col.kind == kindClustering {
			return invalidf("Invalid identifier %s for deletion (should not be a PRIMARY KEY part)", name)
		}
		if st.Elements != nil && st.Elements[i] != nil {
			if !hasCollection(col.typ) || col.typ.Frozen || col.typ.Kind == cql.Set {
				return invalidf("Invalid element deletion on %s of type %s", name, col.typ)
			}
			key, err := cp.term(st.Elements[i], elemKeyType(col.typ), keyName(col))
			if err != nil {
				return err
			}
			w.cells = append(w.cells, assign{col: col, op: cql.AssignSet, src: &source{bind: -1}, coll: collDelete, key: key})
			continue
		}
		w.cells = append(w.cells, assign{col: col, op: cql.AssignSet, src: &source{bind: -1}})
	}
	if st.Timestamp != nil {
		if w.ts, err = cp.term(st.Timestamp, bigintType, "[timestamp]"); err != nil {
			return err
		}
	}
	if err := cp.where(t, w, st.Where, true); err != nil {
		return err
	}
	if err := cp.conditions(t, w, st.Conditions); err != nil {
		return err
	}
	if err := checkAttrs(t, w, nil, st.Timestamp); err != nil {
		return err
	}
	if !w.deleteRow && len(w.ck) > 0 && w.ck[0].col != nil {
		for i := range w.ck {
			if w.ck[i].col == nil || w.ck[i].isRange() {
				return invalidf("Range deletions are not supported for specific columns")
			}
		}
	}
	if err := checkKeys(t, w, !w.deleteRow); err != nil {
		return err
	}
	p.write = w
	p.pkIdx = pkIndexes(w.pk)
	return nil
}

// conditions compiles the IF col op v conditions of an UPDATE or DELETE.
func (cp *compiler) conditions(t *table, w *writePlan, rels []cql.Relation) error {
	for _, r := range rels {
		if r.Token || len(r.Columns) != 1 {
			return invalidf("Invalid condition: only column conditions are allowed in IF")
		}
		col := t.byName[r.Columns[0]]
		if col == nil {
			return invalidf("Undefined column name %s", r.Columns[0])
		}
		if col.kind == kindPartition || col.kind == kindClustering {
			return invalidf("PRIMARY KEY column '%s' cannot have IF conditions", col.name)
		}
		if r.Key != nil {
			return invalidf("cqlsim does not support conditions on collection elements (%s[…])", col.name)
		}
		c := condition{col: col, op: r.Op}
		switch r.Op {
		case cql.RelEq, cql.RelNeq, cql.RelLt, cql.RelLte, cql.RelGt, cql.RelGte:
			src, err := cp.term(r.Values[0], col.typ, col.name)
			if err != nil {
				return err
			}
			c.vals = []*source{src}
		case cql.RelIn:
			var err error
			if c.inList, c.vals, err = cp.inValues(col, r.Values); err != nil {
				return err
			}
		default:
			return invalidf("cqlsim does not support this operator in IF conditions (column %s)", col.name)
		}
		w.conds = append(w.conds, c)
		seen := false
		for _, cc := range w.condCols {
			seen = seen || cc == col
		}
		if !seen {
			w.condCols = append(w.condCols, col)
		}
	}
	return nil
}

// collAssign compiles an update of a non-frozen collection.
func (cp *compiler) collAssign(col *column, a cql.Assignment) (assign, error) {
	as := assign{col: col, op: a.Op}
	valType := col.typ
	switch a.Op {
	case cql.AssignAdd:
		as.coll = collAppend
	case cql.AssignPrepend:
		if col.typ.Kind != cql.List {
			return as, invalidf("Invalid operation (%s = ? + %s) for non list column %s", col.name, col.name, col.name)
		}
		as.coll = collPrepend
	case cql.AssignSub:
		as.coll = collRemove
		if col.typ.Kind == cql.Map {
			// m = m - {k1, k2} names keys to drop.
			valType = &cql.Type{Kind: cql.Set, Elems: []*cql.Type{col.typ.Elems[0]}, Frozen: true}
		}
	case cql.AssignElement:
		if col.typ.Kind == cql.Set {
			return as, invalidf("Invalid operation (%s[?] = ?) for set column %s", col.name, col.name)
		}
		as.coll = collPut
		key, err := cp.term(a.Key, elemKeyType(col.typ), keyName(col))
		if err != nil {
			return as, err
		}
		as.key = key
		valType = col.typ.Elems[len(col.typ.Elems)-1]
	default:
		return as, invalidf("Invalid operation on collection column %s", col.name)
	}
	src, err := cp.term(a.Value, valType, "value("+col.name+")")
	if err != nil {
		return as, err
	}
	as.src = src
	return as, nil
}

// elemKeyType is what selects an element: a map's key type, a list's int index.
func elemKeyType(t *cql.Type) *cql.Type {
	if t.Kind == cql.Map {
		return t.Elems[0]
	}
	return intType
}

func keyName(col *column) string {
	if col.typ.Kind == cql.Map {
		return "key(" + col.name + ")"
	}
	return "idx(" + col.name + ")"
}

// keyValues expands one key restriction into its values.
func (a *execArgs) keyValues(r *keyRestr) ([][]byte, error) {
	check := func(v []byte, unset bool, err error) ([]byte, error) {
		if err != nil {
			return nil, err
		}
		if unset {
			return nil, invalidf("Invalid unset value for column %s", r.col.name)
		}
		if v == nil {
			return nil, invalidf("Invalid null value in condition for column %s", r.col.name)
		}
		if err := validate(r.col, v); err != nil {
			return nil, err
		}
		return normalize(r.col.typ, v, false), nil
	}
	switch {
	case r.eq != nil:
		v, err := check(a.value(r.eq))
		if err != nil {
			return nil, err
		}
		return [][]byte{v}, nil
	case r.inList != nil:
		v, unset, err := a.value(r.inList)
		if err != nil || unset || v == nil {
			return nil, invalidf("Invalid null or unset value for IN list of column %s", r.col.name)
		}
		elems, ok := decList(v)
		if !ok {
			return nil, invalidf("Invalid IN list value for column %s", r.col.name)
		}
		for _, e := range elems {
			if _, err := check(e, false, nil); err != nil {
				return nil, err
			}
		}
		return elems, nil
	}
	out := make([][]byte, 0, len(r.in))
	for _, s := range r.in {
		v, err := check(a.value(s))
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// ckRange evaluates the bounds of a clustering slice; the bytes are copies,
// kept by the range tombstone after the request's buffer is reused.
func (a *execArgs) ckRange(r *keyRestr) (*ckRange, error) {
	rng := &ckRange{loIncl: r.loIncl, hiIncl: r.hiIncl}
	for _, b := range []struct {
		src *source
		dst *[]byte
	}{{r.lo, &rng.lo}, {r.hi, &rng.hi}} {
		if b.src == nil {
			continue
		}
		v, unset, err := a.value(b.src)
		if err != nil {
			return nil, err
		}
		if unset || v == nil {
			return nil, invalidf("Invalid null or unset value for column %s", r.col.name)
		}
		if err := validate(r.col, v); err != nil {
			return nil, err
		}
		*b.dst = append([]byte{}, v...)
	}
	return rng, nil
}

// product returns every combination of the restrictions' values.
func (a *execArgs) product(rs []keyRestr) ([][][]byte, error) {
	combos := [][][]byte{make([][]byte, 0, len(rs))}
	for i := range rs {
		vals, err := a.keyValues(&rs[i])
		if err != nil {
			return nil, err
		}
		if len(vals) == 1 {
			for j := range combos {
				combos[j] = append(combos[j], vals[0])
			}
			continue
		}
		next := make([][][]byte, 0, len(combos)*len(vals))
		for _, c := range combos {
			for _, v := range vals {
				nc := append(append(make([][]byte, 0, len(rs)), c...), v)
				next = append(next, nc)
			}
		}
		combos = next
	}
	return combos, nil
}

// mutations evaluates a write plan into row mutations.
func (w *writePlan) mutations(a *execArgs, out []*mutation) ([]*mutation, error) {
	t := w.t
	ts := a.ts
	if w.ts != nil {
		v, unset, err := a.value(w.ts)
		if err != nil {
			return nil, err
		}
		// As in Cassandra: unset takes the default, null is refused.
		switch {
		case unset:
		case v == nil:
			return nil, invalidf("Invalid null value of timestamp")
		default:
			n, ok := decBigint(v)
			if !ok {
				return nil, invalidf("Invalid timestamp value: expected 8 bytes, got %d", len(v))
			}
			ts = n
		}
	}
	ttl := t.defaultTTL
	if w.ttl != nil {
		v, unset, err := a.value(w.ttl)
		if err != nil {
			return nil, err
		}
		// As in Cassandra: unset keeps the table default, null means none.
		switch {
		case unset:
		case v == nil:
			ttl = 0
		default:
			n, ok := decInt(v)
			if !ok {
				return nil, invalidf("Invalid value for TTL: expected 4 bytes")
			}
			if n < 0 {
				return nil, invalidf("A TTL must be greater or equal to 0, but was %d", n)
			}
			if n > maxTTL {
				return nil, invalidf("ttl is too large. requested (%d) maximum (%d)", n, maxTTL)
			}
			ttl = n
		}
	}
	cells := make([]cellWrite, 0, len(w.cells))
	for _, as := range w.cells {
		v, unset, err := a.value(as.src)
		if err != nil {
			return nil, err
		}
		if unset {
			continue
		}
		if as.col.typ.Kind == cql.Counter {
			if v == nil {
				return nil, invalidf("Invalid null value for counter increment")
			}
			d, ok := decBigint(v)
			if !ok {
				return nil, invalidf("Invalid value for counter column %s: expected 8 bytes, got %d", as.col.name, len(v))
			}
			if as.op == cql.AssignSub {
				d = -d
			}
			cells = append(cells, cellWrite{col: as.col, delta: d, counter: true})
			continue
		}
		if as.coll != collSet {
			cw := cellWrite{col: as.col, value: v, op: as.coll}
			if v != nil {
				if err := cql.Validate(as.src.typ, v); err != nil {
					return nil, invalidf("Invalid value for column %s: %v", as.col.name, err)
				}
			}
			if as.key != nil {
				k, _, err := a.value(as.key)
				if err != nil {
					return nil, err
				}
				if k == nil {
					return nil, invalidf("Invalid null value for %s", keyName(as.col))
				}
				if err := cql.Validate(as.key.typ, k); err != nil {
					return nil, invalidf("Invalid %s: %v", keyName(as.col), err)
				}
				cw.key = k
			}
			cells = append(cells, cw)
			continue
		}
		if err := validate(as.col, v); err != nil {
			return nil, err
		}
		cells = append(cells, cellWrite{col: as.col, value: normalize(as.col.typ, v, true)})
	}
	pks, err := a.product(w.pk)
	if err != nil {
		return nil, err
	}
	var cks [][][]byte
	var rng *ckRange
	if w.rangeDelete {
		prefix := w.ck
		if last := &w.ck[len(w.ck)-1]; last.isRange() {
			prefix = w.ck[:len(w.ck)-1]
			if rng, err = a.ckRange(last); err != nil {
				return nil, err
			}
		}
		if cks, err = a.product(prefix); err != nil {
			return nil, err
		}
	} else if w.ck != nil {
		if cks, err = a.product(w.ck); err != nil {
			return nil, err
		}
	} else if len(t.ck) == 0 {
		cks = [][][]byte{{}}
	} else {
		cks = [][][]byte{nil}
	}
	var scratch [128]byte
	ms := make([]mutation, len(pks)*len(cks))
	shared := len(ms) > 1
	for _, pk := range pks {
		key := routingKey(scratch[:0], pk)
		if len(key) == 0 {
			return nil, invalidf("Key may not be empty")
		}
		tok := murmur3.Token(key)
		for _, ck := range cks {
			m := &ms[0]
			ms = ms[1:]
			*m = mutation{t: t, key: key, token: tok, pk: pk, ck: ck, ts: ts, ttl: ttl, insert: w.insert, deleteRow: w.deleteRow, cells: cells}
			if w.rangeDelete {
				m.rangeDelete, m.rng = true, rng
			}
			if ck == nil && !w.deleteRow {
				// Writes without clustering key may only touch static columns.
				for _, c := range cells {
					if c.col.kind != kindStatic {
						return nil, invalidf("Some clustering keys are missing: %s", t.ck[0].name)
					}
				}
			}
			m.own(shared)
			out = append(out, m)
		}
	}
	return out, nil
}

// own copies the bytes the mutation keeps (key, key columns, values) into
// one allocation: bound values alias the connection's read buffer, and one
// block per row is also far cheaper for the garbage collector than many.
// sharedCells says other mutations use the same cells slice.
func (m *mutation) own(sharedCells bool) {
	n := len(m.key)
	if len(m.pk) > 1 {
		for _, p := range m.pk {
			n += len(p)
		}
	}
	for _, c := range m.ck {
		n += len(c)
	}
	for _, c := range m.cells {
		n += len(c.value) + len(c.key)
	}
	arena := make([]byte, 0, n)
	put := func(b []byte) []byte {
		if b == nil {
			return nil
		}
		s := len(arena)
		arena = append(arena, b...)
		return arena[s:len(arena):len(arena)]
	}
	keys := make([][]byte, len(m.pk)+len(m.ck))
	m.key = put(m.key)
	if len(m.pk) == 1 {
		keys[0] = m.key
	} else {
		for i, p := range m.pk {
			keys[i] = put(p)
		}
	}
	np := len(m.pk)
	m.pk = keys[:np:np]
	if m.ck != nil {
		for i, c := range m.ck {
			keys[np+i] = put(c)
		}
		m.ck = keys[np:]
	}
	cells := m.cells
	if sharedCells {
		cells = make([]cellWrite, len(m.cells))
		copy(cells, m.cells)
	}
	for i := range cells {
		cells[i].value = put(cells[i].value)
		cells[i].key = put(cells[i].key)
	}
	m.cells = cells
}
