package loader

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/cqlload/cqlload/csvparse"
)

// rejectKind says at which stage a row was rejected.
type rejectKind string

const (
	rejectParse  rejectKind = "parse"
	rejectInsert rejectKind = "insert"
	rejectAbort  rejectKind = "aborted"
)

// errFile writes rejected records to ERRFILE exactly as they were read, so
// the file can be loaded again with the same command, and one line per
// record to ERRFILE.log saying where it came from and why it was rejected.
// Both files are created on the first rejected row only.
type errFile struct {
	path   string
	header string // written first when the input has a header line
	// appendTo keeps what an earlier run wrote: a resumed run's rejects
	// join those of the run it continues.
	appendTo bool

	mu       sync.Mutex
	data     *os.File
	log      *os.File
	dw, lw   *bufio.Writer
	openErr  error
	rejected int64
}

// setHeader makes the error file start with the input's header line, so
// that it loads again with the same HEADER option. The first file's header
// is used; files with other headers are noted in the log.
func (e *errFile) setHeader(names []string, d csvparse.Dialect) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.header != "" || e.data != nil {
		return
	}
	rec := csvparse.AppendRecord(nil, d, names...)
	e.header = strings.TrimSuffix(string(rec), "\n")
}

func (e *errFile) open() error {
	if e.data != nil || e.openErr != nil {
		return e.openErr
	}
	flags := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if e.appendTo {
		flags = os.O_CREATE | os.O_WRONLY | os.O_APPEND
	}
	d, err := os.OpenFile(e.path, flags, 0o644)
	if err != nil {
		e.openErr = fmt.Errorf("error file: %w", err)
		return e.openErr
	}
	if st, err := d.Stat(); err == nil && st.Size() > 0 {
		e.header = "" // appending: the header is already there
	}
	l, err := os.OpenFile(e.path+".log", flags, 0o644)
	if err != nil {
		d.Close()
		e.openErr = fmt.Errorf("error log: %w", err)
		return e.openErr
	}
	e.data, e.log = d, l
	e.dw, e.lw = bufio.NewWriter(d), bufio.NewWriter(l)
	if e.header != "" {
		e.dw.WriteString(e.header)
		e.dw.WriteByte('\n')
	}
	return nil
}

// reject records one rejected row. where is "file:line:column".
func (e *errFile) reject(kind rejectKind, where string, reason string, raw []byte) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.open(); err != nil {
		return err
	}
	e.rejected++
	e.dw.Write(raw)
	e.dw.WriteByte('\n')
	fmt.Fprintf(e.lw, "%s: %s error: %s\n", where, kind, reason)
	return nil
}

func (e *errFile) used() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.data != nil
}

func (e *errFile) close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.data == nil {
		return nil
	}
	var first error
	for _, err := range []error{e.dw.Flush(), e.lw.Flush(), e.data.Close(), e.log.Close()} {
		if err != nil && first == nil {
			first = fmt.Errorf("error file %s: %w", e.path, err)
		}
	}
	return first
}
