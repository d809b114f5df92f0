package loader

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTooLongRecordKept: a record over --max-record-bytes is one parse
// error whose reason gives its length; the error file keeps what
// --max-error-record-bytes says (its first bytes and a marker of the cut,
// or all of it), and when the temporary file for all of it cannot be
// made, that record alone is rejected with its first bytes and the
// reason, and the rest loads.
func TestTooLongRecordKept(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.b (k int PRIMARY KEY, v text);`, nil)
	const rows, bad, size = 200, 100, 5000
	long := fmt.Sprintf("%d,%s", bad, strings.Repeat("x", size))
	tests := []struct {
		name    string
		keep    int64
		tmpdir  string // "" leaves TMPDIR as it is
		errFile string // what the error file must hold
		reason  string
	}{
		{"first bytes", 100, "", long[:100] + fmt.Sprintf("[cqlload cut this record here: 100 of its %d bytes kept]\n", len(long)),
			fmt.Sprintf("(%d bytes; --max-record-bytes is 1024); the error file has its first 100 bytes (--max-error-record-bytes)", len(long))},
		{"none of it", 0, "", fmt.Sprintf("[cqlload cut this record here: 0 of its %d bytes kept]\n", len(long)), "its first 0 bytes"},
		{"whole", -1, "", long + "\n", fmt.Sprintf("(%d bytes; --max-record-bytes is 1024) [write", len(long))},
		{"whole, TMPDIR missing", -1, filepath.Join(t.TempDir(), "missing"),
			long[:1024] + fmt.Sprintf("[cqlload cut this record here: 1024 of its %d bytes kept]\n", len(long)),
			"the error file has only its first 1024 bytes: line 101: keeping a record over the size limit in a temporary file: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeCSV(t, "rows.csv", rows, func(i int) string {
				if i == bad {
					return long + "\n"
				}
				return fmt.Sprintf("%d,v%d\n", i, i)
			})
			o := testOptions(t, c, "b", path)
			o.Columns = []string{"k", "v"}
			o.Dialect.MaxRecordBytes = 1024
			o.MaxErrorRecordBytes = tt.keep
			if tt.tmpdir != "" {
				t.Setenv("TMPDIR", tt.tmpdir)
			}
			s, err := runLoad(t, o)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if s.RowsRead != rows || s.RowsWritten != rows-1 || s.RowsFailedParse != 1 {
				t.Fatalf("read %d written %d failed %d, want %d, %d, 1", s.RowsRead, s.RowsWritten, s.RowsFailedParse, rows, rows-1)
			}
			got, err := os.ReadFile(o.ErrFile)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.errFile {
				t.Errorf("error file (%d bytes) = %.200q…, want %.200q…", len(got), got, tt.errFile)
			}
			log, err := os.ReadFile(o.ErrFile + ".log")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(log), "rows.csv:101:1: parse error: record longer than the record size limit") || !strings.Contains(string(log), tt.reason) {
				t.Errorf("error log:\n%s\nwant the reason with %q", log, tt.reason)
			}
		})
	}
}

// TestHeaderTooLongRejectsFile: a file whose header is over
// --max-record-bytes is rejected (its header counted as one parse error,
// the reason naming the option) and the other files load.
func TestHeaderTooLongRejectsFile(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.b (k int PRIMARY KEY, v text);`, nil)
	dir := t.TempDir()
	files := map[string]string{
		"a.csv": "k,v\n1,a\n2,b\n",
		"b.csv": "k,\"" + strings.Repeat("v", 2000) + "\"\n3,c\n4,d\n",
		"c.csv": "k,v\n5,e\n",
	}
	paths := writeFiles(t, dir, files, "a.csv", "b.csv", "c.csv")
	o := testOptions(t, c, "b", paths...)
	o.Dialect.Header = true
	o.Dialect.MaxRecordBytes = 1024
	s, err := runLoad(t, o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if s.RowsWritten != 3 || s.RowsFailedParse != 1 || s.RowsRead != 4 {
		t.Fatalf("read %d written %d failed %d, want 4, 3, 1", s.RowsRead, s.RowsWritten, s.RowsFailedParse)
	}
	log, err := os.ReadFile(o.ErrFile + ".log")
	if err != nil {
		t.Fatal(err)
	}
	want := "b.csv:1:1: parse error: the file's header is longer than --max-record-bytes (2004 bytes; the limit is 1024): the file is not loaded"
	if !strings.Contains(string(log), want) {
		t.Errorf("error log:\n%s\nwant %q", log, want)
	}
}

// TestHeaderOfManyFields: a header under --max-record-bytes with more
// fields than can name the table's columns (a line of delimiters) does
// not fit the table: its file's rows are rejected saying how many fields
// it has, and the other files load.
func TestHeaderOfManyFields(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.b (k int PRIMARY KEY, v text);`, nil)
	dir := t.TempDir()
	files := map[string]string{
		"a.csv": "k,v\n1,a\n2,b\n",
		"b.csv": "k,v" + strings.Repeat(",", 100000) + "\n3,c\n4,d\n",
	}
	paths := writeFiles(t, dir, files, "a.csv", "b.csv")
	o := testOptions(t, c, "b", paths...)
	o.Dialect.Header = true
	s, err := runLoad(t, o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if s.RowsWritten != 2 || s.RowsFailedParse != 2 || s.RowsRead != 4 {
		t.Fatalf("read %d written %d failed %d, want 4, 2, 2", s.RowsRead, s.RowsWritten, s.RowsFailedParse)
	}
	log, err := os.ReadFile(o.ErrFile + ".log")
	if err != nil {
		t.Fatal(err)
	}
	// The reason once, on the file's header line; each row refers to it.
	want := "b.csv: header: the file's header does not fit the table: it has 100002 fields, more than the 2 that can fit ks.b"
	if strings.Count(string(log), want) != 1 || strings.Count(string(log), "parse error: "+headerRef) != 2 {
		t.Errorf("error log:\n%.2000s\nwant once %q and two rows referring to it", log, want)
	}
}

// writeFiles writes files[name] into dir for each name, in order, and
// returns their paths.
func writeFiles(t *testing.T, dir string, files map[string]string, names ...string) []string {
	t.Helper()
	var paths []string
	for _, name := range names {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(files[name]), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}
