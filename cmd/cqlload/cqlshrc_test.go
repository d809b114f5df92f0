package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cqlload/cqlload/cqlsim"
)

// TestCqlshrc: a cqlsh user's ~/.cassandra/cqlshrc gives the host, port,
// keyspace and COPY options (COPY TO-only ones ignored), and the command
// line wins over it.
func TestCqlshrc(t *testing.T) {
	c := startSim(t)
	host, port := "127.0.0.1", strconv.Itoa(c.Port())
	home := t.TempDir()
	t.Setenv("HOME", home)
	os.MkdirAll(filepath.Join(home, ".cassandra"), 0o755)
	rc := fmt.Sprintf(`[connection]
hostname = %s
port = %s

[authentication]
keyspace = ks

[copy]
pagesize = 1000

[copy-from]
header = true
`, host, port)
	if err := os.WriteFile(filepath.Join(home, ".cassandra", "cqlshrc"), []byte(rc), 0o600); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(t.TempDir(), "in.csv")
	os.WriteFile(in, []byte("k,v\n1,a\n2,b\n"), 0o644)

	// No host, no port, no keyspace, no HEADER: all from the cqlshrc.
	code, out, stderr := runCLI(t, "", "--progress", "none", "-e", fmt.Sprintf("COPY t (k, v) FROM '%s'", in))
	if code != exitOK || !strings.Contains(out, "2 rows imported") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if n := countTable(t, c, "ks.t"); n != 2 {
		t.Fatalf("table holds %d rows, want 2", n)
	}

	// The command line wins: a port that is not the cluster's fails.
	code, _, stderr = runCLI(t, "", "--progress", "none", "--port", "1", "--connect-timeout", "500ms", "-e", fmt.Sprintf("COPY t (k, v) FROM '%s'", in))
	if code != exitFatal {
		t.Fatalf("--port 1 over the cqlshrc's port: exit %d, want %d\n%s", code, exitFatal, stderr)
	}

	// CONFIGFILE takes the cqlshrc's place, as in cqlsh: its [copy]
	// sections are read, the cqlshrc's are not (HEADER stays false, so
	// the header line is a rejected row). cqlsh's worker-process
	// tuning is accepted, and the run says it is ignored.
	cf := filepath.Join(t.TempDir(), "copy.ini")
	os.WriteFile(cf, []byte("[copy]\nmaxinflightmessages = 16\nchildtimeout = 60\n"), 0o644)
	code, out, stderr = runCLI(t, "", "--progress", "none", "--err-file", filepath.Join(t.TempDir(), "e.err"), "-e", fmt.Sprintf("COPY t (k, v) FROM '%s' WITH CONFIGFILE = '%s'", in, cf))
	if code != exitRejected || !strings.Contains(out, "2 rows imported") ||
		!strings.Contains(stderr, "MAXINFLIGHTMESSAGES, CHILDTIMEOUT tune cqlsh's worker processes, which cqlload does not have: ignored") {
		t.Fatalf("CONFIGFILE in place of the cqlshrc: exit %d, want %d with the header rejected and a note\n%s\n%s", code, exitRejected, out, stderr)
	}

	// An explicit --cqlshrc that does not exist is a usage error.
	code, _, stderr = runCLI(t, "", "--cqlshrc", filepath.Join(home, "nope"), "--table", "ks.t", in)
	if code != exitUsage || !strings.Contains(stderr, "nope") {
		t.Fatalf("missing --cqlshrc: exit %d\n%s", code, stderr)
	}
}

func countTable(t *testing.T, c *cqlsim.Cluster, table string) int {
	t.Helper()
	rows, err := c.Query("SELECT k FROM " + table)
	if err != nil {
		t.Fatalf("read %s: %v", table, err)
	}
	return len(rows)
}
