//go:build check

package chaos

// full: see size_test.go.
const full = true
