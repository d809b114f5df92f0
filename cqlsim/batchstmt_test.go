package cqlsim

import (
	"fmt"
	"strings"
	"testing"
)

// batchText is BEGIN <typ> BATCH with n copies of stmt.
func batchText(typ, stmt string, n int) string {
	return "BEGIN " + typ + " BATCH " + strings.Repeat(stmt+"; ", n) + "APPLY BATCH"
}

// A prepared BEGIN BATCH binds its statements' markers one after another:
// executed, it is the BATCH of those statements, in store mode and in
// blackhole mode (counted per statement, routed by its rows' keys).
func TestPreparedBatchStatement(t *testing.T) {
	for _, blackhole := range []bool{false, true} {
		t.Run(fmt.Sprintf("blackhole=%v", blackhole), func(t *testing.T) {
			cl := startCluster(t, Config{Nodes: 3, Blackhole: blackhole})
			s := connect(t, cl, nil)
			mustExec(t, s, ks3,
				"CREATE TABLE ks.pb (k int, c int, v text, PRIMARY KEY (k, c))",
				"CREATE TABLE ks.pbc (k int PRIMARY KEY, n counter)")
			const rows = 5
			ins := batchText("UNLOGGED", "INSERT INTO ks.pb (k, c, v) VALUES (?, ?, ?) USING TIMESTAMP ?", rows)
			var vals []any
			for i := range rows {
				vals = append(vals, 7, i, fmt.Sprintf("v%d", i), int64(1000+i))
			}
			// The driver cannot route a batch statement: the test gives the key.
			key := []byte{0, 0, 0, 7}
			if err := s.Query(ins, vals...).RoutingKey(key).Exec(); err != nil {
				t.Fatal(err)
			}
			// Each statement's size is its own values: five 3 KiB rows in
			// five partitions are 15 KiB, under the 50 KiB limit (counted
			// five times over, they would pass it).
			big := make([]any, 0, 3*rows)
			for i := range rows {
				big = append(big, 10+i, i, strings.Repeat("x", 3<<10))
			}
			if err := s.Query(batchText("UNLOGGED", "INSERT INTO ks.pb (k, c, v) VALUES (?, ?, ?)", rows), big...).RoutingKey([]byte{0, 0, 0, 10}).Exec(); err != nil {
				t.Fatalf("a 15 KiB batch statement: %v", err)
			}
			upd := batchText("COUNTER", "UPDATE ks.pbc SET n = n + ? WHERE k = ?", 3)
			if err := s.Query(upd, int64(2), 1, int64(3), 2, int64(4), 1).Exec(); err != nil {
				t.Fatal(err)
			}
			tot := cl.Stats().Total()
			if tot.Statements < 2*rows+3 || tot.RowsWritten != 2*rows+3 {
				t.Errorf("statements %d, rows %d; want ≥ %d and %d", tot.Statements, tot.RowsWritten, 2*rows+3, 2*rows+3)
			}
			if tot.RowsWrittenAsReplica < rows {
				t.Errorf("rows written as replica %d, want the routed batch's %d at least", tot.RowsWrittenAsReplica, rows)
			}
			if tot.Batches[1] < 1 {
				t.Errorf("batches %v: want the first insert counted as a single-partition batch", tot.Batches)
			}
			if blackhole {
				return
			}
			var got []string
			iter := s.Query("SELECT c, v, WRITETIME(v) FROM ks.pb WHERE k = 7").Iter()
			var c int
			var v string
			var wt int64
			for iter.Scan(&c, &v, &wt) {
				got = append(got, fmt.Sprintf("%d=%s@%d", c, v, wt))
			}
			if err := iter.Close(); err != nil {
				t.Fatal(err)
			}
			want := []string{"0=v0@1000", "1=v1@1001", "2=v2@1002", "3=v3@1003", "4=v4@1004"}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("rows %v, want %v", got, want)
			}
			counts := map[int]int64{}
			iter = s.Query("SELECT k, n FROM ks.pbc").Iter()
			var k int
			var n int64
			for iter.Scan(&k, &n) {
				counts[k] = n
			}
			if err := iter.Close(); err != nil {
				t.Fatal(err)
			}
			if counts[1] != 6 || counts[2] != 3 || len(counts) != 2 {
				t.Errorf("counters %v, want 1: 6, 2: 3", counts)
			}
		})
	}
}
