//go:build unix

package cqlsh

import (
	"os"
	"syscall"
)

// ownedByOther reports whether another user owns the file fi describes.
func ownedByOther(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) != os.Getuid()
}
