package loader

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

	"golang.org/x/text/encoding"
	"golang.org/x/text/transform"

	"github.com/cqlload/cqlload/csvparse"
	"github.com/cqlload/cqlload/internal/fsutil"
	"github.com/cqlload/cqlload/internal/redact"
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
	// header says which error file the row goes to (errFiles.fileFor).
	header int
	// idx is the record's index in its chunk, -1 when not known.
	idx int
	// ts is the row's write timestamp, which the log records so that a
	// run loading the error file again stamps it alike (stamps.go); 0
	// for counter updates, which take none.
	ts int64
}

// errFiles writes rejected rows to ERRFILE exactly as they were read, so
// the file loads again with the same command once fixed, and one line per
// row to ERRFILE.log saying where it came from, why, and which error file
// holds it. Input files whose headers differ get one error file each:
// ERRFILE for the first header, ERRFILE.2, ERRFILE.3, … for the others,
// each starting with its own header line, so no row is ever reloaded under
// another file's column order.
//
// The ledger is its only writer: a settled chunk's rows are appended with
// one write per file and synced before the checkpoint may name the chunk,
// so a line in an error file is always a whole record, whatever moment
// the process is killed at, and a resumed run can cut the files back to
// the lengths its checkpoint recorded.
type errFiles struct {
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
	// sync makes written bytes durable; os.File.Sync unless a test
	// injects a failure.
	sync func(*os.File) error
	// red masks secrets in the log's lines (nil: URL passwords alone).
	red *redact.Redactor

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

func newErrFiles(path string, d csvparse.Dialect) *errFiles {
	e := &errFiles{path: path, sync: (*os.File).Sync}
	e.enc, e.bom = d.TextEncoding()
	e.skipped = bytes.Repeat([]byte{d.Quote, d.Quote, '\n'}, d.SkipRows)
	return e
}

// encode converts decoded text to the input's encoding. Text decoded
// from it always encodes back; anything else becomes the encoding's
// replacement character rather than a lost row.
func (e *errFiles) encode(b []byte) []byte {
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
func (e *errFiles) name(i int) string {
	if i == 0 {
		return e.path
	}
	return e.path + "." + strconv.Itoa(i+1)
}

// fileFor returns the error file of a header line, adding one for a
// header not seen before. Called in read order, so numbering follows the
// order of the inputs and is the same on every run of the same inputs.
func (e *errFiles) fileFor(header string) int {
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

// numberedErrFile matches the suffix of ERRFILE.2, ERRFILE.3, …: never .0
// or .1, which are the error files of --split 0/N and 1/N of an ERRFILE
// without an extension (another load's files, with their own logs).
var numberedErrFile = regexp.MustCompile(`^\.([2-9]|[1-9][0-9]+)$`)

// keep renames the error files an earlier run left, as cqlsh does
// ("Renaming existing ERRFILE to ERRFILE.20241204_101500"): a fresh run
// neither appends to them nor loses the rows they hold, which nobody may
// have looked at yet (last night's rejected rows, when tonight's run
// starts fresh). Every file of the set (ERRFILE, its log, its numbered
// files) gets the same suffix, the time at, with _2, _3, … when a name
// is taken. It returns the new names.
func (e *errFiles) keep(at time.Time) ([]string, error) {
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
func (e *errFiles) numberedFiles() []string {
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
// leave alone (checkReplaceable refuses such paths before a run begins).
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

// restore cuts the error files back to what a checkpoint recorded: what
// was written after it belongs to chunks the resumed run does again.
// Files it does not list are removed. Headers are recorded with sizes, so
// the numbering carries over.
func (e *errFiles) restore(files []runlog.ErrFileState, logSize int64) error {
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
		if err := runlog.HoldsRecorded(f.Path, f.Bytes, fmt.Sprintf("%d rows", f.Rows), restoreErrFile); err != nil {
			return err
		}
	}
	if err := runlog.HoldsRecorded(e.path+".log", logSize, "the error files' log", restoreErrFile); err != nil {
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
func (e *errFiles) open(i int) (*os.File, error) {
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
func (e *errFiles) closeIdle(keep int) error {
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
		err := e.sync(f)
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
// left were moved aside (keep) or removed (restore), so anything at the
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

func (e *errFiles) openLog() (*os.File, error) {
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

// write appends rows to their error files and the log and syncs them:
// when it returns nil the rows are durable. Each file gets one write, so
// a killed process leaves whole lines. Records too long to hold in memory
// are streamed, the one exception.
func (e *errFiles) write(rows []reject) error {
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

func (e *errFiles) writeLocked(rows []reject) error {
	bufs := make([][]byte, len(e.headers))
	var log []byte
	touched := make([]bool, len(e.headers))
	for _, r := range rows {
		h := r.header
		touched[h] = true
		if r.long != nil {
			// Flush what came before, so the file keeps read order
			// within the chunk, then stream the record.
			if err := e.flushData(h, bufs[h]); err != nil {
				return err
			}
			bufs[h] = bufs[h][:0]
			if err := e.stream(h, r.long); err != nil {
				return err
			}
		} else {
			bufs[h] = append(append(bufs[h], r.raw...), '\n')
		}
		e.rows[h]++
		// Through the redactor: where names the input, whose URL may
		// hold a password, and a reason may quote a driver's message.
		log = fmt.Appendf(log, "%s: %s: %s", oneLine(e.red.String(r.where)), r.kind, oneLine(e.red.String(r.reason)))
		if r.ts != 0 {
			log = fmt.Appendf(log, " [write timestamp %d]", r.ts)
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
			if err := e.sync(e.files[h]); err != nil {
				return fmt.Errorf("error file %s: sync: %w", e.name(h), err)
			}
		}
	}
	if err := e.sync(lf); err != nil {
		return fmt.Errorf("error log: sync: %w", err)
	}
	return nil
}

func (e *errFiles) flushData(h int, b []byte) error {
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

func (e *errFiles) stream(h int, open func() (io.ReadCloser, error)) error {
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

// note appends a line to the log that concerns no single row, and syncs it.
func (e *errFiles) note(line string) error {
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
		err = e.sync(lf)
	}
	if err != nil {
		// As in write: the log's recorded length stays at its last
		// whole line, and nothing more is written after it.
		e.err = fmt.Errorf("error log: %w", err)
		return e.err
	}
	e.logSize += int64(n)
	return nil
}

// state returns what a checkpoint records: every error file's length.
// The caller holds the ledger's lock, so no write is under way.
func (e *errFiles) state() ([]runlog.ErrFileState, int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]runlog.ErrFileState, len(e.headers))
	for i := range e.headers {
		out[i] = runlog.ErrFileState{Path: e.name(i), Header: e.headers[i], Bytes: e.sizes[i], Rows: e.rows[i]}
	}
	return out, e.logSize
}

// used lists the error files that hold rows.
func (e *errFiles) used() []string {
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

func (e *errFiles) close() error {
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

// oneLine writes the control characters of a log line's text escaped, as
// Go writes them in a quoted string (\n, \r, \x1b, \u009b): the log
// gives each row one line (reloads match its lines to the rows by
// position), and a reason may quote input, such as a header name that
// holds a line break or an escape sequence, which must not act on the
// terminal of whoever reads the log. Names are quoted where messages are
// made (termsafe.Name); this catches what any other text brings.
func oneLine(s string) string {
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
