package schema

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/gocql/gocql"
)

// ColumnKind is a column's role in the primary key.
type ColumnKind int

// Column kinds.
const (
	Regular ColumnKind = iota
	PartitionKey
	Clustering
	Static
)

func (k ColumnKind) String() string {
	switch k {
	case PartitionKey:
		return "partition key"
	case Clustering:
		return "clustering"
	case Static:
		return "static"
	}
	return "regular"
}

// Column is one column of a table.
type Column struct {
	Name  string
	Type  *Type
	Kind  ColumnKind
	Index int // position in Table.Columns
	// Position orders partition key and clustering columns among their
	// kind (ComponentIndex in the driver's metadata).
	Position int
}

// Table is a table's schema as the loader needs it.
type Table struct {
	Keyspace, Name string
	// Columns are partition key columns in order, then clustering columns
	// in order, then the others by name: the order cqlsh COPY uses when no
	// column list is given.
	Columns      []*Column
	PartitionKey []*Column
	Clustering   []*Column
	// Counter is set for a counter table, written with UPDATE … SET c = c + ?.
	Counter bool
}

// Named finds the column a name as written in a header line stands for.
// The one rule, for header names and column lists alike: the column of
// exactly that name wins; failing that, the name as a "quoted" CQL
// identifier; failing that, the only column equal to it when case is
// ignored. A name that two columns equal only when case is ignored is an
// *AmbiguousError; one that no column equals, ErrNoColumn.
//
// A cqlsh COPY TO header carries case-sensitive names bare ("Val" for
// the column "Val"), and a case-sensitive table can have "Val" beside
// val: folding case before looking for the exact name loaded such a
// header's Val into val.
func (t *Table) Named(name string) (*Column, error) {
	if c := t.exact(name); c != nil {
		return c, nil
	}
	if unq, ok := UnquoteIdent(name); ok {
		if c := t.exact(unq); c != nil {
			return c, nil
		}
	}
	var found []*Column
	for _, c := range t.Columns {
		if strings.EqualFold(c.Name, name) {
			found = append(found, c)
		}
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("%w %s", ErrNoColumn, name)
	case 1:
		return found[0], nil
	}
	e := &AmbiguousError{Name: name}
	for _, c := range found {
		e.Columns = append(e.Columns, QuoteIdent(c.Name))
	}
	return nil, e
}

// Ident finds the column a CQL identifier names, as in a COPY column
// list: "Quoted" matches exactly; bare is lower-cased, as CQL reads it,
// and, when no column has that name, matched as Named matches a header
// name.
func (t *Table) Ident(ident string) (*Column, error) {
	if unq, ok := UnquoteIdent(ident); ok {
		if c := t.exact(unq); c != nil {
			return c, nil
		}
		return nil, fmt.Errorf("%w %s", ErrNoColumn, ident)
	}
	if c := t.exact(strings.ToLower(ident)); c != nil {
		return c, nil
	}
	return t.Named(ident)
}

// Column is Ident without the reason a name finds no column.
func (t *Table) Column(ident string) (*Column, bool) {
	c, err := t.Ident(ident)
	return c, err == nil
}

func (t *Table) exact(name string) *Column {
	for _, c := range t.Columns {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// UnquoteIdent gives the name a "double-quoted" identifier stands for,
// and false for any other text.
func UnquoteIdent(s string) (string, bool) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return "", false
	}
	return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`), true
}

// NewTable builds a Table without a cluster. Columns may come in any order;
// partition key and clustering columns are ordered by Position. It sets
// each column's Index and the table's Counter flag.
func NewTable(keyspace, name string, cols []*Column) (*Table, error) {
	t := &Table{Keyspace: keyspace, Name: name}
	var others []*Column
	seen := make(map[string]bool, len(cols))
	var errs []error
	counters := 0
	for _, c := range cols {
		if c == nil {
			errs = append(errs, errors.New("nil column"))
			continue
		}
		if c.Type == nil {
			errs = append(errs, fmt.Errorf("column %s has no type", c.Name))
			continue
		}
		if seen[c.Name] {
			errs = append(errs, fmt.Errorf("column %s appears twice", c.Name))
			continue
		}
		seen[c.Name] = true
		if c.Type.Kind == KindCounter {
			counters++
		}
		switch c.Kind {
		case PartitionKey:
			t.PartitionKey = append(t.PartitionKey, c)
		case Clustering:
			t.Clustering = append(t.Clustering, c)
		default:
			others = append(others, c)
		}
	}
	if len(t.PartitionKey) == 0 {
		errs = append(errs, errors.New("no partition key column"))
	}
	byPos := func(cs []*Column) {
		sort.SliceStable(cs, func(i, j int) bool { return cs[i].Position < cs[j].Position })
	}
	byPos(t.PartitionKey)
	byPos(t.Clustering)
	sort.SliceStable(others, func(i, j int) bool { return others[i].Name < others[j].Name })
	t.Columns = append(append(append(t.Columns, t.PartitionKey...), t.Clustering...), others...)
	for i, c := range t.Columns {
		c.Index = i
	}
	if counters > 0 {
		if counters != len(others) {
			errs = append(errs, errors.New("a table with counter columns can hold only counters besides its primary key"))
		}
		t.Counter = true
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("table %s.%s: %w", keyspace, name, err)
	}
	return t, nil
}

// LoadTable reads a table's schema from the driver's metadata. keyspace and
// table are CQL identifiers: unquoted names are folded to lower case (and,
// failing that, tried as written), "Quoted" names are exact. A keyspace or
// table that does not exist gives a *NotFoundError.
func LoadTable(s *gocql.Session, keyspace, table string) (*Table, error) {
	ks, err := LoadKeyspace(s, keyspace)
	if err != nil {
		return nil, err
	}
	return TableFromMetadata(ks, table)
}

// LoadKeyspace reads a keyspace's metadata; keyspace is a CQL identifier,
// as in LoadTable. A keyspace that does not exist gives a *NotFoundError
// that lists the cluster's user keyspaces when they are few.
func LoadKeyspace(s *gocql.Session, keyspace string) (*gocql.KeyspaceMetadata, error) {
	var err error
	for _, name := range identCandidates(keyspace) {
		var ks *gocql.KeyspaceMetadata
		if ks, err = s.KeyspaceMetadata(name); err == nil {
			return ks, nil
		}
	}
	if errors.Is(err, gocql.ErrKeyspaceDoesNotExist) || errors.Is(err, gocql.ErrNotFound) {
		nf := &NotFoundError{Keyspace: keyspace, Count: -1}
		// The list is a help, not the point: a cluster that will not
		// say which keyspaces it has still gets the error that matters.
		if names, err := userKeyspaces(s); err == nil {
			nf.setExisting(names)
		}
		return nil, nf
	}
	return nil, fmt.Errorf("read schema of keyspace %s: %w", keyspace, err)
}

// userKeyspaces lists the cluster's keyspaces but the system ones. The
// driver's metadata API reads one keyspace at a time, so it asks
// system_schema itself.
func userKeyspaces(s *gocql.Session) ([]string, error) {
	iter := s.Query("SELECT keyspace_name FROM system_schema.keyspaces").Iter()
	var names []string
	var name string
	for iter.Scan(&name) {
		if !isSystemKeyspace(name) {
			names = append(names, name)
		}
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("list keyspaces: %w", err)
	}
	return names, nil
}

// isSystemKeyspace tells the keyspaces Cassandra and ScyllaDB create for
// themselves (system, system_schema, system_auth, system_distributed, …),
// which nobody loads into and which would crowd a short list out.
func isSystemKeyspace(name string) bool {
	return name == "system" || strings.HasPrefix(name, "system_")
}

// MaxListed is how many names a NotFoundError lists; beyond it the error
// gives only their number, since a list of hundreds helps nobody spot a
// typo.
const MaxListed = 20

// TableFromMetadata builds a Table from keyspace metadata the driver has
// already read (LoadTable's work without a session, for tests and tools).
func TableFromMetadata(ks *gocql.KeyspaceMetadata, table string) (*Table, error) {
	var tm *gocql.TableMetadata
	for _, name := range identCandidates(table) {
		if tm = ks.Tables[name]; tm != nil {
			break
		}
	}
	if tm == nil {
		nf := &NotFoundError{Keyspace: ks.Name, Table: table}
		names := make([]string, 0, len(ks.Tables))
		for name := range ks.Tables {
			names = append(names, name)
		}
		nf.setExisting(names)
		return nil, nf
	}
	udts := udtResolver{ks: ks, done: map[string]*Type{}}
	cols := make([]*Column, 0, len(tm.Columns))
	for _, cm := range tm.Columns {
		typ, err := ParseType(cm.Type)
		if err != nil {
			return nil, fmt.Errorf("table %s.%s column %s: %w", ks.Name, tm.Name, cm.Name, err)
		}
		if err := udts.resolve(typ, 0); err != nil {
			return nil, fmt.Errorf("table %s.%s column %s: %w", ks.Name, tm.Name, cm.Name, err)
		}
		c := &Column{Name: cm.Name, Type: typ, Position: cm.ComponentIndex}
		switch cm.Kind {
		case gocql.ColumnPartitionKey:
			c.Kind = PartitionKey
		case gocql.ColumnClusteringKey:
			c.Kind = Clustering
		case gocql.ColumnStatic:
			c.Kind = Static
		default:
			c.Kind = Regular
		}
		cols = append(cols, c)
	}
	return NewTable(ks.Name, tm.Name, cols)
}

// identCandidates gives the names an identifier may stand for, most likely
// first.
func identCandidates(name string) []string {
	if unq, ok := UnquoteIdent(name); ok {
		return []string{unq}
	}
	if lower := strings.ToLower(name); lower != name {
		return []string{lower, name}
	}
	return []string{name}
}

// udtResolver fills in user-defined types' fields from the keyspace's type
// metadata, whose field types are type strings themselves.
type udtResolver struct {
	ks   *gocql.KeyspaceMetadata
	done map[string]*Type
}

func (r *udtResolver) resolve(t *Type, depth int) error {
	if depth > maxTypeDepth {
		return fmt.Errorf("user-defined types nested deeper than %d", maxTypeDepth)
	}
	for _, e := range t.Elems {
		if err := r.resolve(e, depth+1); err != nil {
			return err
		}
	}
	if t.Kind != KindUDT || t.Fields != nil {
		return nil
	}
	if t.Keyspace != "" && t.Keyspace != r.ks.Name {
		return fmt.Errorf("user-defined type %s.%s is in another keyspace", t.Keyspace, t.Name)
	}
	if d, ok := r.done[t.Name]; ok {
		t.Keyspace, t.Fields = d.Keyspace, d.Fields
		return nil
	}
	tm := r.ks.Types[t.Name]
	if tm == nil {
		return fmt.Errorf("user-defined type %s does not exist in keyspace %s", t.Name, r.ks.Name)
	}
	if len(tm.FieldNames) != len(tm.FieldTypes) {
		return fmt.Errorf("user-defined type %s: %d field names but %d types", t.Name, len(tm.FieldNames), len(tm.FieldTypes))
	}
	fields := make([]Field, len(tm.FieldNames))
	for i, fname := range tm.FieldNames {
		ft, err := ParseType(tm.FieldTypes[i])
		if err != nil {
			return fmt.Errorf("user-defined type %s field %s: %w", t.Name, fname, err)
		}
		if err := r.resolve(ft, depth+1); err != nil {
			return fmt.Errorf("user-defined type %s field %s: %w", t.Name, fname, err)
		}
		fields[i] = Field{Name: fname, Type: ft}
	}
	t.Keyspace, t.Fields = r.ks.Name, fields
	r.done[t.Name] = t
	return nil
}
