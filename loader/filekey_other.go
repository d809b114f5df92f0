//go:build !unix

package loader

import "os"

// fileKey has no key here: checkInputsOnce compares files of one size
// with os.SameFile instead.
func fileKey(os.FileInfo) (any, bool) { return nil, false }
