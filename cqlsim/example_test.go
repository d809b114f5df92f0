package cqlsim_test

import (
	"context"
	"fmt"
	"log"

	"github.com/cqlload/cqlload/cqlsim"
	"github.com/gocql/gocql"
)

// A test starts a cluster on a free port, writes through an unmodified
// driver and checks what each node saw.
func Example() {
	cl, err := cqlsim.Start(context.Background(), cqlsim.Config{
		Nodes: 3,
		Schema: []string{`
			CREATE KEYSPACE shop WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 2};
			CREATE TABLE shop.items (id int PRIMARY KEY, name text, price decimal);`},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer cl.Close()

	cc := gocql.NewCluster(cl.Hosts()...)
	cc.Port = cl.Port()
	cc.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy())
	s, err := cc.CreateSession()
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	for i := 1; i <= 3; i++ {
		if err := s.Query("INSERT INTO shop.items (id, name, price) VALUES (?, ?, 9.99)", i, fmt.Sprint("item ", i)).Exec(); err != nil {
			log.Fatal(err)
		}
	}

	rows, err := cl.Query("SELECT name, price FROM shop.items WHERE id = 2")
	if err != nil {
		log.Fatal(err)
	}
	total := cl.Stats().Total()
	fmt.Println(rows[0]["name"], rows[0]["price"])
	fmt.Println(total.RowsWritten, "rows written,", total.RowsWrittenAsReplica, "by a replica")
	// Output:
	// 'item 2' 9.99
	// 3 rows written, 3 by a replica
}
