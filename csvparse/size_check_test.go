//go:build check

package csvparse

// full: see size_test.go.
const full = true
