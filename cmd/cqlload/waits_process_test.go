package main

import (
	"bytes"
	"crypto/tls"
	"errors"
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

// runCQLLoad runs the binary with args, within limit, and gives its exit
// status, output and how long it ran.
func runCQLLoad(t *testing.T, limit time.Duration, args ...string) (int, string, time.Duration) {
	t.Helper()
	cmd := exec.Command(proctest.Build(t).CQLLoad, args...)
	cmd.Dir = t.TempDir()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	err := waitTimeout(t, cmd, limit)
	took := time.Since(start)
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), took
}

// TestConnectWaitsEndProcess runs cqlload against ports that accept the
// connection and then say nothing, at each step of connecting: it must
// give up within --connect-timeout (plus a margin for starting the
// process), exit 3, and name the host and what it waited for. Before,
// --ssl against such a port waited for ever.
func TestConnectWaitsEndProcess(t *testing.T) {
	dir := t.TempDir()
	certFile, _, cert := nettest.WriteCert(t, dir, "localhost")
	tlsThenSilent := func(c net.Conn) {
		tc := tls.Server(c, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
		if tc.Handshake() == nil {
			nettest.ReadForever(tc)
		}
	}
	in := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(in, []byte("1,a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		serve func(net.Conn)
		flags []string
		want  string
	}{
		{"silent, plain", nettest.ReadForever, nil,
			"{addr} accepted the connection but sent no answer within 1s (the connect timeout) while connecting"},
		{"silent, --ssl", nettest.ReadForever, []string{"--ssl", "--ssl-ca", certFile},
			"{addr} accepted the connection but did not finish a TLS handshake within 1s (the connect timeout)"},
		{"TLS then silent, --ssl", tlsThenSilent, []string{"--ssl", "--ssl-ca", certFile, "--ssl-server-name", "localhost"},
			"{addr} accepted the connection but sent no answer within 1s (the connect timeout) while connecting"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr, _ := nettest.Silent(t, tc.serve)
			host, port, _ := net.SplitHostPort(addr)
			args := append([]string{"--hosts", host, "--port", port, "--connect-timeout", "1s",
				"--progress", "none", "--table", "ks.t"}, tc.flags...)
			code, out, took := runCQLLoad(t, 30*time.Second, append(args, in)...)
			if code != exitFatal {
				t.Errorf("exit %d, want %d", code, exitFatal)
			}
			if want := strings.ReplaceAll(tc.want, "{addr}", net.JoinHostPort(host, port)); !strings.Contains(out, want) {
				t.Errorf("output does not say %q:\n%s", want, out)
			}
			if took > time.Second+2*time.Second {
				t.Errorf("ran %v with --connect-timeout 1s", took)
			}
		})
	}
}

// TestSSLServerNameProcess: with --ssl, a node's certificate is checked
// against the host as given, and --ssl-server-name checks another name;
// a mismatch says which names the certificate holds and which was
// checked, rather than only suggest --ssl-no-verify.
func TestSSLServerNameProcess(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile, _ := nettest.WriteCert(t, dir, "db.example")
	sim := proctest.StartSim(t, plainSchema, "--nodes", "1", "--tls-cert", certFile, "--tls-key", keyFile)
	in := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(in, []byte("1,a\n2,b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"--hosts", "localhost", "--port", sim.Port, "--ssl", "--ssl-ca", certFile, "--progress", "none", "--table", "ks.t"}

	code, out, _ := runCQLLoad(t, 60*time.Second, append(base, in)...)
	if want := "its certificate is for DNS:db.example, not localhost (connect by a name the certificate holds, or check another with --ssl-server-name)"; code != exitFatal || !strings.Contains(out, want) {
		t.Errorf("certificate for another name: exit %d, want %d saying %q:\n%s", code, exitFatal, want, out)
	}
	code, out, _ = runCQLLoad(t, 60*time.Second, append(base, "--ssl-server-name", "db.example", in)...)
	if code != 0 || !strings.Contains(out, "2 rows imported") {
		t.Errorf("--ssl-server-name db.example: exit %d, want 0:\n%s", code, out)
	}
}
