package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cqlload/cqlload/loader"
)

// rowsFile writes n rows "k,v,n" with keys from first, joined by sep.
func rowsFile(t *testing.T, dir, name string, first, n int, sep string) string {
	t.Helper()
	var b strings.Builder
	for i := first; i < first+n; i++ {
		fmt.Fprintf(&b, "%d%sv%d%s%d\n", i, sep, i, sep, i)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCqlshDropIn: statements and flags as cqlsh users write them load as
// cqlsh loads them.
func TestCqlshDropIn(t *testing.T) {
	c := startSim(t)
	host, port := "127.0.0.1", strconv.Itoa(c.Port())
	dir := t.TempDir()
	csv := rowsFile(t, dir, "a.csv", 1, 8, ",")
	csv2 := rowsFile(t, dir, "b.csv", 101, 8, ",")
	tsv := rowsFile(t, dir, "a.tsv", 201, 5, "\t")
	errFile := filepath.Join(dir, "e.err")
	script := filepath.Join(dir, "import.cql")
	if err := os.WriteFile(script, []byte("\ufeff-- nightly import, saved with a byte order mark\r\nUSE ks;\n\nCOPY t (k, v, n)\n  FROM '"+tsv+"'\n  WITH DELIMITER = '\\t';\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	common := []string{"--progress", "none", "--err-file", errFile}
	copyArgs := func(with string, file string) []string {
		return append([]string{host, port, "-e", fmt.Sprintf("COPY ks.t (k, v, n) FROM '%s' WITH %s", file, with)}, common...)
	}
	flagArgs := func(files []string, flags ...string) []string {
		a := append([]string{"--hosts", host, "--port", port, "--columns", "k,v,n", "--table", "ks.t"}, common...)
		return append(append(a, flags...), files...)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"MAXBATCHSIZE = 1 alone", copyArgs("MAXBATCHSIZE = 1", csv), "8 rows imported from 1 files"},
		{"--max-batch-size 1 alone", flagArgs([]string{csv}, "--max-batch-size", "1"), "8 rows imported from 1 files"},
		{"MINBATCHSIZE = 30 alone", copyArgs("MINBATCHSIZE = 30", csv), "8 rows imported from 1 files"},
		{`DELIMITER = '\t'`, copyArgs(`DELIMITER = '\t'`, tsv), "5 rows imported from 1 files"},
		{`DELIMITER = '\\t'`, copyArgs(`DELIMITER = '\\t'`, tsv), "5 rows imported from 1 files"},
		{`--delimiter '\t'`, flagArgs([]string{tsv}, "--delimiter", `\t`), "5 rows imported from 1 files"},
		{"SKIPROWS = 3 AND MAXROWS = 4, one file", copyArgs("SKIPROWS = 3 AND MAXROWS = 4", csv), "1 rows imported from 1 files"},
		{"SKIPROWS = 3 AND MAXROWS = 3, one file", copyArgs("SKIPROWS = 3 AND MAXROWS = 3", csv), "0 rows imported from 1 files"},
		{"--skip-rows 3 --max-rows 4, one file", flagArgs([]string{csv}, "--skip-rows", "3", "--max-rows", "4"), "1 rows imported from 1 files"},
		{"--skip-rows 3 --max-rows 4, two files", flagArgs([]string{csv, csv2}, "--skip-rows", "3", "--max-rows", "4"), "8 rows imported from 2 files"},
		{"--skip-rows 3 --max-rows 4, a list of two", copyArgs("SKIPROWS = 3 AND MAXROWS = 4", csv+","+csv2), "8 rows imported from 2 files"},
		{"-e USE ks; COPY t", append([]string{host, port, "-e", "USE ks; COPY t (k, v, n) FROM '" + csv + "'"}, common...), "8 rows imported from 1 files"},
		{"-f script, as cqlsh -f", append([]string{host, port, "-f", script}, common...), "5 rows imported from 1 files"},
		{"positional HOST PORT, flag form", append([]string{host, port, "--table", "ks.t", "--columns", "k,v,n"}, append(common, csv)...), "8 rows imported from 1 files"},
	}
	for _, tt := range tests {
		code, out, stderr := runCLI(t, "", tt.args...)
		if code != exitOK || !strings.Contains(out, tt.want) {
			t.Errorf("%s: exit %d, want 0 and %q\nstdout: %s\nstderr: %s", tt.name, code, tt.want, out, stderr)
		}
	}

	// cqlsh's shell flags run as written, named in a note; --debug is
	// --verbose.
	code, out, stderr := runCLI(t, "", append(copyArgs("HEADER = false", csv), "--no-color", "-C", "-t", "--cqlversion=3.4.5", "--protocol-version", "4", "--browser", "x", "--debug")...)
	const note = "note: --color, --no-color, --tty, --browser, --cqlversion, --protocol-version: cqlsh's flags for its shell, which change nothing in a load: ignored (the driver negotiates the protocol with each node)"
	if code != exitOK || !strings.Contains(out, "8 rows imported") || !strings.Contains(stderr, note) {
		t.Errorf("cqlsh's shell flags: exit %d, want 0, 8 rows and the note %q\nstdout: %s\nstderr: %s", code, note, out, stderr)
	}

	bad := filepath.Join(dir, "bad.cql")
	if err := os.WriteFile(bad, []byte("USE ks;\nCOPY t FROM 'x.csv' WITH HEADER\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	junk := filepath.Join(dir, "junk.cql")
	if err := os.WriteFile(junk, []byte("COPY ks.t\nFROM 'x.csv'\n  junk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"-e and -f", []string{"-e", "COPY ks.t FROM 'x.csv'", "-f", script}, "either -e COPY ... or -f FILE"},
		{"-f of no file", []string{"-f", filepath.Join(dir, "none.cql")}, "none.cql: no such file"},
		{"-f of a bad statement", []string{"-f", bad}, bad + ": COPY statement: at the end: expected = after HEADER"},
		{"-f, an error inside", []string{"-f", junk}, junk + ": COPY statement: at line 3, column 3: unexpected \"junk\\n\""},
	} {
		code, out, stderr := runCLI(t, "", append([]string{host, port}, tt.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tt.want) || strings.Contains(out, "imported") {
			t.Errorf("%s: exit %d, want %d and %q\nstdout: %s\nstderr: %s", tt.name, code, exitUsage, tt.want, out, stderr)
		}
	}
}

// TestSummaryJSONOnStdout: with --summary-json -, standard output is one
// JSON object and the lines for people go to standard error.
func TestSummaryJSONOnStdout(t *testing.T) {
	c := startSim(t)
	dir := t.TempDir()
	csv := rowsFile(t, dir, "a.csv", 1, 3, ",")
	code, out, stderr := runCLI(t, "", "--hosts", "127.0.0.1", "--port", strconv.Itoa(c.Port()), "--progress", "log",
		"--err-file", filepath.Join(dir, "e.err"), "--summary-json", "-", "--count", "--columns", "k,v,n", "--table", "ks.t", csv)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	var s map[string]any
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&s); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out)
	}
	if dec.More() {
		t.Fatalf("stdout holds more than one JSON value:\n%s", out)
	}
	if s["rows_written"] != float64(3) {
		t.Errorf("rows_written = %v", s["rows_written"])
	}
	v, ok := s["version"].(map[string]any)
	if !ok {
		t.Fatalf("summary lacks a version object: %s", out)
	}
	for _, k := range []string{"version", "commit", "go", "driver"} {
		if str, _ := v[k].(string); str == "" {
			t.Errorf("version.%s is empty: %v", k, v)
		}
	}
	for _, want := range []string{"3 rows imported from 1 files", "ks.t now holds", "Processed:"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := runCLI(t, "", "--version")
	v := buildVersion()
	if code != exitOK || !strings.HasPrefix(out, "cqlload "+v.Version+" ") || !strings.Contains(out, v.Go) || !strings.Contains(out, v.Driver) {
		t.Errorf("--version: exit %d, %q; want the version, %s and %s", code, out, v.Go, v.Driver)
	}
	// The test binary is built with the module list: the driver is known.
	if !strings.Contains(v.Driver, "gocql") {
		t.Errorf("driver version %q, want the gocql module", v.Driver)
	}
}

// TestReportEvery: log lines every 5 s unless REPORTFREQUENCY is given;
// the bar keeps cqlsh's 0.25 s.
func TestReportEvery(t *testing.T) {
	explicit := loader.DefaultOptions()
	if err := explicit.SetOption("REPORTFREQUENCY", "0.5"); err != nil {
		t.Fatal(err)
	}
	d := loader.DefaultOptions()
	tests := []struct {
		o    loader.Options
		mode string
		want time.Duration
	}{
		{d, "log", 5 * time.Second},
		{d, "bar", 250 * time.Millisecond},
		{explicit, "log", 500 * time.Millisecond},
		{explicit, "bar", 500 * time.Millisecond},
	}
	for _, tt := range tests {
		if got := reportEvery(&tt.o, tt.mode); got != tt.want {
			t.Errorf("reportEvery(%v, %s) = %v, want %v", tt.o.ReportFrequency, tt.mode, got, tt.want)
		}
	}
}

// TestHomeInPaths: cqlsh expands a leading ~ in ERRFILE and RATEFILE
// (os.path.expanduser), and so in CONFIGFILE, as in the files it loads.
func TestHomeInPaths(t *testing.T) {
	c := startSim(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	rowsFile(t, home, "a.csv", 1, 3, ",")
	os.WriteFile(filepath.Join(home, "bad.csv"), []byte("x,no,1\n"), 0o644)
	os.WriteFile(filepath.Join(home, "copy.ini"), []byte("[copy]\nmaxrows = 2\n"), 0o644)
	stmt := "COPY ks.t (k, v, n) FROM '~/a.csv, ~/bad.csv' WITH ERRFILE = '~/my.err' AND RATEFILE = '~/rate.txt' AND CONFIGFILE = '~/copy.ini'"
	code, out, stderr := runCLI(t, "", "127.0.0.1", strconv.Itoa(c.Port()), "--progress", "none", "-e", stmt)
	if code != exitRejected || !strings.Contains(out, "2 rows imported from 2 files") {
		t.Fatalf("exit %d, want %d with 2 rows imported\nstdout: %s\nstderr: %s", code, exitRejected, out, stderr)
	}
	for _, name := range []string{"my.err", "my.err.log", "rate.txt"} {
		if _, err := os.Stat(filepath.Join(home, name)); err != nil {
			t.Errorf("~/%s: %v", name, err)
		}
	}
}

// TestShellConsistency: cqlsh's COPY writes at the shell's CONSISTENCY,
// so a script's CONSISTENCY line reaches the writes (THREE cannot be met
// at replication factor 1: every write is Unavailable, and the run stops
// once the retry window passes), and --consistency, a flag, overrides it.
func TestShellConsistency(t *testing.T) {
	c := startSim(t)
	host, port := "127.0.0.1", strconv.Itoa(c.Port())
	dir := t.TempDir()
	csv := rowsFile(t, dir, "a.csv", 1, 8, ",")
	script := filepath.Join(dir, "import.cql")
	if err := os.WriteFile(script, []byte("CONSISTENCY THREE\nCOPY ks.t (k, v, n) FROM '"+csv+"';\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	common := []string{host, port, "-f", script, "--progress", "none", "--err-file", filepath.Join(dir, "e.err"), "--retry-window", "1s"}
	code, out, stderr := runCLI(t, "", common...)
	if code != exitFatal || !strings.Contains(stderr+out, "THREE") || strings.Contains(out, "8 rows imported") {
		t.Errorf("CONSISTENCY THREE at RF 1: exit %d, want %d and an Unavailable error naming THREE\nstdout: %s\nstderr: %s", code, exitFatal, out, stderr)
	}
	code, out, stderr = runCLI(t, "", append(common, "--consistency", "ONE")...)
	if code != exitOK || !strings.Contains(out, "8 rows imported") {
		t.Errorf("--consistency ONE over the script's THREE: exit %d, want 0 and 8 rows\nstdout: %s\nstderr: %s", code, out, stderr)
	}
}
