package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cqlload/cqlload/cqlsim"
	"github.com/cqlload/cqlload/loader"
)

func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, "nothing to do"},
		{[]string{"-e", "COPY ks.t TO 'x.csv'"}, "COPY TO is not supported"},
		{[]string{"-e", "COPY ks.t FROM 'x.csv'", "--columns", "k,v"}, "give the columns in the COPY statement's column list, not --columns"},
		{[]string{"--table", "ks.t", "--columns", "k,my col", "x.csv"}, "--columns: column list k,my col: at character 6: expected , after my"},
		{[]string{"-e", "COPY ks.t FROM 'x.csv' WITH NOSUCH = 1"}, "unknown COPY FROM option NOSUCH"},
		{[]string{"-e", "COPY ks.t FROM 'x.csv' WITH PAGESIZE = 1"}, "COPY TO only"},
		{[]string{"-e", "COPY t FROM 'x.csv'"}, "no keyspace given"},
		{[]string{"--table", "t", "x.csv"}, "keyspace.table"},
		{[]string{"--table", "ks.t"}, "no input files"},
		{[]string{"--table", "ks.t", "--chunk-size", "0", "x.csv"}, "CHUNKSIZE must be at least 1"},
		{[]string{"--table", "ks.t", "--min-batch-size", "50", "--max-batch-size", "20", "x.csv"}, "MINBATCHSIZE (50) is larger than MAXBATCHSIZE (20)"},
		{[]string{"-e", "COPY ks.t FROM 'x.csv' WITH MAXBATCHSIZE = 1 AND MINBATCHSIZE = 5"}, "MINBATCHSIZE (5) is larger than MAXBATCHSIZE (1)"},
		{[]string{"--table", "ks.t", "--max-batch-size", "1", "--min-batch-size", "2", "x.csv"}, "MINBATCHSIZE (2) is larger than MAXBATCHSIZE (1)"},
		{[]string{"--table", "ks.t", "--delimiter", `\x`, "x.csv"}, "want a single ASCII character"},
		{[]string{"--no-such-flag"}, "unknown flag"},
		{[]string{"-e", "COPY ks.t FROM 'x'", "--table", "ks.t"}, "not both"},
	}
	for _, tt := range tests {
		code, _, stderr := runCLI(t, "", tt.args...)
		if code != exitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("run(%q) = %d, stderr %q; want %d and %q", tt.args, code, stderr, exitUsage, tt.want)
		}
	}
}

// TestHelpDocumentsEveryOption: every option of the table, the loader's
// and the command line's, appears in --help under its section, with its
// COPY name and its default; each section has its example.
func TestHelpDocumentsEveryOption(t *testing.T) {
	code, out, _ := runCLI(t, "", "--help")
	if code != exitOK {
		t.Fatalf("--help exit %d", code)
	}
	sections := map[loader.Section]string{}
	rest := out
	for _, s := range loader.Sections() {
		head := "\n" + s.String() + ":\n"
		i := strings.Index(rest, head)
		if i < 0 {
			t.Fatalf("--help lacks the section %q (or it is out of order)\n%s", s, out)
		}
		rest = rest[i+len(head):]
		end := strings.Index(rest, "\n\n")
		if end < 0 {
			end = len(rest)
		}
		sections[s] = rest[:end]
		if !strings.Contains(sections[s], "Example:\n    cqlload ") && !strings.Contains(sections[s], "Examples:\n    cqlload ") {
			t.Errorf("section %s has no example", s)
		}
	}
	for _, o := range loader.OptionTable() {
		if o.Flag == "" {
			continue
		}
		sec := sections[o.Section]
		if !strings.Contains(sec, "--"+o.Flag+" ") || o.Name != "" && !strings.Contains(sec, "("+o.Name+")") {
			t.Errorf("section %s of --help lacks --%s (%s)", o.Section, o.Flag, o.Name)
		}
		def := o.Default()
		if def == "" {
			continue // an empty default (NULL, THOUSANDSSEP…) shows as none
		}
		if !strings.Contains(sec, fmt.Sprintf("(default %q)", def)) && !strings.Contains(sec, fmt.Sprintf("(default %s)", def)) {
			t.Errorf("--help lacks the default %q of --%s", def, o.Flag)
		}
	}
	for _, f := range cliFlags() {
		want := "--" + f.Flag
		if f.Short != "" {
			want = "-" + f.Short + ", --" + f.Flag
		}
		if !strings.Contains(sections[f.Section], want) {
			t.Errorf("section %s of --help lacks %s", f.Section, want)
		}
	}
}

// TestFlagsAreOptions: each flag of a loader option sets what its WITH
// form sets, so that the two cannot drift apart.
func TestFlagsAreOptions(t *testing.T) {
	values := map[string]string{
		"int": "7", "true|false": "true", "seconds": "3", "duration": "42s", "char": "|",
		"text": "latin-1", "list": "a,b", "level": "QUORUM", "path": "some.file", "null|unset": "unset", "zone": "Europe/Paris",
		"I/N": "1/3", "bytes": "2048", "name": "wt",
	}
	for _, o := range loader.OptionTable() {
		if o.Flag == "" || !o.Settable() {
			continue
		}
		v, ok := values[o.Value]
		if !ok {
			t.Fatalf("no test value for kind %q of --%s", o.Value, o.Flag)
		}
		if o.Value == "true|false" && o.Default() == "true" {
			v = "false"
		}
		switch o.Flag {
		case "bool-style":
			v = "Y,N"
		case "decimal-sep", "thousands-sep":
			v = ";"
		case "datetime-format":
			v = "%d/%m/%Y"
		}
		viaWith := loader.DefaultOptions()
		if err := viaWith.SetOption(o.Name, v); err != nil {
			t.Fatalf("WITH %s = %s: %v", o.Name, v, err)
		}
		viaFlag := loader.DefaultOptions()
		c, _ := newCLI(&viaFlag)
		if err := c.fs.Parse([]string{"--" + o.Flag, v, "--table", "ks.t", "x.csv"}); err != nil {
			t.Fatal(err)
		}
		if err := c.options(&viaFlag, strings.NewReader(""), io.Discard); err != nil && !strings.Contains(err.Error(), "dry run") && !strings.Contains(err.Error(), "needs --split") {
			t.Fatalf("--%s %s: %v", o.Flag, v, err)
		}
		if got, want := o.Get(&viaFlag), o.Get(&viaWith); got != want || got == o.Default() {
			t.Errorf("--%s %s gives %q, WITH %s gives %q (default %q)", o.Flag, v, got, o.Name, want, o.Default())
		}
	}
}

func startSim(t *testing.T) *cqlsim.Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := cqlsim.Start(ctx, cqlsim.Config{Nodes: 3, Schema: []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};" +
			"CREATE TABLE ks.t (k int PRIMARY KEY, v text, n int);"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestExitStatuses(t *testing.T) {
	c := startSim(t)
	host, port := "127.0.0.1", strconv.Itoa(c.Port())
	dir := t.TempDir()
	good := filepath.Join(dir, "good.csv")
	os.WriteFile(good, []byte("k,v,n\n1,a,1\n2,b,2\n3,c,3\n"), 0o644)
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("1,1,a\n2,x,b\n3,3,c\nq,4,d\n"), 0o644) // k, n, v: cqlsh's order without a column list
	errFile := filepath.Join(dir, "e.err")
	summary := filepath.Join(dir, "s.json")

	code, out, stderr := runCLI(t, "", host, port, "--progress", "none", "--summary-json", summary,
		"-e", fmt.Sprintf("COPY ks.t (k, v, n) FROM '%s' WITH HEADER = true", good))
	if code != exitOK || !strings.Contains(out, "3 rows imported from 1 files in") {
		t.Fatalf("good file: exit %d\n%s\n%s", code, out, stderr)
	}
	var s map[string]any
	b, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"rows_read", "rows_written", "rows_skipped", "rows_failed_parse", "rows_failed_insert", "rows_unknown", "rows_not_sent", "rows_resumed", "bytes_read", "files", "elapsed_s", "rows_per_s", "latency_ms", "retries"} {
		if _, ok := s[k]; !ok {
			t.Errorf("summary JSON lacks %s: %s", k, b)
		}
	}
	if s["rows_written"].(float64) != 3 {
		t.Errorf("summary rows_written = %v", s["rows_written"])
	}

	code, out, stderr = runCLI(t, "", "--hosts", host, "--port", port, "--progress", "log", "--err-file", errFile, "--table", "ks.t", bad)
	if code != exitRejected || !strings.Contains(out, "2 rows imported") || !strings.Contains(out, "2 rows not written: 2 failed to parse") {
		t.Fatalf("bad rows: exit %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(stderr, "Processed:") {
		t.Errorf("log mode printed no progress line:\n%s", stderr)
	}

	code, out, _ = runCLI(t, "", "--hosts", host, "--port", port, "--progress", "none", "--err-file", errFile, "--max-parse-errors", "0", "--table", "ks.t", bad)
	if code != exitAborted || !strings.Contains(out, "Aborted: too many parse errors") {
		t.Fatalf("MAXPARSEERRORS=0: exit %d\n%s", code, out)
	}

	// Standard input, summary on stdout.
	code, out, _ = runCLI(t, "7,7,g\n8,8,h\n", "--hosts", host, "--port", port, "--progress", "none", "--err-file", errFile, "--summary-json", "-", "--table", "ks.t", "-")
	if code != exitOK || !strings.Contains(out, `"rows_written": 2`) {
		t.Fatalf("stdin: exit %d\n%s", code, out)
	}

	// Unreachable cluster: fatal.
	code, _, stderr = runCLI(t, "", "--hosts", "127.0.0.1", "--port", "1", "--connect-timeout", "500ms", "--progress", "none", "--table", "ks.t", good)
	if code != exitFatal {
		t.Fatalf("unreachable cluster: exit %d, stderr %s", code, stderr)
	}

	// A table that does not exist.
	code, _, stderr = runCLI(t, "", "--hosts", host, "--port", port, "--progress", "none", "--table", "ks.nosuch", good)
	if code != exitFatal || !strings.Contains(stderr, "nosuch") {
		t.Fatalf("missing table: exit %d, stderr %s", code, stderr)
	}
}

// TestPasswordWarnings: a password on the command line gets cqlsh's
// warning unless --insecure-password-without-warning is given, and a
// --password-file every user may read gets one too; the other sources do
// not. The run itself goes on.
func TestPasswordWarnings(t *testing.T) {
	c := startSim(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.csv")
	if err := os.WriteFile(good, []byte("1,1,a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pwFile := func(mode os.FileMode) string {
		p := filepath.Join(t.TempDir(), "pw")
		if err := os.WriteFile(p, []byte("x\n"), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const cqlshWarning = "Warning: Using a password on the command line interface can be insecure.\nRecommendation: use the credentials file to securely provide the password.\n"
	for _, tc := range []struct {
		name string
		args []string
		env  string
		want string // "" for no warning at all
	}{
		{name: "-p", args: []string{"-p", "x"}, want: cqlshWarning},
		{name: "--password", args: []string{"--password", "x"}, want: cqlshWarning},
		{name: "-p without warning", args: []string{"-p", "x", "--insecure-password-without-warning"}},
		{name: "file 0600", args: []string{"--password-file", pwFile(0o600)}},
		{name: "file 0440", args: []string{"--password-file", pwFile(0o440)}},
		{name: "file 0644", args: []string{"--password-file", pwFile(0o644)}, want: "can be read by every user (mode -rw-r--r--): chmod 600 it"},
		{name: "file 0604", args: []string{"--password-file", pwFile(0o604)}, want: "can be read by every user"},
		{name: "environment", env: "x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("CQLLOAD_PASSWORD", tc.env)
			args := append([]string{"--hosts", "127.0.0.1", "--port", strconv.Itoa(c.Port()), "-u", "cassandra", "--progress", "none",
				"--err-file", filepath.Join(t.TempDir(), "e.err"), "--table", "ks.t", good}, tc.args...)
			code, _, stderr := runCLI(t, "", args...)
			if code != exitOK {
				t.Fatalf("exit %d, want 0:\n%s", code, stderr)
			}
			switch {
			case tc.want == "" && strings.Contains(strings.ToLower(stderr), "warning"):
				t.Errorf("a warning, want none:\n%s", stderr)
			case tc.want != "" && !strings.Contains(stderr, tc.want):
				t.Errorf("stderr lacks %q:\n%s", tc.want, stderr)
			}
		})
	}
}

// TestPasswordNeverPrinted: whatever happens, the password does not reach
// the output, the summary JSON or the error messages.
func TestPasswordNeverPrinted(t *testing.T) {
	c := startSim(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.csv")
	os.WriteFile(good, []byte("1,1,a\n"), 0o644)
	const secret = "s3cr3t-pa55"
	runs := [][]string{
		{"--hosts", "127.0.0.1", "--port", strconv.Itoa(c.Port()), "-u", "cassandra", "-p", secret, "--progress", "log", "--summary-json", "-", "--err-file", filepath.Join(dir, "e.err"), "--table", "ks.t", good},
		{"--hosts", "127.0.0.1", "--port", "1", "--connect-timeout", "300ms", "-u", "cassandra", "-p", secret, "--summary-json", "-", "--table", "ks.t", good},
		{"-u", "cassandra", "-p", secret, "--table", "ks.t", "--chunk-size", "0", good},
	}
	for _, args := range runs {
		_, out, errOut := runCLI(t, "", args...)
		if strings.Contains(out+errOut, secret) {
			t.Fatalf("run %q printed the password:\n%s\n%s", args, out, errOut)
		}
	}
}

// TestProgressOfRunsThatNeverStarted: a run that fails before it reads
// anything prints its error alone, without a progress line of zeros; a run
// that reads prints its last progress line.
func TestProgressOfRunsThatNeverStarted(t *testing.T) {
	c := startSim(t)
	host, port := "127.0.0.1", strconv.Itoa(c.Port())
	dir := t.TempDir()
	good := filepath.Join(dir, "good.csv")
	os.WriteFile(good, []byte("k,v,n\n1,a,1\n"), 0o644)
	for _, tc := range []struct {
		name  string
		args  []string
		code  int
		lines int // progress lines wanted
	}{
		{"no such file", []string{"--table", "ks.t", filepath.Join(dir, "nope.csv")}, exitFatal, 0},
		{"no such table", []string{"--table", "ks.nope", good}, exitFatal, 0},
		{"loaded", []string{"--table", "ks.t", "--header", "true", good}, exitOK, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--hosts", host, "--port", port, "--progress", "log", "--report-frequency", "60", "--err-file", filepath.Join(dir, "e.err")}, tc.args...)
			code, _, stderr := runCLI(t, "", args...)
			if n := strings.Count(stderr, "Processed: "); code != tc.code || n != tc.lines {
				t.Fatalf("exit %d with %d progress lines, want %d with %d:\n%s", code, n, tc.code, tc.lines, stderr)
			}
		})
	}
}

// TestRefusedBeforeLoading: what cannot work is a usage error (64: a
// Kubernetes Job does not retry it), named, before any row is sent: inputs
// --split cannot share out, and an error file or summary whose directory
// cannot take files (else a run would abort at its first rejected row,
// with that row's reason nowhere, or lose its summary after the load).
func TestRefusedBeforeLoading(t *testing.T) {
	c := startSim(t)
	host, port := "127.0.0.1", strconv.Itoa(c.Port())
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	os.WriteFile(in, []byte("1,a,1\nx,b,2\n"), 0o644)
	errFile := filepath.Join(dir, "e.err")
	missing := filepath.Join(dir, "no", "such", "dir")
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	// An error file mended by removing a row, its log still listing it.
	stamped := filepath.Join(dir, "stamped.err")
	os.WriteFile(stamped, []byte("1,a,1\n"), 0o644)
	os.WriteFile(stamped+".log", []byte("in.csv:1: insert error: x [write timestamp 5]\nin.csv:2: insert error: x [write timestamp 6]\n"), 0o644)
	before := c.Stats().Total().RowsWritten
	for _, tc := range []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{"split of standard input", "1,a,1\n", []string{"--err-file", errFile, "--split", "0/2", "-"}, "--split: - is a stream, which only one process can read"},
		{"resume of standard input", "1,a,1\n", []string{"--err-file", errFile, "--resume", filepath.Join(dir, "ck"), "-"}, "- is a stream (standard input or a pipe): a run reading it cannot be resumed"},
		{"split of a file given twice", "", []string{"--err-file", errFile, "--split", "0/2", in, in}, in + " is given twice: each input is loaded once"},
		// Loaded twice, a counter table's increments would be applied twice.
		{"a file given twice", "", []string{"--err-file", errFile, in, in}, in + " is given twice: each input is loaded once"},
		{"a file under two names", "", []string{"--err-file", errFile, in, link}, in + " and " + link + " are the same file"},
		{"a file in two globs", "", []string{"--err-file", errFile, filepath.Join(dir, "*.csv"), filepath.Join(dir, "in.*")}, in + " is given twice"},
		{"a file by its path and as a file URL", "", []string{"--err-file", errFile, in, "file://" + in}, in + " and file://" + in + " are the same file"},
		{"an error file reloaded as a file URL, with --split", "", []string{"--err-file", errFile, "--split", "0/2", "file://" + stamped}, "an error file cannot be shared out by --split"},
		{"split plan of a file given twice", "", []string{"--err-file", errFile, "--split", "0/2", "--write-split-plan", filepath.Join(dir, "plan.json"), in, in}, in + " is given twice"},
		{"error file", "", []string{"--err-file", filepath.Join(missing, "e.err"), in}, "ERRFILE " + filepath.Join(missing, "e.err") + ": cannot create files in " + missing},
		{"summary", "", []string{"--err-file", errFile, "--summary-json", filepath.Join(missing, "s.json"), in}, "--summary-json " + filepath.Join(missing, "s.json") + ": cannot create files in " + missing},
		{"checkpoint", "", []string{"--err-file", errFile, "--resume", filepath.Join(missing, "ck"), in}, "--resume " + filepath.Join(missing, "ck") + ": cannot create files in " + missing},
		// Opened only when the first progress line was due: the run
		// stopped part way, its rows not sent.
		{"rate file", "", []string{"--err-file", errFile, "--rate-file", filepath.Join(missing, "r.txt"), in}, "RATEFILE " + filepath.Join(missing, "r.txt") + ": cannot create files in " + missing},
		{"histogram log", "", []string{"--err-file", errFile, "--histogram-log", filepath.Join(missing, "h.hlog"), in}, "HISTOGRAMLOG " + filepath.Join(missing, "h.hlog") + ": cannot create files in " + missing},
		// Outputs that are inputs: the run would have removed or
		// overwritten them.
		{"error file is the input", "", []string{"--err-file", in, in}, "ERRFILE would write or remove " + in + ", which is the input " + in},
		{"checkpoint is the input", "", []string{"--err-file", errFile, "--resume", in, in}, "--resume would write or remove " + in},
		{"summary is a link to the input", "", []string{"--err-file", errFile, "--summary-json", link, in}, "--summary-json would write or remove " + link + ", which is the input " + in},
		{"split plan is the input", "", []string{"--err-file", errFile, "--split", "0/2", "--write-split-plan", in, in}, "--write-split-plan would write or remove " + in},
		// Its rows' write timestamps are matched to them by position.
		{"error file whose log lists other rows", "", []string{"--err-file", errFile, stamped}, stamped + ": it holds 1 rows, its log lists 2"},
		{"split of an error file", "", []string{"--err-file", errFile, "--split", "0/2", stamped}, stamped + ": an error file cannot be shared out by --split"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--hosts", host, "--port", port, "--progress", "none", "--table", "ks.t", "--columns", "k,v,n"}, tc.args...)
			code, stdout, stderr := runCLI(t, tc.stdin, args...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, want %d with %q:\n%s", code, exitUsage, tc.want, stderr)
			}
			// Nothing was loaded, so there is nothing to sum up.
			if strings.Contains(stdout, "rows imported") {
				t.Errorf("the refused run printed a summary:\n%s", stdout)
			}
		})
	}
	if w := c.Stats().Total().RowsWritten - before; w != 0 {
		t.Errorf("%d rows written", w)
	}
	if b, err := os.ReadFile(in); err != nil || string(b) != "1,a,1\nx,b,2\n" {
		t.Errorf("the input is now %q (%v)", b, err)
	}
	if probes, _ := filepath.Glob(filepath.Join(dir, ".cqlload-probe-*")); len(probes) != 0 {
		t.Errorf("probe files left: %v", probes)
	}
}

// TestExitCodes: every class of a run's outcome has its exit status, and
// no two share one.
func TestExitCodes(t *testing.T) {
	seen := map[int]loader.Class{}
	for c := loader.ClassOK; c <= loader.ClassUsage; c++ {
		code, ok := exitCodes[c]
		if !ok {
			t.Errorf("class %v has no exit status", c)
		}
		if other, dup := seen[code]; dup {
			t.Errorf("classes %v and %v share exit status %d", other, c, code)
		}
		seen[code] = c
	}
}
