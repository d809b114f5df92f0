package loader

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cqlload/cqlload/cqlsim"
	"github.com/cqlload/cqlload/internal/nettest"
)

// cqlUntilAuth answers a CQL client's OPTIONS with SUPPORTED and its
// STARTUP with AUTHENTICATE, then never answers its credentials: a node
// whose authentication backend hangs.
func cqlUntilAuth(c net.Conn) {
	var head [9]byte
	for {
		if _, err := io.ReadFull(c, head[:]); err != nil {
			return
		}
		body := make([]byte, binary.BigEndian.Uint32(head[5:]))
		if _, err := io.ReadFull(c, body); err != nil {
			return
		}
		var op byte
		var answer []byte
		switch head[4] {
		case 0x05: // OPTIONS: SUPPORTED, an empty multimap
			op, answer = 0x06, []byte{0, 0}
		case 0x01: // STARTUP: AUTHENTICATE
			class := "org.apache.cassandra.auth.PasswordAuthenticator"
			op = 0x03
			answer = append(binary.BigEndian.AppendUint16(nil, uint16(len(class))), class...)
		default: // AUTH_RESPONSE and anything else: silence
			nettest.ReadForever(c)
			return
		}
		frame := []byte{head[0] | 0x80, 0, head[2], head[3], op}
		frame = binary.BigEndian.AppendUint32(frame, uint32(len(answer)))
		if _, err := c.Write(append(frame, answer...)); err != nil {
			return
		}
	}
}

// TestConnectWaitsEnd holds each wait of a connection open with a peer
// that stops answering at that step, and checks that Connect gives up
// within the connect timeout (plus a margin for the machine), saying
// which host it waited for and what for.
func TestConnectWaitsEnd(t *testing.T) {
	const timeout = time.Second
	cert, pool := nettest.Cert(t, "127.0.0.1", "127.0.0.2")
	clientTLS := func(o *Options) { o.TLS = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12} }
	for _, tc := range []struct {
		name   string
		server func(t *testing.T) string // the address of the silent peer
		client func(*Options)
		// want are parts of the message; {host} stands for the peer's
		// address and port.
		want []string
	}{
		{
			name:   "accepts, never answers OPTIONS",
			server: func(t *testing.T) string { return silentServer(t, nettest.ReadForever) },
			want:   []string{"{host} accepted the connection but sent no answer within 1s (the connect timeout) while connecting: to OPTIONS, STARTUP, authentication or a query of its system tables"},
		},
		{
			name:   "accepts, never answers the TLS handshake",
			server: func(t *testing.T) string { return silentServer(t, nettest.ReadForever) },
			client: clientTLS,
			want:   []string{"{host} accepted the connection but did not finish a TLS handshake within 1s (the connect timeout)"},
		},
		{
			name: "completes TLS, never answers OPTIONS",
			server: func(t *testing.T) string {
				cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
				return silentServer(t, func(c net.Conn) {
					tc := tls.Server(c, cfg)
					if tc.Handshake() == nil {
						nettest.ReadForever(tc)
					}
				})
			},
			client: clientTLS,
			want:   []string{"{host}", "no answer within 1s (the connect timeout)"},
		},
		{
			name:   "answers OPTIONS and STARTUP, never AUTH",
			server: func(t *testing.T) string { return silentServer(t, cqlUntilAuth) },
			client: func(o *Options) { o.Username, o.Password = "cassandra", "secret" },
			want:   []string{"{host}", "no answer within 1s (the connect timeout)"},
		},
		{
			name: "paused cqlsim node",
			server: func(t *testing.T) string {
				c := startCluster(t, 1, 1, "CREATE TABLE ks.t (k int PRIMARY KEY, v text);", nil)
				if err := c.Node(0).Pause(); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(c.Node(0).Resume)
				return c.Hosts()[0]
			},
			want: []string{"{host}", "no answer within 1s (the connect timeout)"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := tc.server(t)
			o := DefaultOptions()
			o.Hosts, o.Keyspace, o.Table = []string{addr}, "ks", "t"
			o.ConnectTimeout = timeout
			if tc.client != nil {
				tc.client(&o)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			start := time.Now()
			s, err := ConnectContext(ctx, o)
			elapsed := time.Since(start)
			if err == nil {
				s.Close()
				t.Fatal("connected")
			}
			if ctx.Err() != nil {
				t.Fatalf("still waiting after %v: %v", elapsed, err)
			}
			for _, w := range tc.want {
				if w = strings.ReplaceAll(w, "{host}", addr); !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if elapsed > timeout+2*time.Second {
				t.Errorf("gave up after %v, connect timeout %v", elapsed, timeout)
			}
		})
	}
}

// TestConnectVerifiesGivenName: a node's certificate is checked against
// the name the user gave for it, not the address it resolved to, or
// against --ssl-server-name; a mismatch names both sides.
func TestConnectVerifiesGivenName(t *testing.T) {
	for _, tc := range []struct {
		name       string
		certNames  []string
		host       string // the contact point as given, with the node's port
		serverName string
		want       string // the error, "" to connect
	}{
		{name: "certificate for localhost, --hosts localhost", certNames: []string{"localhost"}, host: "localhost"},
		{name: "one of the certificate's names", certNames: []string{"db.example", "localhost"}, host: "localhost"},
		{
			name: "certificate for another name", certNames: []string{"db.example", "db2.example"}, host: "localhost",
			want: "{addr}: its certificate is for DNS:db.example, DNS:db2.example, not localhost (connect by a name the certificate holds, or check another with --ssl-server-name)",
		},
		{
			name: "certificate for a name, host given as an address", certNames: []string{"localhost"}, host: "127.0.0.1",
			want: "{addr}: its certificate is for DNS:localhost, not 127.0.0.1 (connect by a name the certificate holds, or check another with --ssl-server-name)",
		},
		{name: "--ssl-server-name checks another name", certNames: []string{"db.example"}, host: "localhost", serverName: "db.example"},
		{name: "--ssl-server-name for an address", certNames: []string{"db.example"}, host: "127.0.0.1", serverName: "db.example"},
		{
			name: "--ssl-server-name the certificate lacks", certNames: []string{"localhost"}, host: "localhost", serverName: "db.example",
			want: "{addr}: its certificate is for DNS:localhost, not db.example (connect by a name the certificate holds, or check another with --ssl-server-name)",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cert, pool := nettest.Cert(t, tc.certNames...)
			c := startCluster(t, 1, 1, "CREATE TABLE ks.t (k int PRIMARY KEY, v text);", func(c *cqlsim.Config) {
				c.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
			})
			o := testOptions(t, c, "t")
			o.Hosts = []string{net.JoinHostPort(tc.host, strconv.Itoa(c.Port()))}
			o.ConnectTimeout = 3 * time.Second
			o.TLS = &tls.Config{RootCAs: pool, ServerName: tc.serverName, MinVersion: tls.VersionTLS12}
			s, err := Connect(o)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				if err := s.Query("INSERT INTO t (k, v) VALUES (1, 'x')").Exec(); err != nil {
					t.Fatalf("insert: %v", err)
				}
				return
			}
			if err == nil {
				s.Close()
				t.Fatal("connected")
			}
			if want := strings.ReplaceAll(tc.want, "{addr}", c.Hosts()[0]); err.Error() != want {
				t.Errorf("error\n got %s\nwant %s", err, want)
			}
		})
	}
}

// TestSchemaQueriesWaitRequestTimeout: the driver's queries of the
// schema tables, which cqlload makes after connecting (the keyspace's
// replication, the table's columns), wait the request timeout for a node
// that stopped answering, not the driver's own 60 s.
func TestSchemaQueriesWaitRequestTimeout(t *testing.T) {
	const timeout = time.Second
	c := startCluster(t, 1, 1, "CREATE TABLE ks.t (k int PRIMARY KEY, v text);", func(c *cqlsim.Config) {
		c.Schema = append(c.Schema, "CREATE KEYSPACE other WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};")
	})
	o := testOptions(t, c, "t")
	o.RequestTimeout = timeout
	s, err := Connect(o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := c.Node(0).Pause(); err != nil {
		t.Fatal(err)
	}
	defer c.Node(0).Resume()
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		// Not the session's keyspace, whose metadata the driver
		// read while connecting.
		_, err := s.KeyspaceMetadata("other")
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("metadata read from a paused node")
		}
		if took := time.Since(start); took > timeout+2*time.Second {
			t.Errorf("gave up after %v, request timeout %v", took, timeout)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("still waiting for the schema after 30 s")
	}
}

// silentServer accepts connections on 127.0.0.1 and hands each to serve,
// which may answer some of what it reads and then say nothing more.
func silentServer(t *testing.T, serve func(net.Conn)) string {
	addr, _ := nettest.Silent(t, serve)
	return addr
}
