//go:build unix

package main

import (
	"bytes"
	"context"
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
