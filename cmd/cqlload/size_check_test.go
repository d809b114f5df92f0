//go:build check && !large

package main

// full: see size_test.go.
const full = true

const splitRows = 150_000
