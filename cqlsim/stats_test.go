package cqlsim

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gocql/gocql"
)

// errorDelta is after.Errors minus before.Errors, without the zeros.
func errorDelta(before, after NodeStats) map[string]int64 {
	d := map[string]int64{}
	for k, v := range after.Errors {
		if v -= before.Errors[k]; v != 0 {
			d[k] = v
		}
	}
	return d
}

func TestStatsCountErrorsByKind(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 1})
	if err := cl.Exec(`CREATE KEYSPACE big WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3};
		CREATE TABLE big.t (k int PRIMARY KEY, v text)`); err != nil {
		t.Fatal(err)
	}
	s := connect(t, cl, func(cc *gocql.ClusterConfig) { cc.RetryPolicy = &gocql.SimpleRetryPolicy{NumRetries: 0} })
	big := strings.Repeat("x", 1024)
	tests := []struct {
		name string
		do   func() error
		want string
	}{
		{"consistency the replicas up cannot meet", func() error {
			return s.Query("INSERT INTO big.t (k) VALUES (1)").Consistency(gocql.Quorum).Exec()
		}, "unavailable"},
		{"batch too large", func() error {
			b := s.Batch(gocql.UnloggedBatch)
			for i := 0; i < 60; i++ {
				b.Query("INSERT INTO big.t (k, v) VALUES (?, ?)", i, big)
			}
			b.SetConsistency(gocql.One)
			return s.ExecuteBatch(b)
		}, "invalid"},
		// Not a statement gocql prepares, so it sends it once.
		{"syntax", func() error { return s.Query("CREAT TABLE big.u (k int PRIMARY KEY)").Exec() }, "syntax_error"},
		{"injected", func() error {
			if err := cl.Node(0).SetFault(Fault{FailNext: 1, Kind: "server_error"}); err != nil {
				t.Fatal(err)
			}
			return s.Query("INSERT INTO big.t (k) VALUES (1)").Consistency(gocql.One).Exec()
		}, "server_error"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := cl.Stats().Nodes[0]
			if err := tc.do(); err == nil {
				t.Fatal("no error")
			}
			after := cl.Stats().Nodes[0]
			if d := errorDelta(before, after); fmt.Sprint(d) != fmt.Sprint(map[string]int64{tc.want: 1}) {
				t.Errorf("errors grew by %v, want %s: 1", d, tc.want)
			}
		})
	}
	// Successes count nowhere; the totals carry the per-node kinds.
	before := cl.Stats().Nodes[0]
	if err := s.Query("INSERT INTO big.t (k) VALUES (2)").Consistency(gocql.One).Exec(); err != nil {
		t.Fatal(err)
	}
	st := cl.Stats()
	if d := errorDelta(before, st.Nodes[0]); len(d) != 0 {
		t.Errorf("a successful write counted as errors %v", d)
	}
	if tot := st.Total(); tot.Errors["invalid"] != st.Nodes[0].Errors["invalid"] || tot.Errors["unavailable"] < 1 {
		t.Errorf("total errors %v, node errors %v", tot.Errors, st.Nodes[0].Errors)
	}
}
