package csvparse

import (
	"bytes"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

func gzipped(t *testing.T, parts ...string) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, p := range parts { // several members, as `cat a.gz b.gz` makes
		w := gzip.NewWriter(&b)
		if _, err := w.Write([]byte(p)); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

func zstded(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := zstd.NewWriter(&b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestCompressedAndEncodedInputs(t *testing.T) {
	const text = "id,name\n1,\"café\nau lait\"\n2,naïve\r\n"
	want := []rec{
		{2, "1,\"café\nau lait\"", f("1", "café\nau lait"), q(false, true), ""},
		{4, "2,naïve", f("2", "naïve"), q(false, false), ""},
	}
	latin1, err := charmap.ISO8859_1.NewEncoder().Bytes([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	utf16 := func(e unicode.Endianness, bom unicode.BOMPolicy) []byte {
		b, err := unicode.UTF16(e, bom).NewEncoder().Bytes([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		name     string
		file     string
		data     []byte
		encoding string
	}{
		{"plain", "a.csv", []byte(text), ""},
		{"utf-8 bom", "a.csv", []byte("\ufeff" + text), "UTF-8"},
		{"gzip by extension", "a.csv.gz", gzipped(t, text), ""},
		{"gzip by magic", "a.csv", gzipped(t, text), ""},
		{"gzip members", "a.gz", gzipped(t, text[:12], text[12:]), ""},
		{"zstd by extension", "a.csv.zst", zstded(t, text), ""},
		{"zstd by magic", "-", zstded(t, text), ""},
		{"latin-1", "a.csv", latin1, "latin-1"},
		{"latin-1 gzipped", "a.csv.gz", gzipped(t, string(latin1)), "ISO-8859-1"},
		{"utf-16 bom le", "a.csv", utf16(unicode.LittleEndian, unicode.UseBOM), "utf-16"},
		{"utf-16 bom be", "a.csv", utf16(unicode.BigEndian, unicode.UseBOM), "utf-16"},
		{"utf-16 no bom is le", "a.csv", utf16(unicode.LittleEndian, unicode.IgnoreBOM), "utf-16"},
		{"utf-16le", "a.csv", utf16(unicode.LittleEndian, unicode.IgnoreBOM), "utf-16le"},
		{"utf-16be", "a.csv", utf16(unicode.BigEndian, unicode.IgnoreBOM), "utf-16be"},
		{"utf-16le with bom", "a.csv", utf16(unicode.LittleEndian, unicode.UseBOM), "utf-16le"},
		{"utf-16le bom without ENCODING", "a.csv", utf16(unicode.LittleEndian, unicode.UseBOM), ""},
		{"utf-16be bom without ENCODING, gzipped", "a.csv.gz", gzipped(t, string(utf16(unicode.BigEndian, unicode.UseBOM))), "utf-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := dialect(func(d *Dialect) { d.Header, d.Encoding = true, tt.encoding })
			for _, oneByte := range []bool{false, true} {
				chunks, got := split(t, NewSplitter([]Source{memSource(tt.file, tt.data, oneByte)}, d, 1, 0), d)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("got\n%#v\nwant\n%#v", got, want)
				}
				if h := chunks[0].Header; !reflect.DeepEqual(h, []string{"id", "name"}) {
					t.Errorf("header %q", h)
				}
				if n := sumInput(chunks); n != int64(len(tt.data)) {
					t.Errorf("InputBytes add up to %d, want the stored size %d", n, len(tt.data))
				}
			}
		})
	}
}

func TestUnsupportedCompression(t *testing.T) {
	tests := []struct {
		name string
		data string
		want string // "" means it loads
	}{
		{"a.csv.bz2", "BZh91AY&SY", "a.csv.bz2: compressed with bzip2"},
		{"a.csv", "\xfd7zXZ\x00\x00", "a.csv: compressed with xz"},
		{"export", "PK\x03\x04\x14\x00", "export: compressed with zip"},
		{"a.csv", "BZh,1\n", ""},
		{"PK.csv", "PK,1\n", ""},
	}
	for _, tt := range tests {
		_, err := NewSplitter([]Source{memSource(tt.name, []byte(tt.data), false)}, DefaultDialect(), 10, 0).Next()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s %q: %v, want it loaded", tt.name, tt.data, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s %q: %v, want %q", tt.name, tt.data, err, tt.want)
		}
	}
}

// With an unknown size (stdin), InputBytes count what was actually read.
func TestInputBytesOfUnknownSize(t *testing.T) {
	gz := gzipped(t, "a\nb\nc\n")
	for _, maxRows := range []int{-1, 1} {
		src := memSource("-", gz, true)
		src.Size = -1
		d := dialect(func(d *Dialect) { d.MaxRows = maxRows })
		s := NewSplitter([]Source{src}, d, 1, 0)
		if s.TotalBytes() != -1 {
			t.Fatalf("TotalBytes = %d, want -1", s.TotalBytes())
		}
		chunks, _ := split(t, s, d)
		got := sumInput(chunks)
		if maxRows < 0 && got != int64(len(gz)) || got <= 0 || got > int64(len(gz)) {
			t.Errorf("MaxRows %d: InputBytes add up to %d of %d read", maxRows, got, len(gz))
		}
	}
}

func TestZstdContentSize(t *testing.T) {
	tests := []struct {
		name string
		h    []byte // frame header after the magic number
		want int64
	}{
		{"single segment, 1-byte size", []byte{0x20, 200}, 200},
		{"2-byte size", []byte{0x40, 0x70, 0x10, 0x00}, 0x0010 + 256},
		{"4-byte size", []byte{0x80, 0x70, 0x78, 0x56, 0x34, 0x12}, 0x12345678},
		{"no size", []byte{0x00, 0x70}, 0},
	}
	for _, tt := range tests {
		if got := zstdContentSize(append(tt.h, make([]byte, 12)...)); got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, got, tt.want)
		}
	}
}

// TestDecodedSize: chunks of a compressed file carry what it decompresses
// to when the format records it, and 0 otherwise.
func TestDecodedSize(t *testing.T) {
	text := strings.Repeat("1,some text to compress\n", 2000)
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	var bgzf bytes.Buffer
	w, err := gzip.NewWriterLevel(&bgzf, gzip.DefaultCompression)
	if err != nil {
		t.Fatal(err)
	}
	w.Header.Extra = []byte{'B', 'C', 2, 0, 0, 0} // BGZF's subfield
	if _, err := w.Write([]byte(text)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
		want int64
	}{
		{"plain", []byte(text), 0},
		{"gzip", gzipped(t, text), int64(len(text))},
		{"bgzf", bgzf.Bytes(), 0},
		{"zstd with its size", enc.EncodeAll([]byte(text), nil), int64(len(text))},
	} {
		_, path := openTemp(t, tc.data)
		src := Source{Name: tc.name, Size: int64(len(tc.data)), Open: func() (io.ReadCloser, error) { return os.Open(path) }}
		d := DefaultDialect()
		chunks, recs := split(t, NewSplitter([]Source{src}, d, 100, 0), d)
		if len(recs) != 2000 {
			t.Fatalf("%s: %d records", tc.name, len(recs))
		}
		for _, c := range chunks {
			if c.DecodedSize != tc.want {
				t.Fatalf("%s: chunk %d DecodedSize %d, want %d", tc.name, c.Seq, c.DecodedSize, tc.want)
			}
		}
	}
}
