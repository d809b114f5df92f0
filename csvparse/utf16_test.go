package csvparse

import (
	"bytes"
	"io"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// le and be encode UTF-16 code units.
func le(units ...uint16) []byte {
	var b []byte
	for _, u := range units {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

func be(units ...uint16) []byte {
	var b []byte
	for _, u := range units {
		b = append(b, byte(u>>8), byte(u))
	}
	return b
}

// TestStrictUTF16: valid UTF-16 decodes as x/text decodes it; a lone
// surrogate, high or low, at the start, middle or end, decodes to bytes
// that are not valid UTF-8 (where x/text gives a valid U+FFFD), and the
// characters around it are kept.
func TestStrictUTF16(t *testing.T) {
	text := []uint16{'a', ',', 0xe9, '\n'}
	pair := utf16.Encode([]rune{0x1f600}) // a character outside the BMP
	tests := []struct {
		name   string
		enc    *strictUTF16
		in     []byte
		want   string // "" when the result must be invalid UTF-8
		xtext  bool   // x/text decodes it alike
		prefix string // with want == "": what comes before the lone surrogate
	}{
		{"LE", utf16LE, le(append(text, pair...)...), "a,é\n😀", true, ""},
		{"BE", utf16BE, be(append(text, pair...)...), "a,é\n😀", true, ""},
		{"BOM LE", utf16WithBOM, le(append([]uint16{0xfeff}, text...)...), "a,é\n", true, ""},
		{"BOM BE", utf16WithBOM, be(append([]uint16{0xfeff}, text...)...), "a,é\n", true, ""},
		{"no BOM: little endian", utf16WithBOM, le(text...), "a,é\n", true, ""},
		{"BOM kept without UseBOM", utf16LE, le(0xfeff, 'x'), "\ufeffx", true, ""},
		{"lone high, middle", utf16LE, le('a', 0xd83d, 'b', '\n'), "", false, "a"},
		{"lone high, end", utf16LE, le('a', 0xd83d), "", false, "a"},
		{"lone low, start", utf16BE, be(0xde00, 'b'), "", false, ""},
		{"high then high", utf16LE, le('x', 0xd83d, 0xd83d, 0xde00), "", false, "x"},
		{"odd byte at the end", utf16LE, append(le('a'), 'b'), "", false, "a"},
	}
	for _, tt := range tests {
		for _, chunk := range []int{1, 2, 3, 4096} { // bytes per Read
			dec := transform.NewReader(&oneByteAtATime{b: tt.in, n: chunk}, tt.enc.NewDecoder())
			got, err := io.ReadAll(dec)
			if err != nil {
				t.Fatalf("%s/%d: %v", tt.name, chunk, err)
			}
			if tt.want != "" {
				if string(got) != tt.want {
					t.Errorf("%s/%d: %q, want %q", tt.name, chunk, got, tt.want)
				}
				continue
			}
			if utf8.Valid(got) || !bytes.HasPrefix(got, []byte(tt.prefix)) {
				t.Errorf("%s/%d: %q, want %q then invalid UTF-8", tt.name, chunk, got, tt.prefix)
			}
		}
		if tt.xtext {
			ref, _, err := transform.Bytes(tt.enc.Encoding.NewDecoder(), tt.in)
			if err != nil || string(ref) != tt.want {
				t.Errorf("%s: x/text gives %q (%v), want the same %q", tt.name, ref, err, tt.want)
			}
		}
	}
	// What x/text did: the lone surrogate became U+FFFD, valid text.
	ref, _, _ := transform.Bytes(unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM).NewDecoder(), le('a', 0xd83d, 'b'))
	if string(ref) != "a\ufffdb" {
		t.Errorf("x/text decodes a lone surrogate to %q", ref)
	}
}

type oneByteAtATime struct {
	b []byte
	n int
}

func (r *oneByteAtATime) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), r.n)], r.b)
	r.b = r.b[n:]
	return n, nil
}
