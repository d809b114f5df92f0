package csvparse

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"strings"
	"testing"
)

// bgzipped writes each part as a BGZF block, as bgzip does: a gzip
// member whose header's extra field BC holds the block's size less one.
func bgzipped(t *testing.T, parts ...string) []byte {
	t.Helper()
	var out []byte
	for _, p := range parts {
		var b bytes.Buffer
		w, err := gzip.NewWriterLevel(&b, gzip.BestSpeed)
		if err != nil {
			t.Fatal(err)
		}
		w.Extra = []byte{'B', 'C', 2, 0, 0, 0}
		if _, err := w.Write([]byte(p)); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		block := b.Bytes()
		binary.LittleEndian.PutUint16(block[16:], uint16(len(block)-1))
		out = append(out, block...)
	}
	return out
}

// zstdSkippableFrame is a skippable frame of n zero bytes, as pzstd and
// the seekable format write beside the data frames.
func zstdSkippableFrame(n int) []byte {
	f := binary.LittleEndian.AppendUint32(nil, 0x184D2A50)
	f = binary.LittleEndian.AppendUint32(f, uint32(n))
	return append(f, make([]byte, n)...)
}

// partsText is a CSV of n records cut into k parts, each part's text
// ending inside a record (a part is a compression unit, not a record).
func partsText(n, k int) (string, []string) {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%d,\"name %d, quoted\",%d\n", i, i, i*7)
	}
	text := b.String()
	var parts []string
	for i := range k {
		from, to := len(text)*i/k+3, len(text)*(i+1)/k+3
		if i == 0 {
			from = 0
		}
		if i == k-1 {
			to = len(text)
		}
		parts = append(parts, text[from:to])
	}
	return text, parts
}

func TestMultipart(t *testing.T) {
	text, parts := partsText(3000, 4)
	var big strings.Builder
	for big.Len() < 80<<20 { // over zstdWalkBlocks blocks of text in one frame
		big.WriteString(text)
	}
	tests := []struct {
		name string
		file string
		data []byte
		want bool
	}{
		{"plain text", "a.csv", []byte(text), false},
		{"empty", "a.csv.gz", nil, false},
		{"one gzip member", "a.csv.gz", gzipped(t, text), false},
		{"gzip members, not BGZF", "a.csv.gz", gzipped(t, parts...), false},
		{"BGZF", "a.csv.gz", bgzipped(t, parts...), true},
		{"BGZF of one block", "a.csv.gz", bgzipped(t, text), true}, // the format says so
		{"one zstd frame", "a.csv.zst", zstded(t, text), false},
		{"zstd frames", "a.csv.zst", zstdMembers(t, parts...), true},
		{"a skippable frame, then zstd frames", "a.csv.zst", append(zstdSkippableFrame(4), zstdMembers(t, parts...)...), true},
		{"zstd frame of more blocks than are walked", "a.csv.zst", append(zstded(t, big.String()), zstded(t, text)...), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Multipart(tc.file, bytes.NewReader(tc.data), int64(len(tc.data)))
			if err != nil || got != tc.want {
				t.Fatalf("Multipart = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// TestPartsThenDecompress: the Splitter tells where each part begins in
// the file and in the text, and Decompress from any part's start gives
// the text from that offset on: what a stripe of the file reads.
func TestPartsThenDecompress(t *testing.T) {
	text, parts := partsText(4000, 5)
	for _, tc := range []struct {
		name, file string
		data       []byte
		padding    int
	}{
		{"BGZF", "x.csv.gz", bgzipped(t, parts...), 0},
		{"BGZF and tar's zero padding", "x.csv.gz", bgzipped(t, parts...), 512},
		{"gzip members", "x.csv.gz", gzipped(t, parts...), 0},
		{"zstd frames", "x.csv.zst", zstdMembers(t, parts...), 0},
	} {
		data := append(bytes.Clone(tc.data), make([]byte, tc.padding)...)
		for _, verify := range []int{DefaultVerifyBuffer, 64} { // checked, or streamed
			t.Run(fmt.Sprintf("%s/verify=%d", tc.name, verify), func(t *testing.T) {
				type part struct{ c, u int64 }
				var got []part
				d := DefaultDialect()
				s := NewSplitter([]Source{memSource(tc.file, data, false)}, d, 50, 0)
				s.VerifyBuffer = verify
				s.Parts = func(src int, c, u int64) {
					if src != 0 {
						t.Errorf("part of source %d", src)
					}
					got = append(got, part{c, u})
				}
				_, recs := split(t, s, d)
				if len(recs) != 4000 {
					t.Fatalf("%d records, want 4000", len(recs))
				}
				var want []part
				var c, u int64
				for i, p := range parts {
					want = append(want, part{c, u})
					c += int64(len(zstdOrGzipPart(t, tc.name, p, i, tc.data)))
					u += int64(len(p))
				}
				want = append(want, part{c, u}) // the end
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("parts %v, want %v", got, want)
				}
				got = got[:len(got)-1]
				for _, p := range got {
					rc, err := Decompress(bytes.NewReader(data[p.c:]))
					if err != nil {
						t.Fatal(err)
					}
					// The text to its end, and no further: zero padding
					// after it reads as damage.
					out := make([]byte, len(text)-int(p.u))
					_, err = io.ReadFull(rc, out)
					if err != nil || string(out) != text[p.u:] {
						t.Fatalf("from byte %d: %v; want the text from %d (%d bytes)", p.c, err, p.u, len(text)-int(p.u))
					}
					if n, err := rc.Read(make([]byte, 10)); tc.padding == 0 && (n != 0 || err != io.EOF) {
						t.Fatalf("from byte %d: %d bytes, %v after the text, want EOF", p.c, n, err)
					}
					_ = rc.Close()
				}
			})
		}
	}
	if _, err := Decompress(strings.NewReader("a,b\n")); err == nil {
		t.Error("Decompress of text: no error")
	}
}

// zstdOrGzipPart is part i compressed as the file's parts are, for its
// length: each is compressed alone, so the lengths add up to the file.
func zstdOrGzipPart(t *testing.T, name, p string, i int, file []byte) []byte {
	switch {
	case strings.HasPrefix(name, "BGZF"):
		return bgzipped(t, p)
	case strings.HasPrefix(name, "zstd"):
		return zstded(t, p)
	}
	return gzipped(t, p)
}
