package cqlsim

import (
	"strconv"

	"github.com/cqlload/cqlload/cqlsim/internal/cql"
	"github.com/cqlload/cqlload/internal/murmur3"
)

// The system keyspaces as Cassandra 4.0 defines them. Drivers read
// system.local/peers for topology and system_schema for metadata; the other
// system_schema tables exist so that drivers' metadata queries get empty
// results with the right columns instead of errors. scylla_tables is
// ScyllaDB's, which the scylladb driver reads once SUPPORTED names shards.
const systemSchemaCQL = `
CREATE KEYSPACE system WITH replication = {'class': 'LocalStrategy'} AND durable_writes = true;
CREATE KEYSPACE system_schema WITH replication = {'class': 'LocalStrategy'} AND durable_writes = true;
CREATE TABLE system.local (key text PRIMARY KEY, bootstrapped text, broadcast_address inet, broadcast_port int,
  cluster_name text, cql_version text, data_center text, gossip_generation int, host_id uuid, listen_address inet,
  listen_port int, native_protocol_version text, partitioner text, rack text, release_version text, rpc_address inet,
  rpc_port int, schema_version uuid, tokens set<text>, truncated_at map<uuid, blob>);
CREATE TABLE system.peers (peer inet PRIMARY KEY, data_center text, host_id uuid, preferred_ip inet, rack text,
  release_version text, rpc_address inet, schema_version uuid, tokens set<text>);
CREATE TABLE system.peers_v2 (peer inet, peer_port int, data_center text, host_id uuid, native_address inet,
  native_port int, preferred_ip inet, preferred_port int, rack text, release_version text, schema_version uuid,
  tokens set<text>, PRIMARY KEY ((peer), peer_port));
CREATE TABLE system_schema.keyspaces (keyspace_name text PRIMARY KEY, durable_writes boolean,
  replication frozen<map<text, text>>);
CREATE TABLE system_schema.tables (keyspace_name text, table_name text, additional_write_policy text,
  bloom_filter_fp_chance double, caching frozen<map<text, text>>, cdc boolean, comment text,
  compaction frozen<map<text, text>>, compression frozen<map<text, text>>, crc_check_chance double,
  dclocal_read_repair_chance double, default_time_to_live int, extensions frozen<map<text, blob>>,
  flags frozen<set<text>>, gc_grace_seconds int, id uuid, max_index_interval int, memtable_flush_period_in_ms int,
  min_index_interval int, read_repair text, read_repair_chance double, speculative_retry text,
  PRIMARY KEY ((keyspace_name), table_name));
CREATE TABLE system_schema.columns (keyspace_name text, table_name text, column_name text, clustering_order text,
  column_name_bytes blob, kind text, position int, type text, PRIMARY KEY ((keyspace_name), table_name, column_name));
CREATE TABLE system_schema.types (keyspace_name text, type_name text, field_names frozen<list<text>>,
  field_types frozen<list<text>>, PRIMARY KEY ((keyspace_name), type_name));
CREATE TABLE system_schema.dropped_columns (keyspace_name text, table_name text, column_name text,
  dropped_time timestamp, kind text, type text, PRIMARY KEY ((keyspace_name), table_name, column_name));
CREATE TABLE system_schema.triggers (keyspace_name text, table_name text, trigger_name text,
  options frozen<map<text, text>>, PRIMARY KEY ((keyspace_name), table_name, trigger_name));
CREATE TABLE system_schema.views (keyspace_name text, view_name text, additional_write_policy text,
  base_table_id uuid, base_table_name text, bloom_filter_fp_chance double, caching frozen<map<text, text>>,
  cdc boolean, comment text, compaction frozen<map<text, text>>, compression frozen<map<text, text>>,
  crc_check_chance double, dclocal_read_repair_chance double, default_time_to_live int,
  extensions frozen<map<text, blob>>, gc_grace_seconds int, id uuid, include_all_columns boolean,
  max_index_interval int, memtable_flush_period_in_ms int, min_index_interval int, read_repair text,
  read_repair_chance double, speculative_retry text, where_clause text, PRIMARY KEY ((keyspace_name), view_name));
CREATE TABLE system_schema.functions (keyspace_name text, function_name text, argument_types frozen<list<text>>,
  argument_names frozen<list<text>>, body text, called_on_null_input boolean, language text, return_type text,
  PRIMARY KEY ((keyspace_name), function_name, argument_types));
CREATE TABLE system_schema.aggregates (keyspace_name text, aggregate_name text, argument_types frozen<list<text>>,
  final_func text, initcond text, return_type text, state_func text, state_type text,
  PRIMARY KEY ((keyspace_name), aggregate_name, argument_types));
CREATE TABLE system_schema.indexes (keyspace_name text, table_name text, index_name text, kind text,
  options frozen<map<text, text>>, PRIMARY KEY ((keyspace_name), table_name, index_name));
CREATE TABLE system_schema.scylla_tables (keyspace_name text, table_name text, cdc frozen<map<text, text>>,
  in_memory boolean, partitioner text, version uuid, PRIMARY KEY ((keyspace_name), table_name));
`

// The virtual keyspace the Python driver's Cassandra 4 schema parser reads.
const virtualSchemaCQL = `
CREATE KEYSPACE system_virtual_schema WITH replication = {'class': 'LocalStrategy'};
CREATE TABLE system_virtual_schema.keyspaces (keyspace_name text PRIMARY KEY);
CREATE TABLE system_virtual_schema.tables (keyspace_name text, table_name text, comment text,
  PRIMARY KEY ((keyspace_name), table_name));
CREATE TABLE system_virtual_schema.columns (keyspace_name text, table_name text, column_name text,
  clustering_order text, column_name_bytes blob, kind text, position int, type text,
  PRIMARY KEY ((keyspace_name), table_name, column_name));
`

const (
	releaseVersion = "4.0.11"
	cqlVersion     = "3.4.5"
	clusterName    = "cqlsim"
	partitioner    = "org.apache.cassandra.dht.Murmur3Partitioner"
)

type sysRow map[string][]byte

// rowsToData builds table data from whole rows keyed by column name.
func rowsToData(t *table, rows []sysRow) *tableData {
	d := newTableData()
	for _, r := range rows {
		m := &mutation{t: t, ts: 1, insert: true}
		for _, c := range t.pk {
			m.pk = append(m.pk, r[c.name])
		}
		for _, c := range t.ck {
			m.ck = append(m.ck, r[c.name])
		}
		m.key = routingKey(nil, m.pk)
		m.token = murmur3.Token(m.key)
		for _, c := range t.regular {
			if v, ok := r[c.name]; ok && v != nil {
				m.cells = append(m.cells, cellWrite{col: c, value: v})
			}
		}
		if len(t.ck) == 0 {
			m.ck = [][]byte{}
		}
		_ = d.applyLocked(t, m, 0) // plain writes cannot fail
	}
	return d
}

// nodeLocalData returns the rows of system.local/peers/peers_v2 as node n sees them.
func (cl *Cluster) nodeLocalData(t *table, n int) *tableData {
	topo := cl.topo
	self := topo.nodes[n]
	ver := cl.cat.schemaVersion()
	tokens := func(ni *nodeInfo) []byte {
		s := make([]string, len(ni.tokens))
		for i, tok := range ni.tokens {
			s[i] = strconv.FormatInt(tok, 10)
		}
		return encTextSet(s)
	}
	var rows []sysRow
	switch t.name {
	case "local":
		rows = append(rows, sysRow{
			"key":                     encText("local"),
			"bootstrapped":            encText("COMPLETED"),
			"broadcast_address":       encInet(self.addr),
			"broadcast_port":          encInt(7000),
			"cluster_name":            encText(clusterName),
			"cql_version":             encText(cqlVersion),
			"data_center":             encText(self.dc),
			"gossip_generation":       encInt(int32(cl.started.Unix())),
			"host_id":                 encUUID(self.hostID),
			"listen_address":          encInet(self.addr),
			"listen_port":             encInt(7000),
			"native_protocol_version": encText("4"),
			"partitioner":             encText(partitioner),
			"rack":                    encText(self.rack),
			"release_version":         encText(releaseVersion),
			"rpc_address":             encInet(self.addr),
			"rpc_port":                encInt(int32(cl.port)),
			"schema_version":          encUUID(ver),
			"tokens":                  tokens(self),
		})
	case "peers", "peers_v2":
		for _, p := range topo.nodes {
			if p.index == n {
				continue
			}
			r := sysRow{
				"peer":            encInet(p.addr),
				"data_center":     encText(p.dc),
				"host_id":         encUUID(p.hostID),
				"rack":            encText(p.rack),
				"release_version": encText(releaseVersion),
				"schema_version":  encUUID(ver),
				"tokens":          tokens(p),
			}
			if t.name == "peers" {
				r["rpc_address"] = encInet(p.addr)
			} else {
				r["peer_port"] = encInt(7000)
				r["native_address"] = encInet(p.addr)
				r["native_port"] = encInt(int32(cl.port))
			}
			rows = append(rows, r)
		}
	}
	return rowsToData(t, rows)
}

// refreshSchemaTables rewrites system_schema from the catalog. Schema changes
// are rare and small, so it rebuilds every table wholesale.
func (cl *Cluster) refreshSchemaTables() {
	c := cl.cat
	c.mu.RLock()
	sys := c.keyspaces["system_schema"]
	if sys == nil {
		c.mu.RUnlock()
		return
	}
	rows := map[string][]sysRow{}
	names := make([]string, 0, len(c.keyspaces))
	for n := range c.keyspaces {
		names = append(names, n)
	}
	for _, name := range names {
		ks := c.keyspaces[name]
		if ks.virtual {
			continue
		}
		rows["keyspaces"] = append(rows["keyspaces"], sysRow{
			"keyspace_name":  encText(name),
			"durable_writes": encBool(ks.durable),
			"replication":    encTextMap(ks.repl.options),
		})
		for _, tn := range ks.typeOrder {
			udt := ks.types[tn]
			var fn, ft []string
			for _, f := range udt.Fields {
				fn = append(fn, f.Name)
				ft = append(ft, f.Type.String())
			}
			rows["types"] = append(rows["types"], sysRow{
				"keyspace_name": encText(name), "type_name": encText(tn),
				"field_names": encTextList(fn), "field_types": encTextList(ft),
			})
		}
		for tn, t := range ks.tables {
			rows["tables"] = append(rows["tables"], tableRow(t))
			rows["scylla_tables"] = append(rows["scylla_tables"], sysRow{"keyspace_name": encText(name), "table_name": encText(tn)})
			for _, col := range t.cols {
				order := "none"
				if col.kind == kindClustering {
					order = "asc"
					if col.desc {
						order = "desc"
					}
				}
				rows["columns"] = append(rows["columns"], sysRow{
					"keyspace_name": encText(name), "table_name": encText(tn), "column_name": encText(col.name),
					"clustering_order": encText(order), "column_name_bytes": []byte(col.name),
					"kind": encText(col.kind.String()), "position": encInt(int32(col.pos)),
					"type": encText(col.typ.String()),
				})
			}
		}
	}
	tables := make([]*table, 0, len(sys.tables))
	for _, t := range sys.tables {
		tables = append(tables, t)
	}
	c.mu.RUnlock()
	for _, t := range tables {
		d := rowsToData(t, rows[t.name])
		t.data.mu.Lock()
		t.data.parts, t.data.order, t.data.dirty = d.parts, nil, true
		t.data.mu.Unlock()
	}
}

func tableRow(t *table) sysRow {
	opt := func(name, def string) string {
		if v, ok := t.options[name]; ok {
			return v
		}
		return def
	}
	num := func(name string, def float64) []byte {
		if v, err := strconv.ParseFloat(opt(name, ""), 64); err == nil {
			return encDouble(v)
		}
		return encDouble(def)
	}
	integer := func(name string, def int32) []byte {
		if v, err := strconv.Atoi(opt(name, "")); err == nil {
			return encInt(int32(v))
		}
		return encInt(def)
	}
	flags := []string{"compound"}
	if t.counter {
		flags = append(flags, "counter")
	}
	return sysRow{
		"keyspace_name":           encText(t.ks),
		"table_name":              encText(t.name),
		"additional_write_policy": encText("99p"),
		"bloom_filter_fp_chance":  num("bloom_filter_fp_chance", 0.01),
		"caching":                 encTextMap(map[string]string{"keys": "ALL", "rows_per_partition": "NONE"}),
		"cdc":                     encBool(false),
		"comment":                 encText(unquote(opt("comment", ""))),
		"compaction": encTextMap(map[string]string{
			"class":         "org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy",
			"max_threshold": "32", "min_threshold": "4"}),
		"compression": encTextMap(map[string]string{
			"chunk_length_in_kb": "16", "class": "org.apache.cassandra.io.compress.LZ4Compressor"}),
		"crc_check_chance":            num("crc_check_chance", 1),
		"dclocal_read_repair_chance":  encDouble(0),
		"default_time_to_live":        encInt(t.defaultTTL),
		"extensions":                  encEmptyMap(),
		"flags":                       encTextSet(flags),
		"gc_grace_seconds":            integer("gc_grace_seconds", 864000),
		"id":                          encUUID(t.id),
		"max_index_interval":          integer("max_index_interval", 2048),
		"memtable_flush_period_in_ms": integer("memtable_flush_period_in_ms", 0),
		"min_index_interval":          integer("min_index_interval", 128),
		"read_repair":                 encText("BLOCKING"),
		"read_repair_chance":          encDouble(0),
		"speculative_retry":           encText("99p"),
	}
}

func unquote(s string) string {
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		s = s[1 : len(s)-1]
		out := make([]byte, 0, len(s))
		for i := 0; i < len(s); i++ {
			out = append(out, s[i])
			if s[i] == '\'' && i+1 < len(s) && s[i+1] == '\'' {
				i++
			}
		}
		return string(out)
	}
	return s
}

// bootstrapSchema creates the system keyspaces.
func (cl *Cluster) bootstrapSchema() error {
	for _, script := range []struct {
		src     string
		virtual bool
	}{{systemSchemaCQL, false}, {virtualSchemaCQL, true}} {
		stmts, err := cql.ParseScript(script.src)
		if err != nil {
			return err
		}
		for _, s := range stmts {
			switch s := s.(type) {
			case *cql.CreateKeyspace:
				if _, err := cl.cat.createKeyspace(s, script.virtual); err != nil {
					return err
				}
			case *cql.CreateTable:
				local := s.Keyspace == "system"
				if _, err := cl.cat.createTable(s, local); err != nil {
					return err
				}
			}
		}
	}
	cl.refreshSchemaTables()
	return nil
}
