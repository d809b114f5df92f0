//go:build !check

package main

// full is false in make test and true in make check (the build tag
// check): it chooses the process tests' full sizes and cases.
const full = false

// splitRows is the records of TestSplitProcesses's large file: about
// 2 MB here, 6 MB in make check, 250 MB in make test-large (the tags
// check and large).
const splitRows = 50_000
