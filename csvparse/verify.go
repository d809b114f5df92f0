package csvparse

import (
	"bufio"
	"bytes"
	stdgzip "compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// DefaultVerifyBuffer is Splitter.VerifyBuffer's default: 8 MiB of
// compressed data.
const DefaultVerifyBuffer = 8 << 20

// MaxZstdWindow is the largest window a zstd frame may need: 128 MiB
// (--long=27), the most zstd -d itself decodes without --long or
// --memory. The decoder holds the window in memory; the library's own
// bound is 512 MiB, and a frame's header alone can ask for it.
const MaxZstdWindow = 128 << 20

// sizeText writes n bytes in the largest binary unit that holds it
// whole, or with one decimal.
func sizeText(n uint64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift {
			if n%(1<<u.shift) == 0 {
				return fmt.Sprintf("%d %s", n>>u.shift, u.name)
			}
			return fmt.Sprintf("%.1f %s", float64(n)/float64(uint64(1)<<u.shift), u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// zstdCheckWindow refuses the frame whose whole header h is when it
// needs a window over MaxZstdWindow. Checked from the header before the
// decoder sees the frame, so the error says what the frame needs; the
// decoder's own bound (set to the same) would only say "window size
// exceeded", and does not apply to frames of one segment.
func zstdCheckWindow(h []byte) error {
	fhd := h[4]
	var window uint64
	if fhd&0x20 == 0 {
		wd := h[5]
		base := uint64(1) << (10 + wd>>3)
		window = base + base/8*uint64(wd&7)
	} else {
		// One segment: the window is the content, whose size follows
		// the dictionary ID.
		at := 5 + []int{0, 1, 2, 4}[fhd&3]
		switch fhd >> 6 {
		case 0:
			window = uint64(h[at])
		case 1:
			window = uint64(binary.LittleEndian.Uint16(h[at:])) + 256
		case 2:
			window = uint64(binary.LittleEndian.Uint32(h[at:]))
		case 3:
			window = binary.LittleEndian.Uint64(h[at:])
		}
	}
	if window > MaxZstdWindow {
		return &ZstdWindowError{Need: window, Max: MaxZstdWindow}
	}
	return nil
}

// A gzip member's CRC-32 and length, and a zstd frame's optional
// checksum, come after its data, and a damaged stream can decompress to
// altered bytes without any error before them: handing those rows out as
// they come would load altered data. So verified decompresses a member
// (gzip) or frame (zstd) whose compressed size is at most limit twice:
// once from a buffer of its compressed bytes only to check it, then for
// real. Memory stays bounded by the buffer (plus as much again to keep
// the first pass's output when it is that small, which saves the second
// pass), not by the decompressed size. A larger member is streamed
// unverified; streaming tells the Splitter so, which names the rows it
// handed out from such a member if the member then fails.
type verified struct {
	gzip   bool // else zstd
	src    io.Reader
	limit  int
	buf    []byte // compressed bytes read ahead: buf[off:] is not used yet
	off    int
	srcErr error // sticky error of src; io.EOF at its end

	gz *gzip.Reader
	zd *zstd.Decoder

	cur       io.Reader // the current member's output; nil between members
	finish    func()    // when cur ends
	truncated bool      // cur is the last member, cut short by the end of src
	cache     []byte
	scratch   []byte
	err       error // final

	// streaming is set while cur is a member over the limit, unverified;
	// gen counts such members, so a new one is told from the last.
	streaming bool
	gen       int64
	members   int // members started

	// read counts the compressed bytes read from src, out the
	// decompressed bytes returned; onPart, if set, is told where each
	// member begins in both (Splitter.Parts).
	read   *countingReader
	out    int64
	onPart func(compressed, decompressed int64)
}

func newVerified(isGzip bool, src io.Reader, limit int) (*verified, error) {
	read := &countingReader{r: src}
	v := &verified{gzip: isGzip, src: read, read: read, limit: limit}
	if !isGzip {
		// Decode in the caller's goroutine: the splitter is the only
		// reader, and the workers already use the other cores.
		zd, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxWindow(MaxZstdWindow))
		if err != nil {
			return nil, err
		}
		v.zd = zd
	} else {
		v.gz = new(gzip.Reader)
	}
	return v, nil
}

func (v *verified) Close() error {
	if v.zd != nil {
		v.zd.Close()
	}
	// A gzip.Reader only holds memory; one that never read a header
	// cannot even be closed.
	return nil
}

func (v *verified) name() string {
	if v.gzip {
		return "gzip"
	}
	return "zstd"
}

func (v *verified) Read(p []byte) (int, error) {
	for v.err == nil {
		if v.cur == nil {
			if err := v.next(); err != nil {
				v.err = err
				break
			}
			continue
		}
		n, err := v.cur.Read(p)
		switch {
		case err == nil:
		case v.truncated && v.srcErr != io.EOF:
			v.err = v.srcErr // a read error, not a short file
		case v.truncated || errors.Is(err, io.ErrUnexpectedEOF):
			// Whatever the decoder makes of a cut-off member, the input
			// ends early.
			v.err = fmt.Errorf("%s: %w", v.name(), io.ErrUnexpectedEOF)
		case err == io.EOF:
			v.cur, v.streaming = nil, false
			v.finish()
		default:
			v.err = wrapDecodeErr(v.name(), err)
		}
		if n > 0 {
			v.out += int64(n)
			return n, nil
		}
	}
	return 0, v.err
}

// fill reads src until limit bytes are buffered or src fails.
func (v *verified) fill() {
	if v.off > 0 {
		v.buf = v.buf[:copy(v.buf, v.buf[v.off:])]
		v.off = 0
	}
	want := max(v.limit, 1)
	for v.srcErr == nil && len(v.buf) < want {
		if cap(v.buf)-len(v.buf) < 64<<10 {
			v.buf = append(v.buf, make([]byte, min(max(len(v.buf), 64<<10), want))...)[:len(v.buf)]
		}
		n, err := v.src.Read(v.buf[len(v.buf):min(cap(v.buf), want)])
		v.buf = v.buf[:len(v.buf)+n]
		if err != nil {
			v.srcErr = err
		}
	}
}

// next starts the next member, verifying it first if it fits the buffer.
func (v *verified) next() error {
	v.fill()
	data := v.buf[v.off:]
	end := v.read.n - int64(len(data)) // where the member before ends
	// Zero bytes after the last gzip member (the padding tar and dd
	// write) end the input, as gzip -d takes them; anything else after
	// them is a member that fails below. Zeros where the first member
	// should be are damage (a file allocated and never written).
	padding := v.gzip && v.members > 0
	for padding && len(data) > 0 && allZero(data) && v.srcErr == nil {
		v.off += len(data)
		v.fill()
		data = v.buf[v.off:]
	}
	if len(data) == 0 || padding && allZero(data) {
		if v.srcErr == io.EOF {
			if v.onPart != nil {
				v.onPart(end, v.out) // the end, before any padding
			}
			return io.EOF
		}
		return v.srcErr
	}
	if v.onPart != nil {
		v.onPart(v.read.n-int64(len(data)), v.out)
	}
	v.members++
	if v.limit > 0 {
		var size int
		var err error
		if v.gzip {
			size, err = v.checkGzip(data)
		} else {
			size, err = v.checkZstd(data)
		}
		switch {
		case err == nil:
			member := data[:size]
			v.finish = func() { v.off += size }
			if v.cache != nil {
				v.cur = bytes.NewReader(v.cache)
				return nil
			}
			return v.start(bytes.NewReader(member))
		case err == errLonger && v.srcErr == nil:
			// Longer than the buffer: stream it below.
		case err == errLonger:
			// Cut short by the end of the input (or a read error): give
			// what decompresses, as zcat does, then the error. Without
			// its trailer the member cannot be checked (damage can look
			// like a cut, too), so its rows are named suspect.
			v.truncated, v.streaming = true, true
			v.gen++
			v.finish = func() {}
			if !v.gzip {
				data = zstdWholeBlocks(data)
			}
			return v.start(bytes.NewReader(data))
		default:
			return wrapDecodeErr(v.name(), err)
		}
	}
	v.streaming = true
	v.gen++
	rest := bytes.NewReader(data)
	br := bufio.NewReaderSize(io.MultiReader(rest, v.src), 64<<10)
	var in io.Reader = br
	if !v.gzip {
		in = &zstdFrame{r: br}
	}
	v.finish = func() {
		// What br read ahead and what it did not read of buf come first.
		left := make([]byte, br.Buffered(), br.Buffered()+rest.Len())
		_, _ = br.Read(left)
		v.buf = append(left, data[len(data)-rest.Len():]...)
		v.off = 0
	}
	return v.start(in)
}

// start makes cur decompress one member from r.
func (v *verified) start(r io.Reader) error {
	if v.gzip && v.truncated {
		// The standard library's inflater reads no bit past the symbol
		// it decodes, so it recovers all but at most the last byte that
		// zcat does from a cut member; the faster one asks for up to 64
		// bits more and loses the last symbols. Only a cut member's
		// tail is decoded twice this way.
		zr, err := stdgzip.NewReader(r)
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return fmt.Errorf("gzip: %w", err)
		}
		zr.Multistream(false)
		v.cur = zr
		return nil
	}
	if v.gzip {
		if err := v.gz.Reset(r); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return fmt.Errorf("gzip: %w", err)
		}
		v.gz.Multistream(false)
		v.cur = v.gz
		return nil
	}
	if err := v.zd.Reset(r); err != nil {
		return fmt.Errorf("zstd: %w", err)
	}
	v.cur = v.zd
	return nil
}

// checkGzip decompresses the member at the start of data, discarding
// its output (or keeping it in v.cache, if small), and returns its
// compressed size.
func (v *verified) checkGzip(data []byte) (int, error) {
	r := bytes.NewReader(data)
	err := v.gz.Reset(r)
	if err == nil {
		v.gz.Multistream(false)
		err = v.drain(v.gz)
	}
	switch {
	case err == nil:
		return len(data) - r.Len(), nil
	case r.Len() == 0 && (err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF)):
		return 0, errLonger
	}
	return 0, err
}

func (v *verified) checkZstd(data []byte) (int, error) {
	size, err := zstdFrameLen(data)
	if err != nil {
		return 0, err
	}
	if err := v.zd.Reset(bytes.NewReader(data[:size])); err != nil {
		return 0, err
	}
	if err := v.drain(v.zd); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			err = errors.New("frame ends early: corrupt input")
		}
		return 0, err
	}
	return size, nil
}

// drain reads r to its end; v.cache keeps the output if at most limit
// bytes, else it is nil.
func (v *verified) drain(r io.Reader) error {
	v.cache = v.cache[:0]
	if v.cache == nil {
		v.cache = make([]byte, 0, 64<<10)
	}
	keep := true
	for {
		var buf []byte
		if keep {
			if len(v.cache) == cap(v.cache) {
				if len(v.cache) >= v.limit {
					keep = false
					v.scratch = make([]byte, 64<<10)
					continue
				}
				v.cache = append(v.cache, 0)[:len(v.cache)]
			}
			buf = v.cache[len(v.cache):cap(v.cache)]
		} else {
			buf = v.scratch
		}
		n, err := r.Read(buf)
		if keep {
			v.cache = v.cache[:len(v.cache)+n]
		}
		if err == io.EOF {
			if !keep {
				v.cache = nil
			}
			return nil
		}
		if err != nil {
			v.cache = nil
			return err
		}
	}
}

// zstd framing (RFC 8878): a frame's blocks carry their sizes, so its
// length is known from its headers without decoding it.
const (
	zstdFrameMagic    = 0xFD2FB528
	zstdSkippableMask = 0xFFFFFFF0
	zstdSkippable     = 0x184D2A50
)

// zstdHeaderLen returns the length of the frame header at the start of p
// (at least 5 bytes), or, for a skippable frame (8 bytes), of the whole
// frame with skippable true.
func zstdHeaderLen(p []byte) (n int, skippable, checksum bool, err error) {
	magic := binary.LittleEndian.Uint32(p)
	if magic&zstdSkippableMask == zstdSkippable {
		if len(p) < 8 {
			return 8, true, false, nil
		}
		return 8 + int(binary.LittleEndian.Uint32(p[4:])), true, false, nil
	}
	if magic != zstdFrameMagic {
		return 0, false, false, errors.New("invalid magic number: not a zstd frame")
	}
	fhd := p[4]
	if fhd&0x08 != 0 {
		return 0, false, false, errors.New("reserved bit set in frame header: corrupt input")
	}
	single := fhd&0x20 != 0
	n = 5
	if !single {
		n++ // window descriptor
	}
	n += []int{0, 1, 2, 4}[fhd&3]
	switch fcs := fhd >> 6; {
	case fcs == 0 && single:
		n++
	case fcs > 0:
		n += 1 << fcs
	}
	return n, false, fhd&0x04 != 0, nil
}

// zstdBlock parses a block header: the block's length with its header,
// and whether it is the frame's last.
func zstdBlock(h []byte) (int, bool, error) {
	v := uint32(h[0]) | uint32(h[1])<<8 | uint32(h[2])<<16
	size := int(v >> 3)
	switch v >> 1 & 3 {
	case 1: // RLE: one byte repeated size times
		size = 1
	case 3:
		return 0, false, errors.New("reserved block type: corrupt input")
	}
	if size > 128<<10 {
		return 0, false, errors.New("block larger than 128 KiB: corrupt input")
	}
	return 3 + size, v&1 != 0, nil
}

// zstdFrameLen returns the length of the frame at the start of p, or
// errLonger if p ends first.
func zstdFrameLen(p []byte) (int, error) {
	if len(p) < 8 {
		if len(p) >= 4 && binary.LittleEndian.Uint32(p)&zstdSkippableMask != zstdSkippable && binary.LittleEndian.Uint32(p) != zstdFrameMagic {
			return 0, errors.New("invalid magic number: not a zstd frame")
		}
		return 0, errLonger
	}
	n, skippable, checksum, err := zstdHeaderLen(p)
	if err != nil || skippable {
		if err == nil && n > len(p) {
			err = errLonger
		}
		return n, err
	}
	if n > len(p) {
		return 0, errLonger
	}
	if err := zstdCheckWindow(p[:n]); err != nil {
		return 0, err
	}
	for {
		if n+3 > len(p) {
			return 0, errLonger
		}
		size, last, err := zstdBlock(p[n:])
		if err != nil {
			return 0, err
		}
		n += size
		if last {
			break
		}
	}
	if checksum {
		n += 4
	}
	if n > len(p) {
		return 0, errLonger
	}
	return n, nil
}

// zstdWholeBlocks returns the whole blocks of the cut frame at the start
// of p, with the frame header's checksum flag cleared: the decoder holds
// back the last block until it has checked the checksum, which a cut
// frame lacks, and zstd -dc prints every whole block.
func zstdWholeBlocks(p []byte) []byte {
	if len(p) < 5 {
		return nil
	}
	n, skippable, _, err := zstdHeaderLen(p)
	if err != nil || skippable || n > len(p) {
		return nil
	}
	for n+3 <= len(p) {
		size, last, err := zstdBlock(p[n:])
		if err != nil || n+size > len(p) {
			break
		}
		n += size
		if last {
			break
		}
	}
	out := bytes.Clone(p[:n])
	out[4] &^= 0x04
	return out
}

// zstdFrame passes exactly one frame of r through, walking its headers
// as zstdFrameLen does, so that the decoder of a streamed frame stops at
// its end and the next frame is verified again.
type zstdFrame struct {
	r     *bufio.Reader
	left  int // bytes of the current piece still to pass
	state uint8
	last  bool
	sum   bool
	err   error
}

const (
	zfHeader = iota
	zfBlock
	zfChecksum
	zfDone
)

func (z *zstdFrame) Read(p []byte) (int, error) {
	for z.left == 0 && z.err == nil {
		z.err = z.advance()
	}
	if z.left == 0 {
		return 0, z.err
	}
	n, err := z.r.Read(p[:min(len(p), z.left)])
	z.left -= n
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// advance sets left to the next piece's length: a header, a block, the
// checksum, or io.EOF after the frame.
func (z *zstdFrame) advance() error {
	peek := func(n int) ([]byte, error) {
		b, err := z.r.Peek(n)
		if len(b) < n {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		return b, nil
	}
	switch z.state {
	case zfHeader:
		b, err := peek(5)
		if err != nil {
			return err
		}
		if binary.LittleEndian.Uint32(b)&zstdSkippableMask == zstdSkippable {
			if b, err = peek(8); err != nil {
				return err
			}
		}
		n, skippable, sum, err := zstdHeaderLen(b)
		if err != nil {
			return err
		}
		if !skippable {
			h, err := peek(n)
			if err != nil {
				return err
			}
			if err := zstdCheckWindow(h); err != nil {
				return err
			}
		}
		z.left, z.sum, z.state = n, sum, zfBlock
		if skippable {
			z.state = zfDone
		}
	case zfBlock:
		if z.last {
			z.state = zfChecksum
			if z.sum {
				z.left = 4
			}
			return nil
		}
		b, err := peek(3)
		if err != nil {
			return err
		}
		n, last, err := zstdBlock(b)
		if err != nil {
			return err
		}
		z.left, z.last = n, last
	case zfChecksum:
		z.state = zfDone
	default:
		return io.EOF
	}
	return nil
}

// wrapDecodeErr names the format unless the decoder's message already
// starts with it ("gzip: invalid checksum").
func wrapDecodeErr(format string, err error) error {
	if strings.HasPrefix(err.Error(), format+":") {
		return err
	}
	return fmt.Errorf("%s: %w", format, err)
}

func allZero(p []byte) bool {
	for _, b := range p {
		if b != 0 {
			return false
		}
	}
	return true
}
