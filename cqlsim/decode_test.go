package cqlsim

import (
	"bytes"
	"net"
	"reflect"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
)

// encodeBody encodes a request message body with the protocol library.
func encodeBody(t testing.TB, m message.Message) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := frame.NewCodec().EncodeFrame(frame.NewFrame(primitive.ProtocolVersion4, 0, m), &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()[headerLen:]
}

func TestDecodeExecuteMatchesLibrary(t *testing.T) {
	ts := int64(1234567)
	serial := primitive.ConsistencyLevelLocalSerial
	tests := []struct {
		name string
		opts *message.QueryOptions
	}{
		{"no values", &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}},
		{"values, null, unset, empty", &message.QueryOptions{Consistency: primitive.ConsistencyLevelQuorum, PositionalValues: []*primitive.Value{
			primitive.NewValue([]byte{1, 2}), primitive.NewNullValue(), primitive.NewUnsetValue(), primitive.NewValue([]byte{})}}},
		{"paging and timestamp", &message.QueryOptions{Consistency: primitive.ConsistencyLevelLocalOne, PageSize: 100,
			PagingState: []byte{9, 9}, SkipMetadata: true, SerialConsistency: &serial, DefaultTimestamp: &ts,
			PositionalValues: []*primitive.Value{primitive.NewValue([]byte("x"))}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := encodeBody(t, &message.Execute{QueryId: []byte("0123456789abcdef"), Options: tc.opts})
			req, err := decodeExecute(body, nil)
			if err != nil {
				t.Fatal(err)
			}
			if string(req.id) != "0123456789abcdef" || req.named {
				t.Errorf("id %q named %v", req.id, req.named)
			}
			want := fromLibrary(tc.opts.PositionalValues)
			if len(want) == 0 {
				want = nil
			}
			if len(req.vals) == 0 {
				req.vals = nil
			}
			if !reflect.DeepEqual(req.vals, want) {
				t.Errorf("values %+v, want %+v", req.vals, want)
			}
			o := req.opts
			if o.Consistency != tc.opts.Consistency || o.PageSize != tc.opts.PageSize || !bytes.Equal(o.PagingState, tc.opts.PagingState) ||
				o.SkipMetadata != tc.opts.SkipMetadata || !reflect.DeepEqual(o.DefaultTimestamp, tc.opts.DefaultTimestamp) ||
				!reflect.DeepEqual(o.SerialConsistency, tc.opts.SerialConsistency) {
				t.Errorf("options %+v, want %+v", o, tc.opts)
			}
		})
	}
}

func TestDecodeBatchMatchesLibrary(t *testing.T) {
	ts := int64(42)
	m := &message.Batch{Type: primitive.BatchTypeUnlogged, Consistency: primitive.ConsistencyLevelTwo, DefaultTimestamp: &ts,
		Children: []*message.BatchChild{
			{Id: []byte("id-1"), Values: []*primitive.Value{primitive.NewValue([]byte{1}), primitive.NewUnsetValue()}},
			{Query: "INSERT INTO t (k) VALUES (1)"},
			{Id: []byte("id-2"), Values: []*primitive.Value{primitive.NewNullValue(), primitive.NewValue([]byte("abc")), primitive.NewValue([]byte{})}},
		}}
	b, err := decodeBatch(encodeBody(t, m))
	if err != nil {
		t.Fatal(err)
	}
	if b.typ != m.Type || b.consistency != m.Consistency || b.ts == nil || *b.ts != ts || len(b.children) != 3 {
		t.Fatalf("batch %+v", b)
	}
	for i, c := range m.Children {
		got := b.children[i]
		if string(got.id) != string(c.Id) || got.query != c.Query {
			t.Errorf("child %d: id %q query %q", i, got.id, got.query)
		}
		want := fromLibrary(c.Values)
		if len(want) == 0 && len(got.vals) == 0 {
			continue
		}
		if !reflect.DeepEqual(got.vals, want) {
			t.Errorf("child %d: values %+v, want %+v", i, got.vals, want)
		}
	}
}

func TestCursorRoundTrip(t *testing.T) {
	tests := []cursor{
		{token: -5, key: []byte{1, 2, 3}, done: 10},
		{token: 1 << 62, key: []byte("k"), ck: [][]byte{{1}, {}, []byte("zz")}, done: 0},
	}
	for _, c := range tests {
		got, ok := decodeCursor(c.encode())
		if !ok || got.token != c.token || !bytes.Equal(got.key, c.key) || got.done != c.done || len(got.ck) != len(c.ck) {
			t.Errorf("round trip of %+v: %+v, %v", c, got, ok)
		}
	}
	if _, ok := decodeCursor([]byte{pagingCursor, 1, 2}); ok {
		t.Error("truncated cursor accepted")
	}
}

func FuzzDecodeExecute(f *testing.F) {
	f.Add(encodeBody(f, &message.Execute{QueryId: []byte("0123456789abcdef"), Options: &message.QueryOptions{
		PositionalValues: []*primitive.Value{primitive.NewValue([]byte{1}), primitive.NewNullValue()}, PageSize: 5}}))
	f.Add([]byte{0, 1, 'x', 0, 1, 0x41, 0, 1})
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := decodeExecute(body, nil)
		if err != nil {
			return
		}
		// Whatever decodes must lie inside the body.
		for _, v := range req.vals {
			if len(v.b) > len(body) {
				t.Fatalf("value of %d bytes from a %d-byte body", len(v.b), len(body))
			}
		}
	})
}

func FuzzDecodeBatch(f *testing.F) {
	f.Add(encodeBody(f, &message.Batch{Children: []*message.BatchChild{{Id: []byte("a"), Values: []*primitive.Value{primitive.NewValue([]byte{1})}}, {Query: "q"}}}))
	f.Add([]byte{1, 0, 2, 1, 0, 1, 'a', 0, 0})
	f.Fuzz(func(t *testing.T, body []byte) {
		b, err := decodeBatch(body)
		if err != nil {
			return
		}
		for _, c := range b.children {
			if len(c.id) > len(body) || len(c.query) > len(body) {
				t.Fatal("child larger than the body")
			}
		}
	})
}

func FuzzDecodeCursor(f *testing.F) {
	f.Add((&cursor{token: 3, key: []byte("k"), ck: [][]byte{{1}}}).encode())
	f.Fuzz(func(t *testing.T, b []byte) {
		c, ok := decodeCursor(b)
		if ok && !bytes.Equal(c.encode(), b) {
			t.Fatalf("cursor %x re-encodes as %x", b, c.encode())
		}
	})
}

// TestGarbageFramesKeepServerUp sends malformed bodies for every request
// opcode: each gets an ERROR frame and the node keeps serving.
func TestGarbageFramesKeepServerUp(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 1})
	c := dialRaw(t, cl)
	c.send(primitive.ProtocolVersion4, 0, message.NewStartup())
	c.recv()
	ops := []primitive.OpCode{primitive.OpCodeQuery, primitive.OpCodePrepare, primitive.OpCodeExecute, primitive.OpCodeBatch,
		primitive.OpCodeRegister, primitive.OpCodeStartup, primitive.OpCodeAuthResponse, 0x42}
	for i, op := range ops {
		body := []byte{0xff, 0xff, 0xff, 0x7f, 1}
		hdr := []byte{4, 0, 0, byte(i + 1), byte(op), 0, 0, 0, byte(len(body))}
		c.sendRaw(append(hdr, body...))
		f := c.recv()
		if f.Header.OpCode != primitive.OpCodeError || f.Header.StreamId != int16(i+1) {
			t.Errorf("opcode %#x: got %v on stream %d, want an ERROR", byte(op), f.Body.Message, f.Header.StreamId)
		}
	}
	c.send(primitive.ProtocolVersion4, 99, &message.Options{})
	if _, ok := c.recv().Body.Message.(*message.Supported); !ok {
		t.Error("node stopped answering after garbage")
	}
	// A client that vanishes mid-frame does not take the node down either.
	nc, err := net.DialTimeout("tcp", cl.Hosts()[0], time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = nc.Write([]byte{4, 0, 0, 1, byte(primitive.OpCodeQuery), 0, 0, 1, 0, 'S'})
	nc.Close()
	c.send(primitive.ProtocolVersion4, 100, &message.Options{})
	if _, ok := c.recv().Body.Message.(*message.Supported); !ok {
		t.Error("node stopped answering after a truncated frame")
	}
}

func TestCustomPayloadIsSkipped(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 1})
	if err := cl.Exec("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}; CREATE TABLE ks.t (k int PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	c := dialRaw(t, cl)
	c.send(primitive.ProtocolVersion4, 0, message.NewStartup())
	c.recv()
	c.send(primitive.ProtocolVersion4, 1, &message.Prepare{Query: "INSERT INTO ks.t (k) VALUES (?)"})
	prep, ok := c.recv().Body.Message.(*message.PreparedResult)
	if !ok {
		t.Fatal("PREPARE failed")
	}
	for i, m := range []message.Message{
		&message.Execute{QueryId: prep.PreparedQueryId, Options: &message.QueryOptions{PositionalValues: []*primitive.Value{primitive.NewValue([]byte{0, 0, 0, 7})}}},
		&message.Batch{Children: []*message.BatchChild{{Id: prep.PreparedQueryId, Values: []*primitive.Value{primitive.NewValue([]byte{0, 0, 0, 8})}}}},
	} {
		f := frame.NewFrame(primitive.ProtocolVersion4, int16(i+2), m)
		f.SetCustomPayload(map[string][]byte{"key": []byte("value")})
		if err := c.codec.EncodeFrame(f, c.nc); err != nil {
			t.Fatal(err)
		}
		if _, ok := c.recv().Body.Message.(*message.VoidResult); !ok {
			t.Errorf("%T with a custom payload was not applied", m)
		}
	}
	rows, err := cl.Query("SELECT k FROM ks.t")
	if err != nil || len(rows) != 2 {
		t.Errorf("rows %v, %v; want 2", rows, err)
	}
}
