package runlog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/cqlload/cqlload/csvparse"
	"github.com/cqlload/cqlload/internal/redact"
	"github.com/cqlload/cqlload/internal/wholefile"
	"golang.org/x/text/encoding"
	"golang.org/x/text/transform"
)

// ErrFiles writes rejected rows to ERRFILE exactly as they were read, so
// the file loads again with the same command once fixed, and one line per
// row to ERRFILE.log saying where it came from, why, and which error file
// holds it. Input files whose headers differ get one error file each:
// ERRFILE for the first header, ERRFILE.2, ERRFILE.3, … for the others,
// each starting with its own header line, so no row is ever reloaded under
// another file's column order.
//
// The loader's ledger is its only writer: a settled chunk's rows are appended with
// one write per file and synced before the checkpoint may name the chunk,
// so a line in an error file is always a whole record, whatever moment
// the process is killed at, and a resumed run can cut the files back to
// the lengths its checkpoint recorded.
type ErrFiles struct {
	path string
	// enc and bom write the rows in the input's ENCODING, so that the
	// file loads again with the same options (csvparse.TextEncoding).
	// The rows are held decoded to UTF-8; the log stays UTF-8.
	enc encoding.Encoding
	bom []byte
	// skipped is what follows the header in a new error file: a record
	// of one empty quoted field ("") for each row SKIPROWS skips, which
	// the same command, loading the file again, skips instead of its
	// first rejected rows. Such a record is never a row: it has one
	// field, and an empty primary key.
	skipped []byte
	// Sync makes written bytes durable; os.File.Sync unless a test
	// injects a failure.
	Sync func(*os.File) error
	// Red masks secrets in the log's lines (nil: URL passwords alone).
	Red *redact.Redactor

	mu      sync.Mutex
	headers []string // header line of each error file ("" without HEADER)
	// files holds the open error files, at most maxOpenErrFiles of them
	// (nil: closed, or not created yet); lastUse orders them for closing
	// the one idle longest (use counts the opens).
	files   []*os.File
	lastUse []uint64
	use     uint64
	nopen   int
	sizes   []int64 // bytes in each error file (0: not created yet)
	log     *os.File
	logSize int64
	rows    []int64 // rejected rows in each error file
	err     error   // sticky: once a write failed nothing more is written
}

// NewErrFiles returns the error files of ERRFILE path, written in d's
// encoding; nothing is created before the first row.
func NewErrFiles(path string, d csvparse.Dialect) *ErrFiles {
	e := &ErrFiles{path: path, Sync: (*os.File).Sync}
	e.enc, e.bom = d.TextEncoding()
	e.skipped = bytes.Repeat([]byte{d.Quote, d.Quote, '\n'}, d.SkipRows)
	return e
}

// encode converts decoded text to the input's encoding. Text decoded
// from it always encodes back; anything else becomes the encoding's
// replacement character rather than a lost row.
// Path is ERRFILE, the first error file; its log is Path()+".log".
func (e *ErrFiles) Path() string { return e.path }

// SetPath changes ERRFILE before anything is written.
func (e *ErrFiles) SetPath(path string) { e.path = path }

func (e *ErrFiles) encode(b []byte) []byte {
	if e.enc == nil || len(b) == 0 {
		return b
	}
	out, _, err := transform.Bytes(encoding.ReplaceUnsupported(e.enc.NewEncoder()), b)
	if err != nil {
		return b // not reached: unsupported runes are replaced
	}
	return out
}

// name is the path of error file i (0-based).
func (e *ErrFiles) name(i int) string {
	if i == 0 {
		return e.path
	}
	return e.path + "." + strconv.Itoa(i+1)
}

// Filefor returns the error file of a header line, adding one for a
// header not seen before. Called in read order, so numbering follows the
// order of the inputs and is the same on every run of the same inputs.
func (e *ErrFiles) FileFor(header string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i, h := range e.headers {
		if h == header {
			return i
		}
	}
	e.headers = append(e.headers, header)
	e.files = append(e.files, nil)
	e.lastUse = append(e.lastUse, 0)
	e.sizes = append(e.sizes, 0)
	e.rows = append(e.rows, 0)
	return len(e.headers) - 1
}

// NumberedSuffix says whether rest, what follows ERRFILE in a file's
// name, makes it one of ERRFILE's numbered files: .2, .3, …
func NumberedSuffix(rest string) bool { return numberedErrFile.MatchString(rest) }

// numberedErrFile matches the suffix of ERRFILE.2, ERRFILE.3, …: never .0
// or .1, which are the error files of --split 0/N and 1/N of an ERRFILE
// without an extension (another load's files, with their own logs).
var numberedErrFile = regexp.MustCompile(`^\.([2-9]|[1-9][0-9]+)$`)

// Keep renames the error files an earlier run left, as cqlsh does
// ("Renaming existing ERRFILE to ERRFILE.20241204_101500"): a fresh run
// neither appends to them nor loses the rows they hold, which nobody may
// have looked at yet (last night's rejected rows, when tonight's run
// starts fresh). Every file of the set (ERRFILE, its log, its numbered
// files) gets the same suffix, the time at, with _2, _3, … when a name
// is taken. It returns the new names.
func (e *ErrFiles) Keep(at time.Time) ([]string, error) {
	var present []string
	for _, p := range append([]string{e.path, e.path + ".log"}, e.numberedFiles()...) {
		switch err := fileOrLink(p); {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, fmt.Errorf("earlier error file: %w", err)
		default:
			present = append(present, p)
		}
	}
	if len(present) == 0 {
		return nil, nil
	}
	stamp := at.Format(".20060102_150405")
	suffix := stamp
	taken := func() bool {
		return slices.ContainsFunc(present, func(p string) bool {
			_, err := os.Lstat(p + suffix)
			return err == nil
		})
	}
	for n := 2; taken(); n++ {
		suffix = stamp + "_" + strconv.Itoa(n)
	}
	var kept []string
	for _, p := range present {
		if err := os.Rename(p, p+suffix); err != nil {
			return kept, fmt.Errorf("keep earlier error file: %w", err)
		}
		kept = append(kept, p+suffix)
	}
	return kept, nil
}

// numberedFiles lists the error files of further headers that exist:
// ERRFILE.2, ERRFILE.3, …
func (e *ErrFiles) numberedFiles() []string {
	// The directory is listed rather than globbed: ERRFILE may hold
	// a glob's special characters (rej[1].err).
	var out []string
	dir, base := filepath.Split(e.path)
	entries, _ := os.ReadDir(filepath.Clean(dir + "."))
	for _, ent := range entries {
		if rest, ok := strings.CutPrefix(ent.Name(), base); ok && numberedErrFile.MatchString(rest) {
			out = append(out, e.path+rest)
		}
	}
	return out
}

// fileOrLink is nil when p is a file or a link, an fs.ErrNotExist error
// when there is nothing at p, and an error naming anything else (a
// device, a directory), which the error files' renaming and cutting back
// leave alone (the loader's checkReplaceable refuses such paths before a run begins).
func fileOrLink(p string) error {
	st, err := os.Lstat(p)
	switch {
	case err != nil:
		return err
	case !st.Mode().IsRegular() && st.Mode()&os.ModeSymlink == 0:
		return fmt.Errorf("%s is not a regular file: left alone", p)
	}
	return nil
}

// removeFile removes p if it is a file or a link (see fileOrLink).
func removeFile(p string) error {
	if err := fileOrLink(p); err != nil {
		return err
	}
	return os.Remove(p)
}

// Restore cuts the error files back to what a checkpoint recorded: what
// was written after it belongs to chunks the resumed run does again.
// Files it does not list are removed. Headers are recorded with sizes, so
// the numbering carries over.
func (e *ErrFiles) Restore(files []ErrFileState, logSize int64) error {
	keep := map[string]bool{}
	var errs []error
	cut := func(p string, size int64) {
		var err error
		if size == 0 {
			err = removeFile(p)
		} else {
			err = truncateNoFollow(p, size)
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("resume: cut %s back to %d bytes: %w", p, size, err))
		}
	}
	// Nothing is cut before every file is known to hold what the
	// checkpoint recorded: a file someone removed or shortened would
	// otherwise be recreated with its recorded length of zero bytes in
	// front of the resumed run's rows.
	for i, f := range files {
		if f.Path != e.name(i) {
			return fmt.Errorf("resume: the checkpoint's error file %d is %s, but this run's would be %s: give the same ERRFILE", i+1, f.Path, e.name(i))
		}
		if err := HoldsRecorded(f.Path, f.Bytes, fmt.Sprintf("%d rows", f.Rows), restoreErrFile); err != nil {
			return err
		}
	}
	if err := HoldsRecorded(e.path+".log", logSize, "the error files' log", restoreErrFile); err != nil {
		return err
	}
	e.mu.Lock()
	for _, f := range files {
		e.headers = append(e.headers, f.Header)
		e.files = append(e.files, nil)
		e.lastUse = append(e.lastUse, 0)
		e.sizes = append(e.sizes, f.Bytes)
		e.rows = append(e.rows, f.Rows)
		keep[f.Path] = true
		cut(f.Path, f.Bytes)
	}
	e.logSize = logSize
	e.mu.Unlock()
	cut(e.path+".log", logSize)
	if !keep[e.path] {
		cut(e.path, 0)
	}
	for _, m := range e.numberedFiles() {
		if !keep[m] {
			cut(m, 0)
		}
	}
	return errors.Join(errs...)
}

// truncateNoFollow cuts the file at p to size bytes, refusing a link
// (os.Truncate would cut the file it names).
func truncateNoFollow(p string, size int64) error {
	f, err := wholefile.OpenNoFollow(p, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	err = f.Truncate(size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// restoreErrFile is what a user whose error file is gone can do.
const restoreErrFile = "put it back to resume, or remove the checkpoint to start over"

// maxOpenErrFiles bounds the error files held open at once. Each
// distinct header has its own error file, and a load of many files with
// as many headers held one descriptor per header to the end of the run:
// 400 headers ran out of descriptors under a limit of 256, and the run
// failed when it came to open its next input. A file closed here is
// opened again, at the length recorded for it, when a row comes for it.
const maxOpenErrFiles = 16

// open returns error file i, creating it (with its header line) if
// needed, or opening it again at its recorded length: e.sizes, which the
// checkpoint records, is the length of its whole writes, so what a
// resumed run cuts back to and where the next row goes are one number.
func (e *ErrFiles) open(i int) (*os.File, error) {
	e.use++
	e.lastUse[i] = e.use
	if e.files[i] != nil {
		return e.files[i], nil
	}
	if err := e.closeIdle(maxOpenErrFiles - 1); err != nil {
		return nil, err
	}
	// A file closed while idle has bytes of this run's in it (sizes),
	// so it is reopened, never created anew.
	f, err := openErrFile(e.name(i), e.sizes[i])
	if err != nil {
		return nil, fmt.Errorf("error file: %w", err)
	}
	e.nopen++
	if err := f.Truncate(e.sizes[i]); err != nil {
		f.Close()
		e.nopen--
		return nil, fmt.Errorf("error file: %w", err)
	}
	if _, err := f.Seek(e.sizes[i], io.SeekStart); err != nil {
		f.Close()
		e.nopen--
		return nil, fmt.Errorf("error file: %w", err)
	}
	e.files[i] = f
	if e.sizes[i] == 0 {
		head := e.bom
		if e.headers[i] != "" {
			head = append(slices.Clip(head), e.encode([]byte(e.headers[i]+"\n"))...)
		}
		head = append(slices.Clip(head), e.encode(e.skipped)...)
		n, err := f.Write(head)
		e.sizes[i] += int64(n)
		if err != nil {
			return nil, fmt.Errorf("error file %s: %w", e.name(i), err)
		}
	}
	return f, nil
}

// closeIdle closes the error files used longest ago until at most keep
// are open. Each is synced first: the write that appended to it may not
// have synced it yet, and rows must be durable before the checkpoint
// names their chunk.
func (e *ErrFiles) closeIdle(keep int) error {
	for e.nopen > keep {
		lru := -1
		for j, f := range e.files {
			if f != nil && (lru < 0 || e.lastUse[j] < e.lastUse[lru]) {
				lru = j
			}
		}
		f := e.files[lru]
		e.files[lru] = nil
		e.nopen--
		err := e.Sync(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("error file %s: %w", e.name(lru), err)
		}
	}
	return nil
}

// openErrFile opens an error file or the log for writing. One this run
// has nothing in yet (size 0) is created anew: the files an earlier run
// left were moved aside (Keep) or removed (Restore), so anything at the
// name now, a link above all, was put there by someone else, and is left
// alone rather than truncated. One the checkpoint records size bytes of
// is the stopped run's, opened, never through a link, to be cut back.
// New files are 0600: they hold users' rows, which may be private.
func openErrFile(path string, size int64) (*os.File, error) {
	if size > 0 {
		return wholefile.OpenNoFollow(path, os.O_WRONLY, 0)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("%s appeared after the run moved the earlier error files aside (another program's file, or a link): it is left alone; give ERRFILE another path", path)
	}
	return f, err
}

func (e *ErrFiles) openLog() (*os.File, error) {
	if e.log != nil {
		return e.log, nil
	}
	f, err := openErrFile(e.path+".log", e.logSize)
	if err == nil {
		err = f.Truncate(e.logSize)
	}
	if err == nil {
		_, err = f.Seek(e.logSize, io.SeekStart)
	}
	if err != nil {
		if f != nil {
			f.Close()
		}
		return nil, fmt.Errorf("error log: %w", err)
	}
	e.log = f
	return f, nil
}

// Write appends rows to their error files and the log and syncs them:
// when it returns nil the rows are durable. Each file gets one write, so
// a killed process leaves whole lines. Records too long to hold in memory
// are streamed, the one exception.
func (e *ErrFiles) Write(rows []Row) error {
	if len(rows) == 0 {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err != nil {
		return e.err
	}
	// A write that fails part way leaves bytes the counts must not
	// cover: the checkpoint records these counts, and a resumed run cuts
	// the files back to them, so they must end at the last whole write.
	sizes, counts, logSize := slices.Clone(e.sizes), slices.Clone(e.rows), e.logSize
	if err := e.writeLocked(rows); err != nil {
		copy(e.sizes, sizes)
		copy(e.rows, counts)
		e.logSize = logSize
		e.err = err
		return err
	}
	return nil
}

func (e *ErrFiles) writeLocked(rows []Row) error {
	bufs := make([][]byte, len(e.headers))
	var log []byte
	touched := make([]bool, len(e.headers))
	for _, r := range rows {
		h := r.Header
		touched[h] = true
		if r.Long != nil {
			// Flush what came before, so the file keeps read order
			// within the chunk, then stream the record.
			if err := e.flushData(h, bufs[h]); err != nil {
				return err
			}
			bufs[h] = bufs[h][:0]
			if err := e.stream(h, r.Long); err != nil {
				return err
			}
		} else {
			bufs[h] = append(append(bufs[h], r.Raw...), '\n')
		}
		e.rows[h]++
		// Through the redactor: where names the input, whose URL may
		// hold a password, and a reason may quote a driver's message.
		log = fmt.Appendf(log, "%s: %s: %s", OneLine(e.Red.String(r.Where)), r.Kind, OneLine(e.Red.String(r.Reason)))
		if r.TS != 0 {
			log = fmt.Appendf(log, " [write timestamp %d]", r.TS)
		}
		if len(e.headers) > 1 {
			log = fmt.Appendf(log, " [in %s]", e.name(h))
		}
		log = append(log, '\n')
	}
	for h, b := range bufs {
		if !touched[h] {
			continue // no row for it: not even a header-only file
		}
		if err := e.flushData(h, b); err != nil {
			return err
		}
	}
	lf, err := e.openLog()
	if err != nil {
		return err
	}
	n, err := lf.Write(log)
	e.logSize += int64(n)
	if err != nil {
		return fmt.Errorf("error log: %w", err)
	}
	for h, t := range touched {
		// A touched file that is closed was synced when it was closed.
		if t && e.files[h] != nil {
			if err := e.Sync(e.files[h]); err != nil {
				return fmt.Errorf("error file %s: sync: %w", e.name(h), err)
			}
		}
	}
	if err := e.Sync(lf); err != nil {
		return fmt.Errorf("error log: sync: %w", err)
	}
	return nil
}

func (e *ErrFiles) flushData(h int, b []byte) error {
	f, err := e.open(h)
	if err != nil {
		return err
	}
	if len(b) == 0 {
		return nil
	}
	n, err := f.Write(e.encode(b))
	e.sizes[h] += int64(n)
	if err != nil {
		return fmt.Errorf("error file %s: %w", e.name(h), err)
	}
	return nil
}

func (e *ErrFiles) stream(h int, open func() (io.ReadCloser, error)) error {
	f, err := e.open(h)
	if err != nil {
		return err
	}
	r, err := open()
	if err != nil {
		return fmt.Errorf("error file %s: %w", e.name(h), err)
	}
	defer r.Close()
	var src io.Reader = r
	if e.enc != nil {
		src = transform.NewReader(r, encoding.ReplaceUnsupported(e.enc.NewEncoder()))
	}
	n, err := io.Copy(f, src)
	e.sizes[h] += n
	if err == nil {
		var k int
		k, err = f.Write(e.encode([]byte{'\n'}))
		e.sizes[h] += int64(k)
	}
	if err != nil {
		return fmt.Errorf("error file %s: %w", e.name(h), err)
	}
	return nil
}

// Note appends a line to the log that concerns no single row, and syncs it.
func (e *ErrFiles) Note(line string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err != nil {
		return e.err
	}
	lf, err := e.openLog()
	if err != nil {
		return err
	}
	n, err := lf.WriteString(line + "\n")
	if err == nil {
		err = e.Sync(lf)
	}
	if err != nil {
		// As in Write: the log's recorded length stays at its last
		// whole line, and nothing more is written after it.
		e.err = fmt.Errorf("error log: %w", err)
		return e.err
	}
	e.logSize += int64(n)
	return nil
}

// State returns what a checkpoint records: every error file's length.
// The caller (the loader's ledger) holds its lock, so no write is
// under way.
func (e *ErrFiles) State() ([]ErrFileState, int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]ErrFileState, len(e.headers))
	for i := range e.headers {
		out[i] = ErrFileState{Path: e.name(i), Header: e.headers[i], Bytes: e.sizes[i], Rows: e.rows[i]}
	}
	return out, e.logSize
}

// Used lists the error files that hold rows.
func (e *ErrFiles) Used() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for i, n := range e.rows {
		if n > 0 {
			out = append(out, e.name(i))
		}
	}
	return out
}

func (e *ErrFiles) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	var errs []error
	for i, f := range e.files {
		if f != nil {
			if err := f.Close(); err != nil {
				errs = append(errs, fmt.Errorf("error file %s: %w", e.name(i), err))
			}
			e.files[i] = nil
		}
	}
	e.nopen = 0
	if e.log != nil {
		if err := e.log.Close(); err != nil {
			errs = append(errs, fmt.Errorf("error log: %w", err))
		}
		e.log = nil
	}
	return errors.Join(errs...)
}

// OneLine writes the control characters of a log line's text escaped, as
// Go writes them in a quoted string (\n, \r, \x1b, \u009b): the log
// gives each row one line (reloads match its lines to the rows by
// position), and a reason may quote input, such as a header name that
// holds a line break or an escape sequence, which must not act on the
// terminal of whoever reads the log. Names are quoted where messages are
// made (termsafe.Name); this catches what any other text brings.
func OneLine(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if !unicode.IsControl(r) {
			b.WriteRune(r)
			continue
		}
		q := strconv.QuoteRune(r)
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}

// Row is a rejected row as the error files write it.
type Row struct {
	Kind   string // how it left the pipeline: "parse error", "unknown", …
	Where  string // file:line[:column]
	Reason string
	// Raw is the record as read; Long, when set, streams a record too
	// long to hold in memory instead.
	Raw  []byte
	Long func() (io.ReadCloser, error)
	// Header says which error file the row goes to (FileFor).
	Header int
	// TS is the row's write timestamp, which the log records so that a
	// run loading the error file again stamps it alike; 0 for counter
	// updates, which take none.
	TS int64
}
