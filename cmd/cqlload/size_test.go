//go:build !check

package main

// full is false in make test and true in make check (the build tag
// check): it chooses the process tests' full sizes and cases.
const full = false
