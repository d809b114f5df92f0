//go:build unix

package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/cqlload/cqlload/cqlsim"
)

// TestPasswordPrompt: -u without a password, at a terminal, asks for the
// password without echo and uses it.
func TestPasswordPrompt(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := cqlsim.Start(ctx, cqlsim.Config{Nodes: 1, Username: "alice", Password: "s3cret", Schema: []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};" +
			"CREATE TABLE ks.t (k int PRIMARY KEY, v text);"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	t.Setenv("CQLLOAD_PASSWORD", "")
	t.Setenv("HOME", t.TempDir()) // no cqlshrc
	in := filepath.Join(t.TempDir(), "in.csv")
	os.WriteFile(in, []byte("1,a\n2,b\n"), 0o644)

	for _, tc := range []struct {
		typed string
		want  int
	}{{"s3cret\n", exitOK}, {"wrong\n", exitFatal}} {
		ptmx, tty, err := pty.Open()
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			// Type once the prompt has turned echo off, as a person would
			// after seeing it.
			for range 500 {
				st, err := unix.IoctlGetTermios(int(tty.Fd()), getTermios)
				if err == nil && st.Lflag&unix.ECHO == 0 {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
			_, _ = ptmx.WriteString(tc.typed)
		}()
		echoed := make(chan string, 1)
		go func() {
			var b bytes.Buffer
			buf := make([]byte, 256)
			for {
				n, err := ptmx.Read(buf)
				b.Write(buf[:n])
				if err != nil {
					break
				}
			}
			echoed <- b.String()
		}()
		var out, errb bytes.Buffer
		code := run([]string{"--hosts", "127.0.0.1", "--port", strconv.Itoa(c.Port()), "-u", "alice", "--progress", "none", "--table", "ks.t", in}, tty, &out, &errb)
		tty.Close()
		ptmx.Close()
		if code != tc.want {
			t.Fatalf("typed %q: exit %d, want %d\n%s\n%s", tc.typed, code, tc.want, out.String(), errb.String())
		}
		if !strings.Contains(errb.String(), "Password for alice: ") {
			t.Fatalf("no prompt on standard error: %q", errb.String())
		}
		if e := <-echoed; strings.Contains(e, strings.TrimSpace(tc.typed)) {
			t.Fatalf("the terminal echoed the password: %q", e)
		}
	}
}

// TestTypedRowsEndAtDot: rows typed at a terminal end, as in cqlsh, at a
// line holding only "." (before, only Ctrl-D ended them, and "." was a
// rejected row).
func TestTypedRowsEndAtDot(t *testing.T) {
	c := startSim(t)
	t.Setenv("HOME", t.TempDir()) // no cqlshrc
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	go io.Copy(io.Discard, ptmx) // the terminal's echo
	if _, err := ptmx.WriteString("1,a\n2,b\n.\n"); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"127.0.0.1", strconv.Itoa(c.Port()), "--progress", "none", "--err-file", filepath.Join(t.TempDir(), "e.err"),
			"-e", "COPY ks.t (k, v) FROM STDIN"}, tty, &out, &errb)
	}()
	select {
	case code := <-done:
		if code != exitOK || !strings.Contains(out.String(), "2 rows imported") || !strings.Contains(errb.String(), "[Use . on a line by itself to end input]") {
			t.Fatalf("exit %d, want %d with 2 rows and cqlsh's hint\n%s\n%s", code, exitOK, out.String(), errb.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("still reading after the \".\" line\n%s", errb.String())
	}
}
