// Package integration runs cqlload's loader against real clusters
// (Apache Cassandra, ScyllaDB): `make integration`. It is a module of its
// own, so that testcontainers and its dependencies stay out of cqlload's
// go.mod; the tests are in its _test files.
package integration
