package cqlsim

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/cqlload/cqlload/internal/murmur3"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
)

// Blackhole mode reads EXECUTE and BATCH bodies with this minimal reader
// instead of the protocol library: it checks the framing and slices the
// routing-key values out of the body without allocating per value, which
// is the point of a benchmark sink.

var errShort = errors.New("truncated message body")

type bodyReader struct {
	b   []byte
	err error
}

func (r *bodyReader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b) {
		r.err = errShort
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

func (r *bodyReader) byte1() byte {
	if b := r.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *bodyReader) short() int {
	if b := r.take(2); b != nil {
		return int(binary.BigEndian.Uint16(b))
	}
	return 0
}

func (r *bodyReader) int32() int32 {
	if b := r.take(4); b != nil {
		return int32(binary.BigEndian.Uint32(b))
	}
	return 0
}

// value reads a [value]; nil for null or unset.
func (r *bodyReader) value() []byte {
	n := r.int32()
	if n < 0 {
		return nil
	}
	return r.take(int(n))
}

const (
	flagValues      = 0x01
	flagPageSize    = 0x04
	flagPagingState = 0x08
	flagSerial      = 0x10
	flagTimestamp   = 0x20
	flagNames       = 0x40
)

// values reads a values list into dst (reused), returning it.
func (r *bodyReader) values(n int, names bool, dst [][]byte) [][]byte {
	dst = dst[:0]
	for i := 0; i < n && r.err == nil; i++ {
		if names {
			r.take(r.short())
		}
		dst = append(dst, r.value())
	}
	return dst
}

func (r *bodyReader) options() (primitive.ConsistencyLevel, [][]byte, bool) {
	cl := primitive.ConsistencyLevel(r.short())
	flags := r.byte1()
	var vals [][]byte
	if flags&flagValues != 0 {
		vals = r.values(r.short(), flags&flagNames != 0, nil)
	}
	if flags&flagPageSize != 0 {
		r.take(4)
	}
	if flags&flagPagingState != 0 {
		r.value()
	}
	if flags&flagSerial != 0 {
		r.take(2)
	}
	if flags&flagTimestamp != 0 {
		r.take(8)
	}
	return cl, vals, flags&flagNames != 0
}

// blackholeRoute counts one row written for a statement with bound values.
func (n *Node) blackholeKey(p *plan, vals [][]byte, scratch []byte) ([]byte, bool) {
	if p.pkIdx == nil {
		return nil, false
	}
	var parts [8][]byte
	pk := parts[:0]
	for _, i := range p.pkIdx {
		if int(i) >= len(vals) || vals[i] == nil {
			return nil, false
		}
		pk = append(pk, vals[i])
	}
	return routingKey(scratch[:0], pk), true
}

func (n *Node) blackholeRow(p *plan, key []byte, ok bool) {
	n.stats.rows.Add(1)
	if !ok {
		return
	}
	if ks := n.cl.cat.keyspace(p.t.ks); ks != nil && n.isReplica(ks, murmur3.Token(key)) {
		n.stats.replicaRows.Add(1)
	}
}

func (c *conn) blackholeExecute(body []byte) (message.Message, []string) {
	n := c.n
	r := &bodyReader{b: body}
	id := r.take(r.short())
	cl, vals, named := r.options()
	if r.err != nil {
		return &message.ProtocolError{ErrorMessage: "Invalid EXECUTE message: " + r.err.Error()}, nil
	}
	p := n.lookupPrepared(id)
	if p == nil {
		return unprepared(append([]byte(nil), id...)), nil
	}
	if p.kind == planSelect || p.kind == planDDL || named {
		// Reads, DDL and named values take the ordinary path.
		opts := &message.QueryOptions{Consistency: cl}
		if m, err := c.decodeExecute(body); err == nil {
			opts = m.Options
		}
		return n.respond(&c.sess, p, opts)
	}
	n.stats.statements.Add(1)
	if len(vals) != len(p.vars) {
		return &message.Invalid{ErrorMessage: fmt.Sprintf("There were %d markers(?) in CQL but %d bound variables", len(p.vars), len(vals))}, nil
	}
	if e := n.injected(cl, p.writeKind()); e != nil {
		return e, nil
	}
	var scratch [64]byte
	key, ok := n.blackholeKey(p, vals, scratch[:])
	n.blackholeRow(p, key, ok)
	return &message.VoidResult{}, nil
}

func (c *conn) decodeExecute(body []byte) (*message.Execute, error) {
	h := &frameHeader{version: c.version, op: primitive.OpCodeExecute}
	m, err := c.decode(h, body)
	if err != nil {
		return nil, err
	}
	e, ok := m.(*message.Execute)
	if !ok {
		return nil, fmt.Errorf("not an EXECUTE")
	}
	return e, nil
}

func (c *conn) blackholeBatch(body []byte) (message.Message, []string) {
	n := c.n
	r := &bodyReader{b: body}
	typ := r.byte1()
	count := r.short()
	type child struct {
		p    *plan
		key  []byte
		ok   bool
		size int
	}
	children := make([]child, 0, count)
	var vals [][]byte
	keys := make([]byte, 0, 64*count)
	for i := 0; i < count && r.err == nil; i++ {
		kind := r.byte1()
		var p *plan
		switch kind {
		case 0:
			q := r.take(int(r.int32()))
			if r.err != nil {
				break
			}
			var err error
			if p, err = n.planFor(&c.sess, string(q)); err != nil {
				return errorMessage(err), nil
			}
		case 1:
			id := r.take(r.short())
			if r.err != nil {
				break
			}
			if p = n.lookupPrepared(id); p == nil {
				return unprepared(append([]byte(nil), id...)), nil
			}
		default:
			return &message.ProtocolError{ErrorMessage: fmt.Sprintf("Invalid BATCH message: child kind %d", kind)}, nil
		}
		vals = r.values(r.short(), false, vals)
		if r.err != nil {
			break
		}
		if p.kind != planInsert && p.kind != planUpdate && p.kind != planDelete {
			return &message.Invalid{ErrorMessage: "Invalid statement in batch: only UPDATE, INSERT and DELETE statements are allowed."}, nil
		}
		if len(vals) != len(p.vars) {
			return &message.Invalid{ErrorMessage: fmt.Sprintf("There were %d markers(?) in CQL but %d bound variables", len(p.vars), len(vals))}, nil
		}
		start := len(keys)
		key, ok := n.blackholeKey(p, vals, keys[len(keys):])
		keys = append(keys, key...)
		ch := child{p: p, ok: ok, key: keys[start:len(keys):len(keys)]}
		// Size as in the store: values plus an 8-byte timestamp per cell.
		for j, v := range vals {
			if !isPK(p.pkIdx, j) {
				ch.size += len(v) + 8
			}
		}
		children = append(children, ch)
	}
	cl := primitive.ConsistencyLevel(r.short())
	if r.err != nil {
		return &message.ProtocolError{ErrorMessage: "Invalid BATCH message: " + r.err.Error()}, nil
	}
	n.stats.statements.Add(int64(len(children)))
	wk := writeBatch
	switch primitive.BatchType(typ) {
	case primitive.BatchTypeUnlogged:
		wk = writeUnloggedBatch
	case primitive.BatchTypeCounter:
		wk = writeCounter
	}
	if e := n.injected(cl, wk); e != nil {
		return e, nil
	}
	parts := map[string]bool{}
	size := 0
	var names []string
	for _, ch := range children {
		parts[ch.p.t.ks+"\x00"+string(ch.key)] = true
		size += ch.size
		if q := ch.p.t.qualified(); !contains(names, q) {
			names = append(names, q)
		}
	}
	n.stats.batch(len(parts))
	var warnings []string
	if len(parts) > 1 && wk != writeCounter {
		warn, fail := n.cl.batchLimits()
		if fail > 0 && size > fail {
			n.stats.batchRejected.Add(1)
			return &message.Invalid{ErrorMessage: "Batch too large"}, nil
		}
		if warn > 0 && size > warn {
			n.stats.warnings.Add(1)
			warnings = append(warnings, fmt.Sprintf("Batch for [%s] is of size %s, exceeding specified threshold of %s by %s.",
				strings.Join(names, ", "), kib(size), kib(warn), kib(size-warn)))
		}
	}
	for _, ch := range children {
		n.blackholeRow(ch.p, ch.key, ch.ok)
	}
	return &message.VoidResult{}, warnings
}

func isPK(idx []uint16, j int) bool {
	for _, i := range idx {
		if int(i) == j {
			return true
		}
	}
	return false
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}
