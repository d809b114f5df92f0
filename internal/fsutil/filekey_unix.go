//go:build unix

package fsutil

import (
	"os"
	"syscall"
)

// FileKey identifies the file fi describes: two paths with one key are
// one file (os.SameFile, as a map key).
func FileKey(fi os.FileInfo) (any, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil, false
	}
	return [2]uint64{uint64(st.Dev), uint64(st.Ino)}, true
}
