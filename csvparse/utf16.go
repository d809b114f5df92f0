package csvparse

import (
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// strictUTF16 is UTF-16 whose decoder keeps a lone surrogate (a high
// one not followed by a low one, or a low one alone) as invalid UTF-8,
// the three bytes a surrogate would encode to, instead of turning it
// into U+FFFD as x/text's decoder does. U+FFFD is valid text: such a
// field loaded as if the input held it, while invalid UTF-8 input is
// rejected. Kept invalid, it is rejected the same way, where it is (the
// text converter names the field's line and column). Encoding is
// x/text's.
type strictUTF16 struct {
	encoding.Encoding
	bigEndian, useBOM bool
}

func newStrictUTF16(bigEndian, useBOM bool) *strictUTF16 {
	e, bom := unicode.LittleEndian, unicode.IgnoreBOM
	if bigEndian {
		e = unicode.BigEndian
	}
	if useBOM {
		bom = unicode.UseBOM
	}
	return &strictUTF16{Encoding: unicode.UTF16(e, bom), bigEndian: bigEndian, useBOM: useBOM}
}

func (e *strictUTF16) NewDecoder() *encoding.Decoder {
	return &encoding.Decoder{Transformer: &utf16Decoder{bigEndian: e.bigEndian, useBOM: e.useBOM, first: true}}
}

type utf16Decoder struct {
	bigEndian, useBOM bool
	first             bool // nothing read yet: a BOM may come
	be                bool // the byte order in use
}

func (d *utf16Decoder) Reset() { d.first = true }

func (d *utf16Decoder) unit(b []byte) rune {
	if d.be {
		return rune(b[0])<<8 | rune(b[1])
	}
	return rune(b[1])<<8 | rune(b[0])
}

func (d *utf16Decoder) Transform(dst, src []byte, atEOF bool) (nDst, nSrc int, err error) {
	if d.first {
		if len(src) < 2 && !atEOF {
			return 0, 0, transform.ErrShortSrc
		}
		d.first, d.be = false, d.bigEndian
		if d.useBOM && len(src) >= 2 {
			switch {
			case src[0] == 0xfe && src[1] == 0xff:
				d.be, nSrc = true, 2
			case src[0] == 0xff && src[1] == 0xfe:
				d.be, nSrc = false, 2
			}
		}
	}
	for nSrc < len(src) {
		rest := src[nSrc:]
		if len(rest) < 2 {
			if !atEOF {
				return nDst, nSrc, transform.ErrShortSrc
			}
			// An odd byte at the end: not UTF-16, kept invalid.
			if nDst+1 > len(dst) {
				return nDst, nSrc, transform.ErrShortDst
			}
			dst[nDst] = 0xff
			return nDst + 1, nSrc + 1, nil
		}
		r, size := d.unit(rest), 2
		if 0xd800 <= r && r < 0xdc00 {
			if len(rest) < 4 && !atEOF {
				return nDst, nSrc, transform.ErrShortSrc
			}
			if len(rest) >= 4 {
				if lo := d.unit(rest[2:]); 0xdc00 <= lo && lo < 0xe000 {
					r, size = 0x10000+(r-0xd800)<<10+(lo-0xdc00), 4
				}
			}
		}
		if nDst+utf8.UTFMax > len(dst) {
			return nDst, nSrc, transform.ErrShortDst
		}
		if 0xd800 <= r && r < 0xe000 {
			// Alone: the bytes UTF-8 would give it, which no decoder of
			// UTF-8 takes for text.
			dst[nDst], dst[nDst+1], dst[nDst+2] = 0xed, byte(0x80|(r>>6)&0x3f), byte(0x80|r&0x3f)
			nDst += 3
		} else {
			nDst += utf8.EncodeRune(dst[nDst:], r)
		}
		nSrc += size
	}
	return nDst, nSrc, nil
}
