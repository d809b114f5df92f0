//go:build !unix

package wholefile

import (
	"fmt"
	"os"
)

// openNoFollow has no O_NOFOLLOW to use here: the path is checked before
// the open and the file opened is checked to be the one checked.
func openNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	if st, err := os.Lstat(path); err == nil && st.Mode()&os.ModeSymlink != 0 {
		return nil, fmt.Errorf("%s %w", path, ErrLink)
	}
	f, err := os.OpenFile(path, flag, perm)
	if err != nil {
		return nil, err
	}
	here, err1 := os.Lstat(path)
	mine, err2 := f.Stat()
	if err1 != nil || err2 != nil || here.Mode()&os.ModeSymlink != 0 || !os.SameFile(here, mine) {
		f.Close()
		return nil, fmt.Errorf("%s %w", path, ErrLink)
	}
	return f, nil
}
