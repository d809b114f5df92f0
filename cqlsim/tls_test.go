package cqlsim

import (
	"crypto/tls"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/cqlload/cqlload/internal/nettest"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
	"github.com/gocql/gocql"
)

func TestTLS(t *testing.T) {
	cert, pool := nettest.Cert(t, "127.0.0.1", "127.0.0.2")
	cl := startCluster(t, Config{Nodes: 2, TLS: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}})
	s := connect(t, cl, func(cc *gocql.ClusterConfig) {
		cc.SslOpts = &gocql.SslOptions{Config: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, EnableHostVerification: true}
	})
	mustExec(t, s, ks3, "CREATE TABLE ks.t (k int PRIMARY KEY)", "INSERT INTO ks.t (k) VALUES (1)")
	if n := len(s.GetHosts()); n != 2 {
		t.Errorf("driver sees %d hosts over TLS, want 2", n)
	}
	// A plaintext client gets nowhere.
	nc, err := net.DialTimeout("tcp", cl.Hosts()[0], time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	_ = nc.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := nc.Write([]byte{4, 0, 0, 1, byte(primitive.OpCodeOptions), 0, 0, 0, 0}); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 9)
	if n, _ := nc.Read(buf); n == 9 && buf[0] == 0x84 {
		t.Error("plaintext request answered by a TLS node")
	}
}

func TestProtocolV3WithGocql(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 2})
	s := connect(t, cl, func(cc *gocql.ClusterConfig) { cc.ProtoVersion = 3 })
	mustExec(t, s, ks3, "CREATE TABLE ks.t (k int PRIMARY KEY, v text)")
	if err := s.Query("INSERT INTO ks.t (k, v) VALUES (?, ?)", 1, "v3").Exec(); err != nil {
		t.Fatal(err)
	}
	var v string
	if err := s.Query("SELECT v FROM ks.t WHERE k = ?", 1).Scan(&v); err != nil || v != "v3" {
		t.Errorf("v3 round trip: %q, %v", v, err)
	}
}

func TestStatusEvents(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 2})
	c := dialRaw(t, cl)
	c.send(primitive.ProtocolVersion4, 0, message.NewStartup())
	c.recv()
	c.send(primitive.ProtocolVersion4, 1, &message.Register{EventTypes: []primitive.EventType{primitive.EventTypeStatusChange}})
	c.recv()
	cl.Node(1).Stop()
	if err := cl.Node(1).Start(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []primitive.StatusChangeType{primitive.StatusChangeTypeDown, primitive.StatusChangeTypeUp} {
		f := c.recv()
		ev, ok := f.Body.Message.(*message.StatusChangeEvent)
		if !ok || ev.ChangeType != want || !ev.Address.Addr.Equal(net.IPv4(127, 0, 0, 2)) {
			t.Errorf("got %v, want STATUS_CHANGE %s for 127.0.0.2", f.Body.Message, want)
		}
	}
}

func TestSnappyCompression(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 1})
	s := connect(t, cl, func(cc *gocql.ClusterConfig) { cc.Compressor = gocql.SnappyCompressor{} })
	mustExec(t, s, ks1, "CREATE TABLE ks.z (k int PRIMARY KEY, v text)")
	long := strings.Repeat("compressible ", 200)
	before := cl.Stats().Total().BytesReceived
	if err := s.Query("INSERT INTO ks.z (k, v) VALUES (1, '" + long + "')").Exec(); err != nil {
		t.Fatal(err)
	}
	// The driver compressed the request; the count is of bytes on the wire.
	if got := cl.Stats().Total().BytesReceived - before; got > int64(len(long))/2 {
		t.Errorf("received %d bytes for a %d-byte statement: not compressed", got, len(long))
	}
	var v string
	if err := s.Query("SELECT v FROM ks.z WHERE k = 1").Scan(&v); err != nil || v != long {
		t.Errorf("snappy round trip: %d bytes, %v", len(v), err)
	}
}
