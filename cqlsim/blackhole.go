package cqlsim

import (
	"github.com/cqlload/cqlload/cqlsim/internal/cql"
	"github.com/cqlload/cqlload/internal/murmur3"
	"github.com/datastax/go-cassandra-native-protocol/message"
)

// Blackhole mode acknowledges writes after the framing checks (the body
// decodes, the statement is prepared, the number of values matches) without
// validating or storing values. Rows, bytes, batches and replica hits are
// still counted: the token comes from the values at the prepared
// statement's partition key indexes, as a driver routes it.

// blackholeKey appends the routing key built from the bound values to dst,
// if the plan binds the whole partition key; otherwise it returns dst as is.
func blackholeKey(p *plan, vals []value, dst []byte) ([]byte, bool) {
	if p.pkIdx == nil {
		return dst, false
	}
	var parts [8][]byte
	pk := parts[:0]
	for _, i := range p.pkIdx {
		if int(i) >= len(vals) || vals[i].b == nil {
			return dst, false
		}
		pk = append(pk, vals[i].b)
	}
	return routingKey(dst, pk), true
}

func (n *Node) blackholeRow(sess *session, p *plan, key []byte, ok bool) {
	n.stats.rows.Add(1)
	if !ok {
		return
	}
	tok := murmur3.Token(key)
	if n.isReplica(p.t.keyspace, tok) {
		n.stats.replicaRows.Add(1)
	}
	if sess.onShard(tok) {
		n.stats.shardRows.Add(1)
	}
}

// blackholeExecute acknowledges a prepared write.
func (n *Node) blackholeExecute(sess *session, p *plan, req *execRequest) (message.Message, []string) {
	n.stats.statements.Add(1)
	if _, err := p.checkCount(req.vals); err != nil {
		return errorMessage(err), nil
	}
	var late message.Error
	if l := n.limit.Load(); l != nil {
		e, lt, apply := n.admit(l, sess, 1, req.opts.Consistency, p.writeKind())
		if !apply {
			return e, nil
		}
		late = lt
	}
	if e := n.injected(req.opts.Consistency, p.writeKind()); e != nil {
		return e, nil
	}
	var scratch [64]byte
	key, ok := blackholeKey(p, req.vals, scratch[:0])
	if ok {
		if err := n.unavailable(p.t.keyspace, murmur3.Token(key), req.opts.Consistency); err != nil {
			return errorMessage(err), nil
		}
	}
	n.blackholeRow(sess, p, key, ok)
	if e := n.timedOut(req.opts.Consistency, p.writeKind()); e != nil {
		return e, nil
	}
	if late != nil {
		return n.lateAnswer(voidResult, late), nil
	}
	return voidResult, nil
}

func (n *Node) blackholeBatch(sess *session, bt cql.BatchType, children []batchChild) (message.Message, []string, error) {
	type keyRef struct {
		ks         *keyspace
		start, end int
		ok         bool
	}
	buf := make([]byte, 0, 32*len(children))
	refs := make([]keyRef, len(children))
	var tables map[*table]bool
	var first *table
	size, partitions := 0, 0
	for i, c := range children {
		start := len(buf)
		var ok bool
		buf, ok = blackholeKey(c.p, c.args.values, buf)
		refs[i] = keyRef{ks: c.p.t.keyspace, start: start, end: len(buf), ok: ok}
		// A partition is new unless an earlier child has the same key; a
		// linear scan beats a map for the tens of statements a batch holds.
		dup := false
		for _, r := range refs[:i] {
			if r.ks == refs[i].ks && string(buf[r.start:r.end]) == string(buf[start:]) {
				dup = true
				break
			}
		}
		if !dup {
			partitions++
		}
		if first == nil {
			first = c.p.t
		} else if c.p.t != first && tables == nil {
			tables = map[*table]bool{first: true}
		}
		if tables != nil {
			tables[c.p.t] = true
		}
		// Size as the store counts it: values plus an 8-byte timestamp per
		// cell. The statements of a prepared batch share its values.
		lo, vals := 0, c.args.values
		if c.p.binds.hi > 0 {
			lo, vals = c.p.binds.lo, vals[c.p.binds.lo:min(c.p.binds.hi, len(vals))]
		}
		for j, v := range vals {
			if !isPK(c.p.pkIdx, lo+j) {
				size += len(v.b) + 8
			}
		}
	}
	if tables == nil && first != nil {
		tables = map[*table]bool{first: true}
	}
	warnings, err := n.checkBatch(bt, partitions, size, tables)
	if err != nil {
		return nil, nil, err
	}
	for i, c := range children {
		if cl, ok := c.args.consistency(); ok && refs[i].ok {
			if err := n.unavailable(refs[i].ks, murmur3.Token(buf[refs[i].start:refs[i].end]), cl); err != nil {
				return nil, nil, err
			}
		}
	}
	for i, c := range children {
		n.blackholeRow(sess, c.p, buf[refs[i].start:refs[i].end], refs[i].ok)
	}
	return voidResult, warnings, nil
}

func isPK(idx []uint16, j int) bool {
	for _, i := range idx {
		if int(i) == j {
			return true
		}
	}
	return false
}
