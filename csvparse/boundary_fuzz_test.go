package csvparse

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

// FuzzFindRecordStart checks FindRecordStart against a parse from the
// file's start, for any bytes, dialect and offset, with windows from one
// byte to the real ones and an optional limit on how far back to read
// (which may make it undecidable, never wrong).
func FuzzFindRecordStart(f *testing.F) {
	fuzzSeeds(f, func(data []byte, opts uint8) { f.Add(data, opts, uint16(len(data)/2), uint8(0)) })
	f.Add([]byte("\"a\nb\",c\n\"\"\"x\n\"\r\nd\\\ne\n"), uint8(0), uint16(3), uint8(1))
	f.Add([]byte("\ufeffa\r\n\r\n'b''\n'\n"), uint8(1), uint16(2), uint8(0x12))
	f.Fuzz(func(t *testing.T, data []byte, opts uint8, off uint16, shape uint8) {
		d := fuzzDialect(opts)
		size := int64(len(data))
		o := int64(off) % (size + 2)
		utf16 := bytes.HasPrefix(data, []byte("\xff\xfe")) || bytes.HasPrefix(data, []byte("\xfe\xff"))
		windows := [][2]int64{{1, 2}, {1, 16}, {8, 64}, {boundaryWindowMin, boundaryWindowMax}}[shape&3]
		maxBack := []int64{-1, -1, 4, 32}[shape>>2&3]
		got, err := findRecordStart(bytes.NewReader(data), size, o, d, maxBack, windows[0], windows[1])
		switch {
		case o > 0 && o < size && utf16:
			if !errors.Is(err, ErrNotSplittable) {
				t.Fatalf("UTF-16 BOM: %d, %v", got, err)
			}
			return
		case utf16:
			if err != nil {
				t.Fatalf("off %d: %v", o, err)
			}
		}
		if err != nil {
			var be *BoundaryError
			if maxBack < 0 || !errors.Is(err, ErrUndecidable) || !errors.As(err, &be) || be.Offset != o {
				t.Fatalf("off %d maxBack %d: %v", o, maxBack, err)
			}
			return
		}
		if utf16 {
			return
		}
		want := wantStart(recordStarts(t, data, d), size, o)
		if got != want {
			t.Fatalf("off %d windows %v maxBack %d: got %d, want %d", o, windows, maxBack, got, want)
		}
	})
}

// FuzzUntil checks Source.Until against FindRecordStart: for any bytes,
// dialect and offset, a stream ended at the offset yields the records of
// the bytes before the first record that begins at or after it.
func FuzzUntil(f *testing.F) {
	fuzzSeeds(f, func(data []byte, opts uint8) { f.Add(data, opts, uint16(len(data)/2)) })
	f.Add([]byte("a\r\n\r\nb\rc\n"), uint8(0), uint16(4))
	f.Fuzz(func(t *testing.T, data []byte, opts uint8, off uint16) {
		if decodedBySplitter(data) {
			return // UTF-16 or compressed: not cut by offsets
		}
		d := fuzzDialect(opts)
		size := int64(len(data))
		until := 1 + int64(off)%(size+1)
		end := wantStart(recordStarts(t, data, d), size, until)
		want := parseSplitter(t, data[:end], d)
		src := memSource("f", data, false)
		src.Until = until
		if got := parseSource(t, src, d); !reflect.DeepEqual(got, want) {
			t.Fatalf("Until %d (record start %d):\ngot  %+v\nwant %+v", until, end, got, want)
		}
	})
}
