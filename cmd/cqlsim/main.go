// Command cqlsim runs a simulated Cassandra cluster for demos, benchmarks
// and manual testing. See package cqlsim.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
