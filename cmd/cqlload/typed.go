package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/cqlload/cqlload/source"
)

// typedInput is standard input when a person types the rows: as cqlsh's
// COPY FROM STDIN at a terminal, a line holding only "." ends it (Ctrl-D
// does too). Read from a pipe or a file, "." is data: cqlsh stops there
// too, and leaves the rest unread without a word.
func typedInput(stdin io.Reader, files []string, stderr io.Writer) io.Reader {
	f, ok := stdin.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) || !readsStdin(files) {
		return stdin
	}
	io.WriteString(stderr, "[Use . on a line by itself to end input]\n")
	return &untilDot{r: bufio.NewReader(stdin)}
}

// readsStdin reports whether the inputs name standard input.
func readsStdin(files []string) bool {
	for _, spec := range files {
		for _, item := range strings.Split(spec, ",") {
			if source.IsStdin(item) {
				return true
			}
		}
	}
	return false
}

// untilDot reads r line by line up to a line that holds only ".".
type untilDot struct {
	r       *bufio.Reader
	pending []byte // the rest of the line being read out
	err     error  // what ends the input once pending is read: io.EOF at "."
}

func (u *untilDot) Read(p []byte) (int, error) {
	if len(u.pending) == 0 {
		if u.err != nil {
			return 0, u.err
		}
		line, err := u.r.ReadBytes('\n')
		if string(bytes.TrimRight(line, "\r\n")) == "." {
			line, err = nil, io.EOF
		}
		u.pending, u.err = line, err
		if len(line) == 0 {
			return 0, err
		}
	}
	n := copy(p, u.pending)
	u.pending = u.pending[n:]
	return n, nil
}
