package cql

import "testing"

func BenchmarkParse(b *testing.B) {
	for _, bc := range []struct{ name, src string }{
		{"insert", "INSERT INTO ks.events (id, ts, kind, payload, tags) VALUES (?, ?, ?, ?, ?) USING TTL ?"},
		{"peers", "SELECT peer, data_center, host_id, rack, release_version, rpc_address, schema_version, tokens FROM system.peers"},
		{"create_table", "CREATE TABLE ks.t (a int, b text, c timestamp, d map<text, frozen<list<int>>>, PRIMARY KEY ((a, b), c)) WITH CLUSTERING ORDER BY (c DESC) AND comment = 'x'"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(bc.src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkValidate(b *testing.B) {
	for _, bc := range []struct{ typ, lit string }{
		{"int", "42"},
		{"text", "'a reasonably ordinary text value of some length'"},
		{"timeuuid", "a1b2c3d4-0000-1000-8000-00000000cafe"},
		{"map<text, frozen<list<int>>>", "{'a': [1, 2, 3], 'b': [4, 5], 'c': []}"},
		{"frozen<addr>", "{street: 'x', zip: 5}"},
	} {
		typ := testType(b, bc.typ)
		v := mustEncode(b, bc.typ, bc.lit)
		b.Run(bc.typ, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(v)))
			for b.Loop() {
				if err := Validate(typ, v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkCompare(b *testing.B) {
	for _, bc := range []struct{ typ, x, y string }{
		{"bigint", "1", "2"},
		{"text", "'abcdef'", "'abcdeg'"},
		{"timeuuid", "a1b2c3d4-0000-1000-8000-00000000cafe", "a1b2c3d5-0000-1000-8000-00000000cafe"},
		{"decimal", "1.25", "1.5"},
	} {
		typ := testType(b, bc.typ)
		x, y := mustEncode(b, bc.typ, bc.x), mustEncode(b, bc.typ, bc.y)
		b.Run(bc.typ, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if Compare(typ, x, y) >= 0 {
					b.Fatal("wrong order")
				}
			}
		})
	}
}
