package loader

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoneSurrogateRejected: UTF-16 input with a lone surrogate in a
// field is rejected as invalid UTF-8 is, naming file, line and column;
// the other rows load. It was loaded as U+FFFD.
func TestLoneSurrogateRejected(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.t (k int PRIMARY KEY, v text);`, nil)
	le := func(units ...uint16) []byte {
		var b []byte
		for _, u := range units {
			b = append(b, byte(u), byte(u>>8))
		}
		return b
	}
	ascii := func(s string) []byte {
		var u []uint16
		for _, r := range s {
			u = append(u, uint16(r))
		}
		return le(u...)
	}
	for _, tc := range []struct {
		name string
		bad  []byte // the v field of line 3
	}{
		{"lone high", le('a', 0xd83d, 'b')},
		{"lone low", le(0xde00)},
		{"high at the end of the field", le('x', 0xd83d)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var data []byte
			data = append(data, ascii("k,v\n1,one\n2,xy")...)
			data = append(data, tc.bad...)
			data = append(data, ascii("\n3,three\n")...)
			path := filepath.Join(t.TempDir(), "in.csv")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			o := testOptions(t, c, "t", path)
			o.Dialect.Header = true
			o.Dialect.Encoding = "utf-16le"
			s, err := runLoad(t, o)
			if err != nil {
				t.Fatal(err)
			}
			if s.RowsWritten != 2 || s.RowsFailedParse != 1 {
				t.Fatalf("written %d, failed to parse %d: want 2 and 1", s.RowsWritten, s.RowsFailedParse)
			}
			log, err := os.ReadFile(o.ErrFile + ".log")
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"in.csv:3:3: parse error: column v: ", "not valid text: a lone UTF-16 surrogate"} {
				if !strings.Contains(string(log), want) {
					t.Errorf("error log:\n%s\nwant %q", log, want)
				}
			}
		})
	}
}
