package csvparse

import (
	"bytes"
	"io"
	"reflect"
	"strings"
	"testing"
)

// fuzzDialect maps one byte to a valid Dialect, so every input is
// exercised rather than rejected: bit 0 quote, bits 1-2 delimiter,
// bits 3-4 escape (including none and one equal to the quote), bit 5
// StrictQuotes.
func fuzzDialect(opts uint8) Dialect {
	d := DefaultDialect()
	d.Quote = []byte{'"', '\''}[opts&1]
	d.Delimiter = []byte{',', ';', '\t', '|'}[opts>>1&3]
	d.Escape = []byte{'\\', 0, '"', '^'}[opts>>3&3]
	d.StrictQuotes = opts&0x20 != 0
	return d
}

func fuzzSeeds(f *testing.F, add func(data []byte, opts uint8)) {
	f.Helper()
	for i, in := range splitInputs {
		add([]byte(in), uint8(i))
	}
	for _, in := range []string{
		`"say \"hi\"","a\\b",\\`, `"C:\dir\",x` + "\n" + `a\,b`, "a\\\r\nb\n", `12" pipe,x`,
		"\"ab\"c,d\n1,2\n", "é,\"é\"x\n", "\"a\"\r\n\"b\"\r", `\""x"`, "a|'b|c'|'it''s'\n",
		// Lines past 32 bytes, for the vectorised searches' wide paths.
		strings.Repeat("a", 40) + `"` + strings.Repeat("b", 40) + ",c\r\nd\n",
		strings.Repeat("a,", 30) + "\\," + strings.Repeat("b", 40) + "\r" + strings.Repeat("c", 33) + "\n",
	} {
		for _, opts := range []uint8{0, 0x08, 0x12, 0x20, 0x3f} {
			add([]byte(in), opts)
		}
	}
}

// FuzzReader checks, for any bytes and dialect, that the Reader does not
// panic and that its records tile the input: walking the input, each
// record's Raw follows the blank lines before it and is followed by a line
// break ("\n", "\r\n" or "\r") or the end, line numbers count those
// breaks and the LFs inside records, and after the last record only blank
// lines remain. Records without errors
// must also survive a round trip through a writer that quotes every
// field, and an unquoted record without escapes must be its fields joined
// by the delimiter.
func FuzzReader(f *testing.F) {
	fuzzSeeds(f, func(data []byte, opts uint8) { f.Add(data, opts) })
	f.Fuzz(func(t *testing.T, data []byte, opts uint8) {
		d := fuzzDialect(opts)
		c := compile(d)
		r := NewReader(&Chunk{Data: data, FirstLine: 1}, d)
		pos := 0
		// A line break is LF, CRLF or a lone CR.
		lineBreak := func() int {
			switch rest := data[pos:]; {
			case bytes.HasPrefix(rest, []byte("\r\n")):
				return 2
			case len(rest) > 0 && (rest[0] == '\n' || rest[0] == '\r'):
				return 1
			}
			return 0
		}
		line := int64(1) // line of pos: line breaks between records, LFs inside them
		skipBlank := func() {
			for n := lineBreak(); n > 0; n = lineBreak() {
				pos += n
				line++
			}
		}
		for n := 0; ; n++ {
			if n > len(data) {
				t.Fatalf("more records than bytes")
			}
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			skipBlank()
			if !bytes.HasPrefix(data[pos:], rec.Raw) || len(rec.Raw) == 0 {
				t.Fatalf("record %d: Raw %q is not the input at %d: %q", n, rec.Raw, pos, data[pos:])
			}
			if rec.Line != line {
				t.Fatalf("record %d: Line %d, want %d", n, rec.Line, line)
			}
			pos += len(rec.Raw)
			line += int64(bytes.Count(rec.Raw, []byte{'\n'}))
			if lineBreak() == 0 && pos != len(data) {
				t.Fatalf("record %d: Raw %q is followed by %q, not a line break", n, rec.Raw, data[pos:])
			}
			if n := lineBreak(); n > 0 {
				pos += n
				line++
			}
			if err != nil {
				pe, ok := err.(*ParseError)
				if !ok || pe.Line < rec.Line || pe.Column < 1 {
					t.Fatalf("record %d: error %#v", n, err)
				}
				continue
			}
			if len(rec.Fields) == 0 || len(rec.Fields) != len(rec.Quoted) {
				t.Fatalf("record %d: %d fields, %d quoted flags", n, len(rec.Fields), len(rec.Quoted))
			}
			plain := !c.hasEsc || bytes.IndexByte(rec.Raw, c.esc) < 0
			for _, q := range rec.Quoted {
				plain = plain && !q
			}
			if joined := bytes.Join(rec.Fields, []byte{d.Delimiter}); plain && !bytes.Equal(joined, rec.Raw) {
				t.Fatalf("record %d: fields %q do not join to Raw %q", n, rec.Fields, rec.Raw)
			}
			want := copyFields(rec.Fields)
			enc := encodeQuoted(rec.Fields, c)
			back, err := NewReader(&Chunk{Data: enc, FirstLine: 1}, d).Next()
			if err != nil {
				t.Fatalf("record %d: re-encoded %q: %v", n, enc, err)
			}
			if got := copyFields(back.Fields); !reflect.DeepEqual(got, want) {
				t.Fatalf("record %d: fields %q re-encoded as %q read back as %q", n, want, enc, got)
			}
			enc = AppendRecord(nil, d, want...)
			back, err = NewReader(&Chunk{Data: enc, FirstLine: 1}, d).Next()
			if err != nil {
				t.Fatalf("record %d: AppendRecord wrote %q: %v", n, enc, err)
			}
			if got := copyFields(back.Fields); !reflect.DeepEqual(got, want) {
				t.Fatalf("record %d: AppendRecord wrote %q for %q, read back as %q", n, enc, want, got)
			}
		}
		skipBlank()
		if pos != len(data) {
			t.Fatalf("input after the last record: %q", data[pos:])
		}
	})
}

func copyFields(fields [][]byte) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = string(f)
	}
	return out
}

// encodeQuoted writes one record quoting every field: quotes doubled,
// escapes escaped.
func encodeQuoted(fields [][]byte, c *codes) []byte {
	var b []byte
	for i, f := range fields {
		if i > 0 {
			b = append(b, c.delim)
		}
		b = c.appendQuoted(b, string(f))
	}
	return append(b, '\n')
}

// FuzzSplitConsistency checks that cutting an input into chunks of 1..8
// records, with reads of any size and an optional byte limit, yields
// exactly the records (positions and errors included) of one Reader over
// the whole input.
func FuzzSplitConsistency(f *testing.F) {
	fuzzSeeds(f, func(data []byte, opts uint8) { f.Add(data, opts, uint8(len(data))) })
	f.Fuzz(func(t *testing.T, data []byte, opts uint8, shape uint8) {
		d := fuzzDialect(opts)
		if decodedBySplitter(data) {
			// The splitter would decode it as UTF-16 or decompress it
			// (TestCompressedAndEncodedInputs covers that); keep the
			// input byte-for-byte comparable.
			data = append([]byte{'x'}, data[1:]...)
		}
		ref := bytes.TrimPrefix(data, []byte("\ufeff"))
		want := readChunk(t, &Chunk{File: "f", Data: ref, FirstLine: 1}, d)
		k := 1 + int(shape&7)
		block := []int{1, 3, 64, defaultBlockSize}[shape>>3&3]
		maxBytes := []int{0, 16}[shape>>5&1]
		s := NewSplitter([]Source{memSource("f", data, shape&0x40 != 0)}, d, k, maxBytes)
		s.blockSize = block
		chunks, got := split(t, s, d)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("k=%d block=%d max=%d: got\n%#v\nwant\n%#v", k, block, maxBytes, got, want)
		}
		if n := sumInput(chunks); n != int64(len(data)) {
			t.Fatalf("InputBytes add up to %d, want %d", n, len(data))
		}
		records := 0
		for _, c := range chunks {
			records += c.Records
		}
		if records != len(want) {
			t.Fatalf("Records add up to %d, want %d", records, len(want))
		}
		// Again, releasing each chunk once read: recycled blocks must not
		// change a record still to come.
		s = NewSplitter([]Source{memSource("f", data, shape&0x40 != 0)}, d, k, maxBytes)
		s.blockSize = block
		var again []rec
		eachChunk(t, s, func(c *Chunk) {
			again = append(again, readChunk(t, c, d)...)
			c.Release()
		})
		if !reflect.DeepEqual(again, want) {
			t.Fatalf("k=%d block=%d max=%d, releasing: got\n%#v\nwant\n%#v", k, block, maxBytes, again, want)
		}
	})
}

// decodedBySplitter reports whether data starts as the Splitter reads as
// other than plain bytes: a UTF-16 byte order mark, or the magic bytes of
// a compressed format (gzip and zstd decompressed, the others refused).
func decodedBySplitter(data []byte) bool {
	for _, magic := range []string{"\xff\xfe", "\xfe\xff", gzipMagic, zstdMagic, "\xfd7zX", "\x04\x22\x4d\x18", "PK\x03\x04", "7z\xbc\xaf"} {
		if bytes.HasPrefix(data, []byte(magic)) {
			return true
		}
	}
	return false
}
