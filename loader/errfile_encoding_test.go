package loader

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

// TestErrFileInInputEncoding: the error file is written in the input's
// ENCODING, so that loading it again with the same options reads the
// rejected rows as they were (a UTF-8 error file of latin-1 input came
// back garbled; of UTF-16 input, as nothing).
func TestErrFileInInputEncoding(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.t (k int PRIMARY KEY, v text);`, nil)
	for _, tc := range []struct {
		name string
		enc  encoding.Encoding
		bom  string // the error file's first bytes
		text string // non-ASCII text this encoding holds
	}{
		{"latin-1", charmap.ISO8859_1, "", "café naïve ½"},
		{"cp1252", charmap.Windows1252, "", "café €uro „quoted“"},
		{"utf-16", unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), "\xff\xfe", "café €uro 日本"},
		{"utf-16le", unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), "", "café €uro 日本"},
		{"utf-16be", unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), "", "café €uro 日本"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			encode := func(s string) []byte {
				b, err := tc.enc.NewEncoder().Bytes([]byte(s))
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
			in := "k,v\n1," + tc.text + "\nnot a number," + tc.text + "\n2,plain\n"
			data := encode(in)
			if tc.name == "utf-16" {
				data = append([]byte(tc.bom), data...)
			}
			path := filepath.Join(dir, "in.csv")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			o := testOptions(t, c, "t", path)
			o.Dialect.Header = true
			o.Dialect.Encoding = tc.name
			o.ErrFile = filepath.Join(dir, "first.err")
			s, err := runLoad(t, o)
			if err != nil {
				t.Fatal(err)
			}
			if s.RowsWritten != 2 || s.RowsFailedParse != 1 {
				t.Fatalf("written %d, failed to parse %d: want 2 and 1", s.RowsWritten, s.RowsFailedParse)
			}
			got, err := os.ReadFile(o.ErrFile)
			if err != nil {
				t.Fatal(err)
			}
			want := append([]byte(tc.bom), encode("k,v\nnot a number,"+tc.text+"\n")...)
			if !bytes.Equal(got, want) {
				t.Fatalf("error file holds % x\nwant % x (%s)", got, want, tc.name)
			}

			// Loaded again with the same options, it reads the row as it
			// was, and rejects it again with the same bytes.
			o2 := o
			o2.Files = []string{o.ErrFile}
			o2.ErrFile = filepath.Join(dir, "second.err")
			s2, err := runLoad(t, o2)
			if err != nil {
				t.Fatal(err)
			}
			if s2.RowsRead != 1 || s2.RowsFailedParse != 1 {
				t.Fatalf("reload: read %d, failed to parse %d: want 1 and 1", s2.RowsRead, s2.RowsFailedParse)
			}
			again, err := os.ReadFile(o2.ErrFile)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again, got) {
				t.Fatalf("reload's error file % x differs from the first's % x", again, got)
			}
			log, err := os.ReadFile(o2.ErrFile + ".log")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(log), "not a number") {
				t.Fatalf("reload's log %q does not quote the field as decoded", log)
			}
		})
	}
}

// TestNotUTF16Refused: a UTF-8 file read as UTF-16 decodes to one long
// line of CJK-looking text that HEADER took for the header: the run
// loaded nothing and succeeded. It is refused, naming the file.
func TestNotUTF16Refused(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.t (k int PRIMARY KEY, v text);`, nil)
	for _, enc := range []string{"utf-16", "utf-16le", "utf-16be"} {
		t.Run(enc, func(t *testing.T) {
			path := writeCSV(t, "utf8.csv", 50, func(i int) string { return "1,plain text\n" })
			o := testOptions(t, c, "t", path)
			o.Columns = []string{"k", "v"}
			o.Dialect.Header = true
			o.Dialect.Encoding = enc
			s, err := runLoad(t, o)
			if err == nil || !strings.Contains(err.Error(), "utf8.csv") || !strings.Contains(err.Error(), "not UTF-16") {
				t.Fatalf("Run error = %v, want one naming the file and saying it is not UTF-16", err)
			}
			if s.RowsWritten != 0 {
				t.Fatalf("%d rows written", s.RowsWritten)
			}
		})
	}
}
