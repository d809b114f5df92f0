package csvparse

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"golang.org/x/text/encoding"
	"golang.org/x/text/transform"
)

const (
	gzipMagic = "\x1f\x8b"
	zstdMagic = "\x28\xb5\x2f\xfd"
)

// countingReader counts the raw bytes read from a source, before
// decompression, for percent-done progress.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// input is one opened source: raw bytes → decompression → decoding.
type input struct {
	count      *countingReader
	r          io.Reader // decoded UTF-8 stream
	compressed bool
	decoded    int64     // when compressed: what it decompresses to, if known (decodedSize)
	v          *verified // the decompressor, if compressed
	close      []func() error

	// async reads a source of unknown size (async.go); nil for a
	// regular file, which is read directly. raw and text are the
	// buffers above the source whose contents a read returns without
	// blocking (text is nil when compressed).
	async     *asyncReader
	raw, text *bufio.Reader
}

// ready reports whether a read of in.r may block beyond d for lack of
// input: false only for an uncompressed source read by an asyncReader,
// with nothing buffered, that gets no data within d. A compressed stream
// always says true: what its decompressor holds cannot be known, and it
// is not cut early. A transform (an Encoding) may hold decoded bytes
// too; then a cut comes up to d later than it could.
func (in *input) ready(d time.Duration) bool {
	if in.async == nil || in.compressed || in.raw.Buffered() > 0 || in.text != nil && in.text.Buffered() > 0 {
		return true
	}
	return in.async.wait(d)
}

// streaming reports whether the bytes read last may come from a
// compressed member too large to check before use, and which one.
func (in *input) streaming() (bool, int64) {
	if in.v == nil {
		return false, 0
	}
	return in.v.streaming, in.v.gen
}

// openInput opens src and stacks decompression (by magic bytes, or by
// extension so a corrupt .gz fails loudly instead of loading garbage),
// verified as verified.go says with verifyLimit, and decoding to UTF-8
// on it.
func openInput(src Source, enc encoding.Encoding, verifyLimit int, onPart func(compressed, decompressed int64)) (*input, error) {
	if src.Open == nil {
		return nil, errors.New("source cannot be opened")
	}
	rc, err := src.Open()
	if err != nil {
		return nil, err
	}
	in := &input{count: &countingReader{r: rc}}
	closeRaw := rc.Close
	if src.Size < 0 {
		// stdin, a FIFO: possibly a slow producer (Splitter.FlushInterval).
		in.async = newAsyncReader(rc)
		in.count.r, closeRaw = in.async, in.async.Close
	}
	// A small file needs no more buffer than it has bytes: 64 KiB for
	// each of 10,000 files of a kilobyte was most of what they cost.
	bufSize := 64 << 10
	if src.Size >= 0 {
		bufSize = int(min(int64(bufSize), src.Size+1))
	}
	br := bufio.NewReaderSize(in.count, bufSize)
	in.r, in.raw = br, br
	// A read error here comes back from the next Read.
	magic, _ := br.Peek(len(zstdMagic))
	if src.Continues {
		// Inside a file, bytes that look like a magic number or a BOM
		// are data: only the file's first bytes say what it is, and a
		// file that could be cut is plain text.
		magic = nil
	}
	name := strings.ToLower(src.Name)
	if src.Decoded {
		name = "" // text, whatever the file's name says
	}
	if kind := unsupportedCompression(name, magic); kind != "" {
		_ = closeRaw()
		return nil, fmt.Errorf("compressed with %s, which cqlload does not read: decompress it first, or pipe it to stdin", kind)
	}
	isGzip := strings.HasPrefix(string(magic), gzipMagic) || strings.HasSuffix(name, ".gz")
	isZstd := strings.HasPrefix(string(magic), zstdMagic) || strings.HasSuffix(name, ".zst") || strings.HasSuffix(name, ".zstd")
	switch {
	case len(magic) == 0, src.Decoded:
		// Empty, or decompressed already: nothing to decompress,
		// whatever the name says.
	case isGzip || isZstd:
		// A header error comes from the first Read, as any other damage.
		v, err := newVerified(isGzip, br, verifyLimit)
		if err != nil {
			_ = closeRaw()
			return nil, err
		}
		v.onPart = onPart
		in.r, in.compressed, in.v = v, true, v
		in.close = append(in.close, v.Close)
		in.decoded = decodedSize(src.Size, isGzip, rc, br)
	}
	if enc != nil && !src.Continues && isUTF16(enc) {
		br := bufio.NewReaderSize(in.r, utf16Probe)
		in.r = br
		if err := checkUTF16(br); err != nil {
			in.close = append(in.close, closeRaw)
			_ = in.Close()
			return nil, err
		}
	}
	if enc == nil {
		// A UTF-16 BOM is invalid UTF-8, so honouring it cannot misread a
		// UTF-8 file; it rescues Excel's "Unicode text" exports loaded
		// without ENCODING. bufio reads large requests directly, so the
		// extra layer costs no copy.
		br := bufio.NewReaderSize(in.r, min(4096, bufSize))
		in.r = br
		if !in.compressed {
			in.text = br
		}
		if bom, _ := br.Peek(2); !src.Continues && (string(bom) == "\xff\xfe" || string(bom) == "\xfe\xff") {
			enc = utf16WithBOM
		}
	}
	if enc != nil {
		in.r = transform.NewReader(in.r, enc.NewDecoder())
	}
	in.close = append(in.close, closeRaw)
	return in, nil
}

// utf16Probe is how much of a UTF-16 input checkUTF16 looks at.
const utf16Probe = 4096

// checkUTF16 refuses an input read as UTF-16 that is not: UTF-16 text
// holding any line break, delimiter or quote (ASCII) has a zero byte in
// every such character, so a start with none is almost surely UTF-8 or a
// single-byte encoding under the wrong ENCODING. Decoded anyway, it is
// one long record of CJK-looking text: with HEADER it would be taken for
// the header, and the run would load nothing and call that a success.
func checkUTF16(br *bufio.Reader) error {
	head, err := br.Peek(utf16Probe)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil // the read error comes back from the next Read
	}
	if len(head) >= 2 && (string(head[:2]) == "\xff\xfe" || string(head[:2]) == "\xfe\xff") {
		head = head[2:]
	}
	if len(head) < 2 || bytes.IndexByte(head, 0) >= 0 {
		return nil
	}
	return fmt.Errorf("not UTF-16 text, as ENCODING says: its first %d bytes hold no zero byte, which UTF-16 has in every line break, delimiter and quote (is it UTF-8? then leave ENCODING out)", len(head))
}

func (in *input) Close() error {
	var first error
	for _, f := range in.close {
		if err := f(); err != nil && first == nil {
			first = err
		}
	}
	in.close = nil
	return first
}

// unsupportedCompression names the format of an input compressed in a
// way cqlload does not read, so it fails with a clear message instead of
// loading binary garbage as rows. Only magic numbers that no text file
// starts with are trusted; the rest go by extension.
func unsupportedCompression(name string, magic []byte) string {
	for _, f := range []struct {
		ext, kind string
		magic     string // first 4 bytes, "" to go by extension only
	}{
		{".bz2", "bzip2", ""},
		{".xz", "xz", "\xfd7zX"},
		{".lz4", "lz4", "\x04\x22\x4d\x18"},
		{".zip", "zip", "PK\x03\x04"},
		{".7z", "7-zip", "7z\xbc\xaf"},
		{".snappy", "snappy", ""},
	} {
		if strings.HasSuffix(name, f.ext) || f.magic != "" && string(magic) == f.magic {
			return f.kind
		}
	}
	return ""
}

// decodedSize estimates how many bytes a compressed file of size bytes
// decompresses to, 0 when its format does not say: gzip ends with the
// last member's size modulo 2^32 (exact for one member under 4 GiB, only
// the last one's for several; a BGZF file, made of many, says 0), read
// through rc when it is an io.ReaderAt (a file: one pread; an object: one
// small ranged request); a zstd frame header, peeked from br, may carry
// its content size. The loader uses it to
// prorate percent done over the file's size on disk.
func decodedSize(size int64, isGzip bool, rc io.Reader, br *bufio.Reader) int64 {
	if size < 18 {
		return 0
	}
	if !isGzip {
		head, err := br.Peek(18)
		if err != nil || binary.LittleEndian.Uint32(head) != 0xfd2fb528 {
			return 0
		}
		return zstdContentSize(head[4:])
	}
	if head, err := br.Peek(14); err != nil || head[3]&4 != 0 && string(head[12:14]) == "BC" {
		// BGZF (bgzip): members of 64 KiB, so the trailer tells
		// nothing of the whole.
		return 0
	}
	ra, ok := rc.(io.ReaderAt)
	if !ok {
		return 0
	}
	var tail [4]byte
	if _, err := ra.ReadAt(tail[:], size-4); err != nil {
		return 0
	}
	n := int64(binary.LittleEndian.Uint32(tail[:]))
	for n < size/2 { // the modulo: no CSV shrinks to half its size in gzip's worst case
		n += 1 << 32
	}
	return n
}

// zstdContentSize reads Frame_Content_Size from a frame header (after the
// magic number), 0 when absent.
func zstdContentSize(h []byte) int64 {
	fhd := h[0]
	fcsFlag := fhd >> 6
	single := fhd&0x20 != 0
	didFlag := fhd & 3
	pos := 1
	if !single {
		pos++ // window descriptor
	}
	pos += []int{0, 1, 2, 4}[didFlag]
	size := []int{0, 2, 4, 8}[fcsFlag]
	if fcsFlag == 0 && single {
		size = 1
	}
	if size == 0 || pos+size > len(h) {
		return 0
	}
	b := h[pos : pos+size]
	switch size {
	case 1:
		return int64(b[0])
	case 2:
		return int64(binary.LittleEndian.Uint16(b)) + 256
	case 4:
		return int64(binary.LittleEndian.Uint32(b))
	}
	return int64(binary.LittleEndian.Uint64(b))
}
