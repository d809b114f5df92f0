// Command cqlload loads CSV files into Cassandra or ScyllaDB. It takes
// cqlsh's COPY FROM statement and options, or the same options as flags.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
