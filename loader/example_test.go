package loader_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/cqlload/cqlload/cqlsim"
	"github.com/cqlload/cqlload/loader"
)

// The loader as a library: options in, summary out. A scheduled job would
// point Hosts at its cluster; here an in-process cqlsim stands in for it.
func Example() {
	ctx := context.Background()
	cluster, err := cqlsim.Start(ctx, cqlsim.Config{Nodes: 3, Schema: []string{`
		CREATE KEYSPACE shop WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 2};
		CREATE TABLE shop.items (sku text PRIMARY KEY, name text, price decimal, stock int);`}})
	if err != nil {
		log.Fatal(err)
	}
	defer cluster.Close()

	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	csv := filepath.Join(dir, "items.csv")
	os.WriteFile(csv, []byte("sku,name,price,stock\nA1,Anvil,19.99,3\nB2,\"Bolt, steel\",0.10,5000\nC3,Chain,4.5,not-a-number\n"), 0o644)

	opts := loader.DefaultOptions()
	opts.Hosts = cluster.Hosts()
	opts.Keyspace, opts.Table = "shop", "items"
	opts.Files = []string{csv}
	opts.Dialect.Header = true
	opts.ErrFile = filepath.Join(dir, "items.err")

	l, err := loader.New(opts)
	if err != nil {
		log.Fatal(err)
	}
	sum, err := l.Run(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("read %d, written %d, rejected %d\n", sum.RowsRead, sum.RowsWritten, sum.RowsFailedParse)
	rejected, _ := os.ReadFile(opts.ErrFile)
	fmt.Printf("error file:\n%s", rejected)
	// Output:
	// read 3, written 2, rejected 1
	// error file:
	// sku,name,price,stock
	// C3,Chain,4.5,not-a-number
}
