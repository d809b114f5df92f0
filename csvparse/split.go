package csvparse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cqlload/cqlload/internal/lifo"
	"golang.org/x/text/encoding"
)

// DefaultChunkRecords is cqlsh's CHUNKSIZE, used when NewSplitter gets
// chunkRecords <= 0.
const DefaultChunkRecords = 5000

// defaultBlockSize is how much input the Splitter reads at a time;
// chunks are sub-slices of these blocks, so a block lives until the last
// chunk cut from it is released (Chunk.Release) or collected.
const defaultBlockSize = 1 << 20

// blockFor is the block size for chunks of at most maxChunkBytes: two
// of them, the record that ends the second, and the sixteenth of a block
// that more keeps free for reading. A block replaced with a chunk in
// progress moves that chunk's bytes to the next block, so with blocks of
// exactly twice the cap every block held one chunk and a half-copied
// second: 1 KB rows kept fifteen 1 MiB blocks alive for fifteen chunks.
// Blocks no larger than that make each chunk in use pin less input.
func blockFor(maxChunkBytes int) int { return 2*maxChunkBytes + maxChunkBytes/4 }

// DefaultKeepTooLong is Splitter.KeepTooLong's default: 1 MiB of a
// record over the size limit shows what it is (usually an unbalanced
// quote) without a gigabyte of it on disk.
const DefaultKeepTooLong = 1 << 20

// Chunk holds whole records of one file.
type Chunk struct {
	Seq    int64  // 0, 1, 2, … over the whole run, in read order
	Source int    // index into the sources slice
	File   string // Source.Name
	// Header holds the file's header names, trimmed, with Dialect.Header;
	// the same slice for every chunk of the file. Of a header with more
	// than Splitter.MaxHeaderFields fields it holds the first
	// MaxHeaderFields+1.
	Header []string
	// HeaderFields is how many fields the header has: len(Header), or
	// more when MaxHeaderFields cut it.
	HeaderFields int
	// FirstLine is the 1-based line where the first record starts (with
	// no records: where the next would have).
	FirstLine int64
	// Offset is the byte offset of the first record in the decompressed,
	// decoded stream; a stripped UTF-8 BOM counts, so for a plain UTF-8
	// file it is the offset in the file.
	Offset int64
	// Data holds whole records with their line terminators; it starts at
	// a record and ends after one. Blank lines between records stay in
	// it; the Reader skips them. It is never written to until Release.
	Data []byte
	// Records is the number of records in Data, blank lines excluded;
	// the Reader yields exactly this many.
	Records int
	// Skipped is the number of records SkipRows dropped while this chunk
	// was filled; they are in no chunk's Data.
	Skipped int
	// DecodedSize is, for a compressed file, what it decompresses to when
	// its format records that (a gzip trailer, a zstd frame header), else
	// 0; the same in every chunk of the file. Offsets are in decompressed
	// bytes: with it they can be prorated over the file's Size.
	DecodedSize int64
	// InputBytes is the raw bytes (as stored: compressed if compressed)
	// consumed since the previous chunk. Over a run they add up to
	// Splitter.TotalBytes when that is known.
	InputBytes int64
	// LastOfFile marks the file's last chunk. Every file yields at least
	// one chunk, possibly with Records == 0, so per-file counts arrive.
	// When the file could not be read to its end, the next Next returns
	// an *InputError.
	LastOfFile bool
	// CutShort means the input became unreadable while the chunk was
	// filled (see Incomplete): a reading that gets past that point cuts
	// this chunk, and those after it, otherwise. A loader that numbers
	// chunks across runs (to resume) must not take it for its namesake
	// in such a reading.
	CutShort bool
	// Incomplete means the chunk holds a single record that the input
	// became unreadable inside (a truncated or damaged file, a read
	// error): Data is the part before the cut, the Reader yields it with
	// ErrIncompleteRecord, and an *InputError follows. With TooLong too,
	// OpenRecord streams that part.
	Incomplete bool
	// TooLong means the chunk holds a single record longer than
	// Dialect.MaxRecordBytes. The Reader yields it with ErrRecordTooLong;
	// Data is only its first bytes (MaxRecordBytes, or KeptBytes if
	// fewer), and OpenRecord streams its first KeptBytes, which past
	// MaxRecordBytes come from a temporary file that Release removes.
	TooLong bool
	// Unclosed, with TooLong: the record ends with the input, inside a
	// quoted field; a quote that is never closed made it this long.
	Unclosed bool
	// RecordBytes is, with TooLong, the length of the whole record
	// without its final line break.
	RecordBytes int64
	// KeptBytes is, with TooLong, how much of the record OpenRecord
	// streams: RecordBytes, or less when Splitter.KeepTooLong (or a
	// failed spill, SpillErr) cut it.
	KeptBytes int64
	// HeaderTooLong, with TooLong, says that the record is the file's
	// header (Dialect.Header): with no column names the file cannot be
	// read, so the chunk is its last and its other records are not
	// read, while the other files are.
	HeaderTooLong bool
	// SpillErr is, with TooLong, why the part of the record past Data
	// could not be kept in a temporary file (an unwritable or full
	// SpillDir): KeptBytes is then len(Data). The record is rejected
	// like any other over the limit; the records after it are read.
	SpillErr error

	spill *spill // with TooLong: the whole record (spill.go)

	blk *block // where Data lies; see Release
	// suspectFrom, suspectTo: lines of the first and last records that
	// came after fileState.suspectAt.
	suspectFrom, suspectTo int64
	// plain: the splitter found every record of Data to be one line
	// with no quote (plainQuote) and no CR but before its LF, so a Reader
	// with the same quote need not search for them again.
	plain      bool
	plainQuote byte
	// ends, with plain, holds where each record's line ends (past its
	// LF), from the start of Data, so the Reader need not search for it.
	ends []int32
}

// Splitter reads sources one after another and cuts them into chunks of
// whole records. It does only I/O and boundary finding (quote-aware, the
// same rules as Reader) so that one goroutine keeps many parsing workers
// busy. It is not safe for concurrent use.
type Splitter struct {
	sources       []Source
	d             Dialect
	c             *codes
	enc           encoding.Encoding
	chunkRecords  int
	maxChunkBytes int
	blockSize     int
	idle          *lifo.Pool[*block] // released full-size blocks (block.go)
	blocksMade    int
	seq           int64
	next          int          // index of the next source to open
	open          []*fileState // the sources being read, in the order opened
	turn          int          // index in open of the source the next chunk comes from
	err           error        // final

	// Interleave is how many sources are read at once, a chunk from each
	// in turn, in the order they are opened; as one ends, the next source
	// takes its place. 1 (NewSplitter's) reads them one after another.
	// The order is fixed by the sources and the chunks' sizes alone, never
	// by timing, so a rereading numbers every chunk (Seq) as before: the
	// stripes of one file (Source ranges) read so hand out rows of every
	// part of it at once. Each source being read holds a block. Set it
	// before the first Next.
	Interleave int

	// SpillDir is where records over Dialect.MaxRecordBytes are kept
	// while their chunk is in use ("" means os.TempDir()), when
	// KeepTooLong asks for more of them than MaxRecordBytes. Set it
	// before the first Next.
	SpillDir string
	// KeepTooLong is how much of a record over Dialect.MaxRecordBytes
	// is kept for Chunk.OpenRecord: its first KeepTooLong bytes; < 0
	// keeps it whole, however long (the input's own size is then the
	// bound, on the SpillDir's disk). The rest is only scanned, to find
	// where the record ends. NewSplitter sets DefaultKeepTooLong. Set
	// it before the first Next.
	KeepTooLong int64
	// MaxHeaderFields, when > 0, bounds the names kept of a header
	// (Chunk.Header): a header under MaxRecordBytes may still be a line
	// of delimiters, millions of names. Set it before the first Next.
	MaxHeaderFields int
	// VerifyBuffer is how much compressed data (bytes) of one gzip member
	// or zstd frame is checked before any row of it is handed out:
	// decompressed once from memory to check its checksum (and length),
	// then again for real. A member larger than that is handed out as it
	// decompresses, and if it then fails, the InputError names the rows
	// already handed out from it (SuspectFrom, SuspectTo). NewSplitter
	// sets DefaultVerifyBuffer (8 MiB); <= 0 streams every member. The
	// buffer, and as much again for the decompressed data when it is
	// that small, is the memory it costs. Set it before the first Next.
	VerifyBuffer int
	// FlushInterval bounds how long rows of a slow producer wait: when
	// a source of unknown size (Source.Size < 0: stdin, a FIFO) gives no
	// new data for FlushInterval and the chunk in progress holds at
	// least one whole record, Next returns that chunk (a record begun
	// after it stays for the next one), not LastOfFile: a later chunk,
	// possibly of no records, ends the file. Only uncompressed sources
	// are cut so; a gzip or zstd stream is handed out as its
	// decompressor yields it. With an Encoding a cut may come up to one
	// FlushInterval late. Regular files are read directly and never cut
	// early. NewSplitter sets DefaultFlushInterval (1 s); <= 0 disables
	// it. Set it before the first Next.
	FlushInterval time.Duration
	// InputFiles is the number of files in the load the sources are
	// drawn from, which MaxRows's one-input rule follows: a --split
	// process reads only its share of a load's files, and --repeat
	// reads the same files more than once. NewSplitter sets
	// len(sources). Set it before the first Next.
	InputFiles int

	// Parts, if set, is told where each gzip member or zstd frame of a
	// compressed source begins: its offset in the file and in the
	// decompressed text (the offsets of Chunk.Offset), as the Splitter
	// comes to it, before any record of it is handed out; and, once the
	// source is read to its end, where its parts and its text end. A
	// loader learns so where stripes of a Multipart file can start. Set
	// it before the first Next.
	Parts func(source int, compressed, decompressed int64)

	spills     spills
	blockBytes int64 // bytes of all blocks made, for tests of memory use
}

// NewSplitter returns a Splitter over sources. Chunks hold at most
// chunkRecords records (DefaultChunkRecords if <= 0) and, if
// maxChunkBytes > 0, at most maxChunkBytes bytes unless one record alone
// is larger; a record is never split. Inputs are decompressed (.gz and
// .zst, by magic bytes or extension), decoded from d.Encoding to UTF-8
// and stripped of a UTF-8 BOM, unless the source continues a file
// (Source.Continues). An invalid d makes Next fail. With a single
// input file (InputFiles), d.MaxRows includes the records d.SkipRows
// drops (see the package documentation).
func NewSplitter(sources []Source, d Dialect, chunkRecords int, maxChunkBytes int) *Splitter {
	s := &Splitter{
		sources:       sources,
		d:             d,
		c:             compile(d),
		chunkRecords:  chunkRecords,
		maxChunkBytes: maxChunkBytes,
		blockSize:     defaultBlockSize,
		idle:          &lifo.Pool[*block]{Max: idleBlocks},
		VerifyBuffer:  DefaultVerifyBuffer,
		FlushInterval: DefaultFlushInterval,
		KeepTooLong:   DefaultKeepTooLong,
		InputFiles:    len(sources),
		Interleave:    1,
	}
	if s.chunkRecords <= 0 {
		s.chunkRecords = DefaultChunkRecords
	}
	if maxChunkBytes > 0 {
		s.blockSize = blockFor(maxChunkBytes)
	}
	if err := d.Validate(); err != nil {
		s.err = fmt.Errorf("csv options: %w", err)
	}
	s.enc, _ = lookupEncoding(d.Encoding)
	return s
}

// TotalBytes is the sum of the sources' sizes, -1 if any is unknown.
func (s *Splitter) TotalBytes() int64 {
	var t int64
	for _, src := range s.sources {
		if src.Size < 0 {
			return -1
		}
		t += src.Size
	}
	return t
}

// Close closes the open source, if any, and removes the temporary files
// of TooLong chunks not yet released (their OpenRecord fails from then
// on). Next fails afterwards. Close does not wait for a source of
// unknown size blocked in a read: stdin's read, which closing does not
// end, keeps a goroutine until the writer writes or closes its end, or
// the process exits.
func (s *Splitter) Close() error {
	var errs []error
	for _, f := range s.open {
		errs = append(errs, f.in.Close())
		f.dropBlock()
	}
	s.open = nil
	err := errors.Join(errs...)
	s.spills.closeAll()
	if s.err == nil {
		s.err = errClosed
	}
	return err
}

// Next returns the next chunk, or io.EOF after the last one. A source
// that cannot be read to its end (an I/O error, damaged or truncated
// compressed data) is an *InputError naming the file, returned after the
// chunks of the whole records read before the problem, the last of them
// LastOfFile; a malformed header is a *ParseError. Both are final.
func (s *Splitter) Next() (*Chunk, error) {
	if s.err != nil {
		return nil, s.err
	}
	for len(s.open) < max(s.Interleave, 1) && s.next < len(s.sources) {
		f, err := s.openSource(s.next)
		s.next++
		if err != nil {
			s.err = err
			return nil, err
		}
		s.open = append(s.open, f)
	}
	if len(s.open) == 0 {
		return nil, io.EOF
	}
	s.turn %= len(s.open)
	f := s.open[s.turn]
	c, err := s.fill(f)
	if err != nil || c.LastOfFile {
		// A read-only file's close error says nothing the reads did not.
		_ = f.in.Close()
		f.dropBlock()
		// The next source in turn moves into its place.
		s.open = slices.Delete(s.open, s.turn, s.turn+1)
	} else {
		s.turn++
	}
	if err != nil {
		s.err = err
		return nil, err
	}
	if c.suspectFrom > 0 {
		if f.susFrom == 0 {
			f.susFrom = c.suspectFrom
		}
		f.susTo = c.suspectTo
	}
	f.notOut = f.line
	if f.hasPending {
		f.notOut = f.pending.line
	}
	if c.LastOfFile && f.inErr != nil {
		// Handed out what could be read: the error comes next.
		s.err = f.inputError(f.inErr)
	}
	s.seq++
	return c, nil
}

func (s *Splitter) openSource(idx int) (*fileState, error) {
	src := s.sources[idx]
	var onPart func(compressed, decompressed int64)
	if s.Parts != nil {
		onPart = func(c, d int64) { s.Parts(idx, c, d) }
	}
	in, err := openInput(src, s.enc, s.VerifyBuffer, onPart)
	if err != nil {
		return nil, &InputError{File: src.Name, Err: err}
	}
	if src.Until > 0 && (s.enc != nil || in.compressed) {
		_ = in.Close()
		return nil, &InputError{File: src.Name, Err: errors.New("a stream ended at an offset (Until) must be uncompressed UTF-8")}
	}
	line := int64(1)
	if src.Continues {
		line = max(src.FirstLine, 1)
	}
	f := &fileState{idx: idx, src: src, in: in, line: line, blockSize: s.blockSize, maxRecord: s.d.maxRecord(), newBlock: s.newBlock,
		spills: &s.spills, spillDir: s.SpillDir, keepLong: s.KeepTooLong, suspectAt: -1}
	// Size the first block to the file: a chunk keeps its whole block
	// alive, and a directory of small files should not cost a full block
	// each. Decoding and decompression enlarge; a short guess only costs
	// a move to a full block.
	first := int64(s.blockSize)
	if src.Size >= 0 {
		// Plain UTF-8 read as it is takes its size and a little room to
		// see the end: the 4 KiB left over by a guess for decoded input
		// were most of what each of 10,000 small files allocated.
		growth, room := int64(1), int64(512)
		switch {
		case in.compressed:
			growth, room = 8, 4096
		case s.enc != nil:
			growth, room = 2, 4096
		}
		first = min(first, growth*src.Size+room)
	}
	f.blk = s.newBlock(int(first))
	f.buf = f.blk.buf
	f.sc.c = s.c
	if in.async != nil && !in.compressed && s.FlushInterval > 0 {
		f.flush = s.FlushInterval
	}
	for f.avail() < 3 && !f.eof {
		if err := f.more(0); err != nil {
			_ = in.Close()
			f.dropBlock()
			return nil, f.inputError(err)
		}
	}
	if !src.Continues && f.avail() >= 3 && bytes.Equal(f.slice(0, 3), []byte{0xef, 0xbb, 0xbf}) {
		f.pos = 3
	}
	return f, nil
}

// fill cuts the next chunk of f.
func (s *Splitter) fill(f *fileState) (*Chunk, error) {
	d := s.d
	if s.InputFiles == 1 && d.MaxRows >= 0 {
		// One input: MAXROWS counts the rows SKIPROWS dropped, as in
		// cqlsh's readers (SKIPROWS = 3 AND MAXROWS = 4 reads 1 row).
		d.MaxRows = max(0, d.MaxRows-d.SkipRows)
	}
	ch := &Chunk{Seq: s.seq, Source: f.idx, File: f.src.Name, DecodedSize: f.in.decoded}
	if d.Header && !f.headerDone {
		f.headerDone = true
		rec, err := s.readHeader(f)
		if err != nil {
			return nil, err
		}
		if rec.tooLong {
			// Rejected as a record; the file ends here.
			f.finished = true
			ch.Data, ch.TooLong, ch.HeaderTooLong, ch.Incomplete, ch.Unclosed = rec.data, true, true, rec.incomplete, rec.unclosed
			ch.spill, ch.RecordBytes, ch.SpillErr = rec.spill, rec.size, rec.spillErr
			ch.KeptBytes = int64(len(rec.data))
			if rec.spill != nil {
				ch.KeptBytes = rec.spill.n
			}
			ch.Offset, ch.FirstLine, ch.Records = rec.start, rec.line, 1
			ch.LastOfFile = true
			ch.InputBytes = f.inputBytes(true)
			ch.CutShort = f.inErr != nil
			return ch, nil
		}
	}
	ch.Header, ch.HeaderFields = f.header, f.headerFields
	chunkStart := int64(-1)
	cut := false // ended early: the input stalled (FlushInterval)
	for !f.finished && ch.Records+ch.Skipped < s.chunkRecords {
		var rec recSpan
		if f.hasPending {
			rec, f.hasPending = f.pending, false
		} else {
			if f.maxRowsReached(d) {
				f.finished = true
				break
			}
			var ok bool
			var err error
			skip := f.skipped < d.SkipRows
			over := overSpill
			if skip {
				over = overDiscard // a record nobody will read is not kept
			}
			rec, ok, err = f.readRecord(chunkStart, over, ch.Records > 0)
			if err != nil {
				return nil, f.inputError(err)
			}
			if !ok && f.stalled {
				f.stalled, cut = false, true
				break
			}
			if !ok {
				f.finished = true
				break
			}
			if skip {
				f.skipped++
				ch.Skipped++
				continue
			}
		}
		if rec.incomplete && !rec.tooLong {
			if ch.Records > 0 {
				f.pending, f.hasPending = rec, true
				break
			}
			ch.Data, ch.Incomplete = f.slice(rec.start, rec.end), true
			ch.attach(f.blk)
			chunkStart, ch.FirstLine = rec.start, rec.line
			ch.Records = 1
			f.taken++
			if f.suspectAt >= 0 {
				ch.suspectFrom, ch.suspectTo = rec.line, rec.line
			}
			break
		}
		if rec.tooLong {
			if ch.Records > 0 {
				f.pending, f.hasPending = rec, true
				break
			}
			ch.Data, ch.TooLong, ch.Incomplete, ch.Unclosed = rec.data, true, rec.incomplete, rec.unclosed
			ch.spill, ch.RecordBytes, ch.SpillErr = rec.spill, rec.size, rec.spillErr
			ch.KeptBytes = int64(len(rec.data))
			if rec.spill != nil {
				ch.KeptBytes = rec.spill.n
			}
			chunkStart, ch.FirstLine = rec.start, rec.line
			ch.Records = 1
			f.taken++
			break
		}
		if ch.Records > 0 && s.maxChunkBytes > 0 && rec.end-chunkStart > int64(s.maxChunkBytes) {
			f.pending, f.hasPending = rec, true
			break
		}
		if chunkStart < 0 {
			chunkStart, ch.FirstLine = rec.start, rec.line
			ch.plain, ch.plainQuote = true, d.Quote
			// Sized by the file's previous chunk: a fixed 4096 would
			// allocate and clear 16 KiB for a chunk of 250 long records.
			ch.ends = make([]int32, 0, min(s.chunkRecords, f.lastRecords+f.lastRecords/8+16))
		}
		ch.plain = ch.plain && rec.plain && rec.end-chunkStart <= math.MaxInt32
		if ch.plain {
			ch.ends = append(ch.ends, int32(rec.end-chunkStart))
		} else {
			ch.ends = nil
		}
		// Cut Data now: reading a record over the limit may move the
		// buffer without keeping the chunk.
		ch.Data = f.slice(chunkStart, rec.end)
		ch.attach(f.blk)
		ch.Records++
		f.taken++
		if f.suspectAt >= 0 && rec.end > f.suspectAt {
			if ch.suspectFrom == 0 {
				ch.suspectFrom = rec.line
			}
			ch.suspectTo = rec.line
		}
	}
	ch.Offset = chunkStart
	if ch.plain {
		f.lastRecords = ch.Records
	}
	if chunkStart < 0 {
		ch.FirstLine, ch.Offset = f.line, f.pos
	}
	// Look ahead past blank lines so the chunk knows whether it is the
	// file's last; Data is already cut, so nothing needs keeping.
	// A stalled input leaves that to the next chunk.
	if !f.finished && !f.hasPending && !cut {
		if f.maxRowsReached(d) {
			f.finished = true
		} else {
			more, err := f.skipBlank(-1, ch.Records > 0)
			if err != nil {
				return nil, f.inputError(err)
			}
			if f.stalled {
				f.stalled = false
			} else {
				f.finished = !more
			}
		}
	}
	ch.LastOfFile = f.finished
	ch.InputBytes = f.inputBytes(ch.LastOfFile)
	ch.CutShort = f.inErr != nil
	return ch, nil
}

// readHeader reads the file's header into f.header; one over the size
// limit comes back (rec.tooLong) for the caller to hand out.
func (s *Splitter) readHeader(f *fileState) (recSpan, error) {
	rec, ok, err := f.readRecord(-1, overSpill, false)
	if err != nil {
		return rec, f.inputError(err)
	}
	if !ok || rec.tooLong {
		return rec, nil
	}
	if rec.incomplete {
		return rec, f.inputError(f.inErr)
	}
	r := newReader(&Chunk{File: f.src.Name, FirstLine: rec.line, Data: f.slice(rec.start, rec.end)}, s.c)
	r.MaxFields = s.MaxHeaderFields
	hr, err := r.Next()
	if err != nil {
		return rec, err
	}
	names := make([]string, len(hr.Fields))
	for i, b := range hr.Fields {
		names[i] = strings.TrimSpace(string(b))
	}
	f.header, f.headerFields = names, hr.FieldCount
	return rec, nil
}

// recSpan is a record found by the scanner, in stream offsets.
type recSpan struct {
	start, end int64 // end is past the terminator
	line       int64
	tooLong    bool
	plain      bool   // scanner.plain
	data       []byte // with tooLong: the record's first bytes (Chunk.Data)
	spill      *spill // with tooLong and a spill: its first keepLong bytes
	spillErr   error  // with tooLong: the spill failed (Chunk.SpillErr)
	size       int64  // with tooLong: its length without the line break
	incomplete bool   // cut short by an input error (fileState.inErr)
	unclosed   bool   // it ends with the input, inside a quoted field
}

// overMode says what readRecord does with a record over the limit.
type overMode uint8

const (
	overSpill   overMode = iota // keep its first KeepTooLong bytes
	overDiscard                 // find its end, keep nothing (SkipRows)
)

// fileState is the Splitter's position in one open source. Offsets are
// in the decoded stream; buf holds [base, base+end) of it.
type fileState struct {
	idx        int
	src        Source
	in         *input
	eof        bool
	blk        *block
	buf        []byte // blk.buf
	newBlock   func(size int) *block
	base       int64
	end        int
	pos        int64 // next byte to look at
	line       int64 // line of pos
	sc         scanner
	blockSize  int
	maxRecord  int
	headerDone bool
	// inRange: past Source.HeaderBytes, where line numbers start again.
	inRange bool
	header  []string
	// headerFields: the header's field count (Chunk.HeaderFields).
	headerFields int
	skipped      int
	taken        int
	reported     int64   // InputBytes handed out so far
	finished     bool    // no more chunks after the current one
	pending      recSpan // read but left for the next chunk
	hasPending   bool
	// lastRecords is the previous chunk's record count, to size the
	// next one's ends.
	lastRecords int
	afterCR     bool // pos follows a CR line break not yet counted
	spills      *spills
	spillDir    string
	keepLong    int64 // Splitter.KeepTooLong
	// flush is Splitter.FlushInterval for an input that may be cut when
	// it stalls (input.ready), else 0; stalled says a skipBlank or
	// readRecord gave up for that, leaving pos where the record would
	// start.
	flush   time.Duration
	stalled bool

	// inErr ended the input early (see more); the records before it are
	// handed out first.
	inErr error
	// Rows handed out from a compressed member not checked before use
	// (input.streaming): suspectAt is where in the stream its bytes may
	// start (-1: none), gen which member it is, and susFrom..susTo the
	// first lines of the first and last records handed out since.
	suspectAt      int64
	gen            int64
	susFrom, susTo int64
	notOut         int64 // line of the first record not handed out
}

// inputError wraps an error of reading f.
func (f *fileState) inputError(err error) error {
	var ie *InputError
	if errors.As(err, &ie) {
		return err
	}
	return &InputError{File: f.src.Name, Err: err, Truncated: errors.Is(err, io.ErrUnexpectedEOF),
		Line: f.notOut, SuspectFrom: f.susFrom, SuspectTo: f.susTo}
}

// dropBlock gives up the Splitter's reference to the current block.
func (f *fileState) dropBlock() {
	if f.blk != nil {
		f.blk.drop()
		f.blk, f.buf = nil, nil
	}
}

func (f *fileState) avail() int              { return int(f.base + int64(f.end) - f.pos) }
func (f *fileState) at(off int64) byte       { return f.buf[off-f.base] }
func (f *fileState) slice(a, b int64) []byte { return f.buf[a-f.base : b-f.base : b-f.base] }
func (f *fileState) maxRowsReached(d Dialect) bool {
	return d.MaxRows >= 0 && f.skipped >= d.SkipRows && f.taken >= d.MaxRows
}

// more reads more input, keeping [keep, end) in the buffer. It never
// writes where a chunk already handed out points: when the block is
// full it moves the kept bytes to a new one.
func (f *fileState) more(keep int64) error {
	if f.eof {
		return nil
	}
	if keep < 0 || keep > f.pos {
		keep = f.pos
	}
	// A full-size block is replaced before it is quite full, so reads
	// stay large; a small first block is used up.
	free, minFree := len(f.buf)-f.end, max(f.blockSize/16, 1)
	if free == 0 || free < minFree && len(f.buf) >= f.blockSize {
		kept := int(f.base + int64(f.end) - keep)
		// A standard block, which can be recycled, when the kept bytes
		// (a chunk in progress: about half a block with the loader's
		// chunk cap) leave a quarter of it for reading; more gets a
		// block of twice their size, so that a long record is copied
		// O(log n) times.
		size := f.blockSize
		if kept > f.blockSize*3/4 {
			size = 2*kept + minFree
		}
		nb := f.newBlock(size)
		copy(nb.buf, f.buf[keep-f.base:f.end])
		f.blk.drop()
		f.blk, f.buf, f.end, f.base = nb, nb.buf, kept, keep
	}
	for range 100 {
		at := f.base + int64(f.end)
		n, err := f.in.r.Read(f.buf[f.end:])
		f.end += n
		streaming, gen := f.in.streaming()
		switch {
		case streaming && (gen != f.gen || f.suspectAt < 0):
			// A new unchecked member: the one before, if any, passed.
			f.suspectAt, f.gen = at, gen
			f.susFrom, f.susTo = 0, 0
		case !streaming && f.suspectAt >= 0:
			f.suspectAt = -1
			f.susFrom, f.susTo = 0, 0
		}
		if err == io.EOF {
			f.eof = true
			if want := f.expected(); f.in.count.n < want {
				f.inErr = fmt.Errorf("%w (%d bytes read of %d)", ErrShrank, f.in.count.n, want)
			}
			return nil
		}
		if err != nil && streaming && !errors.Is(err, io.ErrUnexpectedEOF) {
			// An unchecked member failed: what is left of it in the
			// buffer is not handed out.
			return err
		}
		if err != nil {
			// Checked data, or what a truncated file has: the whole
			// records before the cut are handed out, as zcat recovers
			// them, then the error.
			f.eof, f.inErr = true, err
			return nil
		}
		if n > 0 {
			return nil
		}
	}
	return io.ErrNoProgress
}

// expected is how many raw bytes f's input must yield before its end:
// the size the file had when it was listed (compressed or not), or for
// a range of a file read up to Until, as far as that; 0 when unknown.
func (f *fileState) expected() int64 {
	switch {
	case f.src.Size < 0:
		return 0
	case f.src.Until > 0:
		return min(f.src.Until, f.src.Size)
	}
	return f.src.Size
}

// waits reports whether reading more would wait FlushInterval in vain:
// the input is one that may be cut early and gave nothing for that long.
func (f *fileState) waits() bool {
	return f.flush > 0 && !f.eof && !f.in.ready(f.flush)
}

// skipBlank settles a CR that ended the previous record (see
// scanner.endedAtCR), moves past blank lines and reports whether a record
// follows (one that begins before Source.Until, if set). With cut, it
// returns false with f.stalled set if the input stalls (f.waits) first.
func (f *fileState) skipBlank(keep int64, cut bool) (bool, error) {
	for {
		a := f.avail()
		if a < 1 && !f.eof {
			if cut && f.waits() {
				f.stalled = true
				return false, nil
			}
			if err := f.more(keep); err != nil {
				return false, err
			}
			continue
		}
		if f.afterCR {
			f.afterCR = false
			f.line++
			if a > 0 && f.at(f.pos) == '\n' {
				f.pos++
			}
			continue
		}
		if a == 0 {
			return false, nil
		}
		switch f.at(f.pos) {
		case '\n':
			f.pos++
			f.line++
			continue
		case '\r':
			f.pos++
			f.afterCR = true
			continue
		}
		// A record begins at pos: the next range's, past Until.
		return f.src.Until <= 0 || f.pos < f.src.Until, nil
	}
}

// plainRetryBytes bounds the start of a record that readRecord scans
// again once more input is read, so that a long line read in small
// pieces (a pipe's) is not searched over and over: past it the scanner
// goes on byte by byte.
const plainRetryBytes = 256 << 10

// readRecord finds the next record, keeping [keep, …) buffered (or only
// the record if keep < 0). It returns false at the end of the input, or,
// with cut, when the input stalls (f.waits) before the record ends: then
// f.stalled is set and pos is back where the record starts, to be read
// again whole.
//
// A record over the limit is followed to its real end, as the quotes
// say, whatever its length: cutting it at the limit would make records
// of its fragments. Past the limit nothing of it stays in memory but a
// copy of its first bytes (MaxRecordBytes, or keepLong if fewer); with
// overSpill and a keepLong above MaxRecordBytes, up to keepLong bytes go
// to a spill file as the scan passes them. A spill that fails is the
// record's problem (rec.spillErr), not the input's.
func (f *fileState) readRecord(keep int64, over overMode, cut bool) (recSpan, bool, error) {
	ok, err := f.skipBlank(keep, cut)
	if err != nil || !ok {
		return recSpan{}, false, err
	}
	start := f.pos
	if keep < 0 {
		keep = start
	}
	if hb := f.src.HeaderBytes; hb > 0 && !f.inRange && start >= hb {
		f.inRange = true
		f.line = max(f.src.FirstLine, 1)
	}
	rec := recSpan{start: start, line: f.line}
	f.sc.reset()
	limit := start + int64(f.maxRecord)
	var spilled int64 // with rec.spill: the bytes before it are in the file
	// finish ends the record at f.pos, brk bytes of line break before it.
	finish := func(brk int64) (recSpan, bool, error) {
		f.line += f.sc.lines
		rec.end = f.pos
		rec.size = f.pos - brk - start
		rec.incomplete = brk == 0 && f.inErr != nil
		rec.unclosed = brk == 0 && (f.sc.st == stQuoted || f.sc.st == stQuotedEsc)
		f.spillTo(&rec, spilled, f.pos-brk)
		return rec, true, nil
	}
	for {
		bufEnd := f.base + int64(f.end)
		wend := bufEnd
		if !rec.tooLong {
			wend = min(bufEnd, limit)
		}
		if f.pos < wend {
			// A record short enough to scan again whole, not at the
			// limit or the end of the input, may wait for its line end
			// (scanner.scan).
			retry := f.pos == start && wend == bufEnd && wend < limit && !f.eof && wend-start <= plainRetryBytes
			k := f.sc.scan(f.slice(f.pos, wend), retry)
			if k >= 0 {
				f.pos += int64(k)
				f.afterCR = f.sc.endedAtCR
				rec.plain = f.sc.plain
				return finish(1)
			}
			if !retry || !f.sc.fresh {
				f.pos = wend
			}
		}
		if !rec.tooLong && f.pos == limit && bufEnd > limit {
			// The record goes on past the limit.
			rec.tooLong = true
			// A copy: the record may wait for the next chunk while its
			// block is recycled. Only what is kept of it: a record
			// nobody will read (overDiscard) keeps nothing.
			keepN := f.keepLong
			if over == overDiscard {
				keepN = 0
			}
			n := int64(f.maxRecord)
			if keepN >= 0 && keepN < n {
				n = int64(runeCut(f.slice(start, limit), int(keepN)))
			}
			rec.data = bytes.Clone(f.slice(start, start+n))
			if over == overSpill && (keepN < 0 || keepN > int64(f.maxRecord)) {
				sp, err := f.spills.create(f.spillDir, keepN)
				if err != nil {
					rec.spillErr = f.spillError(rec, err)
				} else {
					rec.spill, spilled = sp, start
				}
			}
			// Earlier records of the chunk in progress are cut already
			// (see fill); from here on keep only what is not scanned.
			keep = f.pos
			continue
		}
		if f.eof {
			return finish(0)
		}
		if rec.tooLong {
			f.spillTo(&rec, spilled, f.pos)
			spilled = f.pos
			keep = f.pos
		}
		if cut && !rec.tooLong && f.waits() {
			// The line count is only added at the record's end.
			f.pos, f.stalled = start, true
			return recSpan{}, false, nil
		}
		if err := f.more(keep); err != nil {
			if rec.spill != nil {
				rec.spill.close()
			}
			return rec, false, err
		}
	}
}

// spillTo writes [from, to) of the stream to rec's spill, if it has
// one. A failed write ends the spill: the record keeps only rec.data,
// and rec.spillErr says why.
func (f *fileState) spillTo(rec *recSpan, from, to int64) {
	if rec.spill == nil {
		return
	}
	if err := rec.spill.write(f.slice(from, to)); err != nil {
		rec.spill.close()
		rec.spill, rec.spillErr = nil, f.spillError(*rec, err)
	}
}

func (f *fileState) spillError(rec recSpan, err error) error {
	return fmt.Errorf("line %d: keeping a record over the size limit in a temporary file: %w", rec.line, err)
}

// runeCut returns n, or less by up to three bytes so that b[:n] does not
// end inside a UTF-8 sequence that b[n:] completes.
func runeCut(b []byte, n int) int {
	for k := 0; k < utf8.UTFMax-1 && n > 0 && n < len(b) && !utf8.RuneStart(b[n]); k++ {
		n--
	}
	return n
}

// inputBytes returns the raw bytes consumed since the last chunk. The
// last chunk of a file of known size gets whatever the others did not,
// so the sum is exact even if the file changed or reading stopped early
// (MaxRows).
func (f *fileState) inputBytes(last bool) int64 {
	size := f.src.Size
	var n int64
	if last && size >= 0 {
		n = size - f.reported
	} else {
		n = f.in.count.n - f.reported
		if size >= 0 && f.reported+n > size {
			n = size - f.reported
		}
	}
	n = max(n, 0)
	f.reported += n
	return n
}
