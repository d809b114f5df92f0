//go:build check

package loader

// full: see size_test.go.
const full = true
