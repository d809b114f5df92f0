package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoControlBytesFromNames: file names and header names holding
// escape sequences and other control characters reach standard output,
// standard error and the error files' log quoted, never raw: a file
// named "\x1b[2J…" cleared the screen of whoever read a message naming
// it. The rows still load, and every rejected one is accounted for.
func TestNoControlBytesFromNames(t *testing.T) {
	c := startSim(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	if err := os.Mkdir(in, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"\x1b[2Jclear.csv":     "k,v\x1b[31m,n\n1,a,1\n",       // a header name the table lacks
		"cr\rname.csv":         "k,v,n\n2,b,notanint\n3,c,3\n", // a field that does not convert
		"bell\a\x7f\u009b.csv": "k,v,n\n4,\"unclosed,4\n",      // a quote never closed
		"tab\tnl\nname.csv":    "k,v,n\n5,e,5,extra\n6,f,6\n",  // too many fields
		"rlo\u202ecsv.txt":     "k,v,n\n7,g,7\n",               // loads
		"ok.csv":               "k,v,n\n8,h,8\n",               // loads
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(in, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	errFile := filepath.Join(dir, "rows.err")
	code, stdout, stderr := runCLI(t, "", "--hosts", "127.0.0.1", "--port", strconv.Itoa(c.Port()), "--progress", "log",
		"--err-file", errFile, "--summary-json", "-", "--header=true", "--table", "ks.t", in)
	if code != exitRejected {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitRejected, stdout, stderr)
	}
	log, err := os.ReadFile(errFile + ".log")
	if err != nil {
		t.Fatal(err)
	}
	// One line for each of the 4 rejected rows, and one for the bad
	// header's reason, given once for its file.
	if n, h := strings.Count(string(log), "\n"), strings.Count(string(log), ": header: "); n != 5 || h != 1 {
		t.Errorf("the log has %d lines, %d of them a header's, want 4 rows and 1 header:\n%s", n, h, log)
	}
	for what, out := range map[string]string{"standard output": stdout, "standard error": stderr, "the error log": string(log)} {
		for _, r := range out {
			if r != '\n' && (r < 0x20 || r >= 0x7f && r < 0xa0 || r == '\u202e') {
				t.Errorf("%s holds the control character %U:\n%q", what, r, out)
				break
			}
		}
	}
	// A name in a message on standard error: a file that is not there.
	code, _, missing := runCLI(t, "", "--hosts", "127.0.0.1", "--port", strconv.Itoa(c.Port()), "--progress", "log",
		"--err-file", errFile, "--table", "ks.t", filepath.Join(dir, "\x1b[2Jgone\r.csv"))
	if code == exitOK || !strings.Contains(missing, `gone\r.csv"`) {
		t.Errorf("a missing file: exit %d, want a failure naming it, quoted:\n%q", code, missing)
	}
	for _, r := range missing {
		if r != '\n' && r < 0x20 {
			t.Errorf("standard error holds the control character %U:\n%q", r, missing)
			break
		}
	}
	if !strings.Contains(string(log), `\x1b[2Jclear.csv":2: `) || !strings.Contains(string(log), `cr\rname.csv":2:5: `) ||
		!strings.Contains(string(log), `does not have: "v\x1b[31m"`) {
		t.Errorf("the log does not name the files and the header name, quoted:\n%s", log)
	}
}
