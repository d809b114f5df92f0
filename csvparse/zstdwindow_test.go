package csvparse

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// zstdRawFrame is a zstd frame holding text in one raw block, with the
// frame header fhd and its window or content-size bytes (desc) as given:
// the header alone says what window the frame needs, whatever it holds.
func zstdRawFrame(fhd byte, desc []byte, text string) []byte {
	f := binary.LittleEndian.AppendUint32(nil, zstdFrameMagic)
	f = append(f, fhd)
	f = append(f, desc...)
	h := uint32(len(text))<<3 | 1 // raw block, the last
	f = append(f, byte(h), byte(h>>8), byte(h>>16))
	return append(f, text...)
}

// TestZstdWindowBound: a frame that needs a window over MaxZstdWindow
// (zstd --long=28 and up) is refused before it is decoded, with an error
// naming the file, the window the frame needs and the remedy; one at the
// bound decodes. The library's default bound, 512 MiB, let a frame's
// header alone claim that much memory.
func TestZstdWindowBound(t *testing.T) {
	const text = "k,v\n1,a\n2,b\n"
	le64 := binary.LittleEndian.AppendUint64(nil, 1<<31)
	for _, tc := range []struct {
		name  string
		frame []byte
		need  uint64 // 0: decodes
		long  int
	}{
		{"window 2 GiB (--long=31)", zstdRawFrame(0x00, []byte{21 << 3}, text), 2 << 30, 31},
		{"window 256 MiB (--long=28)", zstdRawFrame(0x00, []byte{18 << 3}, text), 256 << 20, 28},
		{"window 128 MiB plus an eighth", zstdRawFrame(0x00, []byte{17<<3 | 1}, text), 144 << 20, 28},
		{"window 128 MiB (--long=27)", zstdRawFrame(0x00, []byte{17 << 3}, text), 0, 0},
		{"window 1 KiB", zstdRawFrame(0x00, []byte{0}, text), 0, 0},
		{"one segment of 2 GiB", zstdRawFrame(0x20|3<<6, le64, text), 2 << 30, 31},
		{"one segment of its content", zstdRawFrame(0x20, []byte{byte(len(text))}, text), 0, 0},
	} {
		// A frame over the verify buffer is streamed: the bound holds
		// on both paths.
		for _, verify := range []int{DefaultVerifyBuffer, 8} {
			t.Run(fmt.Sprintf("%s/verify=%d", tc.name, verify), func(t *testing.T) {
				d := DefaultDialect()
				s := NewSplitter([]Source{memSource("t.csv.zst", tc.frame, false)}, d, 7, 0)
				s.VerifyBuffer = verify
				got := runSplitter(t, s, d)
				if tc.need == 0 {
					if got.err != nil || handedOut(got) != text {
						t.Fatalf("error %v, handed out %q; want %q", got.err, handedOut(got), text)
					}
					return
				}
				var we *ZstdWindowError
				var ie *InputError
				if !errors.As(got.err, &we) || !errors.As(got.err, &ie) || ie.File != "t.csv.zst" {
					t.Fatalf("error %v, want a *ZstdWindowError in an *InputError naming the file", got.err)
				}
				if we.Need != tc.need || we.Max != MaxZstdWindow {
					t.Errorf("need %d of %d, want %d of %d", we.Need, we.Max, tc.need, MaxZstdWindow)
				}
				msg := got.err.Error()
				for _, w := range []string{"t.csv.zst", "128 MiB", fmt.Sprintf("--long=%d", tc.long)} {
					if !strings.Contains(msg, w) {
						t.Errorf("error %q does not say %q", msg, w)
					}
				}
				if len(got.order) > 0 {
					t.Errorf("rows handed out from a frame that was refused: %v", got.order)
				}
			})
		}
	}
}
