package loader

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cqlload/cqlload/csvparse"
	"github.com/cqlload/cqlload/internal/fsutil"
	"github.com/cqlload/cqlload/internal/termsafe"
	"github.com/cqlload/cqlload/internal/wholefile"
	"github.com/cqlload/cqlload/loader/internal/runlog"
)

// outcome is how a row left the pipeline; every row read gets exactly one.
type outcome uint8

const (
	written outcome = iota
	rejectedParse
	rejectedInsert
	// unknown: a write that may or may not have been applied (a counter
	// update that timed out, an insert whose retries ran out after a lost
	// connection). Never sent again, so a counter is never counted twice.
	unknown
	// notSent: read, but the run stopped before sending it. A resumed run
	// loads it; it is in the error file only until then.
	notSent
	skippedRow
)

func (o outcome) String() string {
	switch o {
	case rejectedParse:
		return "parse error"
	case rejectedInsert:
		return "insert error"
	case unknown:
		return "unknown"
	case notSent:
		return "not sent"
	case skippedRow:
		return "skipped"
	}
	return "written"
}

// reject is one non-written row waiting for its chunk to settle.
type reject struct {
	kind   outcome
	where  string // file:line[:column]
	reason string
	// group, when set, is the reason the summary counts the row under,
	// in full where reason only refers to it (Loader.badHeaderChunk).
	group string
	raw   []byte // the record as read; it points into the chunk until settled
	// long, when set, streams a record too long to hold in memory; raw
	// is then empty.
	long func() (io.ReadCloser, error)
	// header says which error file the row goes to (runlog.ErrFiles.FileFor).
	header int
	// idx is the record's index in its chunk, -1 when not known.
	idx int
	// ts is the row's write timestamp, which the log records so that a
	// run loading the error file again stamps it alike (stamps.go); 0
	// for counter updates, which take none.
	ts int64
}

// CheckCreatable reports whether the run can write path where it will.
// A file to create needs a directory that exists and takes new files:
// a probe file is created and removed there (an error names the
// directory), and, when path is a link, in the directory of the file it
// names, where a replaced file's temporary copy goes (internal/wholefile).
// A path that names one of the process's descriptors (/dev/stdout,
// /dev/fd/63 from a shell's >(…)) is written through it, so it is checked
// open for writing (wholefile.Descriptor), and a device or a named pipe
// elsewhere for writing: their directories (/dev, /dev/fd) need not take
// files. A directory at path is refused. The error files are created
// only when a first row is rejected, so without this check a bad path
// would end a run part way, with that row's reason nowhere.
func CheckCreatable(path string) error {
	if f, own, err := wholefile.Descriptor(path); own {
		if err != nil {
			return err
		}
		return f.Close()
	}
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		if st.IsDir() {
			return errors.New("is a directory")
		}
		if err := fsutil.Writable(path); err != nil {
			return fmt.Errorf("cannot write to it: %w", err)
		}
		return nil
	}
	dirs := []string{filepath.Dir(path)}
	if t, err := filepath.EvalSymlinks(path); err == nil && filepath.Dir(t) != dirs[0] {
		dirs = append(dirs, filepath.Dir(t))
	}
	for _, dir := range dirs {
		if err := fsutil.ProbeDir(dir); err != nil {
			return err
		}
	}
	return nil
}

// writeRejects appends rows to the error files (runlog.ErrFiles.Write).
func writeRejects(e *runlog.ErrFiles, rows []reject) error {
	if len(rows) == 0 {
		return nil
	}
	out := make([]runlog.Row, len(rows))
	for i, r := range rows {
		out[i] = runlog.Row{Kind: r.kind.String(), Where: r.where, Reason: r.reason, Raw: r.raw, Long: r.long, Header: r.header, TS: r.ts}
	}
	return e.Write(out)
}

// at is where a record is, file:line, for messages and the log: the
// file's name as termsafe prints it.
func at(file string, line int64) string {
	return termsafe.Name(file) + ":" + strconv.FormatInt(line, 10)
}

// longRecord streams what the splitter kept of a chunk's record over the
// size limit, to the error file. When that is only its first bytes
// (--max-error-record-bytes, or a temporary file that could not be
// written), a marker follows them, so that nobody takes the line for the
// record: a gzip of zeros decompresses to one record of gigabytes, and
// the error file is not where it belongs whole.
func longRecord(c *csvparse.Chunk) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) {
		rc, err := c.OpenRecord()
		if err != nil || c.KeptBytes >= c.RecordBytes {
			return rc, err
		}
		mark := fmt.Sprintf("[cqlload cut this record here: %d of its %d bytes kept]", c.KeptBytes, c.RecordBytes)
		return struct {
			io.Reader
			io.Closer
		}{io.MultiReader(rc, strings.NewReader(mark)), rc}, nil
	}
}

// tooLongReason is the error log's reason for a record over the size
// limit: how long it was, the limit, and what of it the error file has.
func (l *Loader) tooLongReason(err error, c *csvparse.Chunk) string {
	limit := l.opts.Dialect.MaxRecordBytes
	if limit == 0 {
		limit = csvparse.DefaultMaxRecordBytes
	}
	reason := fmt.Sprintf("%v (%d bytes; --max-record-bytes is %d)", err, c.RecordBytes, limit)
	if c.HeaderTooLong {
		reason = fmt.Sprintf("the file's header is longer than --max-record-bytes (%d bytes; the limit is %d): the file is not loaded, its other rows not read; raise --max-record-bytes to load it", c.RecordBytes, limit)
	}
	switch {
	case c.SpillErr != nil:
		reason += fmt.Sprintf("; the error file has only its first %d bytes: %v", c.KeptBytes, c.SpillErr)
	case c.KeptBytes < c.RecordBytes:
		reason += fmt.Sprintf("; the error file has its first %d bytes (--max-error-record-bytes)", c.KeptBytes)
	}
	return reason
}
