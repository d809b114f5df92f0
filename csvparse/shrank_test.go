package csvparse

import (
	"errors"
	"io"
	"testing"
)

// TestShrank: a file that yields fewer bytes than it had when it was
// listed (truncated or replaced while read) hands out its whole records,
// the partial last one as Incomplete, then an InputError with ErrShrank;
// one that yields at least as many ends quietly.
func TestShrank(t *testing.T) {
	data := []byte("1,a\n2,b\n3,c\n4,d\n")
	tests := []struct {
		name      string
		cut       int   // bytes the file still has
		size      int64 // as listed
		until     int64
		wantErr   bool
		wantWhole int // records handed out whole
	}{
		{"whole", 16, 16, 0, false, 4},
		{"grew", 16, 12, 0, false, 4},
		{"cut between records", 8, 16, 0, true, 2},
		{"cut inside a record", 10, 16, 0, true, 2},
		{"range read to its end", 16, 16, 8, false, 2},
		{"range cut before its end", 6, 16, 8, true, 1},
		{"range cut after its end", 12, 16, 8, false, 2},
	}
	for _, tc := range tests {
		src := memSource("f.csv", data[:tc.cut], false)
		src.Size, src.Until = tc.size, tc.until
		s := NewSplitter([]Source{src}, Dialect{Delimiter: ',', Quote: '"', Escape: '\\', MaxRows: -1}, 1, 0)
		whole, incomplete := 0, 0
		var err error
		for {
			var c *Chunk
			c, err = s.Next()
			if err != nil {
				break
			}
			if c.Incomplete {
				incomplete++
			} else {
				whole += c.Records
			}
			c.Release()
		}
		var ie *InputError
		switch {
		case !tc.wantErr && err != io.EOF:
			t.Errorf("%s: %v, want the end", tc.name, err)
		case tc.wantErr && (!errors.Is(err, ErrShrank) || !errors.As(err, &ie) || ie.File != "f.csv"):
			t.Errorf("%s: %v, want an InputError of f.csv with ErrShrank", tc.name, err)
		}
		if whole != tc.wantWhole {
			t.Errorf("%s: %d records handed out whole, want %d", tc.name, whole, tc.wantWhole)
		}
		if want := tc.cut%4 != 0 && tc.wantErr; (incomplete > 0) != want {
			t.Errorf("%s: %d incomplete chunks", tc.name, incomplete)
		}
	}
}
