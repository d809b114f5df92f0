//go:build !unix

package fsutil

import "os"

// FileKey has no key here: callers compare files of one size
// with os.SameFile instead (the loader's checkInputsOnce does).
func FileKey(os.FileInfo) (any, bool) { return nil, false }
