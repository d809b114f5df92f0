package cqlsh_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/cqlload/cqlload/cqlsh"
)

// A COPY statement, a cqlshrc and a flag resolve into the options of one
// load, with cqlsh's precedence: the cqlshrc's [copy] section < WITH <
// flags. loader.New(opts) then runs it.
func Example() {
	dir, err := os.MkdirTemp("", "cqlsh-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	rc := filepath.Join(dir, "cqlshrc")
	err = os.WriteFile(rc, []byte("[connection]\nhostname = 10.0.0.5\n\n[copy]\nchunksize = 500\nheader = true\n"), 0o600)
	if err != nil {
		log.Fatal(err)
	}
	opts, err := cqlsh.Config{
		Execute: `COPY shop.orders (id, total) FROM 'orders.csv' WITH DELIMITER = '|' AND CHUNKSIZE = 1000`,
		Cqlshrc: rc,
		Flags:   [][2]string{{"max-batch-size", "10"}},
		Getenv:  func(string) string { return "" },
	}.Resolve()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(opts.Keyspace, opts.Table, opts.Columns, opts.Files)
	fmt.Println(opts.Hosts, opts.Port)
	fmt.Printf("header %v, delimiter %q, chunk size %d, max batch size %d\n",
		opts.Dialect.Header, opts.Dialect.Delimiter, opts.ChunkSize, opts.MaxBatchSize)
	// Output:
	// shop orders [id total] [orders.csv]
	// [10.0.0.5] 9042
	// header true, delimiter '|', chunk size 1000, max batch size 10
}
