package wholefile

import (
	"errors"
	"fmt"
)

// ErrLink is the error of OpenNoFollow for a path that is a symbolic
// link.
var ErrLink = errors.New("is a symbolic link: a file the run keeps open (a lock, an error file, a journal) is never opened through one, as a link planted at its name would send the run's writes to the file it names")

// TooLargeError is a file read whole that is larger than its bound.
type TooLargeError struct {
	Path  string
	Kind  string // what the file is to the reader: "password file", "-f script", ...
	Limit int64
	Line  bool // only its first line was read, and it is longer than Limit
}

func (e *TooLargeError) Error() string {
	what := "the file is larger than"
	if e.Line {
		what = "its first line is longer than"
	}
	// The path leads, as in os's errors: callers prefix what the file
	// is for ("-f: ", "password file: ").
	return fmt.Sprintf("%s: %s %s, the limit for a %s: is it the right file?", e.Path, what, sizeText(e.Limit), e.Kind)
}
