package cqlsim

import (
	"crypto/md5"
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cqlload/cqlload/cqlsim/internal/cql"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
)

type colKind int

const (
	kindPartition colKind = iota
	kindClustering
	kindRegular
	kindStatic
)

func (k colKind) String() string {
	return [...]string{"partition_key", "clustering", "regular", "static"}[k]
}

type column struct {
	name string
	typ  *cql.Type
	kind colKind
	pos  int // position within the partition or clustering key; -1 otherwise
	idx  int // index in table.cols
	// ri is the column's slot in a row's cells (regular columns) or a
	// partition's static cells; -1 for keys. Slots are never reused, so
	// that rows stored before an ALTER TABLE keep their meaning.
	ri   int
	desc bool
}

type table struct {
	ks, name  string
	keyspace  *keyspace
	id        [16]byte
	cols      []*column // key columns first, in key order, then the others by name
	byName    map[string]*column
	pk, ck    []*column
	regular   []*column // regular and static columns
	slots     int       // cell slots a row holds: ALTER TABLE ADD takes a new one
	hasStatic bool
	counter   bool
	// defaultTTL is default_time_to_live in seconds.
	defaultTTL int32
	options    map[string]string
	dropped    atomic.Bool
	// nodeLocal tables (system.local, system.peers…) hold different rows on
	// every node; their data comes from the node, not from data.
	nodeLocal bool
	data      *tableData
}

func (t *table) qualified() string { return t.ks + "." + t.name }

type keyspace struct {
	name    string
	repl    replication
	durable bool
	tables  map[string]*table
	types   map[string]*cql.Type // resolved UDT definitions
	// typeOrder keeps CREATE TYPE order so system_schema.types lists
	// dependencies before their users.
	typeOrder []string
	placement [][]int // replicas per ring entry
	// virtual keyspaces (system_virtual_schema) are not listed in system_schema.
	virtual bool
}

// catalog is the cluster's schema. DDL takes the write lock; the hot path
// never touches it because prepared plans hold their *table.
type catalog struct {
	mu        sync.RWMutex
	keyspaces map[string]*keyspace
	version   [16]byte
	changes   uint64
	seed      int64
	topo      *topology
}

func newCatalog(topo *topology, seed int64) *catalog {
	c := &catalog{keyspaces: map[string]*keyspace{}, seed: seed, topo: topo}
	c.bumpVersion()
	return c
}

// bumpVersion derives a new schema version UUID deterministically from the
// seed and the number of schema changes.
func (c *catalog) bumpVersion() {
	c.changes++
	var b [16]byte
	binary.BigEndian.PutUint64(b[:], uint64(c.seed))
	binary.BigEndian.PutUint64(b[8:], c.changes)
	sum := md5.Sum(b[:])
	sum[6] = sum[6]&0x0f | 0x30
	sum[8] = sum[8]&0x3f | 0x80
	c.version = sum
}

func (c *catalog) schemaVersion() [16]byte {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.version
}

func (c *catalog) table(ks, name string) (*table, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	k := c.keyspaces[ks]
	if k == nil {
		return nil, invalidf("Keyspace %s does not exist", ks)
	}
	t := k.tables[name]
	if t == nil {
		return nil, invalidf("unconfigured table %s", name) // Cassandra's words
	}
	return t, nil
}

func (c *catalog) keyspace(name string) *keyspace {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.keyspaces[name]
}

// schemaChange is what a DDL statement did, for the RESULT and the events.
type schemaChange struct {
	change primitive.SchemaChangeType
	target primitive.SchemaChangeTarget
	ks     string
	object string
}

func (s *schemaChange) result() message.Message {
	return &message.SchemaChangeResult{ChangeType: s.change, Target: s.target, Keyspace: s.ks, Object: s.object}
}

func (s *schemaChange) event() *message.SchemaChangeEvent {
	return &message.SchemaChangeEvent{ChangeType: s.change, Target: s.target, Keyspace: s.ks, Object: s.object}
}

// reqError is an error that becomes an ERROR frame with a specific message.
type reqError struct{ msg message.Error }

func (e *reqError) Error() string { return e.msg.GetErrorMessage() }

func invalidf(format string, args ...any) error {
	return &reqError{&message.Invalid{ErrorMessage: fmt.Sprintf(format, args...)}}
}

func configErrorf(format string, args ...any) error {
	return &reqError{&message.ConfigError{ErrorMessage: fmt.Sprintf(format, args...)}}
}

// createKeyspace adds a keyspace; nil change means IF NOT EXISTS matched.
func (c *catalog) createKeyspace(s *cql.CreateKeyspace, virtual bool) (*schemaChange, error) {
	repl, err := parseReplication(s.Replication, c.topo)
	if err != nil {
		return nil, configErrorf("%v", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.keyspaces[s.Name]; ok {
		if s.IfNotExists {
			return nil, nil
		}
		return nil, &reqError{&message.AlreadyExists{ErrorMessage: fmt.Sprintf("Keyspace '%s' already exists", s.Name), Keyspace: s.Name}}
	}
	ks := &keyspace{name: s.Name, repl: repl, durable: s.DurableWrites, tables: map[string]*table{}, types: map[string]*cql.Type{}, virtual: virtual}
	ks.placement = c.topo.placement(repl)
	c.keyspaces[s.Name] = ks
	c.bumpVersion()
	return &schemaChange{primitive.SchemaChangeTypeCreated, primitive.SchemaChangeTargetKeyspace, s.Name, ""}, nil
}

func (c *catalog) dropKeyspace(s *cql.DropKeyspace) (*schemaChange, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ks, ok := c.keyspaces[s.Name]
	if !ok {
		if s.IfExists {
			return nil, nil
		}
		return nil, configErrorf("Cannot drop non existing keyspace '%s'.", s.Name)
	}
	if isSystemKeyspace(s.Name) {
		return nil, &reqError{&message.Unauthorized{ErrorMessage: s.Name + " keyspace is not user-modifiable."}}
	}
	for _, t := range ks.tables {
		t.dropped.Store(true)
	}
	delete(c.keyspaces, s.Name)
	c.bumpVersion()
	return &schemaChange{primitive.SchemaChangeTypeDropped, primitive.SchemaChangeTargetKeyspace, s.Name, ""}, nil
}

func isSystemKeyspace(name string) bool {
	switch name {
	case "system", "system_schema", "system_virtual_schema", "system_auth", "system_distributed", "system_traces":
		return true
	}
	return false
}

func (c *catalog) lookupUDT(ks *keyspace) func(string, string) (*cql.Type, bool) {
	return func(kname, name string) (*cql.Type, bool) {
		k := ks
		if kname != "" && kname != ks.name {
			k = c.keyspaces[kname]
			if k == nil {
				return nil, false
			}
		}
		t, ok := k.types[name]
		return t, ok
	}
}

func (c *catalog) createTable(s *cql.CreateTable, nodeLocal bool) (*schemaChange, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ks := c.keyspaces[s.Keyspace]
	if ks == nil {
		return nil, invalidf("Keyspace '%s' doesn't exist", s.Keyspace)
	}
	if _, ok := ks.tables[s.Name]; ok {
		if s.IfNotExists {
			return nil, nil
		}
		return nil, &reqError{&message.AlreadyExists{
			ErrorMessage: fmt.Sprintf("Cannot add already existing table \"%s\" to keyspace \"%s\"", s.Name, s.Keyspace),
			Keyspace:     s.Keyspace, Table: s.Name}}
	}
	t, err := c.buildTable(ks, s)
	if err != nil {
		return nil, err
	}
	t.nodeLocal = nodeLocal
	t.keyspace = ks
	ks.tables[s.Name] = t
	c.bumpVersion()
	return &schemaChange{primitive.SchemaChangeTypeCreated, primitive.SchemaChangeTargetTable, s.Keyspace, s.Name}, nil
}

func (c *catalog) buildTable(ks *keyspace, s *cql.CreateTable) (*table, error) {
	t := &table{ks: ks.name, name: s.Name, byName: map[string]*column{}, options: s.Options, data: newTableData()}
	idSrc := md5.Sum([]byte(fmt.Sprintf("%d/%d/%s.%s", c.seed, c.changes, ks.name, s.Name)))
	idSrc[6] = idSrc[6]&0x0f | 0x40
	idSrc[8] = idSrc[8]&0x3f | 0x80
	t.id = idSrc
	defs := map[string]cql.ColumnDef{}
	for _, d := range s.Columns {
		if _, dup := defs[d.Name]; dup {
			return nil, invalidf("Duplicate column '%s' declaration for table %s.%s", d.Name, ks.name, s.Name)
		}
		defs[d.Name] = d
	}
	if len(s.PartitionKey) == 0 {
		return nil, invalidf("No PRIMARY KEY specifed for table '%s' (exactly one required)", s.Name)
	}
	add := func(name string, kind colKind, pos int) error {
		d, ok := defs[name]
		if !ok {
			return invalidf("Unknown definition %s referenced in PRIMARY KEY", name)
		}
		if _, dup := t.byName[name]; dup {
			return invalidf("Duplicate definition for %s in PRIMARY KEY", name)
		}
		typ, err := d.Type.ResolveUDTs(ks.name, c.lookupUDT(ks))
		if err != nil {
			return invalidf("Unknown type %s: %v", d.Type, err)
		}
		if kind == kindRegular && d.Static {
			kind = kindStatic
		}
		if (kind == kindPartition || kind == kindClustering) && !typ.Frozen && isMultiCell(typ) {
			return invalidf("Invalid non-frozen collection type %s for PRIMARY KEY component %s", typ, name)
		}
		if (kind == kindPartition || kind == kindClustering) && typ.Kind == cql.Counter {
			return invalidf("counter type is not supported for PRIMARY KEY column '%s'", name)
		}
		col := &column{name: name, typ: typ, kind: kind, pos: pos, idx: len(t.cols), ri: -1, desc: kind == kindClustering && s.Desc[name]}
		t.cols = append(t.cols, col)
		t.byName[name] = col
		switch kind {
		case kindPartition:
			t.pk = append(t.pk, col)
		case kindClustering:
			t.ck = append(t.ck, col)
		default:
			col.ri = len(t.regular)
			t.regular = append(t.regular, col)
			if kind == kindStatic {
				t.hasStatic = true
			}
			if typ.Kind == cql.Counter {
				t.counter = true
			}
		}
		return nil
	}
	for i, n := range s.PartitionKey {
		if err := add(n, kindPartition, i); err != nil {
			return nil, err
		}
	}
	for i, n := range s.Clustering {
		if err := add(n, kindClustering, i); err != nil {
			return nil, err
		}
	}
	var rest []string
	for _, d := range s.Columns {
		if _, done := t.byName[d.Name]; !done {
			rest = append(rest, d.Name)
		}
	}
	sort.Strings(rest)
	for _, n := range rest {
		if err := add(n, kindRegular, -1); err != nil {
			return nil, err
		}
	}
	for n := range s.Desc {
		if c, ok := t.byName[n]; !ok || c.kind != kindClustering {
			return nil, invalidf("Only clustering key columns can be defined in CLUSTERING ORDER directive: %s", n)
		}
	}
	if t.hasStatic && len(t.ck) == 0 {
		return nil, invalidf("Static columns are only useful (and thus allowed) if the table has at least one clustering column")
	}
	if t.counter {
		for _, c := range t.regular {
			if c.typ.Kind != cql.Counter {
				return nil, invalidf("Cannot mix counter and non counter columns in the same table")
			}
		}
	}
	t.slots = len(t.regular)
	if v, ok := s.Options["default_time_to_live"]; ok {
		n, err := strconv.Atoi(strings.Trim(v, "' "))
		if err != nil || n < 0 {
			return nil, configErrorf("default_time_to_live must be greater than or equal to 0 (got %s)", v)
		}
		t.defaultTTL = int32(n)
	}
	return t, nil
}

func isMultiCell(t *cql.Type) bool {
	switch t.Kind {
	case cql.List, cql.Set, cql.Map, cql.UDT:
		return !t.Frozen
	}
	return false
}

func (c *catalog) dropTable(s *cql.DropTable) (*schemaChange, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ks, t, err := c.userTable(s.Keyspace, s.Name)
	switch {
	case t == nil && s.IfExists:
		return nil, nil
	case err != nil:
		return nil, err
	}
	t.dropped.Store(true)
	delete(ks.tables, s.Name)
	c.bumpVersion()
	return &schemaChange{primitive.SchemaChangeTypeDropped, primitive.SchemaChangeTargetTable, s.Keyspace, s.Name}, nil
}

// userTable finds a table that a statement may change: one that exists,
// outside the system keyspaces (a system table is returned with the
// error, so that IF EXISTS does not pass it over). c.mu must be held.
func (c *catalog) userTable(keyspaceName, name string) (*keyspace, *table, error) {
	ks := c.keyspaces[keyspaceName]
	var t *table
	if ks != nil {
		t = ks.tables[name]
	}
	switch {
	case t == nil:
		return ks, nil, invalidf("Table '%s.%s' doesn't exist", keyspaceName, name)
	case isSystemKeyspace(keyspaceName):
		return ks, t, &reqError{&message.Unauthorized{ErrorMessage: keyspaceName + " keyspace is not user-modifiable."}}
	}
	return ks, t, nil
}

// alterTable runs ALTER TABLE … ADD or DROP as Cassandra does: the table
// keeps its id and data; an added column reads as null in the rows there
// are; a dropped column's values are no longer read (an added column of
// the same name starts empty). The table is replaced by a new version:
// the old one is marked dropped, so that statements prepared against it
// are evicted (Cassandra removes the prepared statements of an altered
// table) and the driver prepares them again. Writes already running
// against the old version land in the same slots of the same data.
func (c *catalog) alterTable(s *cql.AlterTable) (*schemaChange, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ks, old, err := c.userTable(s.Keyspace, s.Name)
	if err != nil {
		return nil, err
	}
	t := &table{ks: old.ks, name: old.name, keyspace: old.keyspace, id: old.id, byName: map[string]*column{},
		slots: old.slots, hasStatic: old.hasStatic, counter: old.counter, defaultTTL: old.defaultTTL,
		options: old.options, nodeLocal: old.nodeLocal, data: old.data}
	var rest []*column
	changed := false
	for _, name := range s.Drop {
		col := old.byName[name]
		switch {
		case col == nil && s.IfColumn:
			continue
		case col == nil:
			return nil, invalidf("Column %s was not found in table %s", name, s.Name)
		case col.kind == kindPartition || col.kind == kindClustering:
			return nil, invalidf("Cannot drop PRIMARY KEY part %s", name)
		}
		changed = true
	}
	for _, col := range old.cols {
		if !slices.Contains(s.Drop, col.name) {
			rest = append(rest, col)
		}
	}
	for _, d := range s.Add {
		if old.byName[d.Name] != nil {
			if s.IfColumn {
				continue
			}
			return nil, invalidf("Invalid column name %s because it conflicts with an existing column", d.Name)
		}
		typ, err := d.Type.ResolveUDTs(ks.name, c.lookupUDT(ks))
		if err != nil {
			return nil, invalidf("Unknown type %s: %v", d.Type, err)
		}
		kind := kindRegular
		switch {
		case d.Static && len(old.ck) == 0:
			return nil, invalidf("Static columns are not allowed in COMPACT STORAGE tables or tables without clustering columns")
		case typ.Kind == cql.Counter && !old.counter:
			return nil, invalidf("Cannot add a counter column (%s) in a non counter column family", d.Name)
		case typ.Kind != cql.Counter && old.counter:
			return nil, invalidf("Cannot add a non counter column (%s) in a counter column family", d.Name)
		case d.Static:
			kind = kindStatic
		}
		rest = append(rest, &column{name: d.Name, typ: typ, kind: kind, pos: -1, ri: t.slots})
		t.slots++
		t.hasStatic = t.hasStatic || kind == kindStatic
		changed = true
	}
	if !changed {
		return nil, nil
	}
	// Key columns first, in key order, then the others by name, as
	// buildTable lays them out: the keys, which cannot be dropped, are
	// still first.
	others := rest[len(old.pk)+len(old.ck):]
	slices.SortFunc(others, func(a, b *column) int { return strings.Compare(a.name, b.name) })
	// New column structs: plans of the old version keep theirs.
	for _, col := range rest {
		cp := *col
		cp.idx = len(t.cols)
		t.cols = append(t.cols, &cp)
		t.byName[cp.name] = &cp
		switch cp.kind {
		case kindPartition:
			t.pk = append(t.pk, &cp)
		case kindClustering:
			t.ck = append(t.ck, &cp)
		default:
			t.regular = append(t.regular, &cp)
		}
	}
	ks.tables[s.Name] = t
	old.dropped.Store(true)
	c.bumpVersion()
	return &schemaChange{primitive.SchemaChangeTypeUpdated, primitive.SchemaChangeTargetTable, s.Keyspace, s.Name}, nil
}

func (c *catalog) createType(s *cql.CreateType) (*schemaChange, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ks := c.keyspaces[s.Keyspace]
	if ks == nil {
		return nil, invalidf("Keyspace '%s' doesn't exist", s.Keyspace)
	}
	if _, ok := ks.types[s.Name]; ok {
		if s.IfNotExists {
			return nil, nil
		}
		return nil, invalidf("A user type with name '%s' already exists", s.Name)
	}
	udt := &cql.Type{Kind: cql.UDT, Keyspace: s.Keyspace, Name: s.Name}
	seen := map[string]bool{}
	for _, f := range s.Fields {
		if seen[f.Name] {
			return nil, invalidf("Duplicate field name %s in type %s", f.Name, s.Name)
		}
		seen[f.Name] = true
		ft, err := f.Type.ResolveUDTs(ks.name, c.lookupUDT(ks))
		if err != nil {
			return nil, invalidf("Unknown type %s", f.Type)
		}
		if ft.Kind == cql.Counter {
			return nil, invalidf("A user type cannot contain counters")
		}
		udt.Fields = append(udt.Fields, cql.Field{Name: f.Name, Type: ft})
	}
	ks.types[s.Name] = udt
	ks.typeOrder = append(ks.typeOrder, s.Name)
	c.bumpVersion()
	return &schemaChange{primitive.SchemaChangeTypeCreated, primitive.SchemaChangeTargetType, s.Keyspace, s.Name}, nil
}

func (c *catalog) dropType(s *cql.DropType) (*schemaChange, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ks := c.keyspaces[s.Keyspace]
	if ks == nil || ks.types[s.Name] == nil {
		if s.IfExists {
			return nil, nil
		}
		return nil, invalidf("No user type named %s exists.", s.Name)
	}
	for _, t := range ks.tables {
		for _, col := range t.cols {
			if usesUDT(col.typ, s.Keyspace, s.Name) {
				return nil, invalidf("Cannot drop user type %s.%s as it is still used by table %s", s.Keyspace, s.Name, t.qualified())
			}
		}
	}
	delete(ks.types, s.Name)
	for i, n := range ks.typeOrder {
		if n == s.Name {
			ks.typeOrder = append(ks.typeOrder[:i], ks.typeOrder[i+1:]...)
			break
		}
	}
	c.bumpVersion()
	return &schemaChange{primitive.SchemaChangeTypeDropped, primitive.SchemaChangeTargetType, s.Keyspace, s.Name}, nil
}

func usesUDT(t *cql.Type, ks, name string) bool {
	if t.Kind == cql.UDT && t.Name == name && (t.Keyspace == "" || t.Keyspace == ks) {
		return true
	}
	for _, e := range t.Elems {
		if usesUDT(e, ks, name) {
			return true
		}
	}
	for _, f := range t.Fields {
		if usesUDT(f.Type, ks, name) {
			return true
		}
	}
	return false
}
