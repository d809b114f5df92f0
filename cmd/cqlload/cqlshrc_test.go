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

// TestCqlshHostPortAndTimeFormat: as cqlsh, CQLSH_HOST and CQLSH_PORT
// come between the command line and the cqlshrc, and the cqlshrc's
// [ui] time_format is DATETIMEFORMAT's default.
func TestCqlshHostPortAndTimeFormat(t *testing.T) {
	c := startSim(t)
	if err := c.Exec("CREATE TABLE ks.ts (k int PRIMARY KEY, t timestamp);"); err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(c.Port())
	rc := filepath.Join(t.TempDir(), "cqlshrc")
	os.WriteFile(rc, []byte("[connection]\nhostname = 127.0.0.9\nport = 1\n\n[ui]\ntime_format = %d/%m/%Y %H:%M\n"), 0o600)
	in := filepath.Join(t.TempDir(), "in.csv")
	os.WriteFile(in, []byte("1,05/12/2020 13:14\n"), 0o644)
	stmt := fmt.Sprintf("COPY ks.ts (k, t) FROM '%s'", in)
	base := []string{"--cqlshrc", rc, "--progress", "none", "--connect-timeout", "500ms", "-e", stmt}

	t.Setenv("CQLSH_HOST", "127.0.0.1")
	t.Setenv("CQLSH_PORT", port)
	code, out, stderr := runCLI(t, "", base...)
	if code != exitOK || !strings.Contains(out, "1 rows imported") {
		t.Fatalf("CQLSH_HOST and CQLSH_PORT over the cqlshrc: exit %d\n%s\n%s", code, out, stderr)
	}
	rows, err := c.Query("SELECT t FROM ks.ts WHERE k = 1")
	if err != nil || len(rows) != 1 || rows[0]["t"] != "'2020-12-05T13:14:00.000Z'" {
		t.Fatalf("timestamp stored %v (%v), want 2020-12-05 13:14 UTC", rows, err)
	}

	// The command line wins over the environment.
	code, _, stderr = runCLI(t, "", append([]string{"127.0.0.1", "1"}, base...)...)
	if code != exitFatal {
		t.Fatalf("PORT 1 on the command line over CQLSH_PORT: exit %d, want %d\n%s", code, exitFatal, stderr)
	}
	t.Setenv("CQLSH_PORT", "nine")
	if code, _, stderr = runCLI(t, "", base...); code != exitUsage || !strings.Contains(stderr, `CQLSH_PORT "nine" is not a port`) {
		t.Fatalf("bad CQLSH_PORT: exit %d\n%s", code, stderr)
	}
}
