package cqlsim

import (
	"bufio"
	"encoding/binary"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/cqlload/cqlload/internal/murmur3"
	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
)

// rawClient speaks the protocol directly, to check what drivers never send.
type rawClient struct {
	t     *testing.T
	nc    net.Conn
	br    *bufio.Reader
	codec frame.Codec
}

func dialRaw(t *testing.T, cl *Cluster) *rawClient {
	t.Helper()
	nc, err := net.DialTimeout("tcp", cl.Hosts()[0], 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	_ = nc.SetDeadline(time.Now().Add(10 * time.Second))
	return &rawClient{t: t, nc: nc, br: bufio.NewReader(nc), codec: frame.NewCodec()}
}

func (c *rawClient) send(v primitive.ProtocolVersion, stream int16, m message.Message) {
	c.t.Helper()
	if err := c.codec.EncodeFrame(frame.NewFrame(v, stream, m), c.nc); err != nil {
		c.t.Fatal(err)
	}
}

func (c *rawClient) sendRaw(b []byte) {
	c.t.Helper()
	if _, err := c.nc.Write(b); err != nil {
		c.t.Fatal(err)
	}
}

func (c *rawClient) recv() *frame.Frame {
	c.t.Helper()
	f, err := c.codec.DecodeFrame(c.br)
	if err != nil {
		c.t.Fatalf("reading response: %v", err)
	}
	return f
}

func TestProtocolEdges(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 1})
	if err := cl.Exec("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}; CREATE TABLE ks.t (k int PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}

	t.Run("v5 gets a downgrade error in v4", func(t *testing.T) {
		c := dialRaw(t, cl)
		hdr := []byte{5, 0, 0, 7, byte(primitive.OpCodeOptions), 0, 0, 0, 0}
		c.sendRaw(hdr)
		f := c.recv()
		pe, ok := f.Body.Message.(*message.ProtocolError)
		if !ok || f.Header.Version != primitive.ProtocolVersion4 || f.Header.StreamId != 7 {
			t.Fatalf("got %v in version %v stream %d", f.Body.Message, f.Header.Version, f.Header.StreamId)
		}
		if !strings.Contains(pe.ErrorMessage, "unsupported protocol version") {
			t.Errorf("message %q lacks the phrase drivers look for", pe.ErrorMessage)
		}
	})

	t.Run("requests before STARTUP and unknown opcodes get errors, not a hang-up", func(t *testing.T) {
		c := dialRaw(t, cl)
		c.send(primitive.ProtocolVersion4, 1, &message.Query{Query: "SELECT * FROM system.local", Options: &message.QueryOptions{}})
		if _, ok := c.recv().Body.Message.(*message.ProtocolError); !ok {
			t.Fatal("QUERY before STARTUP: want ProtocolError")
		}
		c.sendRaw([]byte{4, 0, 0, 2, 0x03, 0, 0, 0, 0}) // AUTHENTICATE is a response opcode
		if f := c.recv(); f.Header.StreamId != 2 {
			t.Fatalf("stream %d", f.Header.StreamId)
		} else if _, ok := f.Body.Message.(*message.ProtocolError); !ok {
			t.Fatalf("unknown opcode: got %v", f.Body.Message)
		}
		c.send(primitive.ProtocolVersion4, 3, &message.Options{})
		if _, ok := c.recv().Body.Message.(*message.Supported); !ok {
			t.Fatal("OPTIONS after errors: want SUPPORTED")
		}
	})

	t.Run("oversized frame", func(t *testing.T) {
		// Cassandra reads past a frame over native_transport_max_frame_size
		// and refuses it as invalid on its stream, keeping the connection.
		c := dialRaw(t, cl)
		const body = 16<<20 - 8 // one byte over, with the 9-byte header
		c.sendRaw(append([]byte{4, 0, 0, 9, byte(primitive.OpCodeQuery), 0, 0xff, 0xff, 0xf8}, make([]byte, body)...))
		f := c.recv()
		ie, ok := f.Body.Message.(*message.Invalid)
		if !ok || f.Header.StreamId != 9 || !strings.Contains(ie.ErrorMessage, "Request is too big: length 16777217 exceeds maximum allowed length 16777216.") {
			t.Fatalf("got %v on stream %d, want Invalid: Request is too big on stream 9", f.Body.Message, f.Header.StreamId)
		}
		c.send(primitive.ProtocolVersion4, 10, &message.Options{})
		if f := c.recv(); f.Header.StreamId != 10 {
			t.Fatalf("stream %d", f.Header.StreamId)
		} else if _, ok := f.Body.Message.(*message.Supported); !ok {
			t.Fatalf("OPTIONS after the oversized frame: got %v, want SUPPORTED", f.Body.Message)
		}
	})

	t.Run("statements", func(t *testing.T) {
		c := dialRaw(t, cl)
		c.send(primitive.ProtocolVersion3, 0, message.NewStartup())
		if _, ok := c.recv().Body.Message.(*message.Ready); !ok {
			t.Fatal("STARTUP: want READY")
		}
		tests := []struct {
			name string
			msg  message.Message
			want func(message.Message) bool
		}{
			{"unknown prepared id", &message.Execute{QueryId: []byte("0123456789abcdef"), Options: &message.QueryOptions{}},
				func(m message.Message) bool { _, ok := m.(*message.Unprepared); return ok }},
			{"unsupported statement", &message.Query{Query: "ALTER TABLE ks.t RENAME k TO kk", Options: &message.QueryOptions{}},
				func(m message.Message) bool {
					e, ok := m.(*message.Invalid)
					return ok && strings.Contains(e.ErrorMessage, "ALTER")
				}},
			{"wrong number of values", &message.Query{Query: "INSERT INTO ks.t (k) VALUES (?)", Options: &message.QueryOptions{}},
				func(m message.Message) bool { _, ok := m.(*message.Invalid); return ok }},
			{"USE", &message.Query{Query: "USE ks", Options: &message.QueryOptions{}},
				func(m message.Message) bool { r, ok := m.(*message.SetKeyspaceResult); return ok && r.Keyspace == "ks" }},
			{"unqualified table after USE", &message.Query{Query: "INSERT INTO t (k) VALUES (1)", Options: &message.QueryOptions{}},
				func(m message.Message) bool { _, ok := m.(*message.VoidResult); return ok }},
			{"schema change result", &message.Query{Query: "CREATE TABLE t2 (k int PRIMARY KEY)", Options: &message.QueryOptions{}},
				func(m message.Message) bool {
					r, ok := m.(*message.SchemaChangeResult)
					return ok && r.Keyspace == "ks" && r.Object == "t2" && r.ChangeType == primitive.SchemaChangeTypeCreated
				}},
		}
		for i, tc := range tests {
			c.send(primitive.ProtocolVersion3, int16(i+1), tc.msg)
			f := c.recv()
			if f.Header.StreamId != int16(i+1) || !tc.want(f.Body.Message) {
				t.Errorf("%s: got %v on stream %d", tc.name, f.Body.Message, f.Header.StreamId)
			}
		}
	})

	t.Run("registered connections get schema events", func(t *testing.T) {
		c := dialRaw(t, cl)
		c.send(primitive.ProtocolVersion4, 0, message.NewStartup())
		c.recv()
		c.send(primitive.ProtocolVersion4, 1, &message.Register{EventTypes: []primitive.EventType{primitive.EventTypeSchemaChange}})
		if _, ok := c.recv().Body.Message.(*message.Ready); !ok {
			t.Fatal("REGISTER: want READY")
		}
		if err := cl.Exec("CREATE TABLE ks.evt (k int PRIMARY KEY)"); err != nil {
			t.Fatal(err)
		}
		f := c.recv()
		ev, ok := f.Body.Message.(*message.SchemaChangeEvent)
		if !ok || f.Header.StreamId != -1 || ev.Object != "evt" || ev.Target != primitive.SchemaChangeTargetTable {
			t.Errorf("got %v on stream %d, want a TABLE CREATED event", f.Body.Message, f.Header.StreamId)
		}
	})
}

func TestTokensMatchCassandra(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 3})
	if err := cl.Exec("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}; CREATE TABLE ks.t (k blob PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	rep := func(b []byte, n int) []byte {
		var out []byte
		for i := 0; i < n; i++ {
			out = append(out, b...)
		}
		return out
	}
	vectors := []struct {
		key  []byte
		want int64
	}{
		{[]byte("123"), -7468325962851647638},
		{rep([]byte{0xfe}, 8), -8927430733708461935},
		{rep([]byte{0x10}, 8), 1446172840243228796},
		{rep([]byte{0x00, 0xff, 0x10, 0xfa, 0x99}, 10), 5837342703291459765},
	}
	s := connect(t, cl, nil)
	for _, v := range vectors {
		if err := s.Query("INSERT INTO ks.t (k) VALUES (?)", v.key).Exec(); err != nil {
			t.Fatal(err)
		}
		var tok int64
		if err := s.Query("SELECT token(k) FROM ks.t WHERE k = ?", v.key).Scan(&tok); err != nil {
			t.Fatal(err)
		}
		if tok != v.want {
			t.Errorf("token(%x) = %d, want %d", v.key, tok, v.want)
		}
	}
	// A full scan comes back in token order.
	iter := s.Query("SELECT token(k) FROM ks.t").Iter()
	var prev, tok int64 = -1 << 63, 0
	for iter.Scan(&tok) {
		if tok < prev {
			t.Errorf("scan out of token order: %d after %d", tok, prev)
		}
		prev = tok
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestReplicaPlacement(t *testing.T) {
	tests := []struct {
		name  string
		dcs   []DC
		repl  map[string]string
		count map[string]int // replicas per DC for every token
		racks bool           // replicas in one DC sit on distinct racks
	}{
		{"simple rf2", []DC{{"dc1", 4, 1}}, map[string]string{"class": "SimpleStrategy", "replication_factor": "2"}, map[string]int{"dc1": 2}, false},
		{"simple rf above nodes", []DC{{"dc1", 2, 1}}, map[string]string{"class": "SimpleStrategy", "replication_factor": "5"}, map[string]int{"dc1": 2}, false},
		{"nts two dcs", []DC{{"dc1", 3, 1}, {"dc2", 2, 1}}, map[string]string{"class": "NetworkTopologyStrategy", "dc1": "2", "dc2": "1"}, map[string]int{"dc1": 2, "dc2": 1}, false},
		{"nts racks first", []DC{{"dc1", 6, 3}}, map[string]string{"class": "NetworkTopologyStrategy", "dc1": "3"}, map[string]int{"dc1": 3}, true},
		{"nts only one dc", []DC{{"dc1", 2, 1}, {"dc2", 2, 1}}, map[string]string{"class": "NetworkTopologyStrategy", "dc2": "2"}, map[string]int{"dc2": 2}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			topo, err := newTopology(mustAddr("127.0.0.1"), tc.dcs, 8, 5)
			if err != nil {
				t.Fatal(err)
			}
			r, err := parseReplication(tc.repl, topo)
			if err != nil {
				t.Fatal(err)
			}
			place := topo.placement(r)
			for i, reps := range place {
				got := map[string]int{}
				racks := map[string]bool{}
				for _, n := range reps {
					got[topo.nodes[n].dc]++
					racks[topo.nodes[n].dc+topo.nodes[n].rack] = true
				}
				for dc, want := range tc.count {
					if got[dc] != want {
						t.Fatalf("ring entry %d: %d replicas in %s, want %d (%v)", i, got[dc], dc, want, reps)
					}
				}
				if tc.racks && len(racks) != len(reps) {
					t.Fatalf("ring entry %d: replicas %v share racks", i, reps)
				}
				// The first replica owns the range.
				if owner := topo.ring[i].node; r.strategy == strategySimple && reps[0] != owner {
					t.Fatalf("ring entry %d: first replica %d, owner %d", i, reps[0], owner)
				}
			}
		})
	}
	if _, err := parseReplication(map[string]string{"class": "NetworkTopologyStrategy", "nope": "1"}, mustTopo(t)); err == nil {
		t.Error("unknown data center accepted")
	}
	if _, err := parseReplication(map[string]string{"class": "SimpleStrategy"}, mustTopo(t)); err == nil {
		t.Error("SimpleStrategy without replication_factor accepted")
	}
}

func mustTopo(t *testing.T) *topology {
	topo, err := newTopology(mustAddr("127.0.0.1"), []DC{{"dc1", 1, 1}}, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

func TestClusterReplicasMatchTokens(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 3, VNodes: 4, Seed: 9})
	if err := cl.Exec("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"); err != nil {
		t.Fatal(err)
	}
	// With RF 1 the replica of a node's own token is that node.
	for i := 0; i < cl.NumNodes(); i++ {
		for _, tok := range cl.Tokens(i) {
			if got := cl.Replicas("ks", tok); len(got) != 1 || got[0] != i {
				t.Errorf("Replicas(ks, %d) = %v, want [%d]", tok, got, i)
			}
		}
	}
	key := binary.BigEndian.AppendUint32(nil, 42)
	if got := cl.Replicas("ks", murmur3.Token(key)); len(got) != 1 {
		t.Errorf("Replicas for key 42: %v", got)
	}
}

func mustAddr(s string) netip.Addr { return netip.MustParseAddr(s) }
