package wholefile

import (
	"fmt"
	"os"
)

// OpenNoFollow opens path as os.OpenFile does, except that a symbolic
// link at path is refused (with ErrLink) rather than followed, and only
// a regular file is opened. The run's side files (locks, error files and
// their log, the counter journal) are at names anyone who can write to
// their directory could plant a link at; followed, it would have the run
// truncate or append to the file it names.
func OpenNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := openNoFollow(path, flag, perm)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file", path)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
