package runlog

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cqlload/cqlload/internal/fsutil"
	"github.com/cqlload/cqlload/internal/wholefile"
	"github.com/cqlload/cqlload/source"
)

// A checkpoint (--resume FILE) lets a scheduled job that was stopped — a
// limit crossed, the cluster gone, a signal, kill -9 — pick up exactly
// where it left off. The loader's ledger writes it; this file holds its
// format and the decision a run takes when it finds one.
//
// It names the settled chunks (every row written, rejected into an error
// file, or skipped) and the error files' lengths at that moment. Settling
// writes and syncs a chunk's error-file rows before the chunk can appear
// in a checkpoint, so a resumed run that cuts the error files back to the
// recorded lengths and skips the settled chunks neither loses a rejected
// row nor writes one twice. Chunk boundaries depend only on the inputs
// and the options that shape chunks, which the file records.
type Checkpoint struct {
	Version  int               `json:"version"`
	Inputs   []Input           `json:"inputs"`
	Options  map[string]string `json:"options"`
	Complete bool              `json:"complete"`
	// Settled lists the settled chunks as [from, to) ranges of sequence
	// numbers, in order.
	Settled  [][2]int64 `json:"settled"`
	RowsDone int64      `json:"rows_done"` // rows in settled chunks, for people reading the file
	// InDoubt lists counter-table chunks that had batches sent but were
	// not settled: their rows not known to be acknowledged may have been
	// applied, so a resumed run reports them unknown instead of counting
	// them again.
	InDoubt []InDoubt `json:"in_doubt,omitempty"`
	// JournalBytes is how long the counter journal (FILE.sent) was known
	// to be: a resumed run refuses one that is shorter or gone, since it
	// could not tell the updates sent from those never sent.
	JournalBytes int64 `json:"counter_journal_bytes,omitempty"`
	// TimestampBase is the first run's start in microseconds, which write
	// timestamps count from (the loader's tsBase); resumed runs keep it. 0 in
	// checkpoints older than it.
	TimestampBase int64 `json:"timestamp_base,omitempty"`
	// SentBelow: no row of a chunk numbered SentBelow or more had been
	// sent (the ledger records it before sending past it, see
	// the loader's ledger.sendingInsert). A resumed run reports a row of an unsettled
	// chunk below it that the cluster refuses as unknown, not as an
	// insert error: the stopped run may have written it. Absent (nil) in
	// checkpoints older than it, which so may hold any chunk.
	SentBelow *int64         `json:"sent_below,omitempty"`
	ErrFiles  []ErrFileState `json:"error_files"`
	LogBytes  int64          `json:"error_log_bytes"`
	Saved     time.Time      `json:"saved"`
}

const Version = 2

// InDoubt is a counter chunk that had updates in flight.
type InDoubt struct {
	Seq int64 `json:"seq"`
	// Acked is a hex Bitmap of the chunk's record indexes whose update
	// the cluster acknowledged; Sendable of those proved not applied
	// (never sent, or refused). The others may have been applied.
	Acked    string `json:"acked"`
	Sendable string `json:"sendable"`
	// Sent: the records whose update had been sent, from the counter
	// journal; a record outside it was never sent, so may be.
	Sent string `json:"sent"`
}

// Input identifies an input file's content well enough to tell last
// night's file from tonight's, without reading all of it.
type Input struct {
	Path  string    `json:"path"`
	Size  int64     `json:"size"`
	MTime time.Time `json:"mtime"`
	// Hash is SHA-256 over the first and last 64 KiB.
	Hash string `json:"hash"`
	// Version is an object's version in its store (S3's ETag): an
	// object rewritten with the same size and edges has another.
	Version string `json:"version,omitempty"`
}

// Identify computes the inputs' identities. Inputs that can be read only
// once (stdin, a pipe) cannot be resumed: a second run would see other
// rows under the same chunk numbers.
func Identify(objects []source.Object) ([]Input, error) {
	out := make([]Input, 0, len(objects))
	for _, obj := range objects {
		if obj.Size < 0 {
			return nil, &RefusedError{Reason: fmt.Sprintf("%s is a stream (standard input or a pipe): a run reading it cannot be resumed, because a second run would read other rows; drop --resume, or save the stream to a file and load that", obj.Name)}
		}
		id, err := IdentifyOne(obj)
		if err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, nil
}

// IdentifyOne identifies a local file (named by its path or a file URL)
// by its absolute path, size, modification time and edges, an object in
// storage by its URL, size and edges, read at their offsets (two small
// ranged requests).
func IdentifyOne(obj source.Object) (Input, error) {
	local, ok := source.LocalPath(obj.Name)
	if !ok {
		if obj.ReaderAt == nil {
			return Input{}, &RefusedError{Reason: fmt.Sprintf("%s cannot be read at an offset: it cannot be resumed", obj.Name)}
		}
		id, err := identifyAt(obj.Name, obj.ReaderAt, obj.Size)
		id.Version = obj.Version
		return id, err
	}
	// A file URL is the file: named either way, it is the same input.
	f, err := os.Open(local)
	if err != nil {
		return Input{}, fmt.Errorf("resume: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Input{}, fmt.Errorf("resume: %s: %w", obj.Name, err)
	}
	if !st.Mode().IsRegular() {
		return Input{}, &RefusedError{Reason: fmt.Sprintf("%s is not a file: it cannot be resumed", obj.Name)}
	}
	id, err := identifyAt(fsutil.Abs(local), f, st.Size())
	id.MTime = st.ModTime().UTC()
	return id, err
}

// identifyAt identifies an object in storage by its name, size and the
// SHA-256 of its first and last 64 KiB, read at their offsets.
func identifyAt(name string, ra io.ReaderAt, size int64) (Input, error) {
	const edge = 64 << 10
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(ra, 0, min(edge, size))); err != nil {
		return Input{}, fmt.Errorf("resume: %s: %w", name, err)
	}
	if size > edge {
		from := max(edge, size-edge)
		if _, err := io.Copy(h, io.NewSectionReader(ra, from, size-from)); err != nil {
			return Input{}, fmt.Errorf("resume: %s: %w", name, err)
		}
	}
	return Input{Path: name, Size: size, Hash: hex.EncodeToString(h.Sum(nil)[:16])}, nil
}

// Action is what a run does about its checkpoint.
type Action int

const (
	StartFresh  Action = iota // no usable checkpoint: load everything
	NothingToDo               // a completed run of the same inputs
	Resume                    // skip what the checkpoint settled
)

// Decide reads the checkpoint at path and says what to do.
func Decide(path string, ids []Input, opts map[string]string) (Action, *Checkpoint, error) {
	b, err := wholefile.Read(path, "checkpoint", wholefile.MaxState)
	if errors.Is(err, fs.ErrNotExist) {
		return StartFresh, nil, nil
	}
	if err != nil {
		return 0, nil, fmt.Errorf("resume: %w", err)
	}
	var f Checkpoint
	err = json.Unmarshal(b, &f)
	if err == nil && f.Version == 0 {
		err = errors.New("no format version") // JSON, but another program's
	}
	if err != nil {
		// Not "remove it": it may be a file of the user's given by
		// mistake.
		return 0, nil, &RefusedError{Reason: fmt.Sprintf("%s is not a cqlload checkpoint (%v): give --resume the path of a checkpoint, or of a file that does not exist yet (if it is a damaged checkpoint, remove it to start over)", path, err)}
	}
	if f.Version != Version {
		return 0, nil, &RefusedError{Reason: fmt.Sprintf("%s was written by another version of cqlload (format %d, this one reads %d): remove it to start over", path, f.Version, Version)}
	}
	inputs, options := Diff(f.Inputs, ids, nil, nil), Diff(nil, nil, f.Options, opts)
	diff := inputs
	if inputs != "" && options != "" {
		diff += "; "
	}
	diff += options
	switch {
	case !f.Complete && f.empty() && (inputs != "" || f.sentNothing()):
		// A run that stopped before anything settled (the cluster was
		// down that night): nothing to resume, whatever its input was.
		// (With the same input, rows it sent may be in the table: they
		// are resumed, so that a refusal of one is not called failed,
		// or, with other options, refused below like any unfinished run.)
		return StartFresh, nil, nil
	case f.Complete && !sameFiles(f.Inputs, ids):
		// The nightly case: yesterday's run finished, today's input is new.
		return StartFresh, nil, nil
	case f.Complete && options == "":
		// The same files, in any order.
		return NothingToDo, &f, nil
	case f.Complete:
		// The same input, loaded already: another split of it, or the
		// same rows in other chunks (CHUNKSIZE), would be written twice,
		// which a counter table keeps.
		return 0, nil, &RefusedError{Reason: fmt.Sprintf("%s records a finished load of this same input with other options (%s): this run would load its rows again. Run with the options it records to check it, or remove %s (or give --resume another path) to load the input again", path, options, path)}
	case diff == "":
		return Resume, &f, nil
	}
	return 0, nil, &RefusedError{Reason: fmt.Sprintf("%s records an unfinished run of other input or options (%s): run with the same input and options to finish it, or remove %s to start over", path, diff, path)}
}

// sameFiles says a and b Identify the same files, whatever their order.
// (A run resumes chunk by chunk, so an unfinished run needs them in the
// same order; a finished one was a load of the set.)
func sameFiles(a, b []Input) bool {
	byPath := func(x, y Input) int { return strings.Compare(x.Path, y.Path) }
	return Diff(slices.SortedFunc(slices.Values(a), byPath), slices.SortedFunc(slices.Values(b), byPath), nil, nil) == ""
}

// empty says the checkpoint records no progress at all: no chunk
// settled, none in doubt, no rejected row.
func (f *Checkpoint) empty() bool {
	for _, e := range f.ErrFiles {
		if e.Rows > 0 {
			return false
		}
	}
	return len(f.Settled) == 0 && len(f.InDoubt) == 0 && f.LogBytes == 0
}

// sentNothing says the checkpoint records that no row was sent.
func (f *Checkpoint) sentNothing() bool { return f.SentBelow != nil && *f.SentBelow == 0 }

// Diff names what differs between a checkpoint and this run; ""
// when nothing does.
func Diff(was, now []Input, wasOpts, nowOpts map[string]string) string {
	var d []string
	if len(was) != len(now) {
		d = append(d, fmt.Sprintf("%d input files, now %d", len(was), len(now)))
	} else {
		for i := range was {
			a, b := was[i], now[i]
			switch {
			case a.Path != b.Path:
				d = append(d, fmt.Sprintf("input %d was %s, now %s", i+1, a.Path, b.Path))
			case a.Size != b.Size:
				d = append(d, fmt.Sprintf("%s was %d bytes, now %d", a.Path, a.Size, b.Size))
			case a.Hash != b.Hash:
				d = append(d, fmt.Sprintf("%s has other content", a.Path))
			case a.Version != "" && a.Version != b.Version:
				// (A checkpoint written before versions were recorded
				// has none to compare.)
				d = append(d, fmt.Sprintf("%s has other content (version %s, now %s)", a.Path, a.Version, b.Version))
			case !a.MTime.Equal(b.MTime):
				d = append(d, fmt.Sprintf("%s was modified (%s, now %s)", a.Path, a.MTime.Format(time.RFC3339), b.MTime.Format(time.RFC3339)))
			}
		}
	}
	keys := make([]string, 0, len(nowOpts))
	for k := range nowOpts {
		keys = append(keys, k)
	}
	for k := range wasOpts {
		if _, ok := nowOpts[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == "splitplan" && (wasOpts[k] == "" || nowOpts[k] == "") {
			continue // a run with --split and one without: "split" says it
		}
		if wasOpts[k] != nowOpts[k] {
			d = append(d, fmt.Sprintf("option %s was %q, now %q", k, wasOpts[k], nowOpts[k]))
		}
	}
	return strings.Join(d, "; ")
}

// Save replaces the checkpoint at path atomically (wholefile.Write, with
// sync), so that a crash leaves either the old checkpoint or the new one,
// whole.
func (f *Checkpoint) Save(path string, sync func(*os.File) error) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := wholefile.Write(path, append(b, '\n'), sync, 0o600); err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return nil
}

// HoldsRecorded checks that the file at p (an error file, the counter
// journal) is at least the size a checkpoint recorded for it; what
// follows is the stopped run's, which the resumed one cuts or ignores.
// what says what those bytes are, remedy what the user can do.
func HoldsRecorded(p string, size int64, what, remedy string) error {
	if size == 0 {
		return nil
	}
	st, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &RefusedError{Reason: fmt.Sprintf("%s is gone, but the checkpoint records %s in it (%d bytes): %s", p, what, size, remedy)}
	case err != nil:
		return fmt.Errorf("resume: %w", err)
	case st.Size() < size:
		return &RefusedError{Reason: fmt.Sprintf("%s holds %d bytes, fewer than the %d of %s the checkpoint records: %s", p, st.Size(), size, what, remedy)}
	}
	// Every write ends a line, so the recorded length ends one (a line
	// feed, in UTF-16LE followed by its zero byte). Where it does not,
	// the file was edited since (rows mended before the run finished) or
	// is another one: cut back there, it would lose rows and tear one.
	f, err := os.Open(p)
	if err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	defer f.Close()
	var end [2]byte
	n, _ := f.ReadAt(end[2-min(size, 2):], size-min(size, 2))
	if n < int(min(size, 2)) || end[1] != '\n' && (end[0] != '\n' || end[1] != 0) {
		return &RefusedError{Reason: fmt.Sprintf("%s has changed since the checkpoint recorded %s in it: its byte %d no longer ends a line (edited before the run finished, or another run's file of that name); finish the load with the file as it was, or remove the checkpoint to start over", p, what, size)}
	}
	return nil
}

// ErrFileState is what a checkpoint records of one error file.
type ErrFileState struct {
	Path   string `json:"path"`
	Header string `json:"header"`
	Bytes  int64  `json:"bytes"`
	Rows   int64  `json:"rows"`
}

// Ranges is the chunks a checkpoint names as settled.
type Ranges [][2]int64

// Has says whether chunk seq is in the set.
func (s Ranges) Has(seq int64) bool {
	i := sort.Search(len(s), func(i int) bool { return s[i][1] > seq })
	return i < len(s) && s[i][0] <= seq
}

// RangesOf turns a sorted list of sequence numbers into [from, to) ranges.
func RangesOf(seqs []int64) [][2]int64 {
	var out [][2]int64
	for _, s := range seqs {
		if n := len(out); n > 0 && out[n-1][1] == s {
			out[n-1][1]++
			continue
		}
		out = append(out, [2]int64{s, s + 1})
	}
	return out
}

// Bitmap is a set of record indexes within a chunk.
type Bitmap []uint64

// Set adds i, which must fit in b's words.
func (b Bitmap) Set(i int) { b[i/64] |= 1 << (i % 64) }

// Has says whether i is in b.
func (b Bitmap) Has(i int) bool { return i/64 < len(b) && b[i/64]&(1<<(i%64)) != 0 }

// Clear removes i.
func (b Bitmap) Clear(i int) {
	if i/64 < len(b) {
		b[i/64] &^= 1 << (i % 64)
	}
}

// String is b's words in hexadecimal, as the checkpoint records them.
func (b Bitmap) String() string {
	out := make([]byte, 0, len(b)*16)
	for _, w := range b {
		out = strconv.AppendUint(out, w, 16)
		out = append(out, ' ')
	}
	return strings.TrimSpace(string(out))
}

// ParseBitmap reads what String wrote.
func ParseBitmap(s string) (Bitmap, error) {
	var b Bitmap
	for _, f := range strings.Fields(s) {
		w, err := strconv.ParseUint(f, 16, 64)
		if err != nil {
			return nil, fmt.Errorf("bad Bitmap word %q", f)
		}
		b = append(b, w)
	}
	return b, nil
}
