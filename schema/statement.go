package schema

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/scylladb/gocqlx/v2/qb"
)

// tableName is the table as a CQL name, each part quoted when needed.
func (t *Table) tableName() string {
	return QuoteIdent(t.Keyspace) + "." + QuoteIdent(t.Name)
}

// Bind is what fills one bind marker of a statement: a column's value,
// one element of a top-level tuple column, the write timestamp or the
// TTL. It
// says so by reference, not by a name: any text a name could take is also
// a name some column can have ("[timestamp]", "t[0]" beside a tuple t),
// and a lookup by name would then bind one marker twice and another never.
type Bind struct {
	Column *Column // nil for the write timestamp and the TTL
	// Elem is the element of a tuple column bound element by element,
	// -1 when the marker takes the whole value.
	Elem int
	// TTL: the marker takes the TTL (Column is nil).
	TTL bool
}

// Timestamp says the marker takes the write timestamp.
func (b Bind) Timestamp() bool { return b.Column == nil && !b.TTL }

// String names the marker for messages: the column's name, "name[i]" for
// a tuple element, "USING TIMESTAMP" for the write timestamp, "USING
// TTL" for the TTL.
func (b Bind) String() string {
	switch {
	case b.TTL:
		return "USING TTL"
	case b.Column == nil:
		return "USING TIMESTAMP"
	case b.Elem >= 0:
		return b.Column.Name + "[" + strconv.Itoa(b.Elem) + "]"
	}
	return b.Column.Name
}

// Binds lists a statement's bind markers in order.
type Binds []Bind

// Of is the position of the first marker c fills (a tuple column bound
// element by element fills that and the next ones), -1 when c fills none.
func (bs Binds) Of(c *Column) int {
	for i, b := range bs {
		if b.Column == c {
			return i
		}
	}
	return -1
}

// Timestamp is the position of the write timestamp's marker, -1 when the
// statement has none.
func (bs Binds) Timestamp() int {
	for i, b := range bs {
		if b.Timestamp() {
			return i
		}
	}
	return -1
}

// TTL is the position of the TTL's marker, -1 when the statement has
// none.
func (bs Binds) TTL() int {
	for i, b := range bs {
		if b.TTL {
			return i
		}
	}
	return -1
}

// Names gives each marker's String, for messages and tests.
func (bs Binds) Names() []string {
	names := make([]string, len(bs))
	for i, b := range bs {
		names[i] = b.String()
	}
	return names
}

// Using is an INSERT's USING clause.
type Using struct {
	// TTL is the TTL in seconds of every row; none when zero or less.
	TTL int
	// TTLBound: each row's TTL is bound ("USING TTL ?"), and TTL is
	// not used.
	TTLBound bool
	// Timestamp: each row's write timestamp is bound ("USING
	// TIMESTAMP ?").
	Timestamp bool
}

// InsertStatement builds "INSERT INTO ks.t (a,b) VALUES (?,?) [USING …]"
// for the given columns; binds says what fills each bind marker, in order:
// the columns', then the TTL's and the write timestamp's when bound.
//
// A tuple column is bound element by element, "(?,?)": gocql counts a
// bind marker of tuple type as one value per element and rejects a single
// value for it. Bind the parts SplitTuple cuts from the column's converted
// value. Tuples nested in other types are not affected.
func InsertStatement(t *Table, cols []*Column, using Using) (stmt string, binds Binds) {
	return InsertNullTuples(t, cols, using, nil, false)
}

// InsertNullTuples is InsertStatement for a row whose top-level tuple
// columns in null are null: element-wise bind markers cannot express a
// null tuple (gocql would send a tuple of nulls), so such a column is
// written as the literal null, or with unset left out of the statement.
// It fills no bind marker.
func InsertNullTuples(t *Table, cols []*Column, using Using, null map[*Column]bool, unset bool) (stmt string, binds Binds) {
	b := qb.Insert(t.tableName())
	for _, c := range cols {
		if null[c] && tupleArity(c) > 0 {
			if !unset {
				b.LitColumn(QuoteIdent(c.Name), "null")
			}
			continue
		}
		if n := tupleArity(c); n > 0 {
			b.TupleColumn(QuoteIdent(c.Name), n)
		} else {
			b.Columns(QuoteIdent(c.Name))
		}
		binds = appendBinds(binds, c)
	}
	switch {
	case using.TTLBound:
		b.TTLNamed("ttl")
		binds = append(binds, Bind{Elem: -1, TTL: true})
	case using.TTL > 0:
		b.TTL(time.Duration(using.TTL) * time.Second)
	}
	if using.Timestamp {
		// USING TIMESTAMP ?, bound last.
		b.TimestampNamed("timestamp")
		binds = append(binds, Bind{Elem: -1})
	}
	stmt, _ = b.ToCql()
	return strings.TrimSpace(stmt), binds
}

// tupleArity is the number of bind markers a tuple column takes, 0 for
// other columns.
func tupleArity(c *Column) int {
	if c.Type.Kind == KindTuple {
		return len(c.Type.Elems)
	}
	return 0
}

func appendBinds(binds Binds, c *Column) Binds {
	n := tupleArity(c)
	if n == 0 {
		return append(binds, Bind{Column: c, Elem: -1})
	}
	for i := range n {
		binds = append(binds, Bind{Column: c, Elem: i})
	}
	return binds
}

// SplitTuple cuts a converted tuple value into its elements' serialized
// values, appended to parts; a null element is a nil slice. The parts alias
// b. It is for binding a top-level tuple column (see InsertStatement).
func SplitTuple(parts [][]byte, b []byte, n int) ([][]byte, error) {
	offs, err := TupleElements(nil, b, n)
	if err != nil {
		return parts, err
	}
	for _, off := range offs {
		size := int32(binary.BigEndian.Uint32(b[off:]))
		if size < 0 {
			parts = append(parts, nil)
			continue
		}
		parts = append(parts, b[off+4:off+4+int(size):off+4+int(size)])
	}
	return parts, nil
}

// TupleElements checks that b, a converted tuple value, holds n elements
// and appends to offs where each begins: its 4-byte length (-1 for a
// null), then its bytes, the form a bound value takes on the wire.
func TupleElements(offs []int, b []byte, n int) ([]int, error) {
	off := 0
	for i := range n {
		if len(b)-off < 4 {
			return offs, fmt.Errorf("tuple element %d: value ends after %d of %d elements", i+1, i, n)
		}
		size := int32(binary.BigEndian.Uint32(b[off:]))
		offs = append(offs, off)
		off += 4
		if size < 0 {
			continue
		}
		if int(size) > len(b)-off {
			return offs, fmt.Errorf("tuple element %d: length %d, %d bytes left", i+1, size, len(b)-off)
		}
		off += int(size)
	}
	if off != len(b) {
		return offs, fmt.Errorf("%d bytes after the %d tuple elements", len(b)-off, n)
	}
	return offs, nil
}

// CounterStatement builds "UPDATE ks.t SET c1=c1+?,… WHERE k1=? AND …" for a
// counter table. The counters are the given columns that are not part of
// the primary key; the WHERE clause names every primary key column. binds
// lists the counter columns first, then the key columns, in bind order; a
// tuple key column is bound element by element as in InsertStatement.
func CounterStatement(t *Table, cols []*Column) (stmt string, binds Binds) {
	b := qb.Update(t.tableName())
	for _, c := range cols {
		if c.Kind == PartitionKey || c.Kind == Clustering {
			continue
		}
		b.AddNamed(QuoteIdent(c.Name), c.Name)
		binds = append(binds, Bind{Column: c, Elem: -1})
	}
	var where []qb.Cmp
	for _, c := range append(append([]*Column{}, t.PartitionKey...), t.Clustering...) {
		if n := tupleArity(c); n > 0 {
			where = append(where, qb.EqTupleNamed(QuoteIdent(c.Name), n, c.Name))
		} else {
			where = append(where, qb.EqNamed(QuoteIdent(c.Name), c.Name))
		}
		binds = appendBinds(binds, c)
	}
	b.Where(where...)
	stmt, _ = b.ToCql()
	return strings.TrimSpace(stmt), binds
}
