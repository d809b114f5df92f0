package csvparse

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/gzip"

	"github.com/klauspost/compress/zstd"
)

// A compressed file in parts that decompress on their own (bgzip's
// blocks, zstd frames) can be read from any part's start: a loader may
// read it in stripes as it reads an uncompressed file in ranges, each
// stripe decompressed from the part that holds its first record
// (Decompress) and handed to a Splitter as text (Source.Decoded). The
// Splitter's first pass over the file says where the parts begin
// (Splitter.Parts).

// zstdWalkBlocks bounds the block headers Multipart reads to find where
// a zstd file's first frame ends: 512 blocks, 64 MiB of text, the frames
// of the tools that write several (pzstd, zstd's seekable format, t2sz)
// being smaller. Each is a small read, a request of its own on object
// storage.
const zstdWalkBlocks = 512

// Multipart reports whether the file name, r of size bytes, is
// compressed in parts that decompress on their own: gzip in BGZF
// (bgzip's blocks, whose first header says so, even of one block), or
// zstd of more than one frame (its first frame, found by walking its
// block headers, ends before the file). A gzip file of several members
// that are not BGZF
// cannot be told from one of a single member without decompressing it,
// and is reported false. Errors are the reader's.
func Multipart(name string, r io.ReaderAt, size int64) (bool, error) {
	var head [18]byte
	n, err := r.ReadAt(head[:min(size, int64(len(head)))], 0)
	if int64(n) < min(size, int64(len(head))) {
		return false, readErr(err)
	}
	p := head[:n]
	lower := strings.ToLower(name)
	// pzstd and the seekable format may begin with a skippable frame,
	// which the Splitter reads as zstd by the file's name.
	skippable := len(p) >= 4 && binary.LittleEndian.Uint32(p)&zstdSkippableMask == zstdSkippable &&
		(strings.HasSuffix(lower, ".zst") || strings.HasSuffix(lower, ".zstd"))
	switch {
	case strings.HasPrefix(string(p), gzipMagic):
		return bgzf(p), nil
	case strings.HasPrefix(string(p), zstdMagic), skippable:
		end, err := zstdFirstFrame(r, size)
		if err != nil || end < 0 {
			return false, err
		}
		return end < size, nil
	}
	return false, nil
}

// bgzf reports whether a gzip header is BGZF's: FEXTRA with the
// subfield BC, which holds the block's size.
func bgzf(h []byte) bool {
	return len(h) >= 16 && h[3]&0x04 != 0 && binary.LittleEndian.Uint16(h[10:]) >= 6 &&
		h[12] == 'B' && h[13] == 'C' && binary.LittleEndian.Uint16(h[14:]) == 2
}

// zstdFirstFrame returns where the frame (or skippable frames and the
// frame after them) at the start of r ends, or -1 when it is longer than
// zstdWalkBlocks blocks.
func zstdFirstFrame(r io.ReaderAt, size int64) (int64, error) {
	var off int64
	var buf [18]byte
	for {
		n, err := r.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
		if n < 8 {
			return 0, readErrOr(err, "zstd: a frame header cut short")
		}
		hl, skippable, checksum, err := zstdHeaderLen(buf[:n])
		if err != nil {
			return 0, fmt.Errorf("zstd: %w", err)
		}
		if skippable {
			off += int64(hl)
			continue
		}
		off += int64(hl)
		for i := 0; ; i++ {
			if i == zstdWalkBlocks {
				return -1, nil
			}
			if _, err := r.ReadAt(buf[:3], off); err != nil {
				return 0, readErrOr(err, "zstd: a block header cut short")
			}
			bl, last, err := zstdBlock(buf[:3])
			if err != nil {
				return 0, fmt.Errorf("zstd: %w", err)
			}
			off += int64(bl)
			if last {
				break
			}
		}
		if checksum {
			off += 4
		}
		return off, nil
	}
}

func readErrOr(err error, msg string) error {
	if err == nil || errors.Is(err, io.EOF) {
		return errors.New(msg)
	}
	return readErr(err)
}

// Decompress streams the text of r, which begins at a gzip member or a
// zstd frame and may hold more after it: a stripe of a multipart file
// reads from its part so. Unlike the Splitter it checks no member before
// handing out its bytes (a damaged one fails at its end, by its
// checksum): the stripes of a file are read after a first pass that
// checked every member, and a buffer for each stripe read at once (12
// of them) raised a bgzip load's peak RSS by a quarter. The reader must
// not be read past the text wanted: zero bytes after the last gzip
// member read as a damaged member.
func Decompress(r io.Reader) (io.ReadCloser, error) {
	br := bufio.NewReaderSize(r, 32<<10)
	magic, err := br.Peek(len(zstdMagic))
	if err != nil && len(magic) == 0 {
		return nil, readErrOr(err, "nothing to decompress")
	}
	switch {
	case strings.HasPrefix(string(magic), gzipMagic):
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		return zr, nil
	case strings.HasPrefix(string(magic), zstdMagic):
		zd, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxWindow(MaxZstdWindow))
		if err != nil {
			return nil, fmt.Errorf("zstd: %w", err)
		}
		return zd.IOReadCloser(), nil
	}
	return nil, errors.New("not the start of a gzip member or a zstd frame")
}
