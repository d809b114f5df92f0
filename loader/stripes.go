package loader

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/cqlload/cqlload/csvparse"
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
// A load is striped only when every input can be read at any offset and
// counted: a known size, uncompressed UTF-8 (offsets are the file's
// bytes), no SKIPROWS or MAXROWS (cut files whole for --split too), not
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
	cut := make([]bool, len(spans))
	anyCut := false
	for i, sp := range spans {
		obj := sp.obj
		if obj.Size < 0 || obj.ReaderAt == nil || obj.OpenRange == nil {
			return nil, nil // a stream: its records cannot be counted ahead
		}
		if sp.end-sp.from < 2*minStripe {
			continue
		}
		ok, err := rangeable(obj, o)
		if err != nil || !ok {
			// Compressed, or counted from the file's start; an
			// unreadable file fails in the load, where it is reported.
			if err != nil || o.Dialect.SkipRows > 0 || o.Dialect.MaxRows >= 0 {
				return nil, nil
			}
			continue
		}
		cut[i], anyCut = true, true
	}
	if !anyCut {
		return nil, nil
	}
	st := &stripes{}
	var before int64 // records of the load before the current span
	for i, sp := range spans {
		k := 1
		if cut[i] {
			k = int(min(int64(o.Readers), (sp.end-sp.from)/minStripe))
		}
		starts, records, err := countRecords(sp, o, k)
		if err != nil {
			// The load reads the input in order and reports what is
			// wrong with it, where a pass ahead has nobody to tell.
			return nil, nil
		}
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
			end := sp.end
			if j+1 < len(starts) {
				end = starts[j+1].offset
			}
			r, _, err := rangeSource(sp.obj, s.offset, end, o.Dialect, exactStarts{}, "--readers")
			if err != nil {
				return nil, err
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

// stripeStart is where a stripe begins: a record's offset in the file,
// its line as its span counts lines, and the span's records before it.
type stripeStart struct {
	offset, line, ordinal int64
}

// countRecords cuts sp into records as the load will, and returns the
// starts of at most k stripes of about equal size (the first at the
// span's start) and the span's record count.
func countRecords(sp span, o *Options, k int) ([]stripeStart, int64, error) {
	// Chunks of at most a sixteenth of a stripe place each start within
	// that of its plan.
	stripe := (sp.end - sp.from) / int64(k)
	s := csvparse.NewSplitter([]csvparse.Source{sp.src}, o.Dialect, csvparse.DefaultChunkRecords, int(min(MaxChunkBytes, max(stripe/16, 1024))))
	defer s.Close()
	s.KeepTooLong = 0 // a record over MaxRecordBytes is only counted
	s.FlushInterval = 0
	starts := []stripeStart{{offset: sp.from, line: 1}}
	var records int64
	for {
		c, err := s.Next()
		if err == io.EOF {
			return starts, records, nil
		}
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", sp.src.Name, err)
		}
		// The chunk's first record in the file: a range's stream has the
		// header put before it.
		off := sp.from + c.Offset - sp.src.HeaderBytes
		// A chunk's first record starts the next stripe once the chunk
		// lies past the stripe's planned start, and a stripe never
		// starts before the header is past.
		if next := sp.from + int64(len(starts))*(sp.end-sp.from)/int64(k); len(starts) < k && c.Records > 0 && off >= next {
			starts = append(starts, stripeStart{offset: off, line: c.FirstLine, ordinal: records})
		}
		records += int64(c.Records)
		c.Release()
	}
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
