package loader

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlload/cqlload/cqlsim"
	"github.com/cqlload/cqlload/internal/nettest"
	"github.com/cqlload/cqlload/schema"
)

// freePort is a port nothing listens on, on both node addresses.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return port
}

// TestConnectErrors checks that each way of failing to connect gets a
// message that names the host and the cause, well within the connect
// timeout, against real in-process clusters.
func TestConnectErrors(t *testing.T) {
	const timeout = 3 * time.Second
	cert, pool := nettest.Cert(t, "127.0.0.1", "127.0.0.2")
	serverTLS := func(c *cqlsim.Config) {
		c.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	auth := func(c *cqlsim.Config) { c.Username, c.Password = "cassandra", "secret" }
	otherKeyspace := func(c *cqlsim.Config) {
		c.Schema = append(c.Schema, "CREATE KEYSPACE other WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};")
	}
	for _, tc := range []struct {
		name    string
		cluster func(*cqlsim.Config)
		client  func(o *Options, c *cqlsim.Cluster)
		// want is the whole message; {host} stands for the first
		// node's address and port.
		want string
		// is holds errors the error must wrap.
		is []error
	}{
		{
			name:    "unknown keyspace lists the keyspaces",
			cluster: otherKeyspace,
			client:  func(o *Options, _ *cqlsim.Cluster) { o.Keyspace = "nosuch" },
			want:    "keyspace nosuch does not exist (the cluster has keyspaces ks, other)",
			is:      []error{gocql.ErrKeyspaceDoesNotExist, gocql.ErrNoConnectionsStarted},
		},
		{
			name:    "keyspace names are exact",
			cluster: otherKeyspace,
			client:  func(o *Options, _ *cqlsim.Cluster) { o.Keyspace = "KS" },
			want:    `keyspace "KS" does not exist (the cluster has keyspaces ks, other)`,
		},
		{
			name:    "TLS cluster, plain client",
			cluster: serverTLS,
			want:    "{host} answered with TLS: use --ssl",
		},
		{
			name:   "plain cluster, TLS client",
			client: func(o *Options, _ *cqlsim.Cluster) { o.TLS = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12} },
			want:   "{host} does not speak TLS: drop --ssl",
		},
		{
			name:    "TLS cluster, client without its CA",
			cluster: serverTLS,
			client: func(o *Options, _ *cqlsim.Cluster) {
				o.TLS = &tls.Config{RootCAs: x509.NewCertPool(), MinVersion: tls.VersionTLS12}
			},
			want: "{host}: tls: failed to verify certificate: x509: certificate signed by unknown authority (give the CA that signed its certificate with --ssl-ca, or skip the check with --ssl-no-verify)",
		},
		{
			name:    "bad password",
			cluster: auth,
			client:  func(o *Options, _ *cqlsim.Cluster) { o.Username, o.Password = "cassandra", "wrong" },
			want:    `{host} refused user name "cassandra": Provided username cassandra and/or password are incorrect`,
		},
		{
			name:    "no credentials",
			cluster: auth,
			want:    "{host} requires a user name and password (org.apache.cassandra.auth.PasswordAuthenticator): give --username and a password",
		},
		{
			name: "nothing listening",
			client: func(o *Options, _ *cqlsim.Cluster) {
				o.Hosts, o.Port = []string{"127.0.0.1", "127.0.0.2"}, freePort(t)
			},
			want: "cannot reach 127.0.0.1:{port}, 127.0.0.2:{port}: connection refused",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := startCluster(t, 2, 1, "CREATE TABLE ks.t (k int PRIMARY KEY, v text);", tc.cluster)
			o := testOptions(t, c, "t")
			o.ConnectTimeout = timeout
			if tc.client != nil {
				tc.client(&o, c)
			}
			start := time.Now()
			s, err := Connect(o)
			elapsed := time.Since(start)
			if err == nil {
				s.Close()
				t.Fatal("connected")
			}
			want := strings.NewReplacer("{host}", c.Hosts()[0], "{port}", strconv.Itoa(o.Port)).Replace(tc.want)
			if err.Error() != want {
				t.Errorf("error\n got %s\nwant %s", err, want)
			}
			for _, target := range tc.is {
				if !errors.Is(err, target) {
					t.Errorf("error does not wrap %v", target)
				}
			}
			if elapsed > timeout/2 {
				t.Errorf("took %v, connect timeout %v", elapsed, timeout)
			}
		})
	}
}

// TestConnectProbe runs Connect against servers that are not CQL nodes,
// to check what the probe of the first contact point finds out.
func TestConnectProbe(t *testing.T) {
	const timeout = 3 * time.Second
	for _, tc := range []struct {
		name  string
		serve func(net.Conn)
		want  string // {addr} stands for the server's address
	}{
		{
			// A TLS stack that reads a whole record before it looks
			// at the header: the driver's single OPTIONS frame, read
			// as a record, leaves it waiting for one byte more until
			// the connect timeout. The probe's two frames make the
			// record whole, and the alert comes at once.
			name: "TLS server that reads whole records",
			serve: func(nc net.Conn) {
				var hdr [5]byte
				if _, err := io.ReadFull(nc, hdr[:]); err != nil {
					return
				}
				body := make([]byte, int(hdr[3])<<8|int(hdr[4]))
				if _, err := io.ReadFull(nc, body); err != nil {
					return
				}
				// alert: fatal, unexpected_message
				_, _ = nc.Write([]byte{0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x0a})
			},
			want: "{addr} answered with TLS: use --ssl",
		},
		{
			name: "HTTP server",
			serve: func(nc net.Conn) {
				_, _ = nc.Read(make([]byte, 64))
				_, _ = io.WriteString(nc, "HTTP/1.1 400 Bad Request\r\n\r\n")
			},
			want: `connect to {addr}: gocql: unsupported protocol response version: 72 ({addr} answered neither CQL nor TLS: its answer starts "HTTP/1.1 400 Bad")`,
		},
		{
			name: "server that hangs up",
			serve: func(nc net.Conn) {
				// Read what came first: closing with unread data
				// would send a reset rather than an end of stream.
				_ = nc.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
				_, _ = io.Copy(io.Discard, nc)
			},
			want: "connect to {addr}: EOF ({addr} closed the connection without answering a CQL OPTIONS request)",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ln.Close() })
			go func() {
				for {
					nc, err := ln.Accept()
					if err != nil {
						return
					}
					go func() {
						defer nc.Close()
						tc.serve(nc)
					}()
				}
			}()
			o := DefaultOptions()
			o.Hosts, o.Keyspace, o.Table, o.ConnectTimeout = []string{ln.Addr().String()}, "ks", "t", timeout
			start := time.Now()
			s, err := Connect(o)
			elapsed := time.Since(start)
			if err == nil {
				s.Close()
				t.Fatal("connected")
			}
			if want := strings.ReplaceAll(tc.want, "{addr}", ln.Addr().String()); err.Error() != want {
				t.Errorf("error\n got %s\nwant %s", err, want)
			}
			if elapsed > timeout/2 {
				t.Errorf("took %v, connect timeout %v", elapsed, timeout)
			}
		})
	}
}

// TestConnectWorks checks the configurations that must connect, TLS and
// authentication included, and that the session keeps the keyspace (the
// token-aware policy computes replicas only for the session's keyspace).
func TestConnectWorks(t *testing.T) {
	cert, pool := nettest.Cert(t, "127.0.0.1", "127.0.0.2")
	for _, tc := range []struct {
		name    string
		cluster func(*cqlsim.Config)
		client  func(*Options)
	}{
		{name: "plain"},
		{
			name: "TLS",
			cluster: func(c *cqlsim.Config) {
				c.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
			},
			client: func(o *Options) { o.TLS = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12} },
		},
		{
			name:    "password",
			cluster: func(c *cqlsim.Config) { c.Username, c.Password = "cassandra", "secret" },
			client:  func(o *Options) { o.Username, o.Password = "cassandra", "secret" },
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := startCluster(t, 2, 1, "CREATE TABLE ks.t (k int PRIMARY KEY, v text);", tc.cluster)
			o := testOptions(t, c, "t")
			if tc.client != nil {
				tc.client(&o)
			}
			s, err := Connect(o)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			// Unqualified: only a session keyspace makes this work.
			if err := s.Query("INSERT INTO t (k, v) VALUES (1, 'x')").Exec(); err != nil {
				t.Fatalf("insert through the session's keyspace: %v", err)
			}
		})
	}
}

// TestLoadUnknownTable checks the message a load of a missing table stops
// with.
func TestLoadUnknownTable(t *testing.T) {
	c := startCluster(t, 1, 1, "CREATE TABLE ks.t (k int PRIMARY KEY, v text); CREATE TABLE ks.\"Other\" (k int PRIMARY KEY);", nil)
	path := writeCSV(t, "data.csv", 1, func(i int) string { return strconv.Itoa(i) + ",x" })
	o := testOptions(t, c, "nosuch", path)
	l, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	_, err = l.Run(t.Context())
	if want := `table ks.nosuch does not exist (keyspace ks has tables "Other", t)`; err == nil || err.Error() != want {
		t.Fatalf("error\n got %v\nwant %s", err, want)
	}
	var nf *schema.NotFoundError
	if !errors.As(err, &nf) {
		t.Errorf("error %T is not a *schema.NotFoundError", err)
	}
}
