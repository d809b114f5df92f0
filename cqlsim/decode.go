package cqlsim

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
)

// EXECUTE and BATCH carry the rows a loader writes, so they are decoded here
// rather than by the protocol library: values are sliced out of the frame
// body instead of being allocated one by one. Values therefore alias the
// connection's read buffer until a mutation copies what it keeps
// (mutation.own). Everything else goes through the library's codec.

// value is a bound value: nil b is null unless unset.
type value struct {
	b     []byte
	unset bool
}

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

func (r *bodyReader) int64() int64 {
	if b := r.take(8); b != nil {
		return int64(binary.BigEndian.Uint64(b))
	}
	return 0
}

func (r *bodyReader) value() value {
	n := r.int32()
	switch {
	case n == -2:
		return value{unset: true}
	case n < 0:
		return value{}
	}
	b := r.take(int(n))
	if b == nil && r.err == nil {
		b = []byte{}
	}
	return value{b: b}
}

func (r *bodyReader) values(n int, dst []value) []value {
	dst = dst[:0]
	for i := 0; i < n && r.err == nil; i++ {
		dst = append(dst, r.value())
	}
	return dst
}

const (
	flagValues      = 0x01
	flagSkipMeta    = 0x02
	flagPageSize    = 0x04
	flagPagingState = 0x08
	flagSerial      = 0x10
	flagTimestamp   = 0x20
	flagNames       = 0x40
)

// skipBytesMap returns what follows the [bytes map] at the start of b: a
// request's custom payload, which the simulator ignores.
func skipBytesMap(b []byte) ([]byte, error) {
	r := &bodyReader{b: b}
	n := r.short()
	for i := 0; i < n && r.err == nil; i++ {
		r.take(r.short())
		r.value()
	}
	return r.b, r.err
}

// execRequest is a decoded EXECUTE.
type execRequest struct {
	id    []byte
	opts  message.QueryOptions // without values
	vals  []value
	named bool // named values: the caller falls back to the library decoder
}

func decodeExecute(body []byte, vals []value) (*execRequest, error) {
	r := &bodyReader{b: body}
	e := &execRequest{}
	e.id = r.take(r.short())
	e.opts.Consistency = primitive.ConsistencyLevel(r.short())
	flags := r.byte1()
	if flags&flagNames != 0 {
		e.named = true
		return e, r.err
	}
	e.vals = vals[:0]
	if flags&flagValues != 0 {
		e.vals = r.values(r.short(), vals)
	}
	e.opts.SkipMetadata = flags&flagSkipMeta != 0
	if flags&flagPageSize != 0 {
		e.opts.PageSize = r.int32()
	}
	if flags&flagPagingState != 0 {
		e.opts.PagingState = r.value().b
	}
	if flags&flagSerial != 0 {
		cl := primitive.ConsistencyLevel(r.short())
		e.opts.SerialConsistency = &cl
	}
	if flags&flagTimestamp != 0 {
		ts := r.int64()
		e.opts.DefaultTimestamp = &ts
	}
	if r.err == nil && len(r.b) != 0 {
		return nil, fmt.Errorf("%d unexpected bytes after the query options", len(r.b))
	}
	return e, r.err
}

// batchRequest is a decoded BATCH.
type batchRequest struct {
	typ         primitive.BatchType
	children    []batchItem
	consistency primitive.ConsistencyLevel
	ts          *int64
}

type batchItem struct {
	query string // set for unprepared children
	id    []byte
	vals  []value
}

func decodeBatch(body []byte) (*batchRequest, error) {
	r := &bodyReader{b: body}
	b := &batchRequest{typ: primitive.BatchType(r.byte1())}
	n := r.short()
	b.children = make([]batchItem, n)
	// One backing array for every child's values.
	var all []value
	for i := 0; i < n && r.err == nil; i++ {
		c := &b.children[i]
		switch kind := r.byte1(); kind {
		case 0:
			c.query = string(r.take(int(r.int32())))
		case 1:
			c.id = r.take(r.short())
		default:
			if r.err == nil {
				return nil, fmt.Errorf("child %d: unknown kind %d", i, kind)
			}
		}
		start := len(all)
		nv := r.short()
		if all == nil {
			// Batches repeat one statement: size for n children like this
			// one, within what the body can hold (4 bytes per value at least).
			all = make([]value, 0, min(nv*n, len(body)/4))
		}
		for j := 0; j < nv && r.err == nil; j++ {
			all = append(all, r.value())
		}
		c.vals = all[start:len(all):len(all)]
	}
	// Children slice into all, which may have moved while growing.
	off := 0
	for i := range b.children {
		k := len(b.children[i].vals)
		b.children[i].vals = all[off : off+k : off+k]
		off += k
	}
	b.consistency = primitive.ConsistencyLevel(r.short())
	flags := r.byte1()
	if flags&flagSerial != 0 {
		r.take(2)
	}
	if flags&flagTimestamp != 0 {
		ts := r.int64()
		b.ts = &ts
	}
	if flags&flagNames != 0 && r.err == nil {
		return nil, errors.New("named values in BATCH are not supported (as in Cassandra)")
	}
	return b, r.err
}

// fromLibrary converts the library's values.
func fromLibrary(vs []*primitive.Value) []value {
	out := make([]value, len(vs))
	for i, v := range vs {
		switch {
		case v == nil || v.Type == primitive.ValueTypeNull:
		case v.Type == primitive.ValueTypeUnset:
			out[i].unset = true
		default:
			out[i].b = v.Contents
			if out[i].b == nil {
				out[i].b = []byte{}
			}
		}
	}
	return out
}
