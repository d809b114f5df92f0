//go:build check && large

package main

// full: see size_test.go. make test-large runs TestSplitProcesses alone
// at the size of a real load.
const full = true

const splitRows = 6_000_000
