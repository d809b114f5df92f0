//go:build !check

package chaos

// full is false in make test and true in make check (the build tag
// check): it chooses the tests' full sizes. The tests only make check
// runs are in files built with the tag (*_check_test.go).
const full = false
