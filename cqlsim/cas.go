package cqlsim

import (
	"sort"

	"github.com/cqlload/cqlload/cqlsim/internal/cql"
	"github.com/datastax/go-cassandra-native-protocol/message"
)

// Lightweight transactions: the conditions of UPDATE and DELETE, and
// batches holding conditional statements. cqlsim has no Paxos: a table's
// lock makes the read of the conditions and the write one step, which is
// what a client can observe of Paxos on one partition.

var relOpText = map[cql.RelOp]string{
	cql.RelEq: "=", cql.RelNeq: "!=", cql.RelLt: "<", cql.RelLte: "<=", cql.RelGt: ">", cql.RelGte: ">=", cql.RelIn: "IN",
}

// condValues evaluates the values of w's conditions: per condition its
// one value or its IN list, nil standing for null.
func (w *writePlan) condValues(a *execArgs) ([][][]byte, error) {
	out := make([][][]byte, len(w.conds))
	for i := range w.conds {
		c := &w.conds[i]
		var vals [][]byte
		if c.inList != nil {
			v, unset, err := a.value(c.inList)
			if err != nil {
				return nil, err
			}
			if unset {
				return nil, invalidf("Invalid 'unset' value in condition")
			}
			if v != nil {
				elems, ok := decList(v)
				if !ok {
					return nil, invalidf("Invalid IN list value for column %s", c.col.name)
				}
				vals = elems
			}
		} else {
			for _, s := range c.vals {
				v, unset, err := a.value(s)
				if err != nil {
					return nil, err
				}
				if unset {
					return nil, invalidf("Invalid 'unset' value in condition")
				}
				vals = append(vals, v)
			}
		}
		for j, v := range vals {
			if v == nil {
				if c.op != cql.RelEq && c.op != cql.RelNeq && c.op != cql.RelIn {
					return nil, invalidf("Invalid comparison with null for operator \"%s\"", relOpText[c.op])
				}
				continue
			}
			if err := validate(c.col, v); err != nil {
				return nil, err
			}
			vals[j] = normalize(c.col.typ, v, true)
		}
		out[i] = vals
	}
	return out, nil
}

// holds reports whether w's condition is met by the row cur (every
// column in table order; exists says whether the row is live).
func (w *writePlan) holds(cur [][]byte, exists bool, want [][][]byte) bool {
	switch {
	case w.ifNotExists:
		return !exists
	case w.ifExists:
		return exists
	}
	for i := range w.conds {
		c := &w.conds[i]
		if !condHolds(c, cur[c.col.idx], want[i]) {
			return false
		}
	}
	return true
}

func condHolds(c *condition, have []byte, want [][]byte) bool {
	eq := func(w []byte) bool {
		if w == nil || have == nil {
			return w == nil && have == nil
		}
		return cql.Compare(c.col.typ, have, w) == 0
	}
	switch c.op {
	case cql.RelEq:
		return eq(want[0])
	case cql.RelNeq:
		return !eq(want[0])
	case cql.RelIn:
		for _, w := range want {
			if eq(w) {
				return true
			}
		}
		return false
	}
	if have == nil {
		return false
	}
	return cmpOp(c.op, cql.Compare(c.col.typ, have, want[0]))
}

// conditionalBatch applies a batch holding conditional statements as
// Cassandra does: all on one partition of one table, every condition
// checked before anything is written, all written or none.
func (n *Node) conditionalBatch(sess *session, children []batchChild, customTS bool) (message.Message, []string, error) {
	if customTS {
		return nil, nil, invalidf("Cannot provide custom timestamp for conditional BATCH")
	}
	t := children[0].p.t
	type condRow struct {
		w    *writePlan
		m    *mutation
		want [][][]byte
	}
	var conds []condRow
	var muts []*mutation
	var key []byte
	for i, c := range children {
		if c.p.t != t {
			return nil, nil, invalidf("Batch with conditions cannot span multiple tables")
		}
		if i == 0 {
			if err := checkSerial(c.args); err != nil {
				return nil, nil, err
			}
		}
		w := c.p.write
		ms, err := w.mutations(c.args, nil)
		if err != nil {
			return nil, nil, err
		}
		for _, m := range ms {
			if string(m.key) != string(ms[0].key) {
				return nil, nil, invalidf("Batch with conditions cannot span multiple partitions (you cannot use IN on the partition key)")
			}
		}
		if len(ms) > 0 {
			if key == nil {
				key = ms[0].key
			} else if string(ms[0].key) != string(key) {
				return nil, nil, invalidf("Batch with conditions cannot span multiple partitions")
			}
		}
		if w.conditional() {
			verb := "updates"
			if c.p.kind == planDelete {
				verb = "deletions"
			}
			if len(ms) != 1 {
				return nil, nil, invalidf("IN on the clustering key columns is not supported with conditional %s", verb)
			}
			want, err := w.condValues(c.args)
			if err != nil {
				return nil, nil, err
			}
			conds = append(conds, condRow{w: w, m: ms[0], want: want})
		}
		muts = append(muts, ms...)
	}
	if cl, ok := children[0].args.consistency(); ok {
		if err := n.checkMutations(muts, cl); err != nil {
			return nil, nil, err
		}
	}
	now := n.cl.clock().Unix()
	d := t.data
	d.mu.Lock()
	applied := true
	var current [][][]byte
	seen := map[string]bool{}
	for _, c := range conds {
		cur, exists := d.currentRow(t, c.m, now)
		if !c.w.holds(cur, exists, c.want) {
			applied = false
		}
		// A failed batch returns each row its conditions read that exists.
		k := string(encodeElems(c.m.ck, 1))
		if exists && !seen[k] {
			seen[k] = true
			current = append(current, cur)
		}
	}
	var err error
	if applied {
		for _, m := range muts {
			if err = d.applyLocked(t, m, now); err != nil {
				break
			}
		}
	}
	d.mu.Unlock()
	if err != nil {
		return nil, nil, err
	}
	n.stats.batch(1)
	if applied {
		n.count(sess, t, muts)
		return casResult(t, true, nil, nil), nil, nil
	}
	// The columns: all of them when a statement is IF [NOT] EXISTS,
	// otherwise the primary key (to tell the rows apart) and the columns
	// of the conditions in order of appearance.
	var cols []*column
	all := false
	for _, c := range conds {
		all = all || c.w.ifExists || c.w.ifNotExists
	}
	if all {
		cols = t.cols
	} else {
		cols = append(cols, t.pk...)
		cols = append(cols, t.ck...)
		for _, c := range conds {
			for _, cc := range c.w.condCols {
				dup := false
				for _, x := range cols {
					dup = dup || x == cc
				}
				if !dup {
					cols = append(cols, cc)
				}
			}
		}
	}
	sort.SliceStable(current, func(i, j int) bool {
		return t.compareCK(ckOf(t, current[i]), ckOf(t, current[j])) < 0
	})
	if len(current) == 0 {
		cols = nil
	}
	return casResult(t, false, cols, current), nil, nil
}

// ckOf picks the clustering key out of a row of every column.
func ckOf(t *table, row [][]byte) [][]byte {
	ck := make([][]byte, len(t.ck))
	for i, c := range t.ck {
		ck[i] = row[c.idx]
	}
	return ck
}
