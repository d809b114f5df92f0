//go:build !check

package csvparse

// full is false in make test and true in make check (the build tag
// check): it chooses the tests' full sizes.
const full = false
