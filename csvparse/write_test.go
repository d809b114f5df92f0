package csvparse

import (
	"reflect"
	"testing"
)

func TestAppendRecord(t *testing.T) {
	tests := []struct {
		name   string
		d      func(*Dialect)
		fields []string
		want   string
	}{
		{"plain", nil, f("a", "b c", ""), "a,b c,\n"},
		{"specials quoted", nil, f("a,b", `say "hi"`, `C:\dir\`, "two\nlines", "cr\r"), "\"a,b\",\"say \"\"hi\"\"\",\"C:\\\\dir\\\\\",\"two\nlines\",\"cr\r\"\n"},
		{"lone empty field", nil, f(""), "\"\"\n"},
		{"no escape: backslash is plain", func(d *Dialect) { d.Escape = 0 }, f(`C:\dir\`), "C:\\dir\\\n"},
		{"pipe and single quote", func(d *Dialect) { d.Delimiter, d.Quote = '|', '\'' }, f("a|b", "it's", "x,y"), "'a|b'|'it''s'|x,y\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := dialect(tt.d)
			got := AppendRecord([]byte("prefix:"), d, tt.fields...)
			if string(got) != "prefix:"+tt.want {
				t.Fatalf("AppendRecord = %q, want %q", got, "prefix:"+tt.want)
			}
			back := readChunk(t, &Chunk{Data: got[len("prefix:"):], FirstLine: 1}, d)
			if len(back) != 1 || !reflect.DeepEqual(back[0].Fields, tt.fields) {
				t.Errorf("read back %#v, want fields %q", back, tt.fields)
			}
		})
	}
}
