package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

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

// TestCredentialsFile: cqlsh's credentials file (~/.cassandra/credentials,
// the cqlshrc's [authentication] credentials, or --credentials) gives the
// user name and password: over the cqlshrc's, under the flags'. As cqlsh,
// a file that group or others may read is not used, with a warning.
func TestCredentialsFile(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := cqlsim.Start(ctx, cqlsim.Config{Nodes: 1, Username: "loader", Password: "s3cr=t", Schema: []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};" +
			"CREATE TABLE ks.t (k int PRIMARY KEY, v text);"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CQLLOAD_PASSWORD", "")
	dot := filepath.Join(home, ".cassandra")
	os.MkdirAll(dot, 0o755)
	write := func(path, data string, mode os.FileMode) {
		t.Helper()
		if err := os.WriteFile(path, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
	}
	in := filepath.Join(t.TempDir(), "in.csv")
	write(in, "1,a\n2,b\n", 0o644)
	const good = "[PlainTextAuthProvider]\nusername = loader\npassword = s3cr=t\n"
	other := filepath.Join(t.TempDir(), "creds")
	write(other, "[plain_text_auth]\nusername = loader\npassword = s3cr=t\n", 0o600)

	for _, tt := range []struct {
		name, creds, rc string
		mode            os.FileMode
		args            []string
		ok              bool
		stderr          string
	}{
		{name: "the default file", creds: good, mode: 0o600, ok: true},
		{name: "over the cqlshrc's", creds: good, mode: 0o600, rc: "[authentication]\nusername = loader\npassword = wrong\n", ok: true},
		{name: "for -u of its user", creds: good, mode: 0o600, args: []string{"-u", "loader"}, ok: true},
		{name: "-p wins", creds: good, mode: 0o600, args: []string{"-p", "wrong"}, stderr: "are incorrect"},
		{name: "readable by others", creds: good, mode: 0o644, stderr: "is not used"},
		{name: "--credentials, Cassandra 4.0's section", args: []string{"--credentials", other}, ok: true},
		{name: "the cqlshrc names it", rc: "[authentication]\ncredentials = " + other + "\n", ok: true},
		{name: "--credentials of no file", args: []string{"--credentials", other + ".none"}, stderr: "no such file"},
	} {
		os.Remove(filepath.Join(dot, "credentials"))
		os.Remove(filepath.Join(dot, "cqlshrc"))
		if tt.creds != "" {
			write(filepath.Join(dot, "credentials"), tt.creds, tt.mode)
		}
		if tt.rc != "" {
			write(filepath.Join(dot, "cqlshrc"), tt.rc, 0o600)
		}
		args := append([]string{"127.0.0.1", strconv.Itoa(c.Port()), "--progress", "none", "--err-file", filepath.Join(home, "e.err"),
			"-e", fmt.Sprintf("COPY ks.t (k, v) FROM '%s'", in)}, tt.args...)
		code, out, stderr := runCLI(t, "", args...)
		switch {
		case tt.ok && (code != exitOK || !strings.Contains(out, "2 rows imported")):
			t.Errorf("%s: exit %d, want 0 and 2 rows\n%s\n%s", tt.name, code, out, stderr)
		case !tt.ok && (code == exitOK || !strings.Contains(stderr, tt.stderr)):
			t.Errorf("%s: exit %d, want a failure saying %q\n%s\n%s", tt.name, code, tt.stderr, out, stderr)
		case strings.Contains(out+stderr, "s3cr=t"):
			t.Errorf("%s: the password was printed\n%s\n%s", tt.name, out, stderr)
		}
	}
}
