package cql

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func str(s string) *Constant            { return &Constant{Kind: ConstString, Text: s} }
func num(s string) *Constant            { return &Constant{Kind: ConstInteger, Text: s} }
func flt(s string) *Constant            { return &Constant{Kind: ConstFloat, Text: s} }
func qm(i int) *BindMarker              { return &BindMarker{Index: i} }
func named(i int, n string) *BindMarker { return &BindMarker{Index: i, Name: n} }
func eq(col string, v Term) Relation {
	return Relation{Columns: []string{col}, Op: RelEq, Values: []Term{v}}
}

// dump renders a statement for test failure messages.
func dump(v any) string {
	b, _ := json.MarshalIndent(v, "", " ")
	return string(b)
}

func TestParseStatements(t *testing.T) {
	intT := &Type{Kind: Int}
	textT := &Type{Kind: Text}
	tests := []struct {
		name string
		src  string
		want Statement
	}{
		{"use", "USE ks", &Use{Keyspace: "ks"}},
		{"use quoted", `use "MyKs";`, &Use{Keyspace: "MyKs"}},
		{"quoted escape", `USE "a""b"`, &Use{Keyspace: `a"b`}},
		{"create keyspace simple",
			"CREATE KEYSPACE IF NOT EXISTS ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}",
			&CreateKeyspace{Name: "ks", IfNotExists: true, DurableWrites: true,
				Replication: map[string]string{"class": "SimpleStrategy", "replication_factor": "3"}}},
		{"create keyspace nts durable",
			"create keyspace KS with REPLICATION = {'class' : 'org.apache.cassandra.locator.NetworkTopologyStrategy', 'dc1': '3', 'dc2': 2} and durable_writes = false;",
			&CreateKeyspace{Name: "ks", DurableWrites: false,
				Replication: map[string]string{"class": "org.apache.cassandra.locator.NetworkTopologyStrategy", "dc1": "3", "dc2": "2"}}},
		{"create schema", "CREATE SCHEMA s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1} AND durable_writes = true",
			&CreateKeyspace{Name: "s", DurableWrites: true, Replication: map[string]string{"class": "SimpleStrategy", "replication_factor": "1"}}},
		{"drop keyspace", "DROP KEYSPACE IF EXISTS ks", &DropKeyspace{Name: "ks", IfExists: true}},
		{"create table inline pk",
			"CREATE TABLE t (k int PRIMARY KEY, v text)",
			&CreateTable{Name: "t", Columns: []ColumnDef{{Name: "k", Type: intT}, {Name: "v", Type: textT}}, PartitionKey: []string{"k"}}},
		{"create table composite",
			`CREATE TABLE IF NOT EXISTS ks."T" (a int, b varchar, c int, d int, s int static, PRIMARY KEY ((a, b), c, d))
			 WITH CLUSTERING ORDER BY (c DESC, d ASC) AND compaction = {'class': 'LeveledCompactionStrategy'} AND comment = 'it''s' AND gc_grace_seconds = 0`,
			&CreateTable{Keyspace: "ks", Name: "T", IfNotExists: true,
				Columns:      []ColumnDef{{Name: "a", Type: intT}, {Name: "b", Type: textT}, {Name: "c", Type: intT}, {Name: "d", Type: intT}, {Name: "s", Type: intT, Static: true}},
				PartitionKey: []string{"a", "b"}, Clustering: []string{"c", "d"}, Desc: map[string]bool{"c": true},
				Options: map[string]string{"compaction": "{'class': 'LeveledCompactionStrategy'}", "comment": "'it''s'", "gc_grace_seconds": "0"}}},
		{"create table single pk in parens",
			"CREATE COLUMNFAMILY t (k int, c int, PRIMARY KEY (k, c)) WITH COMPACT STORAGE",
			&CreateTable{Name: "t", Columns: []ColumnDef{{Name: "k", Type: intT}, {Name: "c", Type: intT}},
				PartitionKey: []string{"k"}, Clustering: []string{"c"}, Options: map[string]string{"compact storage": ""}}},
		{"create table collections",
			"CREATE TABLE t (k int PRIMARY KEY, m map<text, frozen<list<int>>>, u frozen<addr>, v vector<float, 3>)",
			&CreateTable{Name: "t", PartitionKey: []string{"k"}, Columns: []ColumnDef{{Name: "k", Type: intT},
				{Name: "m", Type: &Type{Kind: Map, Elems: []*Type{textT, {Kind: List, Frozen: true, Elems: []*Type{intT}}}}},
				{Name: "u", Type: &Type{Kind: UDT, Name: "addr", Frozen: true}},
				{Name: "v", Type: &Type{Kind: Vector, Elems: []*Type{{Kind: Float}}, Dim: 3}}}}},
		{"drop table", "DROP TABLE IF EXISTS ks.t", &DropTable{Keyspace: "ks", Name: "t", IfExists: true}},
		{"create type", "CREATE TYPE IF NOT EXISTS ks.addr (street text, zip int)",
			&CreateType{Keyspace: "ks", Name: "addr", IfNotExists: true, Fields: []ColumnDef{{Name: "street", Type: textT}, {Name: "zip", Type: intT}}}},
		{"drop type", "DROP TYPE addr", &DropType{Name: "addr"}},
		{"alter table add", "ALTER TABLE ks.t ADD c int", &AlterTable{Keyspace: "ks", Name: "t", Add: []ColumnDef{{Name: "c", Type: intT}}}},
		{"alter table add several", "ALTER TABLE t ADD IF NOT EXISTS (c int, s text static)",
			&AlterTable{Name: "t", IfColumn: true, Add: []ColumnDef{{Name: "c", Type: intT}, {Name: "s", Type: textT, Static: true}}}},
		{"alter table add list", "ALTER COLUMNFAMILY t ADD c int, d text", &AlterTable{Name: "t", Add: []ColumnDef{{Name: "c", Type: intT}, {Name: "d", Type: textT}}}},
		{"alter table drop", "ALTER TABLE ks.t DROP IF EXISTS c", &AlterTable{Keyspace: "ks", Name: "t", IfColumn: true, Drop: []string{"c"}}},
		{"alter table drop several", "ALTER TABLE t DROP (c, d)", &AlterTable{Name: "t", Drop: []string{"c", "d"}}},
		{"truncate", "TRUNCATE ks.t", &Truncate{Keyspace: "ks", Table: "t"}},
		{"truncate table", "TRUNCATE TABLE t", &Truncate{Table: "t"}},
		{"insert markers using",
			"INSERT INTO ks.t (a, b) VALUES (?, :bee) USING TTL 86400 AND TIMESTAMP 123",
			&Insert{Keyspace: "ks", Table: "t", Columns: []string{"a", "b"}, Values: []Term{qm(0), named(1, "bee")},
				TTL: num("86400"), Timestamp: num("123")}},
		{"insert ttl marker if not exists",
			"INSERT INTO t (a) VALUES (1) IF NOT EXISTS USING TTL ?",
			&Insert{Table: "t", Columns: []string{"a"}, Values: []Term{num("1")}, IfNotExists: true, TTL: qm(0)}},
		{"insert literals",
			"INSERT INTO t (a, b, c, d, e, f, g, h, i, j, k, l) VALUES (-5, -2.5E-3, NaN, -Infinity, $$a'b$$, 'x''y', 0xCAFE, 123e4567-e89b-12d3-a456-426614174000, 1h30m, P1DT2H, true, null)",
			&Insert{Table: "t", Columns: strings.Split("a,b,c,d,e,f,g,h,i,j,k,l", ","), Values: []Term{
				num("-5"), flt("-2.5E-3"), &Constant{Kind: ConstNaN, Text: "NaN"}, &Constant{Kind: ConstInfinity, Text: "-Infinity"},
				str("a'b"), str("x'y"), &Constant{Kind: ConstHex, Text: "0xCAFE"},
				&Constant{Kind: ConstUUID, Text: "123e4567-e89b-12d3-a456-426614174000"},
				&Constant{Kind: ConstDuration, Text: "1h30m"}, &Constant{Kind: ConstDuration, Text: "P1DT2H"},
				&Constant{Kind: ConstBoolean, Text: "true"}, &Constant{Kind: ConstNull, Text: "null"}}}},
		{"insert collections",
			"INSERT INTO t (l, s, m, e, tu, u, f) VALUES ([1, 2], {'a'}, {'k': 1.5}, {}, (1, 'x'), {street: 'x', \"Zip\": ?}, toTimestamp(now()))",
			&Insert{Table: "t", Columns: []string{"l", "s", "m", "e", "tu", "u", "f"}, Values: []Term{
				&ListLit{Elems: []Term{num("1"), num("2")}}, &SetLit{Elems: []Term{str("a")}},
				&MapLit{Keys: []Term{str("k")}, Values: []Term{flt("1.5")}}, &SetLit{},
				&TupleLit{Elems: []Term{num("1"), str("x")}},
				&UDTLit{Fields: []string{"street", "Zip"}, Values: []Term{str("x"), qm(0)}},
				&FuncCall{Name: "totimestamp", Args: []Term{&FuncCall{Name: "now"}}}}}},
		{"insert json", "INSERT INTO t JSON '{\"a\": 1}' DEFAULT UNSET",
			&Insert{Table: "t", JSON: true, JSONValue: str(`{"a": 1}`), DefaultUnset: true}},
		{"insert type hint", "INSERT INTO t (a) VALUES ((int)?)",
			&Insert{Table: "t", Columns: []string{"a"}, Values: []Term{&TypeHint{Type: intT, Term: qm(0)}}}},
		{"update",
			"UPDATE ks.t USING TTL ? SET c = c + 1, d = d - ?, l = [1] + l, m['k'] = 2, v = 'x', u.f = 3 WHERE k = ? AND c >= 3 IF EXISTS",
			&Update{Keyspace: "ks", Table: "t", TTL: qm(0), Set: []Assignment{
				{Column: "c", Op: AssignAdd, Value: num("1")},
				{Column: "d", Op: AssignSub, Value: qm(1)},
				{Column: "l", Op: AssignPrepend, Value: &ListLit{Elems: []Term{num("1")}}},
				{Column: "m", Op: AssignElement, Key: str("k"), Value: num("2")},
				{Column: "v", Op: AssignSet, Value: str("x")},
				{Column: "u", Field: "f", Value: num("3")}},
				Where:    []Relation{eq("k", qm(2)), {Columns: []string{"c"}, Op: RelGte, Values: []Term{num("3")}}},
				IfExists: true}},
		{"update compound assignment", "UPDATE t SET c += 2, d -= ?, s = s - {1}, l = l + [?] WHERE k = (now(), uuid())",
			&Update{Table: "t", Set: []Assignment{
				{Column: "c", Op: AssignAdd, Value: num("2")},
				{Column: "d", Op: AssignSub, Value: qm(0)},
				{Column: "s", Op: AssignSub, Value: &SetLit{Elems: []Term{num("1")}}},
				{Column: "l", Op: AssignAdd, Value: &ListLit{Elems: []Term{qm(1)}}}},
				Where: []Relation{eq("k", &TupleLit{Elems: []Term{&FuncCall{Name: "now"}, &FuncCall{Name: "uuid"}}})}}},
		{"update conditions",
			"UPDATE t SET v = 1 WHERE k = 0 IF v = 2 AND m['a'] != 3",
			&Update{Table: "t", Set: []Assignment{{Column: "v", Value: num("1")}}, Where: []Relation{eq("k", num("0"))},
				Conditions: []Relation{eq("v", num("2")), {Columns: []string{"m"}, Key: str("a"), Op: RelNeq, Values: []Term{num("3")}}}}},
		{"delete",
			"DELETE a, m['k'] FROM t USING TIMESTAMP 5 WHERE k IN (1, 2) IF EXISTS",
			&Delete{Table: "t", Columns: []string{"a", "m"}, Elements: []Term{nil, str("k")}, Timestamp: num("5"),
				Where: []Relation{{Columns: []string{"k"}, Op: RelIn, Values: []Term{num("1"), num("2")}}}, IfExists: true}},
		{"delete row", "DELETE FROM t WHERE k = ?", &Delete{Table: "t", Where: []Relation{eq("k", qm(0))}}},
		{"select star", "SELECT * FROM system.local WHERE key='local'",
			&Select{Keyspace: "system", Table: "local", Star: true, Where: []Relation{eq("key", str("local"))}}},
		// The scylladb driver's system queries, once it sees ScyllaDB.
		{"select using timeout", "SELECT * FROM system.local WHERE key='local' USING TIMEOUT 2000ms",
			&Select{Keyspace: "system", Table: "local", Star: true, Where: []Relation{eq("key", str("local"))},
				Timeout: &Constant{Kind: ConstDuration, Text: "2000ms"}}},
		{"insert using timeout", "INSERT INTO t (a) VALUES (1) USING TIMEOUT 5s AND TTL 3",
			&Insert{Table: "t", Columns: []string{"a"}, Values: []Term{num("1")}, TTL: num("3")}},
		{"select relations",
			"SELECT a FROM t WHERE k IN ? AND token(k) > ? AND (c1, c2) > (1, 2) AND s CONTAINS 3 AND m CONTAINS KEY 'x' AND v IS NOT NULL AND n LIKE 'a%' AND (c1, c2) IN ((1, 2), ?) ORDER BY c1 DESC, c2 PER PARTITION LIMIT 2 LIMIT ? ALLOW FILTERING",
			&Select{Table: "t", Selectors: []Selector{{Kind: SelColumn, Name: "a"}}, Where: []Relation{
				{Columns: []string{"k"}, Op: RelIn, Values: []Term{qm(0)}},
				{Columns: []string{"k"}, Token: true, Op: RelGt, Values: []Term{qm(1)}},
				{Columns: []string{"c1", "c2"}, Op: RelGt, Values: []Term{&TupleLit{Elems: []Term{num("1"), num("2")}}}},
				{Columns: []string{"s"}, Op: RelContains, Values: []Term{num("3")}},
				{Columns: []string{"m"}, Op: RelContainsKey, Values: []Term{str("x")}},
				{Columns: []string{"v"}, Op: RelIsNotNull},
				{Columns: []string{"n"}, Op: RelLike, Values: []Term{str("a%")}},
				{Columns: []string{"c1", "c2"}, Op: RelIn, Values: []Term{&TupleLit{Elems: []Term{num("1"), num("2")}}, qm(2)}}},
				OrderBy: []OrderTerm{{Column: "c1", Desc: true}, {Column: "c2"}}, PerPartitionLimit: num("2"), Limit: qm(3), AllowFiltering: true}},
		{"select functions",
			"SELECT count(*), COUNT(1), count(v) AS n, token(a, b) AS t, writetime(v), TTL(v), toJson(v), toJson(writetime(v), ttl(w), f(a, 'x')), now() FROM t",
			&Select{Table: "t", Selectors: []Selector{
				{Kind: SelCount, Name: "count", Args: []string{"*"}},
				{Kind: SelCount, Name: "count", Args: []string{"1"}},
				{Kind: SelCount, Name: "count", Args: []string{"v"}, Alias: "n"},
				{Kind: SelToken, Name: "token", Args: []string{"a", "b"}, Alias: "t"},
				{Kind: SelWritetime, Name: "v"},
				{Kind: SelTTL, Name: "v"},
				{Kind: SelFunc, Name: "tojson", Args: []string{"v"}},
				{Kind: SelFunc, Name: "tojson", Args: []string{"writetime(v)", "ttl(w)", "f(a, 'x')"}},
				{Kind: SelFunc, Name: "now"}}}},
		{"select cast", "SELECT CAST(v AS text) AS s FROM t WHERE token(k) > token(?) AND token(k) <= token(1)",
			&Select{Table: "t", Selectors: []Selector{{Kind: SelFunc, Name: "cast", Args: []string{"v", "text"}, Alias: "s"}},
				Where: []Relation{
					{Columns: []string{"k"}, Token: true, Op: RelGt, Values: []Term{&FuncCall{Name: "token", Args: []Term{qm(0)}}}},
					{Columns: []string{"k"}, Token: true, Op: RelLte, Values: []Term{&FuncCall{Name: "token", Args: []Term{num("1")}}}}}}},
		{"gocqlx style", "INSERT INTO ks.t (a,b) VALUES (?,?) USING TIMESTAMP ? AND TTL ? ",
			&Insert{Keyspace: "ks", Table: "t", Columns: []string{"a", "b"}, Values: []Term{qm(0), qm(1)}, Timestamp: qm(2), TTL: qm(3)}},
		{"select json distinct", "SELECT JSON DISTINCT k FROM t",
			&Select{Table: "t", JSON: true, Distinct: true, Selectors: []Selector{{Kind: SelColumn, Name: "k"}}}},
		{"columns named like keywords", "SELECT json, distinct, key, ttl, type FROM t",
			&Select{Table: "t", Selectors: []Selector{{Name: "json"}, {Name: "distinct"}, {Name: "key"}, {Name: "ttl"}, {Name: "type"}}}},
		{"comments", "-- leading\nSELECT /* inline */ k // trailing\nFROM t; -- done",
			&Select{Table: "t", Selectors: []Selector{{Name: "k"}}}},
		{"batch",
			"BEGIN UNLOGGED BATCH USING TIMESTAMP 7\n INSERT INTO t (a) VALUES (?);\n UPDATE t SET v = ? WHERE k = ?;\n DELETE FROM t WHERE k = ?\nAPPLY BATCH;",
			&Batch{Type: UnloggedBatch, Timestamp: num("7"), Statements: []Statement{
				&Insert{Table: "t", Columns: []string{"a"}, Values: []Term{qm(0)}},
				&Update{Table: "t", Set: []Assignment{{Column: "v", Value: qm(1)}}, Where: []Relation{eq("k", qm(2))}},
				&Delete{Table: "t", Where: []Relation{eq("k", qm(3))}}}}},
		{"counter batch", "BEGIN COUNTER BATCH UPDATE t SET c = c + 1 WHERE k = 1 APPLY BATCH",
			&Batch{Type: CounterBatch, Statements: []Statement{
				&Update{Table: "t", Set: []Assignment{{Column: "c", Op: AssignAdd, Value: num("1")}}, Where: []Relation{eq("k", num("1"))}}}}},
		{"logged batch", "begin batch apply batch", &Batch{Type: LoggedBatch}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(tc.src)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.src, err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Parse(%q)\n got %s\nwant %s", tc.src, dump(got), dump(tc.want))
			}
		})
	}
}

// TestParseDriverQueries holds the statements gocql (scylladb fork) and the
// DataStax Python driver send while connecting, refreshing topology and
// reading schema metadata.
func TestParseDriverQueries(t *testing.T) {
	tests := []struct {
		src   string
		table string // keyspace.table read
		where int    // number of relations
	}{
		// gocql conn.go / control.go / host_source.go
		{"SELECT peer, data_center, host_id, rack, release_version, rpc_address, schema_version, tokens FROM system.peers", "system.peers", 0},
		{"SELECT peer, data_center, host_id, preferred_ip, rack, release_version, rpc_address, schema_version, tokens FROM system.peers", "system.peers", 0},
		{"SELECT peer, data_center, host_id, native_address, native_port, preferred_ip, rack, release_version, schema_version, tokens FROM system.peers_v2", "system.peers_v2", 0},
		{"SELECT broadcast_address, cluster_name, data_center, host_id, listen_address, partitioner, rack, release_version, rpc_address, schema_version, tokens FROM system.local WHERE key='local'", "system.local", 1},
		{"SELECT host_id, data_center, rack, schema_version, preferred_ip FROM system.peers_v2", "system.peers_v2", 0},
		{"SELECT host_id, data_center, rack, schema_version, rpc_address FROM system.peers", "system.peers", 0},
		{"SELECT schema_version FROM system.local WHERE key='local'", "system.local", 1},
		{"SELECT * FROM system_schema.keyspaces", "system_schema.keyspaces", 0},
		// gocql metadata_scylla.go
		{"SELECT durable_writes, replication FROM system_schema.keyspaces WHERE keyspace_name = ?", "system_schema.keyspaces", 1},
		{"SELECT * FROM system_schema.tables WHERE keyspace_name = ?", "system_schema.tables", 1},
		{"SELECT * FROM system_schema.scylla_tables WHERE keyspace_name = ?", "system_schema.scylla_tables", 1},
		{"SELECT * FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?", "system_schema.tables", 2},
		{"SELECT table_name, column_name, clustering_order, type, kind, position FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?", "system_schema.columns", 2},
		{"SELECT table_name, column_name, clustering_order, type, kind, position FROM system_schema.columns WHERE keyspace_name = ?", "system_schema.columns", 1},
		{"SELECT * FROM system_schema.indexes WHERE keyspace_name = ? AND table_name = ?", "system_schema.indexes", 2},
		{"SELECT * FROM system_schema.views WHERE keyspace_name = ? AND base_table_name = ? ALLOW FILTERING", "system_schema.views", 2},
		{"SELECT * FROM system_schema.types WHERE keyspace_name = ?", "system_schema.types", 1},
		{"SELECT * FROM system_schema.functions WHERE keyspace_name = ?", "system_schema.functions", 1},
		{"SELECT * FROM system_schema.aggregates WHERE keyspace_name = ?", "system_schema.aggregates", 1},
		{"SELECT * FROM system_schema.indexes WHERE keyspace_name = ?", "system_schema.indexes", 1},
		{"SELECT * FROM system_schema.views WHERE keyspace_name = ?", "system_schema.views", 1},
		{"select connection_id, host_id, address, port, tls_port from system.client_routes where connection_id in ?", "system.client_routes", 1},
		{"select connection_id, host_id, address, port, tls_port from system.client_routes where connection_id in ? and host_id in ?", "system.client_routes", 2},
		// Python driver cluster.py (ControlConnection)
		{"SELECT * FROM system.peers", "system.peers", 0},
		{"SELECT host_id, peer, data_center, rack, rpc_address, native_transport_address, release_version, schema_version FROM system.peers", "system.peers", 0},
		{"SELECT * FROM system.local WHERE key='local'", "system.local", 1},
		{"SELECT host_id, cluster_name, data_center, rack, partitioner, release_version, schema_version FROM system.local WHERE key='local'", "system.local", 1},
		{"SELECT rpc_address FROM system.local WHERE key='local'", "system.local", 1},
		{"SELECT peer, host_id, rpc_address, schema_version FROM system.peers", "system.peers", 0},
		{"SELECT * FROM system.peers_v2", "system.peers_v2", 0},
		{"SELECT host_id, peer, peer_port, data_center, rack, native_address, native_port, release_version, schema_version FROM system.peers_v2", "system.peers_v2", 0},
		{"SELECT host_id, peer, peer_port, native_address, native_port, schema_version FROM system.peers_v2", "system.peers_v2", 0},
		// Python driver metadata.py (SchemaParserV3/V4, values bound client-side)
		{"SELECT * FROM system_schema.tables", "system_schema.tables", 0},
		{"SELECT * FROM system_schema.columns", "system_schema.columns", 0},
		{"SELECT * FROM system_schema.triggers", "system_schema.triggers", 0},
		{"SELECT * FROM system_schema.types", "system_schema.types", 0},
		{"SELECT * FROM system_schema.functions", "system_schema.functions", 0},
		{"SELECT * FROM system_schema.aggregates", "system_schema.aggregates", 0},
		{"SELECT * FROM system_schema.indexes", "system_schema.indexes", 0},
		{"SELECT * FROM system_schema.views", "system_schema.views", 0},
		{"SELECT * from system_virtual_schema.keyspaces", "system_virtual_schema.keyspaces", 0},
		{"SELECT * from system_virtual_schema.tables", "system_virtual_schema.tables", 0},
		{"SELECT * from system_virtual_schema.columns", "system_virtual_schema.columns", 0},
		{"SELECT * FROM system_schema.tables WHERE keyspace_name = 'ks' AND table_name = 'tbl'", "system_schema.tables", 2},
		{"SELECT * FROM system_schema.columns WHERE keyspace_name = 'ks' AND table_name = 'it''s'", "system_schema.columns", 2},
		{"SELECT * FROM system_schema.types WHERE keyspace_name = 'ks' AND type_name = 'addr'", "system_schema.types", 2},
		{"SELECT * FROM system_schema.views WHERE keyspace_name = 'ks' AND view_name = 'v'", "system_schema.views", 2},
		{"SELECT * FROM system_schema.functions WHERE keyspace_name = 'ks' AND function_name = 'f' AND argument_types = ['int', 'text']", "system_schema.functions", 3},
		{"SELECT * FROM system_schema.keyspaces WHERE keyspace_name = 'ks'", "system_schema.keyspaces", 1},
		{"SELECT * FROM system_traces.sessions WHERE session_id = 123e4567-e89b-12d3-a456-426614174000", "system_traces.sessions", 1},
		{"SELECT * FROM system_traces.events WHERE session_id = 123e4567-e89b-12d3-a456-426614174000", "system_traces.events", 1},
		// Python driver legacy (Cassandra 2.x) schema tables
		{"SELECT * FROM system.schema_keyspaces", "system.schema_keyspaces", 0},
		{"SELECT * FROM system.schema_columnfamilies WHERE keyspace_name = 'ks' AND columnfamily_name = 't'", "system.schema_columnfamilies", 2},
	}
	for _, tc := range tests {
		t.Run(tc.src, func(t *testing.T) {
			st, err := Parse(tc.src)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			s, ok := st.(*Select)
			if !ok {
				t.Fatalf("got %T, want *Select", st)
			}
			if got := s.Keyspace + "." + s.Table; got != tc.table {
				t.Errorf("table = %s, want %s", got, tc.table)
			}
			if len(s.Where) != tc.where {
				t.Errorf("%d relations, want %d", len(s.Where), tc.where)
			}
		})
	}
	// gocql's USE with a quoted keyspace.
	st, err := Parse(`USE "My""Ks"`)
	if err != nil || st.(*Use).Keyspace != `My"Ks` {
		t.Errorf(`USE "My""Ks" = %v, %v`, dump(st), err)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		src    string
		want   string // full error text
		unsupp bool
	}{
		{"SELECT * FORM t", "line 1:9 mismatched input 'FORM' expecting FROM", false},
		{"SELECT * FROM t WHERE", "line 1:21 mismatched input '<EOF>' expecting identifier", false},
		{"SELECT * FROM t WHERE k", "line 1:23 mismatched input '<EOF>' expecting a relation operator", false},
		{"SELECT * FROM t WHERE k == 1", "line 1:25 no viable alternative at input '='", false},
		{"SELECT * FROM t\nWHERE k = = 1", "line 2:10 no viable alternative at input '='", false},
		{"INSERT INTO t (a, b) VALUES (1)", "line 1:31 unmatched column names/values", false},
		{"SELEC * FROM t", "line 1:0 no viable alternative at input 'SELEC'", false},
		{"SELECT * FROM t;;", "line 1:16 extraneous input ';' expecting <EOF>", false},
		{"SELECT 'abc FROM t", "line 1:7 unterminated string literal", false},
		{"SELECT * FROM t /* x", "line 1:20 unterminated comment", false},
		{"SELECT * FROM t WHERE k = 12abc", "line 1:26 token recognition error at: '12abc'", false},
		{"SELECT * FROM t WHERE k = @", "line 1:26 token recognition error at: '@'", false},
		{"SELECT * FROM select", "line 1:14 no viable alternative at input 'select' (reserved keyword used as identifier)", false},
		{"CREATE TABLE t (a int, b int)", "line 1:29 no PRIMARY KEY specified for table t (exactly one required)", false},
		{"CREATE TABLE t (a int PRIMARY KEY, b int, PRIMARY KEY (b))", "line 1:42 multiple PRIMARY KEYs specified (exactly one required)", false},
		{"CREATE KEYSPACE k WITH durable_writes = true", "line 1:44 missing mandatory replication strategy class", false},
		{"UPDATE t SET a = b + 1 WHERE k = 1", "line 1:17 no viable alternative at input 'b'", false},
		{"CREATE TABLE t (a frozen<int> PRIMARY KEY)", "line 1:18 frozen<> is only allowed on collections, tuples, and user-defined types (got int)", false},
		{"INSERT INTO t (a) VALUES (- 1)", "line 1:26 no viable alternative at input '-'", false},
		{"BEGIN BATCH SELECT * FROM t APPLY BATCH", "line 1:12 mismatched input 'SELECT' expecting INSERT, UPDATE, DELETE or APPLY BATCH", false},
		{"INSERT INTO t (a) VALUES (1) USING TTL 'x'", "line 1:39 expected an integer or a bind marker", false},
		{"INSERT INTO t (a) VALUES (1) USING TIME 5", "line 1:35 mismatched input 'TIME' expecting TTL or TIMESTAMP", false},
		{"DELETE FROM t USING TTL 5 WHERE k = 1", "line 1:20 mismatched input 'TTL' expecting TIMESTAMP", false},
		{"CREATE TABLE t (k int PRIMARY KEY) WITH comment = 'a' AND comment = 'b'", "line 1:58 multiple definitions for property comment", false},
		{"SELECT * FROM t WHERE (a, b) > 1", "line 1:31 expected a tuple literal or a bind marker", false},
		{"SELECT * FROM t WHERE (a, b) CONTAINS (1, 2)", "line 1:38 invalid operator for a multi-column relation", false},
		{"SELECT * FROM t WHERE k IN 5", "line 1:28 mismatched input '<EOF>' expecting '(' or a bind marker", false},
		{"UPDATE t SET l = [1] + m WHERE k = 1", "line 1:23 only expressions of the form X = <value> + X are supported", false},
		{"UPDATE t SET c = c * 2 WHERE k = 1", "line 1:19 mismatched input '*' expecting '+' or '-'", false},
		{"SELECT writetime(a, b) FROM t", "line 1:7 writetime() takes exactly one column argument", false},
		{"CREATE KEYSPACE k WITH replication = 3", "line 1:23 replication must be a map literal", false},
		{"CREATE KEYSPACE k WITH replication = {'class': 'S'} AND durable_writes = 'maybe'", "line 1:56 invalid boolean value \"maybe\" for durable_writes", false},
		{"CREATE KEYSPACE k WITH replication = {'class': 'S'} AND foo = 1", "line 1:56 unknown keyspace property 'foo'", false},
		{"INSERT INTO t (a) VALUES (1) USING TTL 1 IF NOT EXISTS", "line 1:41 extraneous input 'IF' expecting <EOF>", false},
		{"ALTER TABLE t RENAME a TO b", "unsupported statement ALTER TABLE … RENAME", true},
		{"ALTER TABLE t WITH comment = 'x'", "unsupported statement ALTER TABLE … WITH", true},
		{"ALTER KEYSPACE ks WITH durable_writes = false", "unsupported statement ALTER KEYSPACE", true},
		{"CREATE INDEX ON t (v)", "unsupported statement CREATE INDEX", true},
		{"CREATE MATERIALIZED VIEW v AS SELECT * FROM t", "unsupported statement CREATE MATERIALIZED VIEW", true},
		{"CREATE OR REPLACE FUNCTION f () RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS 'return 1;'", "unsupported statement CREATE OR REPLACE FUNCTION", true},
		{"CREATE CUSTOM INDEX ON t (v) USING 'x'", "unsupported statement CREATE CUSTOM INDEX", true},
		{"LIST ROLES", "unsupported statement LIST ROLES", true},
		{"CREATE TABEL t (k int PRIMARY KEY)", "line 1:7 mismatched input 'TABEL' expecting KEYSPACE, TABLE or TYPE", false},
		{"DROP", "line 1:4 mismatched input '<EOF>' expecting KEYSPACE, TABLE or TYPE", false},
		{"GRANT SELECT ON ks.t TO r", "unsupported statement GRANT SELECT", true},
		{"DROP INDEX i", "unsupported statement DROP INDEX", true},
		{"CREATE ROLE r", "unsupported statement CREATE ROLE", true},
		{"INSERT INTO t (a) VALUES (" + strings.Repeat("[", 600) + strings.Repeat("]", 600) + ")", "line 1:526 nesting deeper than 500 levels", false},
	}
	for _, tc := range tests {
		t.Run(tc.src, func(t *testing.T) {
			_, err := Parse(tc.src)
			if err == nil {
				t.Fatalf("Parse(%q) succeeded, want error %q", tc.src, tc.want)
			}
			if err.Error() != tc.want {
				t.Errorf("Parse(%q) error\n got %q\nwant %q", tc.src, err, tc.want)
			}
			var ue *UnsupportedError
			var se *SyntaxError
			if errors.As(err, &ue) != tc.unsupp || errors.As(err, &se) == tc.unsupp {
				t.Errorf("error type %T, want unsupported=%v", err, tc.unsupp)
			}
		})
	}
}

func TestParseScript(t *testing.T) {
	src := `-- schema; with a semicolon in a comment
CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
/* block; comment */
CREATE TABLE ks.t (k int PRIMARY KEY, v text);;
INSERT INTO ks.t (k, v) VALUES (1, 'a;b');
INSERT INTO ks.t (k, v) VALUES (2, $$c;d$$)`
	stmts, err := ParseScript(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(stmts) != 4 {
		t.Fatalf("%d statements, want 4: %s", len(stmts), dump(stmts))
	}
	if v := stmts[2].(*Insert).Values[1].(*Constant).Text; v != "a;b" {
		t.Errorf("third statement value %q, want a;b", v)
	}
	if v := stmts[3].(*Insert).Values[1].(*Constant).Text; v != "c;d" {
		t.Errorf("fourth statement value %q, want c;d", v)
	}

	_, err = ParseScript("USE ks;\nSELECT * FROM t WHERE;\n")
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 2 {
		t.Errorf("ParseScript error = %v, want a syntax error on line 2", err)
	}
	if _, err := ParseScript("USE a USE b"); err == nil {
		t.Error("ParseScript accepted two statements without ';'")
	}
}

func TestBindMarkers(t *testing.T) {
	tests := []struct {
		src   string
		names []string
	}{
		{"SELECT * FROM t", nil},
		{"INSERT INTO t (a, b, c) VALUES (?, :x, [?, ?]) USING TTL ? AND TIMESTAMP :ts", []string{"", "x", "", "", "", "ts"}},
		{"UPDATE t USING TIMESTAMP ? SET m[?] = ?, c = c + ? WHERE k IN ? AND (a, b) > (?, ?) IF v = ?", []string{"", "", "", "", "", "", "", ""}},
		{"SELECT * FROM t WHERE token(k) > ? AND k IN (?, ?) PER PARTITION LIMIT ? LIMIT ?", []string{"", "", "", "", ""}},
		{"BEGIN BATCH USING TIMESTAMP ? INSERT INTO t (a) VALUES (?); DELETE m[?] FROM t WHERE k = ? APPLY BATCH", []string{"", "", "", ""}},
		{"INSERT INTO t JSON ?", []string{""}},
	}
	for _, tc := range tests {
		st, err := Parse(tc.src)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.src, err)
		}
		ms := BindMarkers(st)
		if len(ms) != len(tc.names) {
			t.Fatalf("BindMarkers(%q) = %d markers, want %d", tc.src, len(ms), len(tc.names))
		}
		for i, m := range ms {
			if m.Index != i || m.Name != tc.names[i] {
				t.Errorf("BindMarkers(%q)[%d] = %+v, want index %d name %q", tc.src, i, *m, i, tc.names[i])
			}
		}
	}
}

func TestParseTerm(t *testing.T) {
	st, err := Parse("CREATE TABLE t (k int PRIMARY KEY) WITH compaction = {'class': 'LeveledCompactionStrategy', 'sstable_size_in_mb': 160} AND gc_grace_seconds = 0")
	if err != nil {
		t.Fatal(err)
	}
	opts := st.(*CreateTable).Options
	m, err := ParseTerm(opts["compaction"])
	if err != nil {
		t.Fatal(err)
	}
	want := &MapLit{Keys: []Term{str("class"), str("sstable_size_in_mb")}, Values: []Term{str("LeveledCompactionStrategy"), num("160")}}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("ParseTerm(%s) = %s", opts["compaction"], dump(m))
	}
	if n, err := ParseTerm(opts["gc_grace_seconds"]); err != nil || !reflect.DeepEqual(n, num("0")) {
		t.Errorf("ParseTerm(%q) = %v, %v", opts["gc_grace_seconds"], n, err)
	}
	for _, bad := range []string{"", "1 2", "{'a': }", "'open"} {
		if _, err := ParseTerm(bad); err == nil {
			t.Errorf("ParseTerm(%q) succeeded", bad)
		}
	}
}
