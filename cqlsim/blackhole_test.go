package cqlsim

import (
	"strings"
	"testing"

	"github.com/gocql/gocql"
)

func TestBlackhole(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 3, Blackhole: true})
	s := connect(t, cl, func(cc *gocql.ClusterConfig) {
		cc.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy())
	})
	mustExec(t, s, ks3, "CREATE TABLE ks.bh (k int, c int, v text, PRIMARY KEY (k, c))")
	if _, err := s.KeyspaceMetadata("ks"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		if err := s.Query("INSERT INTO ks.bh (k, c, v) VALUES (?, ?, ?)", i, i, "v").Exec(); err != nil {
			t.Fatal(err)
		}
	}
	b := s.Batch(gocql.UnloggedBatch)
	for i := 0; i < 10; i++ {
		b.Query("INSERT INTO ks.bh (k, c, v) VALUES (?, ?, ?)", 7, i, "v")
	}
	if err := s.ExecuteBatch(b); err != nil {
		t.Fatal(err)
	}
	tot := cl.Stats().Total()
	if tot.RowsWritten != 110 || tot.RowsWrittenAsReplica != 110 {
		t.Errorf("rows %d, as replica %d; want 110 and 110", tot.RowsWritten, tot.RowsWrittenAsReplica)
	}
	if tot.Batches[1] != 1 {
		t.Errorf("batches %v, want one single-partition batch", tot.Batches)
	}
	var n int64
	if err := s.Query("SELECT count(*) FROM ks.bh").Scan(&n); err != nil || n != 0 {
		t.Errorf("blackhole stored %d rows, %v", n, err)
	}
	// Framing is still checked, and oversized multi-partition batches still fail.
	big := s.Batch(gocql.UnloggedBatch)
	for i := 0; i < 60; i++ {
		big.Query("INSERT INTO ks.bh (k, c, v) VALUES (?, ?, ?)", i, i, strings.Repeat("x", 1024))
	}
	if err := s.ExecuteBatch(big); codeOf(err) != gocql.ErrCodeInvalid {
		t.Errorf("oversized batch in blackhole mode: %v", err)
	}
}
