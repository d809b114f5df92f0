package loader

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestErrFileReloadsWithSkipRows: an error file loads again, once fixed,
// with the command that wrote it, SKIPROWS included: after its header it
// holds a placeholder record for each skipped row, which the reload
// skips instead of the first rejected rows.
func TestErrFileReloadsWithSkipRows(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.t (k int PRIMARY KEY, v text);`, nil)
	for _, tc := range []struct {
		name     string
		header   bool
		skipRows int
	}{
		{"header, skip 2", true, 2},
		{"no header, skip 1", false, 1},
		{"header, no skip", true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var in strings.Builder
			if tc.header {
				in.WriteString("k,v\n")
			}
			for i := range tc.skipRows {
				fmt.Fprintf(&in, "junk line %d\n", i)
			}
			for i := range 20 {
				if i%4 == 1 {
					fmt.Fprintf(&in, "x%d,fix me\n", i)
				} else {
					fmt.Fprintf(&in, "%d,ok\n", i)
				}
			}
			path := filepath.Join(dir, "in.csv")
			if err := os.WriteFile(path, []byte(in.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			o := testOptions(t, c, "t", path)
			o.Dialect.Header, o.Dialect.SkipRows = tc.header, tc.skipRows
			o.ErrFile = filepath.Join(dir, "first.err")
			s, err := runLoad(t, o)
			if err != nil {
				t.Fatal(err)
			}
			if s.RowsWritten != 15 || s.RowsFailedParse != 5 {
				t.Fatalf("written %d, failed to parse %d: want 15 and 5", s.RowsWritten, s.RowsFailedParse)
			}
			data, err := os.ReadFile(o.ErrFile)
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Repeat("\"\"\n", tc.skipRows) + "x1,fix me\nx5,fix me\nx9,fix me\nx13,fix me\nx17,fix me\n"
			if tc.header {
				want = "k,v\n" + want
			}
			if string(data) != want {
				t.Fatalf("error file:\n%s\nwant:\n%s", data, want)
			}
			// Fixed, and loaded with the same options.
			fixed := filepath.Join(dir, "fixed.csv")
			if err := os.WriteFile(fixed, []byte(strings.ReplaceAll(string(data), "x", "")), 0o644); err != nil {
				t.Fatal(err)
			}
			o2 := o
			o2.Files = []string{fixed}
			o2.ErrFile = filepath.Join(dir, "second.err")
			s2, err := runLoad(t, o2)
			if err != nil {
				t.Fatal(err)
			}
			if s2.RowsWritten != 5 || s2.RowsRead-s2.RowsSkipped != 5 {
				t.Fatalf("reload: written %d of %d read (%d skipped): want the 5 fixed rows", s2.RowsWritten, s2.RowsRead, s2.RowsSkipped)
			}
			// A placeholder is never a row: loaded without SKIPROWS, each
			// is a parse error.
			o3 := o2
			o3.Dialect.SkipRows = 0
			o3.ErrFile = filepath.Join(dir, "third.err")
			s3, err := runLoad(t, o3)
			if err != nil {
				t.Fatal(err)
			}
			if s3.RowsFailedParse != int64(tc.skipRows) || s3.RowsWritten != 5 {
				t.Fatalf("without SKIPROWS: %d parse errors, %d written: want %d and 5", s3.RowsFailedParse, s3.RowsWritten, tc.skipRows)
			}
		})
	}
}

// TestErrFileReloadKeepsTimestamps: an error file loaded again stamps its
// rows with the write timestamps its log records, so the table ends as
// one run of the mended input would leave it: of rows with one key, the
// later in the input wins. Stamped from the reload's own start, a mended
// row overwrote the newer value a later row of its key had written.
func TestErrFileReloadKeepsTimestamps(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.t (k int PRIMARY KEY, v int);`, nil)
	dir := t.TempDir()
	// Key 1: rejected, then written by a later row, which must stay.
	// Key 2: written, then rejected by a later row, which must win.
	// Key 3: only rejected.
	in := "k,v\n1,ten\n2,20\n1,11\n2,twenty-one\n3,thirty\n"
	path := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	o := testOptions(t, c, "t", path)
	o.Dialect.Header = true
	o.ErrFile = filepath.Join(dir, "rows.err")
	if s, err := runLoad(t, o); err != nil || s.RowsWritten != 2 || s.RowsFailedParse != 3 {
		t.Fatalf("first run: written %d, failed %d, err %v: want 2 and 3", s.RowsWritten, s.RowsFailedParse, err)
	}
	// Mended in place, the log beside it.
	data, err := os.ReadFile(o.ErrFile)
	if err != nil {
		t.Fatal(err)
	}
	mended := strings.NewReplacer("ten", "10", "twenty-one", "21", "thirty", "30").Replace(string(data))
	if err := os.WriteFile(o.ErrFile, []byte(mended), 0o644); err != nil {
		t.Fatal(err)
	}
	o2 := o
	o2.ErrFile = filepath.Join(dir, "retry.err")
	sess := session(t, c)
	// By its path, then as a file URL: the log beside it is found both
	// ways (a reload stamped afresh would now overwrite 11 with 10).
	for _, name := range []string{o.ErrFile, "file://" + o.ErrFile} {
		o2.Files = []string{name}
		if s, err := runLoad(t, o2); err != nil || s.RowsWritten != 3 {
			t.Fatalf("reload of %s: written %d, err %v: want 3", name, s.RowsWritten, err)
		}
		for k, want := range map[int]int{1: 11, 2: 21, 3: 30} {
			var v int
			if err := sess.Query(`SELECT v FROM ks.t WHERE k = ?`, k).Scan(&v); err != nil || v != want {
				t.Errorf("reload of %s: k = %d: v = %d (%v), want %d, the later row's", name, k, v, err, want)
			}
		}
	}

	// A row removed from the file: the rest cannot be matched to their
	// timestamps, and the run is refused before it loads anything.
	lines := strings.SplitAfter(mended, "\n")
	if err := os.WriteFile(o.ErrFile, []byte(lines[0]+strings.Join(lines[2:], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	o3 := o2
	o3.ErrFile = filepath.Join(dir, "retry2.err")
	s, err := runLoad(t, o3)
	var se *StampsError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "holds 2 rows, its log lists 3") || s.RowsRead != 0 {
		t.Fatalf("reload of a file with a row removed: %v (read %d), want a StampsError counting 2 and 3, nothing read", err, s.RowsRead)
	}
	// With the log moved away, the rows are stamped afresh.
	if err := os.Rename(o.ErrFile+".log", o.ErrFile+".log.old"); err != nil {
		t.Fatal(err)
	}
	if s, err := runLoad(t, o3); err != nil || s.RowsWritten != 2 {
		t.Fatalf("reload without the log: written %d, err %v: want 2", s.RowsWritten, err)
	}
}

// TestStampsOf: the timestamps of an error file's rows are those of its
// log's lines for it, in order: ERRFILE's lines name no file, ERRFILE.2's
// end "[in ERRFILE.2]"; notes and lines of a log without timestamps give
// none. A set kept by a later fresh run (ERRFILE.SUFFIX, ERRFILE.2.SUFFIX)
// has its log at ERRFILE.log.SUFFIX.
func TestStampsOf(t *testing.T) {
	dir := t.TempDir()
	errFile := filepath.Join(dir, "rows.err")
	log := strings.Join([]string{
		"a.csv:2:3: parse error: column v: invalid int \"x\": not a number [write timestamp 100]",
		"b.csv:2: insert error: no [write timestamp 7] here [write timestamp 201] [in " + errFile + ".2]",
		"a.csv:9-12: suspect: these rows were written from a compressed member that then failed its check",
		"a.csv:4: not sent: the run stopped [write timestamp 103] [in " + errFile + "]",
		"b.csv:5: unknown: timed out [write timestamp 204] [in " + errFile + ".2]",
		"",
	}, "\n")
	if err := os.WriteFile(errFile+".log", []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	// The same set kept by a later fresh run: its lines still name the
	// files as they were written.
	const kept = ".20261204_101500_2"
	if err := os.WriteFile(errFile+".log"+kept, []byte(strings.ReplaceAll(log, "[write timestamp ", "[write timestamp 9")), 0o644); err != nil {
		t.Fatal(err)
	}
	// A split's error file (ERRFILE without an extension: rejects.0)
	// kept, with its own log; and a log with CRLF line ends.
	split := filepath.Join(dir, "rejects.0")
	if err := os.WriteFile(split+".log"+kept, []byte("a.csv:7: parse error: x [write timestamp 77]\r\na.csv:8: parse error: y [write timestamp 78]\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(dir, "old.err")
	if err := os.WriteFile(old+".log", []byte("a.csv:2: parse error: bad\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		want []int64
	}{
		{errFile, []int64{100, 103}},
		{errFile + ".2", []int64{201, 204}},
		{errFile + ".3", nil},
		{errFile + kept, []int64{9100, 9103}},
		{errFile + ".2" + kept, []int64{9201, 9204}},
		{errFile + ".20261204_101501", nil},
		{split + kept, []int64{77, 78}},
		{old, nil},
		{filepath.Join(dir, "none.csv"), nil},
	} {
		got, _, err := stampsOf(tc.name)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("stampsOf(%s) = %v, %v; want %v", filepath.Base(tc.name), got, err, tc.want)
		}
	}
	// A log of timestamps with none for the file (a set renamed by hand:
	// its lines name the old names) gives none, not nil: the file's rows
	// are counted against none and refused, not stamped afresh.
	renamed := filepath.Join(dir, "fixed.err.2")
	if err := os.WriteFile(filepath.Join(dir, "fixed.err.log"), []byte("b.csv:2: parse error: x [write timestamp 5] [in "+errFile+".2]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _, err := stampsOf(renamed); err != nil || got == nil || len(got) != 0 {
		t.Errorf("stampsOf(fixed.err.2) = %#v, %v; want an empty list", got, err)
	}
}

// TestMaxRowsHint: a run of several inputs rejects up to MAXROWS rows of
// each, so its error file can hold more rows than MAXROWS lets a load of
// it alone read; the summary says so, and how to load them all. A single
// input's error file never does.
func TestMaxRowsHint(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.t (k int PRIMARY KEY, v text);`, nil)
	bad := func(i int) string { return fmt.Sprintf("x%d,v\n", i) }
	a, b := writeCSV(t, "a.csv", 5, bad), writeCSV(t, "b.csv", 5, bad)
	for _, tc := range []struct {
		name     string
		files    []string
		wantHint bool
	}{
		{"two inputs", []string{a, b}, true},
		{"one input", []string{a}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := testOptions(t, c, "t", tc.files...)
			o.Dialect.MaxRows = 3
			s, err := runLoad(t, o)
			if err != nil {
				t.Fatal(err)
			}
			hinted := slices.ContainsFunc(s.Hints, func(h string) bool {
				return strings.Contains(h, fmt.Sprintf("holds %d rows, but with MAXROWS = 3 a load of it reads only 3: load it again with MAXROWS = -1", s.RowsFailedParse))
			})
			if hinted != tc.wantHint {
				t.Fatalf("%d rows rejected, hints %q: want the MAXROWS hint %v", s.RowsFailedParse, s.Hints, tc.wantHint)
			}
		})
	}
}

// TestKeptErrFileReloadKeepsTimestamps: a fresh run keeps the error files
// an earlier run left (ERRFILE.SUFFIX, ERRFILE.2.SUFFIX and their log
// ERRFILE.log.SUFFIX). Last night's rows, mended and loaded from the kept
// files after tonight's run, keep last night's timestamps, so tonight's
// newer values stay. Found through ERRFILE.SUFFIX.log only, they were
// stamped from the reload's start and overwrote them.
func TestKeptErrFileReloadKeepsTimestamps(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.t (k int PRIMARY KEY, v int);`, nil)
	dir := t.TempDir()
	write := func(name, data string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Two headers, so two error files: keys 1 and 2 rejected last night.
	o := testOptions(t, c, "t", write("a.csv", "k,v\n1,ten\n"), write("b.csv", "v,k\ntwenty,2\n"))
	o.Dialect.Header = true
	o.ErrFile = filepath.Join(dir, "rows.err")
	if s, err := runLoad(t, o); err != nil || s.RowsFailedParse != 2 {
		t.Fatalf("last night: failed %d, err %v: want 2", s.RowsFailedParse, err)
	}
	// Tonight: newer values of both keys; the fresh run keeps the files.
	tonight := o
	tonight.Files = []string{write("tonight.csv", "k,v\n1,100\n2,200\n")}
	s, err := runLoad(t, tonight)
	if err != nil || s.RowsWritten != 2 || len(s.PreviousErrFiles) != 3 {
		t.Fatalf("tonight: written %d, kept %v, err %v: want 2 rows and 3 files kept", s.RowsWritten, s.PreviousErrFiles, err)
	}
	var kept []string
	for _, p := range s.PreviousErrFiles {
		if !strings.Contains(filepath.Base(p), ".log") {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			write(filepath.Base(p), strings.NewReplacer("ten", "10", "twenty", "20").Replace(string(data)))
			kept = append(kept, p)
		}
	}
	for _, p := range kept {
		o2 := o
		o2.Files = []string{p}
		o2.ErrFile = filepath.Join(dir, "retry.err")
		if s, err := runLoad(t, o2); err != nil || s.RowsWritten != 1 {
			t.Fatalf("reload of %s: written %d, err %v: want 1", filepath.Base(p), s.RowsWritten, err)
		}
	}
	sess := session(t, c)
	for k, want := range map[int]int{1: 100, 2: 200} {
		var v int
		if err := sess.Query(`SELECT v FROM ks.t WHERE k = ?`, k).Scan(&v); err != nil || v != want {
			t.Errorf("k = %d: v = %d (%v), want %d, tonight's", k, v, err, want)
		}
	}
}

// TestLogLineBreaks: a reason that quotes a line break of the input (a
// header name) still takes one log line, as reloads match the log's
// lines to the error file's rows by position: the file's header line,
// then one line per row.
func TestLogLineBreaks(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.t (k int PRIMARY KEY, v text);`, nil)
	path := filepath.Join(t.TempDir(), "in.csv")
	if err := os.WriteFile(path, []byte("k,\"v\r\nz\"\n1,a\n2,b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := testOptions(t, c, "t", path)
	o.Dialect.Header = true
	s, _ := runLoad(t, o)
	if s.RowsFailedParse != 2 {
		t.Fatalf("%d rows failed to parse, want 2 (the header names no column v\\nz)", s.RowsFailedParse)
	}
	log, err := os.ReadFile(o.ErrFile + ".log")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(log), "\n"), "\n")
	if len(lines) != 3 || strings.Contains(string(log), "\r") || !strings.Contains(lines[0], `v\r\nz`) {
		t.Errorf("log of 2 rows:\n%q\nwant 3 lines, the header's with the name written v\\r\\nz, then the rows'", log)
	}
}
