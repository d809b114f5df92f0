package csvparse

import (
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		mod  func(*Dialect)
		want []string // substrings of the error; none means valid
	}{
		{"default", nil, nil},
		{"no escape", func(d *Dialect) { d.Escape = 0 }, nil},
		{"tab, single quote, latin-1", func(d *Dialect) { d.Delimiter, d.Quote, d.Encoding = '\t', '\'', "LATIN-1" }, nil},
		{"escape equal to quote", func(d *Dialect) { d.Escape = '"' }, nil},
		{"zero value", func(d *Dialect) { *d = Dialect{} }, []string{"DELIMITER must be one character", "QUOTE must be one character"}},
		{"delimiter is quote", func(d *Dialect) { d.Delimiter = '"' }, []string{"DELIMITER and QUOTE"}},
		{"delimiter is escape", func(d *Dialect) { d.Delimiter = '\\' }, []string{"DELIMITER and ESCAPE"}},
		{"line break", func(d *Dialect) { d.Quote = '\n' }, []string{"QUOTE cannot be a line break"}},
		{"non-ascii", func(d *Dialect) { d.Delimiter = 0xa7 }, []string{"not an ASCII character"}},
		{"all at once", func(d *Dialect) { d.Encoding, d.SkipRows, d.MaxRecordBytes = "ebcdic", -1, -5 }, []string{
			`ENCODING "ebcdic" is not supported`, "SKIPROWS is -1", "MaxRecordBytes is -5",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := dialect(tt.mod).Validate()
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate: nil, want %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestDefaultDialectIsCqlsh(t *testing.T) {
	d := DefaultDialect()
	if d.Delimiter != ',' || d.Quote != '"' || d.Escape != '\\' || d.Header || d.SkipRows != 0 || d.MaxRows != -1 {
		t.Errorf("DefaultDialect() = %+v, not cqlsh's defaults", d)
	}
}
