// Package chaos holds process-level fault tests of cqlload (make chaos;
// make test runs a node stopped mid-load, one frozen replica, signals,
// damaged and hostile input; make check adds the silent clusters and
// the transient faults, in the files built with the tag check, and the
// full sizes). Each test starts a real cqlsim process in store
// mode, runs the real cqlload binary against it, and injects faults from
// outside through cqlsim's HTTP control requests while the load runs:
// nodes stopped, paused and frozen all at once, write timeouts, a signal
// while the input is an empty named pipe, and damaged input (an oversized
// record, a corrupt or truncated gzip file). After each run it checks
// cqlload's exit status and --summary-json (the counts always add up to
// rows_read), then reads the table back and compares it with the input,
// row by row.
//
// hostile_test.go is the hostile-input suite: names that look like
// cqlload's own, an endless input, and an object store that accepts
// connections and never answers (see its comment for the other classes'
// process tests).
//
// Fault times and positions are drawn from a seed that each test logs;
// go test ./chaos/ -args -chaos.seed=N replays a run.
//
// There is no non-test code here.
package chaos
