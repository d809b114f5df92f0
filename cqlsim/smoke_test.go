package cqlsim

import (
	"context"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

func TestSmoke(t *testing.T) {
	cl, err := Start(context.Background(), Config{Nodes: 3, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	cc := gocql.NewCluster(cl.Hosts()...)
	cc.Port = cl.Port()
	cc.Timeout = 5 * time.Second
	s, err := cc.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Query("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 2}").Exec(); err != nil {
		t.Fatal(err)
	}
	if err := s.Query("CREATE TABLE ks.t (k int PRIMARY KEY, v text)").Exec(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		if err := s.Query("INSERT INTO ks.t (k, v) VALUES (?, ?)", i, "x").Exec(); err != nil {
			t.Fatal(err)
		}
	}
	var v string
	if err := s.Query("SELECT v FROM ks.t WHERE k = ?", 3).Scan(&v); err != nil {
		t.Fatal(err)
	}
	t.Log(v)
	km, err := s.KeyspaceMetadata("ks")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", km.Tables["t"].Columns)
	t.Logf("%+v", cl.Stats())
}
