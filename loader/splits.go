package loader

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/cqlload/cqlload/csvparse"
	"github.com/cqlload/cqlload/source"
	"github.com/cqlload/cqlload/split"
)

// splitSources narrows the inputs to split SplitIndex of SplitCount
// (--split I/N): package split deals the files, and byte ranges of the
// uncompressed ones larger than SplitSize, to the splits by their sizes
// alone, and csvparse.FindRecordStart moves each range's ends to record
// starts, so that N processes given the same inputs load every record
// exactly once.
//
// A range that does not begin the file is a source of its own, named
// FILE@OFFSET, whose line numbers count from the range's start; with
// HEADER it is read after the file's header line, so that it maps columns
// by name as the file's first range does. Files are not cut when SKIPROWS
// or MAXROWS is given (they count a file's records from its start), nor
// when the encoding or compression rules it out.
func splitSources(objects []source.Object, o *Options) (sources []csvparse.Source, searched int64, err error) {
	spans, searched, err := splitSpans(objects, o)
	return spanSources(spans), searched, err
}

// spanSources is the sources that read spans, in order.
func spanSources(spans []span) []csvparse.Source {
	sources := make([]csvparse.Source, len(spans))
	for i, sp := range spans {
		sources[i] = sp.src
	}
	return sources
}

// span is what a source of the run reads: the bytes [from, end) of obj,
// from a record's start, up to the first record that begins at or after
// end (Source.Until); all of it for a whole file.
type span struct {
	src       csvparse.Source
	obj       source.Object
	from, end int64
}

// splitSpans is splitSources with each source's span.
func splitSpans(objects []source.Object, o *Options) (spans []span, searched int64, err error) {
	if o.SplitCount <= 1 {
		for _, obj := range objects {
			spans = append(spans, span{src: obj.Source, obj: obj, end: obj.Size})
		}
		return spans, 0, nil
	}
	byName, plan, closeFiles, err := layoutSplits(objects, o)
	defer closeFiles()
	if err != nil {
		return nil, 0, err
	}
	startsOf := func(obj source.Object) startFinder { return searchStarts(obj, o.Dialect) }
	if o.SplitPlan != "" {
		p, err := readSplitPlan(o.SplitPlan, objects, o)
		if err != nil {
			return nil, 0, err
		}
		startsOf = func(obj source.Object) startFinder { return p.finder(obj, o.Dialect) }
	}
	// The spans keep the objects as given: byName's read the files
	// through handles closed on return.
	given := map[string]source.Object{}
	for _, obj := range objects {
		given[obj.Name] = obj
	}
	for _, u := range split.Merge(plan[o.SplitIndex]) {
		obj := byName[u.Name]
		if wholeUnit(u, obj) {
			spans = append(spans, span{src: obj.Source, obj: given[u.Name], end: obj.Size})
			continue
		}
		starts := startsOf(obj)
		r, from, err := rangeSource(obj, u.Start, u.End, o.Dialect, starts, "--split")
		searched += starts.Searched()
		if err != nil {
			return nil, 0, err
		}
		if r.Size > 0 || u.Start == 0 {
			spans = append(spans, span{src: r, obj: given[u.Name], from: from, end: u.End})
		}
	}
	return spans, searched, nil
}

// layoutSplits checks that objects can be split and deals them to the
// splits (package split): every split's units, and the objects by name.
// closeFiles closes the local files it opened for the searches' reads;
// call it when they are done, even after an error.
func layoutSplits(objects []source.Object, o *Options) (byName map[string]source.Object, plan [][]split.Unit, closeFiles func(), err error) {
	var opened []*os.File
	closeFiles = func() {
		for _, f := range opened {
			f.Close()
		}
	}
	files := make([]split.File, len(objects))
	byName = map[string]source.Object{}
	for i, obj := range objects {
		if !source.IsURL(obj.Name) && obj.ReaderAt != nil {
			// A local file: one handle for the boundary search's many
			// reads, rather than an open per read.
			if f, err := os.Open(obj.Name); err == nil {
				opened = append(opened, f)
				obj.ReaderAt = f
			}
		}
		if obj.Size < 0 || obj.ReaderAt == nil {
			return nil, nil, closeFiles, &SplitError{Reason: obj.Name + " is a stream, which only one process can read"}
		}
		byName[obj.Name] = obj
		ok, err := rangeable(obj, o)
		if err != nil {
			return nil, nil, closeFiles, err
		}
		files[i] = split.File{Name: obj.Name, Size: obj.Size, Splittable: ok}
	}
	plan, err = split.Plan(files, o.SplitCount, o.SplitSize)
	if err != nil {
		return nil, nil, closeFiles, &SplitError{Reason: err.Error()}
	}
	return byName, plan, closeFiles, nil
}

// wholeUnit says whether u is all of obj, read as the file is rather
// than as a range.
func wholeUnit(u split.Unit, obj source.Object) bool {
	return u.Whole || u.Start == 0 && u.End >= obj.Size
}

// startFinder finds, in one file, the first record that begins at or
// after an offset (csvparse.FindRecordStart), and counts the bytes it
// read to do so.
type startFinder interface {
	At(off int64) (int64, error)
	Searched() int64
}

// searchStarts finds record starts in obj by searching it.
func searchStarts(obj source.Object, d csvparse.Dialect) *csvparse.RecordStarts {
	starts := csvparse.NewRecordStarts(obj.ReaderAt, obj.Size, d)
	// A long scan for quotes streams the file in a few requests (for a
	// local file, opens) rather than one read per MiB.
	starts.OpenRange = obj.OpenRange
	return starts
}

// sourcesOf is the objects as the Splitter reads them, whole.
func sourcesOf(objects []source.Object) []csvparse.Source {
	out := make([]csvparse.Source, len(objects))
	for i, obj := range objects {
		out[i] = obj.Source
	}
	return out
}

// rangeable says whether obj may be cut into byte ranges: of known size,
// uncompressed, in an encoding that can be cut, with no option that
// counts records from the file's start.
func rangeable(obj source.Object, o *Options) (bool, error) {
	if obj.Size <= 0 || o.Dialect.SkipRows > 0 || o.Dialect.MaxRows >= 0 {
		return false, nil
	}
	ok, err := csvparse.SplittableFile(obj.Name, obj.ReaderAt, obj.Size, o.Dialect)
	if err != nil {
		return false, fmt.Errorf("--split: %s: %w", obj.Name, err)
	}
	return ok, nil
}

// rangeSource is the part of obj whose records begin in [start, end),
// its ends moved to record starts by starts, and the offset its first
// record begins at. It has Size 0 when no record begins in the range. Its
// errors begin with what, the option that cut the file.
func rangeSource(obj source.Object, start, end int64, d csvparse.Dialect, starts startFinder, what string) (src csvparse.Source, from int64, err error) {
	boundary := func(off int64) (int64, error) {
		p, err := starts.At(off)
		if err != nil {
			return 0, fmt.Errorf("%s: %s: %w", what, obj.Name, err)
		}
		return p, nil
	}
	from, err = boundary(start)
	if err != nil {
		return csvparse.Source{}, 0, err
	}
	// The range ends where the first record that begins at or after end
	// begins. In UTF-8 the Splitter stops there as it parses (Until): a
	// search would read the range once more before the load reads it,
	// in a file without quotes the whole range, from object storage a
	// second download of it. A transcoded file counts decoded bytes, so
	// its end is searched for (the search shares what the first one
	// proved free of quotes).
	// until is Source.Until for a stream that starts at from (0 when the
	// end was searched for); open streams the range from off.
	until, size := end-from, end-start
	open := func(off int64) (io.ReadCloser, error) { return openThrough(obj, off, end+endSlack) }
	if !csvparse.RawOffsets(d) {
		to, err := boundary(end)
		if err != nil {
			return csvparse.Source{}, 0, err
		}
		until, size = 0, to-from
		open = func(off int64) (io.ReadCloser, error) { return obj.OpenRange(off, to-off) }
	} else if from >= end {
		size = 0 // the record that straddles start runs past end
	}
	if start == 0 {
		// The file's first range: read as the file is, header and all.
		return csvparse.Source{Name: obj.Name, Size: size, Until: until, Open: func() (io.ReadCloser, error) {
			return open(0)
		}}, from, nil
	}
	if size == 0 {
		return csvparse.Source{Name: obj.Name}, from, nil
	}
	var header []byte
	if d.Header {
		// The header is the file's first record, after any BOM and
		// blank lines: up to where the second one begins.
		h, err := csvparse.HeaderEnd(obj.ReaderAt, obj.Size, d)
		if err != nil {
			return csvparse.Source{}, 0, fmt.Errorf("%s: %s: header: %w", what, obj.Name, err)
		}
		header = make([]byte, h)
		if _, err := obj.ReaderAt.ReadAt(header, 0); err != nil && !(errors.Is(err, io.EOF) && h == obj.Size) {
			return csvparse.Source{}, 0, fmt.Errorf("%s: %s: header: %w", what, obj.Name, err)
		}
	}
	if until > 0 {
		until += int64(len(header)) // Until counts the stream's bytes
	}
	// Without a header the stream starts inside the file, where EF BB BF
	// is data (a record's U+FEFF), not a BOM; with one it starts with the
	// file's first bytes, whose BOM the Splitter strips as it would the
	// file's.
	return csvparse.Source{Name: fmt.Sprintf("%s@%d", obj.Name, from), Size: size, Continues: len(header) == 0,
		HeaderBytes: int64(len(header)), Until: until, Open: func() (io.ReadCloser, error) {
			rc, err := open(from)
			if err != nil {
				return nil, err
			}
			return struct {
				io.Reader
				io.Closer
			}{io.MultiReader(bytes.NewReader(header), rc), rc}, nil
		}}, from, nil
}

// endSlack is how far past a range's planned end the first request for
// it reaches (openThrough): the record that straddles the end is in it
// unless it is longer than that.
const endSlack = 1 << 20

// openThrough streams obj from off to its end in at most two requests:
// [off, through) first, and the rest only if the reader goes on past
// it. A range that ends where it is parsed stops a record past its
// planned end; asking for all the rest of an object at once would have
// the store send more than that (as much as the connection buffers)
// before the reader closes it.
func openThrough(obj source.Object, off, through int64) (io.ReadCloser, error) {
	if through >= obj.Size {
		return obj.OpenRange(off, -1)
	}
	rc, err := obj.OpenRange(off, through-off)
	if err != nil {
		return nil, err
	}
	return &twoRequests{obj: obj, rc: rc, pos: off, through: through}, nil
}

// twoRequests reads [pos, through) from rc, then opens the rest.
type twoRequests struct {
	obj          source.Object
	rc           io.ReadCloser
	pos, through int64
	rest         bool // rc is the second request
}

func (t *twoRequests) Read(p []byte) (int, error) {
	if t.rc == nil {
		return 0, fmt.Errorf("%s: read after a failed request at byte %d", t.obj.Name, t.pos)
	}
	n, err := t.rc.Read(p)
	t.pos += int64(n)
	if err != io.EOF || t.rest {
		return n, err
	}
	if t.pos < t.through {
		return n, fmt.Errorf("%s: ended at byte %d, before %d: %w", t.obj.Name, t.pos, t.through, io.ErrUnexpectedEOF)
	}
	first := t.rc
	t.rc, t.rest = nil, true
	if err := first.Close(); err != nil {
		return n, err
	}
	if t.rc, err = t.obj.OpenRange(t.pos, -1); err != nil {
		return n, err
	}
	if n == 0 {
		return t.Read(p)
	}
	return n, nil
}

func (t *twoRequests) Close() error {
	if t.rc == nil {
		return nil
	}
	return t.rc.Close()
}

// SplitOf is the split a run loaded: Index of Count, of the load Load
// identifies.
type SplitOf struct {
	Index int `json:"index"`
	Count int `json:"count"`
	// Load identifies the load the splits share: a hash of the inputs'
	// names and sizes and of the options that cut them into splits and
	// rows (not of the split's index, nor of its error file's name).
	Load string `json:"load"`
	// Files is the number of input files of the whole load; the split's
	// summary's own count is of the files it read a part of.
	Files int `json:"files"`
}

// splitOf is the SplitOf of a --split run over objects; nil without one.
func splitOf(objects []source.Object, o *Options) *SplitOf {
	if o.SplitCount <= 1 {
		return nil
	}
	h := sha256.New()
	fmt.Fprintf(h, "%d\n", o.SplitCount)
	// In name order, as package split deals them: the order given does
	// not change the load.
	byName := slices.SortedFunc(slices.Values(objects), func(a, b source.Object) int { return strings.Compare(a.Name, b.Name) })
	for _, obj := range byName {
		fmt.Fprintf(h, "%q %d\n", obj.Name, obj.Size)
	}
	shape := shapeOptions(o, MaxChunkBytes)
	delete(shape, "split")
	delete(shape, "errfile")
	for _, k := range slices.Sorted(maps.Keys(shape)) {
		fmt.Fprintf(h, "%s=%q\n", k, shape[k])
	}
	return &SplitOf{Index: o.SplitIndex, Count: o.SplitCount, Load: hex.EncodeToString(h.Sum(nil)[:8]), Files: len(objects)}
}
