package csvparse

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestKeepTooLong: of a record over the limit, OpenRecord gives its
// first KeepTooLong bytes (cut back to a character boundary), the spill
// file never holds more than that, RecordBytes is the whole length, and
// the records after it are read where they are.
func TestKeepTooLong(t *testing.T) {
	const limit = 16
	ascii := "\"" + strings.Repeat("x", 30) + "\n" + strings.Repeat("y,", 20) + "\"" // 73 bytes
	wide := strings.Repeat("é", 40)                                                  // 80 bytes, 2 a character
	tests := []struct {
		name   string
		record string
		keep   int64
		kept   int // of the record
	}{
		{"whole", ascii, -1, len(ascii)},
		{"nothing", ascii, 0, 0},
		{"under the limit", ascii, 5, 5},
		{"at the limit", ascii, limit, limit},
		{"just over the limit", ascii, limit + 1, limit + 1},
		{"past the limit", ascii, 40, 40},
		{"more than the record", ascii, 1000, len(ascii)},
		{"inside a character, under the limit", wide, 7, 6},
		{"inside a character, past the limit", wide, 33, 32},
		{"on a character, past the limit", wide, 34, 34},
	}
	for _, tt := range tests {
		for _, gz := range []bool{false, true} {
			for _, block := range []int{1, 7, defaultBlockSize} {
				name := fmt.Sprintf("%s/gz=%v/block=%d", tt.name, gz, block)
				in := "a,b\n" + tt.record + "\nc,d\n"
				data, file := []byte(in), "x.csv"
				if gz {
					data, file = gzipped(t, in), "x.csv.gz"
				}
				d := dialect(func(d *Dialect) { d.MaxRecordBytes = limit })
				s := NewSplitter([]Source{memSource(file, data, block == 1)}, d, 100, 0)
				s.blockSize = block
				s.SpillDir = t.TempDir()
				s.KeepTooLong = tt.keep
				var short []string
				eachChunk(t, s, func(c *Chunk) {
					defer c.Release()
					if !c.TooLong {
						for _, r := range readChunk(t, c, d) {
							short = append(short, r.Raw)
						}
						return
					}
					if c.RecordBytes != int64(len(tt.record)) || c.KeptBytes != int64(tt.kept) || c.SpillErr != nil {
						t.Errorf("%s: RecordBytes %d KeptBytes %d SpillErr %v, want %d, %d, nil", name, c.RecordBytes, c.KeptBytes, c.SpillErr, len(tt.record), tt.kept)
					}
					if c.spill != nil {
						if fi, err := c.spill.f.Stat(); err != nil || fi.Size() != c.KeptBytes {
							t.Errorf("%s: the spill file holds %v bytes (%v), want %d", name, fi.Size(), err, c.KeptBytes)
						}
					}
					if c.spill != nil && tt.keep >= 0 && tt.keep <= limit {
						t.Errorf("%s: a spill file for %d bytes kept, which Data holds", name, tt.keep)
					}
					rc, err := c.OpenRecord()
					if err != nil {
						t.Fatal(err)
					}
					b, _ := io.ReadAll(rc)
					_ = rc.Close()
					if string(b) != tt.record[:tt.kept] || !utf8.Valid(b) {
						t.Errorf("%s: OpenRecord gave %q, want %q", name, b, tt.record[:tt.kept])
					}
				})
				if strings.Join(short, "|") != "a,b|c,d" {
					t.Errorf("%s: the other records are %q", name, short)
				}
			}
		}
	}
}

// TestSpillFailed: a record past the limit that cannot be kept in a
// temporary file (a missing or unusable SpillDir) keeps Data alone and
// says why in SpillErr; the input goes on and the records after it are
// read.
func TestSpillFailed(t *testing.T) {
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{
		filepath.Join(t.TempDir(), "missing"),
		filepath.Join(notDir, "sub"), // a path through a file: refused even to root
	} {
		long := "\"" + strings.Repeat("q", 100) + "\""
		in := "a,b\n" + long + "\nc,d\n" + long + "\ne,f\n"
		d := dialect(func(d *Dialect) { d.MaxRecordBytes = 10 })
		s := NewSplitter([]Source{memSource("x.csv", []byte(in), false)}, d, 100, 0)
		s.SpillDir = dir
		s.KeepTooLong = -1
		var short []string
		var failed []int64
		eachChunk(t, s, func(c *Chunk) {
			defer c.Release()
			if !c.TooLong {
				for _, r := range readChunk(t, c, d) {
					short = append(short, r.Raw)
				}
				return
			}
			if c.SpillErr == nil || !strings.Contains(c.SpillErr.Error(), fmt.Sprintf("line %d: keeping a record over the size limit in a temporary file", c.FirstLine)) {
				t.Errorf("%s: SpillErr %v, want the spill's error naming line %d", dir, c.SpillErr, c.FirstLine)
			}
			var pe *os.PathError
			if !errors.As(c.SpillErr, &pe) {
				t.Errorf("%s: SpillErr %v does not wrap the file system's error", dir, c.SpillErr)
			}
			if c.KeptBytes != 10 || c.RecordBytes != int64(len(long)) {
				t.Errorf("%s: KeptBytes %d RecordBytes %d, want 10 and %d", dir, c.KeptBytes, c.RecordBytes, len(long))
			}
			rc, err := c.OpenRecord()
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(rc)
			if string(b) != long[:10] {
				t.Errorf("%s: OpenRecord gave %q, want the record's first 10 bytes", dir, b)
			}
			failed = append(failed, c.FirstLine)
		})
		if strings.Join(short, "|") != "a,b|c,d|e,f" || fmt.Sprint(failed) != "[2 4]" {
			t.Errorf("%s: records %q, failed spills on lines %v; want a,b|c,d|e,f and [2 4]", dir, short, failed)
		}
	}
}
