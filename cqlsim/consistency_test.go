package cqlsim

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/cqlload/cqlload/internal/murmur3"
	"github.com/gocql/gocql"
)

func TestUnavailableWhenReplicasAreDown(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 3, Seed: 4})
	if err := cl.Exec(`CREATE KEYSPACE one WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
		CREATE TABLE one.t (k int PRIMARY KEY);
		CREATE KEYSPACE three WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3};
		CREATE TABLE three.t (k int PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	s := connect(t, cl, func(cc *gocql.ClusterConfig) {
		cc.RetryPolicy = &gocql.SimpleRetryPolicy{NumRetries: 0}
		cc.ReconnectInterval = time.Hour
	})
	// A key whose only replica at RF 1 is node 2 (index 1).
	onDown := 0
	for cl.Replicas("one", murmur3.Token(binary.BigEndian.AppendUint32(nil, uint32(onDown))))[0] != 1 {
		onDown++
	}
	cl.Node(1).Stop()
	cl.Node(2).Stop()
	tests := []struct {
		name  string
		query string
		key   int
		cons  gocql.Consistency
		want  int // 0: success, else the error code
	}{
		{"RF1 replica down", "INSERT INTO one.t (k) VALUES (?)", onDown, gocql.One, gocql.ErrCodeUnavailable},
		{"RF1 read of a down replica", "SELECT k FROM one.t WHERE k = ?", onDown, gocql.One, gocql.ErrCodeUnavailable},
		{"RF3 ONE with one up", "INSERT INTO three.t (k) VALUES (?)", onDown, gocql.One, 0},
		{"RF3 QUORUM with one up", "INSERT INTO three.t (k) VALUES (?)", onDown, gocql.Quorum, gocql.ErrCodeUnavailable},
		{"RF3 ANY", "INSERT INTO three.t (k) VALUES (?)", onDown, gocql.Any, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// The driver may still hold connections to the stopped nodes;
			// retry until the answer comes from a live node.
			var err error
			for i := 0; i < 50; i++ {
				err = s.Query(tc.query, tc.key).Consistency(tc.cons).Exec()
				if err == nil || codeOf(err) >= 0 {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			if tc.want == 0 && err != nil {
				t.Fatalf("got %v, want success", err)
			}
			if tc.want != 0 && codeOf(err) != tc.want {
				t.Fatalf("got %v (code %#x), want code %#x", err, codeOf(err), tc.want)
			}
		})
	}
	if err := cl.Node(1).Start(); err != nil {
		t.Fatal(err)
	}
	if err := s.Query("INSERT INTO three.t (k) VALUES (1)").Consistency(gocql.Quorum).Exec(); err != nil {
		t.Errorf("QUORUM with two of three up: %v", err)
	}
	if err := s.Query("INSERT INTO one.t (k) VALUES (?)", onDown).Consistency(gocql.One).Exec(); err != nil {
		t.Errorf("RF1 write once its replica is back: %v", err)
	}
}

func TestQuorumCountsConfiguredReplicationFactor(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 1})
	if err := cl.Exec(`CREATE KEYSPACE big WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3};
		CREATE TABLE big.t (k int PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	s := connect(t, cl, func(cc *gocql.ClusterConfig) { cc.RetryPolicy = &gocql.SimpleRetryPolicy{NumRetries: 0} })
	if err := s.Query("INSERT INTO big.t (k) VALUES (1)").Consistency(gocql.Quorum).Exec(); codeOf(err) != gocql.ErrCodeUnavailable {
		t.Errorf("QUORUM at RF 3 on one node: %v, want Unavailable", err)
	}
	if err := s.Query("INSERT INTO big.t (k) VALUES (1)").Consistency(gocql.One).Exec(); err != nil {
		t.Errorf("ONE at RF 3 on one node: %v", err)
	}
}
