// Package deploy tests the deployment manifests that users run: the
// docker-compose.yml at the root of the repository, which starts real
// ScyllaDB and Cassandra nodes for `make up` and `make integration`. No
// Docker engine is needed: the tests decode the files strictly and check
// what README.md and docs/usage.md promise of them.
package deploy
