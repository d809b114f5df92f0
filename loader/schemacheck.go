package loader

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gocql/gocql"
)

// A table dropped during a load, or a column of it, makes every request
// fail as invalid ("unconfigured table", "Undefined column name"). Taken
// row by row, that bisected every batch down to single rows and rejected
// them all as insert errors until MAXINSERTERRORS (a thousand requests a
// second of them), and those rows, settled as failed, were never sent by
// a resumed run. It is not the rows' fault: the run stops (fatal, exit
// 3), the rows settle as not sent, and a resumed run loads them once the
// table is back. Only the schema can tell it from rows that are invalid
// on their own (a key over 64 KiB): an invalid answer makes the loader
// read it.

// schemaCheck remembers the last look at the table's columns, so that
// the failures of many batches at once cost one query a second.
type schemaCheck struct {
	mu   sync.Mutex
	at   time.Time
	gone string // why the statement can no longer work; "" if it can
}

// schemaCheckEvery is how long one look at the schema stands.
const schemaCheckEvery = time.Second

// tableGone says why p's statement cannot work any more, the table or one
// of its columns dropped, or "" if the schema still has them all (or could
// not be read: the failure is then judged as the rows').
func (l *Loader) tableGone(ctx context.Context, p *plan) string {
	c := &l.schemaCheck
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at.IsZero() && time.Since(c.at) < schemaCheckEvery {
		return c.gone
	}
	ctx, cancel := context.WithTimeout(ctx, l.opts.RequestTimeout)
	defer cancel()
	cols, err := tableColumns(ctx, l.session, l.table.Keyspace, l.table.Name)
	if err != nil {
		return ""
	}
	c.at, c.gone = time.Now(), ""
	name := l.table.Keyspace + "." + l.table.Name
	switch {
	case len(cols) == 0:
		c.gone = fmt.Sprintf("table %s no longer exists (dropped during the load?)", name)
	default:
		for _, f := range p.fields {
			if f.col != nil && !cols[f.col.Name] {
				c.gone = fmt.Sprintf("column %s of table %s no longer exists (dropped during the load?)", f.col.Name, name)
				break
			}
		}
	}
	return c.gone
}

// tableColumns reads the names of a table's columns from system_schema;
// none when the table does not exist.
func tableColumns(ctx context.Context, s *gocql.Session, keyspace, table string) (map[string]bool, error) {
	iter := s.Query("SELECT table_name, column_name FROM system_schema.columns WHERE keyspace_name = ?", keyspace).
		WithContext(ctx).Consistency(gocql.One).Iter()
	cols := map[string]bool{}
	var tn, cn string
	for iter.Scan(&tn, &cn) {
		if tn == table {
			cols[cn] = true
		}
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("read the columns of %s.%s: %w", keyspace, table, err)
	}
	return cols, nil
}
