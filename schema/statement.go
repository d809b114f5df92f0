package schema

import (
	"strings"
	"time"

	"github.com/scylladb/gocqlx/v2/qb"
)

// tableName is the table as a CQL name, each part quoted when needed.
func (t *Table) tableName() string {
	return QuoteIdent(t.Keyspace) + "." + QuoteIdent(t.Name)
}

// InsertStatement builds "INSERT INTO ks.t (a,b) VALUES (?,?) [USING TTL n]"
// for the given columns; names are the bound column names (as stored, not
// quoted) in bind order. A ttl of zero or less adds no TTL clause.
func InsertStatement(t *Table, cols []*Column, ttl int) (stmt string, names []string) {
	b := qb.Insert(t.tableName())
	for _, c := range cols {
		b.NamedColumn(QuoteIdent(c.Name), c.Name)
	}
	if ttl > 0 {
		b.TTL(time.Duration(ttl) * time.Second)
	}
	stmt, names = b.ToCql()
	return strings.TrimSpace(stmt), names
}

// CounterStatement builds "UPDATE ks.t SET c1=c1+?,… WHERE k1=? AND …" for a
// counter table. The counters are the given columns that are not part of
// the primary key; the WHERE clause names every primary key column. names
// lists the counter columns first, then the key columns, in bind order.
func CounterStatement(t *Table, cols []*Column) (stmt string, names []string) {
	b := qb.Update(t.tableName())
	for _, c := range cols {
		if c.Kind == PartitionKey || c.Kind == Clustering {
			continue
		}
		b.AddNamed(QuoteIdent(c.Name), c.Name)
	}
	var where []qb.Cmp
	for _, c := range t.PartitionKey {
		where = append(where, qb.EqNamed(QuoteIdent(c.Name), c.Name))
	}
	for _, c := range t.Clustering {
		where = append(where, qb.EqNamed(QuoteIdent(c.Name), c.Name))
	}
	b.Where(where...)
	stmt, names = b.ToCql()
	return strings.TrimSpace(stmt), names
}
