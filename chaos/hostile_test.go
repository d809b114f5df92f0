//go:build unix

package chaos

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cqlload/cqlload/internal/nettest"
	"github.com/cqlload/cqlload/internal/proctest"
)

// The hostile-input suite: the built cqlload on inputs a careless or
// hostile user brings. Each case checks what every run must keep: the
// table holds exactly the good rows, every bad one is in the error file
// with its reason, memory and the bytes written stay within stated
// bounds, no secret reaches any output, and every wait ends within its
// timeout plus 2 s.
//
// Here: names that look like bind names or differ only in case, /dev/zero
// as input, and a silent object store. The other classes' process tests
// are cmd/cqlload's, beside the helpers they share: TestLineOfDelimiters
// and TestEndlessRecord (memory and disk), TestConnectWaitsEndProcess
// (silent CQL and TLS ports), TestPlantedLinksProcess (side files), TestSecretsNeverWritten
// (secrets in URLs and on the command line), TestNoControlBytesFromNames
// (escape sequences in names), TestWholeFilesBounded (files read whole),
// TestManyHeadersFewDescriptors and TestTypoHeaderReasonOnTerminal.

// treeBytes is the size of the regular files under dir.
func treeBytes(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// watchBytes polls the size of dir's files until stop is closed and
// returns the largest it saw.
func watchBytes(dir string, stop <-chan struct{}) <-chan int64 {
	peak := make(chan int64, 1)
	go func() {
		var most int64
		for {
			most = max(most, treeBytes(dir))
			select {
			case <-stop:
				peak <- max(most, treeBytes(dir))
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	return peak
}

// goodRows is n narrow rows from key first on, as a file's lines.
func goodRows(first, n int) []byte {
	var b bytes.Buffer
	for i := first; i < first+n; i++ {
		fmt.Fprintf(&b, "%d,v%d\n", i, i)
	}
	return b.Bytes()
}

// TestHostileEndlessInput: /dev/zero as input, one record without end,
// is read until the run is interrupted, and in that time nothing of it
// is kept but a bounded prefix: not in the error file, not in temporary
// files. (cmd/cqlload's TestEndlessRecord and TestLineOfDelimiters check
// a finite endless-looking record, a gzip of zeros, byte for byte under a
// file-size limit, and the memory of a line of delimiters.)
func TestHostileEndlessInput(t *testing.T) {
	// What a run may write for one rejected record: its kept prefix
	// (1 MiB by default) and the log's line.
	const diskBound = 4 << 20
	sim := proctest.StartSim(t, schema(1, "dev"), "--nodes", "1")
	tmp := t.TempDir()
	l := startLoadEnv(t, sim, "dev", []string{"TMPDIR=" + tmp}, "/dev/zero")
	stop := make(chan struct{})
	peakTmp := watchBytes(tmp, stop)
	time.Sleep(5 * time.Second)
	if !l.running() {
		t.Fatalf("cqlload ended on an endless input\n%s", l.output())
	}
	if err := l.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	l.wait(t, 30*time.Second)
	close(stop)
	if l.exit != 4 {
		t.Errorf("want exit 4 after SIGINT; got %d\n%s", l.exit, l.output())
	}
	if n := <-peakTmp; n > diskBound {
		t.Errorf("temporary files reached %d bytes reading /dev/zero for 5 s, over %d", n, diskBound)
	}
	if n := treeBytes(filepath.Dir(l.errFile)); n > diskBound {
		t.Errorf("the run's directory holds %d bytes after reading /dev/zero for 5 s, over %d", n, diskBound)
	}
}

// startLoadEnv is startLoad with variables added to the environment.
func startLoadEnv(t *testing.T, sim *proctest.Sim, table string, env []string, args ...string) *load {
	t.Helper()
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	return startLoad(t, sim, table, args...)
}

// TestHostileNames: column names that look like cqlload's own bind names
// or differ only in case, or hold a comma, a quote, a space or a
// non-ASCII letter, each load into their own column.
func TestHostileNames(t *testing.T) {
	const ddl = `CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE TABLE ks.names (k int PRIMARY KEY, "[timestamp]" text, "[ttl]" int, t tuple<int, text>, "t[0]" text,
  "Val" text, val text, "a,b" text, "q""q" text, "sp ace" text, "ünï" text);
`
	sim := proctest.StartSim(t, ddl, "--nodes", "1")
	dir := t.TempDir()
	header := `k,[timestamp],[ttl],t,t[0],Val,val,"a,b","q""q",sp ace,ünï` + "\n"
	var in bytes.Buffer
	in.WriteString(header)
	const rows = 50
	for i := range rows {
		fmt.Fprintf(&in, "%d,ts%d,%d,\"(%d, 'e%d')\",tz%d,Up%d,lo%d,ab%d,qq%d,sp%d,un%d\n", i, i, i, i, i, i, i, i, i, i, i, i)
	}
	path := filepath.Join(dir, "names.csv")
	if err := os.WriteFile(path, in.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	l := startLoad(t, sim, "names", "--header", "true", path)
	l.wait(t, loadTimeout)
	s := l.summary(t)
	if l.exit != 0 || s.RowsWritten != rows {
		t.Fatalf("want exit 0 and %d rows written; got exit %d, %v\n%s", rows, l.exit, s, l.output())
	}
	iter := sim.Session(t).Query(`SELECT k, "[timestamp]", "[ttl]", t, "t[0]", "Val", val, "a,b", "q""q", "sp ace", "ünï" FROM ks.names`).Iter()
	var (
		k, ttl, t0         int
		ts, t1, tz, up, lo string
		ab, qq, sp, un     string
		seen               int
	)
	for iter.Scan(&k, &ts, &ttl, &t0, &t1, &tz, &up, &lo, &ab, &qq, &sp, &un) {
		seen++
		got := []any{ts, ttl, t0, t1, tz, up, lo, ab, qq, sp, un}
		want := []any{fmt.Sprintf("ts%d", k), k, k, fmt.Sprintf("e%d", k), fmt.Sprintf("tz%d", k), fmt.Sprintf("Up%d", k),
			fmt.Sprintf("lo%d", k), fmt.Sprintf("ab%d", k), fmt.Sprintf("qq%d", k), fmt.Sprintf("sp%d", k), fmt.Sprintf("un%d", k)}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("k=%d: the table holds %v, the file %v", k, got, want)
		}
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	if seen != rows {
		t.Errorf("the table holds %d rows, want %d", seen, rows)
	}
}

// TestHostileSilentListeners: an object store that accepts connections
// and never answers ends the run with exit 3 within its timeout plus 2 s,
// naming what it waited for. (A silent CQL port, with and without TLS, is
// cmd/cqlload's TestConnectWaitsEndProcess.)
func TestHostileSilentListeners(t *testing.T) {
	t.Parallel() // waits out timeouts: beside TestOneFrozenReplica's pause
	const timeout = 3 * time.Second
	b := proctest.Build(t)
	dir := t.TempDir()
	rows := filepath.Join(dir, "rows.csv")
	if err := os.WriteFile(rows, goodRows(0, 10), 0o644); err != nil {
		t.Fatal(err)
	}
	storeAddr, _ := nettest.Silent(t, nil)
	sh, sp, _ := net.SplitHostPort(storeAddr)
	// The object store's wait is the one left when the cluster answers.
	sim := proctest.StartSim(t, schema(1, "t"), "--nodes", "1")
	simHost, simPort, _ := net.SplitHostPort(sim.Hosts[0])
	secs := timeout.String()
	cases := []struct {
		name   string
		silent string // the address the error must name
		args   []string
	}{
		{"object store", net.JoinHostPort(sh, sp), []string{"--hosts", simHost, "--port", simPort, "--connect-timeout", secs, "--store-timeout", secs, "--table", "ks.t",
			"s3://bucket/rows.csv?region=us-east-1&endpoint=http://" + net.JoinHostPort(sh, sp)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // each waits out its timeout
			cmd := exec.Command(b.CQLLoad, c.args...)
			cmd.Env = append(os.Environ(), "AWS_ACCESS_KEY_ID=hostile", "AWS_SECRET_ACCESS_KEY=hostile", "AWS_EC2_METADATA_DISABLED=true")
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			start := time.Now()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(timeout + 30*time.Second):
				_ = cmd.Process.Kill()
				<-done
				t.Fatalf("cqlload still waits %s after it started; killed\n%s", time.Since(start), out.String())
			}
			took := time.Since(start)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 3 {
				t.Errorf("want exit 3; got %v\n%s", err, out.String())
			}
			if took > timeout+2*time.Second {
				t.Errorf("the wait ended after %s, over its timeout %s plus 2 s\n%s", took.Round(time.Millisecond), timeout, out.String())
			}
			if !strings.Contains(out.String(), c.silent) {
				t.Errorf("the error does not name the silent address %s:\n%s", c.silent, out.String())
			}
			t.Logf("ended after %s: %s", took.Round(time.Millisecond), lastLine(out.String()))
		})
	}
}

// lastLine is s's last non-empty line.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
