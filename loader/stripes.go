package loader

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/cqlload/cqlload/csvparse"
	"github.com/cqlload/cqlload/source"
)

// Stripes: a file read from its start to its end hands its rows out in
// the file's order. A full-table export is in token order, so every
// stretch of it belongs to one replica set, and one node works while
// the others wait. Cut into stripes read at once (the Splitter's
// Interleave), a file hands out rows of Readers places in it, and so of
// as many parts of the ring.
//
// Rows keep their place in the input: write timestamps count records
// from the load's start (Loader.tsBase + ordinal), so that of two rows
// with one key the later wins, whichever stripe read it first. A stripe
// must so know how many records come before it before any of its rows is
// converted. A first pass cuts every input into records (the Splitter's
// own cutting, without parsing fields) and records, at the first record
// past each planned stripe start, its offset, line and ordinal: the
// stripes start exactly there, their lines are the file's, and their
// ordinals those of a reading from start to end. The pass reads the
// input once more (from the page cache, for a file just written), at the
// Splitter's speed, about 1 GB/s of plain narrow rows.
//
// A compressed file in parts that decompress on their own (bgzip's
// blocks, zstd frames: csvparse.Multipart) is striped too, in its text:
// the first pass decompresses it and the Splitter says where each part
// begins (Splitter.Parts), in the file and in the text; a stripe starts
// at the first record past its planned place in the file, and is read by
// decompressing from the part that holds that record and dropping the
// text before it. A file of one gzip member or one zstd frame can only
// be read from its start.
//
// A load is striped only when every input can be read at any offset and
// counted: a known size, UTF-8 (offsets are the file's bytes, or its
// text's), no SKIPROWS or MAXROWS (cut files whole for --split too), not
// --repeat, or error files with recorded write timestamps as input.
// Anything else is read in order, as with --readers 1. A --split process
// stripes its own ranges (spans) as a run stripes whole files: their
// ordinals count from the split's start, as a split's always have.

// DefaultReaders is how many stripes are read at once by default: twice
// the nodes of a six-node cluster, each stripe at one replica set at a
// time.
const DefaultReaders = 12

// stripeChunkBytes caps a chunk's input when the inputs are read as
// stripes. Each stripe being read holds a block of two chunks, and the
// chunks in flight come from as many blocks as stripes, where read in
// order they share them: at MaxChunkBytes, 12 stripes raised a narrow
// load's peak RSS from 39 to 53 MiB.
const stripeChunkBytes = MaxChunkBytes / 2

// partsVerifyBuffer is the verify buffer of the first pass over a
// multipart file, which only counts its records: bgzip's blocks (64 KiB
// at most) fit it; a larger zstd frame is streamed, and if it is damaged
// the load reads the file in order and says so.
const partsVerifyBuffer = 128 << 10

// DefaultStripeSize is the smallest stripe by default: a file smaller
// than two is read whole. Each stripe read at once holds a block of
// input, and the first pass costs the same whatever the size.
const DefaultStripeSize = 4 << 20

// stripes is the striped load: its sources and, for each, the records of
// the load before its first (the ordinal of its first record).
type stripes struct {
	sources []csvparse.Source
	bases   []int64
	// first holds, for each source, the index of its file's first
	// stripe: what is said once per file (a header that does not fit)
	// is said once.
	first []int
	// counted is the CPU time of counting the records first.
	counted time.Duration
}

// chunkBytes caps a chunk's input: stripeChunkBytes for a striped load
// (st not nil), else MaxChunkBytes.
func (st *stripes) chunkBytes() int {
	if st == nil {
		return MaxChunkBytes
	}
	return stripeChunkBytes
}

// stripeSources cuts the run's spans (whole files, or a --split's
// ranges of them) into stripes, or returns nil when the load is read in
// order.
func stripeSources(spans []span, o *Options, stamped bool) (*stripes, error) {
	if o.Readers <= 1 || o.Repeat > 1 || stamped || !csvparse.RawOffsets(o.Dialect) {
		return nil, nil
	}
	minStripe := o.StripeSize
	cut := make([]cutBy, len(spans))
	anyCut := false
	for i, sp := range spans {
		obj := sp.obj
		if obj.Size < 0 || obj.ReaderAt == nil || obj.OpenRange == nil {
			return nil, nil // a stream: its records cannot be counted ahead
		}
		if sp.end-sp.from < 2*minStripe {
			continue
		}
		if o.Dialect.SkipRows > 0 || o.Dialect.MaxRows >= 0 {
			return nil, nil // counted from the file's start
		}
		by := byOffset
		ok, err := rangeable(obj, o)
		if err == nil && !ok && sp.from == 0 && sp.end == obj.Size {
			by = byParts
			ok, err = csvparse.Multipart(obj.Name, obj.ReaderAt, obj.Size)
		}
		if err != nil {
			// An unreadable file fails in the load, where it is
			// reported.
			return nil, nil
		}
		if ok {
			cut[i], anyCut = by, true
		}
	}
	if !anyCut {
		return nil, nil
	}
	st := &stripes{}
	var before int64 // records of the load before the current span
	for i, sp := range spans {
		k := 1
		if cut[i] != whole {
			k = int(min(int64(o.Readers), (sp.end-sp.from)/minStripe))
		}
		c, err := countRecords(sp, o, k, cut[i] == byParts)
		if err != nil {
			// The load reads the input in order and reports what is
			// wrong with it, where a pass ahead has nobody to tell.
			return nil, nil
		}
		starts, records := c.starts, c.records
		first := len(st.sources)
		if len(starts) == 1 {
			st.sources = append(st.sources, sp.src)
			st.bases = append(st.bases, before)
			st.first = append(st.first, first)
			before += records
			continue
		}
		for _, j := range spread(len(starts)) {
			s := starts[j]
			var r csvparse.Source
			switch {
			case cut[i] == byParts:
				r = partSource(sp.obj, starts, j, c)
			default:
				end := sp.end
				if j+1 < len(starts) {
					end = starts[j+1].offset
				}
				if r, _, err = rangeSource(sp.obj, s.offset, end, o.Dialect, exactStarts{}, "--readers"); err != nil {
					return nil, err
				}
			}
			// The span's own name and line numbers (the file's, or a
			// --split range's): the stripes' rows are reported as a
			// reading in order reports them.
			r.Name, r.FirstLine, r.Listed = sp.src.Name, s.line, sp.src.Listed
			st.sources = append(st.sources, r)
			st.bases = append(st.bases, before+s.ordinal)
			st.first = append(st.first, first)
		}
		before += records
	}
	return st, nil
}

// cutBy is how a span is read: whole, in stripes at file offsets, or
// in stripes of its text from the parts of a Multipart file.
type cutBy int

const (
	whole cutBy = iota
	byOffset
	byParts
)

// stripeStart is where a stripe begins: a record's offset in the file
// (in its text, for a file read by parts), its line as its span counts
// lines, and the span's records before it; for a file read by parts,
// where the part that holds the record begins, in the file and in the
// text.
type stripeStart struct {
	offset, line, ordinal int64
	part, partText        int64
}

// counted is what the first pass learns of a span.
type counted struct {
	// starts are at most k stripes' starts, the first at the span's.
	starts  []stripeStart
	records int64
	// Of a file read by parts: the length of its text, and its header
	// (the text before its first record) when it has one.
	textEnd int64
	header  []byte
}

// countRecords cuts sp into records as the load will, and returns the
// starts of at most k stripes of about equal size in the file, the
// span's record count and, when byParts, what a stripe of its text needs
// besides.
func countRecords(sp span, o *Options, k int, byParts bool) (counted, error) {
	// Chunks of at most a sixteenth of a stripe place each start within
	// that of its plan.
	stripe := (sp.end - sp.from) / int64(k)
	s := csvparse.NewSplitter([]csvparse.Source{sp.src}, o.Dialect, csvparse.DefaultChunkRecords, int(min(MaxChunkBytes, max(stripe/16, 1024))))
	defer s.Close()
	s.KeepTooLong = 0 // a record over MaxRecordBytes is only counted
	s.FlushInterval = 0
	// The parts not yet behind the chunk being counted: the first holds
	// its first record.
	var parts [][2]int64
	if byParts {
		s.Parts = func(_ int, c, u int64) { parts = append(parts, [2]int64{c, u}) }
		s.VerifyBuffer = partsVerifyBuffer
	}
	n := counted{starts: []stripeStart{{offset: sp.from, line: 1}}}
	firstRecord := int64(-1)
	for {
		c, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return counted{}, fmt.Errorf("%s: %w", sp.src.Name, err)
		}
		// The chunk's first record in the file: a range's stream has the
		// header put before it.
		off := sp.from + c.Offset - sp.src.HeaderBytes
		at := off // where in the file the record lies, against the plan
		var part [2]int64
		if byParts {
			for len(parts) > 1 && parts[1][1] <= off {
				parts = parts[1:]
			}
			if len(parts) == 0 {
				return counted{}, fmt.Errorf("%s: text before any compressed part", sp.src.Name)
			}
			part = parts[0]
			at = part[0]
		}
		if c.Records > 0 && firstRecord < 0 {
			firstRecord = off
		}
		// A chunk's first record starts the next stripe once the chunk
		// lies past the stripe's planned start, and a stripe never
		// starts before the header is past.
		if next := sp.from + int64(len(n.starts))*(sp.end-sp.from)/int64(k); len(n.starts) < k && c.Records > 0 && at >= next {
			n.starts = append(n.starts, stripeStart{offset: off, line: c.FirstLine, ordinal: n.records, part: part[0], partText: part[1]})
		}
		n.records += int64(c.Records)
		c.Release()
	}
	if byParts {
		n.textEnd = parts[len(parts)-1][1] // told last: the end
	}
	if byParts && o.Dialect.Header && len(n.starts) > 1 {
		h, err := readText(sp.obj, stripeStart{}, firstRecord)
		if err != nil {
			return counted{}, err
		}
		n.header = h
	}
	return n, nil
}

// readText is n bytes of a multipart file's text from start.
func readText(obj source.Object, start stripeStart, n int64) ([]byte, error) {
	rc, err := openText(obj, start, obj.Size)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b := make([]byte, n)
	if _, err := io.ReadFull(rc, b); err != nil {
		return nil, fmt.Errorf("%s: %w", obj.Name, err)
	}
	return b, nil
}

// openText streams a multipart file's text from start: decompressed from
// the part that holds it, the text before it dropped. The file is asked
// for through the given offset first (openThrough). It must not be read
// past the text (exactly).
func openText(obj source.Object, start stripeStart, through int64) (io.ReadCloser, error) {
	rc, err := openThrough(obj, start.part, through)
	if err != nil {
		return nil, err
	}
	d, err := csvparse.Decompress(rc)
	if err == nil {
		_, err = io.CopyN(io.Discard, d, start.offset-start.partText)
		if err != nil {
			_ = d.Close()
		}
	}
	if err != nil {
		_ = rc.Close()
		return nil, fmt.Errorf("%s: from byte %d: %w", obj.Name, start.part, err)
	}
	return struct {
		io.Reader
		io.Closer
	}{d, closeBoth{d, rc}}, nil
}

// closeBoth closes a decompressor and the stream under it.
type closeBoth [2]io.Closer

func (c closeBoth) Close() error {
	return errors.Join(c[0].Close(), c[1].Close())
}

// partSource is stripe j of a multipart file: its text from the stripe's
// first record to the next stripe's, or to the text's end, after the
// file's header.
func partSource(obj source.Object, starts []stripeStart, j int, c counted) csvparse.Source {
	s := starts[j]
	end, through := c.textEnd, obj.Size
	if j+1 < len(starts) {
		// The next stripe's first record ends this one: its part, and a
		// little more for the record that straddles the part's end.
		end, through = starts[j+1].offset, starts[j+1].part+endSlack
	}
	header := c.header
	if j == 0 {
		header = nil // the file's start: its header is there
	}
	return csvparse.Source{Size: int64(len(header)) + end - s.offset, Decoded: true,
		HeaderBytes: int64(len(header)), Continues: j > 0 && len(header) == 0,
		Open: func() (io.ReadCloser, error) {
			rc, err := openText(obj, s, through)
			if err != nil {
				return nil, err
			}
			return struct {
				io.Reader
				io.Closer
			}{io.MultiReader(bytes.NewReader(header), &exactly{rc, end - s.offset}), rc}, nil
		}}
}

// exactly reads n bytes of r, then ends, whatever r holds after them: a
// stripe's text ends at the next stripe's first record, and after a
// file's last gzip member zeros may follow that read as damage.
type exactly struct {
	r io.Reader
	n int64
}

func (e *exactly) Read(p []byte) (int, error) {
	if e.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > e.n {
		p = p[:e.n]
	}
	n, err := e.r.Read(p)
	e.n -= int64(n)
	switch {
	case e.n == 0:
		return n, nil // what came with the last byte is past the text
	case err == io.EOF:
		return n, fmt.Errorf("the text ends %d bytes early: %w", e.n, io.ErrUnexpectedEOF)
	}
	return n, err
}

// exactStarts is the startFinder of offsets known to be record starts.
type exactStarts struct{}

func (exactStarts) At(off int64) (int64, error) { return off, nil }
func (exactStarts) Searched() int64             { return 0 }

// spread is the order the k stripes of a file are read in, a chunk from
// each in turn, so that any few read one after another lie far apart in
// the file: by a stride of about k/φ (the golden ratio), which spreads
// every run of them evenly (a low-discrepancy order), when one is prime
// to k and not 1 or k-1; else the two halves taken in turn. In a file in
// token order, stripes next to each other hold rows of one replica set,
// and read one after the other their chunks went to the workers in runs
// for one node, which held the others' rows back: on 3 nodes of one
// token each, 12 stripes in file order reached 74% of the cluster's
// bound and 24 stripes 61%.
func spread(k int) []int {
	order := make([]int, 0, k)
	if s := goldenStride(k); s > 0 {
		for i := range k {
			order = append(order, i*s%k)
		}
		return order
	}
	h := (k + 1) / 2
	for i := range h {
		order = append(order, i)
		if i+h < k {
			order = append(order, i+h)
		}
	}
	return order
}

// goldenStride is the stride nearest k/φ that is prime to k, other than
// 1 and k-1; 0 if there is none.
func goldenStride(k int) int {
	g := int(math.Round(float64(k) / math.Phi))
	for d := 0; d < k; d++ {
		for _, s := range []int{g - d, g + d} {
			if s > 1 && s < k-1 && gcd(s, k) == 1 {
				return s
			}
		}
	}
	return 0
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
