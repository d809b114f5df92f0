//go:build check

package main

// full: see size_test.go.
const full = true
