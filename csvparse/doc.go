// Package csvparse reads CSV the way cqlsh COPY FROM's options describe
// it, in chunks that many goroutines can parse at once.
//
// One goroutine calls Splitter.Next in a loop. The Splitter only reads
// (decompressing .gz and .zst, decoding the Encoding to UTF-8, stripping
// a UTF-8 BOM) and finds where records end; it hands out Chunks of whole
// records. Workers parse a chunk with NewReader. Memory is bounded by the
// chunks in flight, never by the file size. A chunk's Data is a slice of
// a block the Splitter read into; Chunk.Release, once nothing uses the
// bytes any more, lets the Splitter read later input into that block
// instead of allocating a new one.
//
// # Records
//
// A record ends at a line break outside quotes (LF, CRLF, or a lone CR,
// which old Mac files use and Python's csv, so cqlsh, accepts) or at the
// end of the input. Inside quotes, and after an escape, CR and LF are
// data. Blank lines are not records, but line numbers count them: Line and
// FirstLine are 1-based lines of the physical (decoded) file; inside a
// record only LFs start new lines.
//
// A field is quoted if it starts with Quote. Inside it, delimiters and
// line breaks are data, a doubled quote is one quote (RFC 4180), and with
// an Escape the escape makes the next character literal (`\"` is a quote,
// `\\` a backslash: what cqlsh COPY TO writes). The closing quote must be
// followed by a delimiter, a line break or the end; anything else is
// ErrQuote (the rest of the field is then read as unquoted, as Python's
// csv does, so the record still ends where the Splitter says). A quoted
// field that never closes runs to the end of the input and is ErrQuote
// at its opening quote.
//
// Outside quotes the escape also makes the next character literal, so
// `a\,b` is one field and an escaped line feed continues the record, as
// in Python's csv. A quote that does not start a field is data (cqlsh
// loads `12" pipe`), or ErrBareQuote with StrictQuotes.
//
// Escape before a character other than Quote, Escape, Delimiter, CR or LF
// is kept with it: `C:\temp` loads as written. Python's csv (and so
// cqlsh) would drop the backslash and load `C:temp`; cqlsh COPY TO never
// writes such pairs, so keeping them only saves data. With Escape = 0
// (an empty ESCAPE), backslashes are plain data and only RFC 4180 doubling
// applies.
//
// Fields are not trimmed (cqlsh keeps spaces); header names are.
//
// # Per-file options
//
// With Header, the first record of each file is its header, exposed as
// Chunk.Header and counted by neither SkipRows nor MaxRows. SkipRows and
// MaxRows count records (not lines) and apply to each file separately:
// cqlsh applies them across files only as a side effect of how it reads,
// and per file is what a directory of exports with headers needs. Records
// after MaxRows are not read at all. With a single input, MaxRows counts
// the records SkipRows dropped, as cqlsh's does (SkipRows 3 and MaxRows 4
// read one record); with several, MaxRows records are read from each file
// after its SkipRows.
//
// # Accounting
//
// Chunk.Records is exactly the number of records the Reader yields for
// the chunk, malformed ones included, and Chunk.Skipped the records
// SkipRows dropped, so rows read = written + rejected + skipped can be
// checked. Chunk.InputBytes add up to Splitter.TotalBytes.
//
// # Damaged and truncated input
//
// A source that cannot be read to its end is an *InputError naming the
// file, after the chunks of every whole record read before the problem;
// the record the problem cut short comes as an Incomplete chunk (the
// Reader yields it with ErrIncompleteRecord), never as a row. A gzip
// member's checksum and a zstd frame's come after their data, so a member
// whose compressed size is at most Splitter.VerifyBuffer is checked in
// memory before any of its rows is handed out: a damaged member yields no
// row. A larger member is handed out as it decompresses; if it then fails
// (and when a member is cut short, which leaves nothing to check), the
// InputError names the lines of the rows already handed out from it
// (SuspectFrom, SuspectTo). A truncated file yields what zcat prints of
// it, but for the last symbol or so that zcat guesses from too few bits.
//
// # Slow producers
//
// A source of unknown size (stdin, a FIFO) is read by a goroutine of its
// own, so that a producer writing a few rows a second does not hold them
// back until a chunk is full: when it gives no data for
// Splitter.FlushInterval (1 s by default), the whole records read so far
// come out as a chunk, and the record begun after them waits for the
// next. Compressed streams are not cut so. Regular files are read
// directly, as before.
//
// # Limits
//
// A record longer than MaxRecordBytes (16 MiB by default) is not parsed,
// but it is not cut either: the Splitter follows its quotes to its real
// end, however far, so the records after it are found where they are and
// on their true lines. Past the limit its bytes go to a temporary file
// (Splitter.SpillDir) instead of memory, so memory stays bounded by the
// limit and the block size. It comes as a chunk of its own with TooLong
// set, Records 1, Data its first MaxRecordBytes bytes and RecordBytes its
// whole length; Chunk.OpenRecord streams it whole, and Release removes
// the file. The Reader reports it as ErrRecordTooLong. An unbalanced
// quote makes the rest of the file such a record: the file says so, and
// the record kept whole loses nothing.
package csvparse
