package cqlsim

import (
	"bufio"
	"bytes"
	"container/heap"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
	"github.com/klauspost/compress/s2"

	"github.com/cqlload/cqlload/internal/shard"
)

const (
	headerLen = 9
	// maxFrame is Cassandra 4's native_transport_max_frame_size default.
	maxFrame = 16 << 20
	// delayQueue bounds responses waiting for injected latency per connection;
	// when full the reader blocks, which pushes back on the client.
	delayQueue = 4096
)

// session is per-connection client state.
type session struct {
	keyspace string
	// shards > 0: the node announces ScyllaDB sharding and this
	// connection belongs to shard.
	shard, shards int
	// answerIn, set by the node's capacity (Node.admit), holds the answer
	// to the request being handled that long; serve takes it back to 0.
	answerIn time.Duration
}

// onShard reports whether token belongs to the session's shard on a
// sharded node.
func (s *session) onShard(token int64) bool {
	return s.shards > 0 && shard.Of(token, s.shards, shard.DefaultIgnoreMSB) == s.shard
}

type delayed struct {
	due time.Time
	buf []byte
	// queued: the answer is held by the node's capacity and counts in
	// Node.queued until it is written or dropped.
	queued bool
}

type conn struct {
	n       *Node
	nc      net.Conn
	br      *bufio.Reader
	codec   frame.RawCodec
	version primitive.ProtocolVersion
	started bool
	authed  bool
	sess    session
	events  atomic.Uint32
	body    []byte
	vals    []value // reused by decodeExecute
	snappy  bool    // STARTUP negotiated snappy compression
	unzip   []byte  // reused for decompressed bodies

	wmu  sync.Mutex
	bw   *bufio.Writer
	wbuf bytes.Buffer // guarded by wmu

	closeOnce sync.Once
	// done is closed once the connection is closed or about to be;
	// hold waits on it besides the pause.
	done      chan struct{}
	doneOnce  sync.Once
	delayOnce sync.Once
	delayq    chan delayed
	delayDone chan struct{}
}

func newConn(n *Node, nc net.Conn) *conn {
	c := &conn{
		n:     n,
		nc:    nc,
		br:    bufio.NewReaderSize(nc, 64<<10),
		bw:    bufio.NewWriterSize(nc, 64<<10),
		codec: n.cl.codec(),
		done:  make(chan struct{}),
	}
	if s := n.cl.cfg.Shards; s > 0 {
		// ScyllaDB hands connections on its regular port to shards as
		// it pleases; in turn is the simplest choice a driver must cope
		// with, and fills its per-shard pool quickly.
		c.sess.shard, c.sess.shards = int(n.nextShard.Add(1)-1)%s, s
	}
	return c
}

func tlsServer(nc net.Conn, cfg *tls.Config) net.Conn { return tls.Server(nc, cfg) }

func (c *conn) close() {
	c.markClosed()
	c.closeOnce.Do(func() { c.nc.Close() })
}

// markClosed tells the connection's goroutines it is going away. Unlike
// close it does no I/O, so it may be called under Node.mu.
func (c *conn) markClosed() {
	c.doneOnce.Do(func() { close(c.done) })
}

// hold waits while the node is paused and reports whether the connection
// may go on: false once it is closed. It checks the connection after the
// pause so that a frame read during a pause that Stop ended is dropped,
// never executed.
func (c *conn) hold() bool {
	g := c.n.pause.Load()
	if g != nil {
		// What was answered before the pause leaves before it: only
		// requests still unread are frozen.
		c.wmu.Lock()
		_ = c.bw.Flush()
		c.wmu.Unlock()
	}
	for ; g != nil; g = c.n.pause.Load() {
		select {
		case <-g.resumed:
		case <-c.done:
			return false
		}
	}
	select {
	case <-c.done:
		return false
	default:
		return true
	}
}

func eventBit(ev primitive.EventType) uint32 {
	switch ev {
	case primitive.EventTypeTopologyChange:
		return 1
	case primitive.EventTypeStatusChange:
		return 2
	case primitive.EventTypeSchemaChange:
		return 4
	}
	return 0
}

func (c *conn) wants(ev primitive.EventType) bool { return c.events.Load()&eventBit(ev) != 0 }

// serve reads frames until the connection fails. Requests are executed on
// this goroutine in arrival order; responses are written to a buffered
// writer that is flushed when no further whole request is already
// buffered, so a pipelining client gets many responses per write.
func (c *conn) serve() {
	defer func() {
		c.close()
		if c.delayq != nil {
			close(c.delayq)
			<-c.delayDone
		}
	}()
	// A paused node does not even take part in a TLS handshake.
	if !c.hold() {
		return
	}
	var hdr [headerLen]byte
	for {
		if _, err := io.ReadFull(c.br, hdr[:]); err != nil {
			return
		}
		// The frame waits here while the node is paused: neither counted
		// nor answered nor executed until Resume, as in a frozen process.
		if !c.hold() {
			return
		}
		v := primitive.ProtocolVersion(hdr[0] & 0x7f)
		h := &frame.Header{
			Version:    v,
			Flags:      primitive.HeaderFlag(hdr[1]),
			StreamId:   int16(binary.BigEndian.Uint16(hdr[2:4])),
			OpCode:     primitive.OpCode(hdr[4]),
			BodyLength: int32(binary.BigEndian.Uint32(hdr[5:9])),
		}
		if v != primitive.ProtocolVersion3 && v != primitive.ProtocolVersion4 {
			// Drivers start high and step down on this exact wording
			// ("unsupported protocol version"); the error goes out in the
			// newest version we speak and the connection closes, as Cassandra does.
			rv := primitive.ProtocolVersion4
			if c.version != 0 {
				rv = c.version
			}
			c.writeNow(rv, h.StreamId, &message.ProtocolError{ErrorMessage: fmt.Sprintf(
				"Invalid or unsupported protocol version (%d); supported versions are (3/v3, 4/v4)", v)}, nil)
			return
		}
		if c.version == 0 {
			c.version = v
		} else if v != c.version {
			c.writeNow(c.version, h.StreamId, &message.ProtocolError{ErrorMessage: fmt.Sprintf(
				"Invalid message version. Got %s but previous messages on this connection had version %s", v, c.version)}, nil)
			return
		}
		if hdr[0]&0x80 != 0 || h.BodyLength < 0 {
			c.writeNow(v, h.StreamId, &message.ProtocolError{ErrorMessage: fmt.Sprintf(
				"Invalid frame: direction bit set or negative body length %d", h.BodyLength)}, nil)
			return
		}
		if n := int64(h.BodyLength) + headerLen; n > maxFrame {
			// As Cassandra's frame decoder: the body is read past and
			// the request refused as invalid on its stream; the
			// connection stays open.
			if _, err := io.CopyN(io.Discard, c.br, int64(h.BodyLength)); err != nil {
				return
			}
			msg := &message.Invalid{ErrorMessage: fmt.Sprintf(
				"Request is too big: length %d exceeds maximum allowed length %d.", n, maxFrame)}
			c.n.stats.requests[h.OpCode].Add(1)
			c.n.stats.response(msg)
			c.write(h.StreamId, msg, nil, !c.nextFrameBuffered())
			continue
		}
		if cap(c.body) < int(h.BodyLength) {
			c.body = make([]byte, h.BodyLength)
		}
		body := c.body[:h.BodyLength]
		if _, err := io.ReadFull(c.br, body); err != nil {
			return
		}
		st := &c.n.stats
		st.bytes.Add(int64(headerLen + len(body)))
		st.requests[h.OpCode].Add(1)
		msg, warnings := c.safeHandle(h, body)
		held := c.sess.answerIn
		c.sess.answerIn = 0
		if msg == nil {
			if held > 0 {
				c.n.queued.Add(-1)
			}
			continue
		}
		st.response(msg)
		if d := c.n.latency() + held; d > 0 {
			c.delay(d, h.StreamId, msg, warnings, held > 0)
		} else {
			c.write(h.StreamId, msg, warnings, !c.nextFrameBuffered())
		}
	}
}

// nextFrameBuffered reports whether a whole request is already buffered, so
// that handling it cannot block on the network. Responses are flushed
// otherwise: holding them while waiting for input could stall a client that
// sends more only when answers arrive.
func (c *conn) nextFrameBuffered() bool {
	n := c.br.Buffered()
	if n < headerLen {
		return false
	}
	h, err := c.br.Peek(headerLen)
	if err != nil {
		return false
	}
	l := int64(binary.BigEndian.Uint32(h[5:9]))
	return int64(n) >= headerLen+l
}

func (c *conn) newFrame(v primitive.ProtocolVersion, stream int16, msg message.Message, warnings []string) *frame.Frame {
	f := frame.NewFrame(v, stream, msg)
	if len(warnings) > 0 && v >= primitive.ProtocolVersion4 {
		f.SetWarnings(warnings)
	}
	return f
}

func (c *conn) write(stream int16, msg message.Message, warnings []string, flush bool) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if msg == voidResult && len(warnings) == 0 {
		// The acknowledgement of every write: 13 bytes, no need for the codec.
		var f [headerLen + 4]byte
		f[0] = 0x80 | byte(c.version)
		binary.BigEndian.PutUint16(f[2:], uint16(stream))
		f[4] = byte(primitive.OpCodeResult)
		binary.BigEndian.PutUint32(f[5:], 4)
		binary.BigEndian.PutUint32(f[9:], uint32(primitive.ResultTypeVoid))
		_, _ = c.bw.Write(f[:])
	} else {
		c.encode(&c.wbuf, stream, msg, warnings)
		_, _ = c.bw.Write(c.wbuf.Bytes())
	}
	if flush {
		_ = c.bw.Flush()
	}
}

// encode renders a response frame into buf. It encodes into a buffer rather
// than the connection so that a message the codec rejects halfway never
// leaves a torn frame on the wire; a ServerError goes out instead.
func (c *conn) encode(buf *bytes.Buffer, stream int16, msg message.Message, warnings []string) {
	buf.Reset()
	if err := c.codec.EncodeFrame(c.newFrame(c.version, stream, msg, warnings), buf); err != nil {
		c.n.cl.logf("cqlsim: node %d: encode %s: %v", c.n.info.index+1, msg, err)
		buf.Reset()
		_ = c.codec.EncodeFrame(c.newFrame(c.version, stream, &message.ServerError{ErrorMessage: "cqlsim: cannot encode response: " + err.Error()}, nil), buf)
	}
}

func (c *conn) writeNow(v primitive.ProtocolVersion, stream int16, msg message.Message, warnings []string) {
	c.n.stats.response(msg)
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.codec.EncodeFrame(c.newFrame(v, stream, msg, warnings), c.bw)
	_ = c.bw.Flush()
}

// push sends a server event (stream -1), or leaves it to Resume while the
// node is paused.
func (c *conn) push(ev message.Message) {
	if c.version == 0 || c.n.deferEvent(c, ev) {
		return
	}
	c.write(-1, ev, nil, true)
}

// delay queues an encoded response to be written after d. Responses go
// out in due order, not arrival order, so a latency range keeps its spread.
func (c *conn) delay(d time.Duration, stream int16, msg message.Message, warnings []string, queued bool) {
	c.delayOnce.Do(func() {
		c.delayq = make(chan delayed, delayQueue)
		c.delayDone = make(chan struct{})
		go c.delayWriter()
	})
	var buf bytes.Buffer
	c.encode(&buf, stream, msg, warnings)
	c.delayq <- delayed{due: time.Now().Add(d), buf: buf.Bytes(), queued: queued}
}

// delayHeap orders delayed responses by due time. Its size is bounded by
// the client's in-flight requests (stream ids).
type delayHeap []delayed

func (h delayHeap) Len() int           { return len(h) }
func (h delayHeap) Less(i, j int) bool { return h[i].due.Before(h[j].due) }
func (h delayHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *delayHeap) Push(x any)        { *h = append(*h, x.(delayed)) }
func (h *delayHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (c *conn) delayWriter() {
	defer close(c.delayDone)
	var pending delayHeap
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		var wake <-chan time.Time
		if len(pending) > 0 {
			timer.Reset(time.Until(pending[0].due))
			wake = timer.C
		}
		select {
		case d, ok := <-c.delayq:
			if !ok {
				c.dropDelayed(pending) // the connection is gone; so are its answers
				return
			}
			heap.Push(&pending, d)
		case <-wake:
			// Answers that fell due during a pause wait for Resume too.
			if !c.hold() {
				c.dropDelayed(pending)
				pending = pending[:0]
				continue
			}
			now := time.Now()
			c.wmu.Lock()
			for len(pending) > 0 && !pending[0].due.After(now) {
				d := heap.Pop(&pending).(delayed)
				_, _ = c.bw.Write(d.buf)
				if d.queued {
					c.n.queued.Add(-1)
				}
			}
			_ = c.bw.Flush()
			c.wmu.Unlock()
		}
	}
}

// dropDelayed takes the answers of a connection that went away out of
// the node's queue.
func (c *conn) dropDelayed(pending delayHeap) {
	for _, d := range pending {
		if d.queued {
			c.n.queued.Add(-1)
		}
	}
}

// safeHandle is handle that turns a panic (a bug in the simulator, never
// the client's fault) into a ServerError for that request, so one bad
// request cannot take down every node of the process.
func (c *conn) safeHandle(h *frame.Header, body []byte) (msg message.Message, warnings []string) {
	defer func() {
		if r := recover(); r != nil {
			c.n.cl.logf("cqlsim: node %d: panic serving %s: %v\n%s", c.n.info.index+1, opName(h.OpCode), r, debug.Stack())
			msg, warnings = &message.ServerError{ErrorMessage: fmt.Sprintf("cqlsim internal error: %v", r)}, nil
		}
	}()
	return c.handle(h, body)
}

// handle executes one request and returns the response message (nil for none).
func (c *conn) handle(h *frame.Header, body []byte) (message.Message, []string) {
	if h.Flags.Contains(primitive.HeaderFlagCompressed) {
		if !c.snappy {
			return &message.ProtocolError{ErrorMessage: "compressed frame received but no compression was negotiated in STARTUP"}, nil
		}
		// Requests may come snappy-compressed; responses go out plain, which
		// the protocol allows frame by frame and drivers accept.
		d, err := s2.Decode(c.unzip[:cap(c.unzip)], body)
		if err != nil {
			return &message.ProtocolError{ErrorMessage: "Invalid snappy-compressed frame body: " + err.Error()}, nil
		}
		c.unzip = d[:0]
		body = d
		h.Flags = h.Flags.Remove(primitive.HeaderFlagCompressed)
		h.BodyLength = int32(len(body))
	}
	switch h.OpCode {
	case primitive.OpCodeOptions:
		opts := map[string][]string{
			"CQL_VERSION":       {cqlVersion},
			"COMPRESSION":       {"snappy"},
			"PROTOCOL_VERSIONS": {"3/v3", "4/v4"},
		}
		if c.sess.shards > 0 {
			opts["SCYLLA_SHARD"] = []string{strconv.Itoa(c.sess.shard)}
			opts["SCYLLA_NR_SHARDS"] = []string{strconv.Itoa(c.sess.shards)}
			opts["SCYLLA_PARTITIONER"] = []string{"org.apache.cassandra.dht.Murmur3Partitioner"}
			opts["SCYLLA_SHARDING_ALGORITHM"] = []string{shard.Algorithm}
			opts["SCYLLA_SHARDING_IGNORE_MSB"] = []string{strconv.Itoa(shard.DefaultIgnoreMSB)}
		}
		return &message.Supported{Options: opts}, nil
	case primitive.OpCodeStartup, primitive.OpCodeAuthResponse, primitive.OpCodeRegister,
		primitive.OpCodeQuery, primitive.OpCodePrepare, primitive.OpCodeExecute, primitive.OpCodeBatch:
	default:
		return &message.ProtocolError{ErrorMessage: fmt.Sprintf("Unknown or unsupported request opcode 0x%02x", byte(h.OpCode))}, nil
	}
	if c.started && c.authed && (h.OpCode == primitive.OpCodeExecute || h.OpCode == primitive.OpCodeBatch) {
		fast := body
		if h.Flags.Contains(primitive.HeaderFlagCustomPayload) {
			var err error
			if fast, err = skipBytesMap(body); err != nil {
				return &message.ProtocolError{ErrorMessage: "Invalid custom payload: " + err.Error()}, nil
			}
		}
		body := fast
		switch h.OpCode {
		case primitive.OpCodeExecute:
			req, err := decodeExecute(body, c.vals)
			if err != nil {
				return &message.ProtocolError{ErrorMessage: "Invalid EXECUTE message: " + err.Error()}, nil
			}
			if !req.named {
				c.vals = req.vals[:0]
				return c.execute(req)
			}
		case primitive.OpCodeBatch:
			req, err := decodeBatch(body)
			if err != nil {
				return &message.ProtocolError{ErrorMessage: "Invalid BATCH message: " + err.Error()}, nil
			}
			return c.n.batch(&c.sess, req)
		}
	}
	decoded, err := c.codec.DecodeBody(h, bytes.NewReader(body))
	if err != nil {
		return &message.ProtocolError{ErrorMessage: fmt.Sprintf("Invalid %s message: %v", opName(h.OpCode), err)}, nil
	}
	switch m := decoded.Message.(type) {
	case *message.Startup:
		if c.started {
			return &message.ProtocolError{ErrorMessage: "Unexpected message STARTUP, the connection is already initialized"}, nil
		}
		switch comp := m.GetCompression(); {
		case comp == primitive.CompressionNone:
		case strings.EqualFold(string(comp), string(primitive.CompressionSnappy)):
			c.snappy = true
		default:
			return &message.ProtocolError{ErrorMessage: fmt.Sprintf("Unknown compression algorithm: %s", comp)}, nil
		}
		c.started = true
		if c.n.cl.cfg.Username == "" {
			c.authed = true
			return &message.Ready{}, nil
		}
		return &message.Authenticate{Authenticator: "org.apache.cassandra.auth.PasswordAuthenticator"}, nil
	case *message.AuthResponse:
		if !c.started || c.n.cl.cfg.Username == "" {
			return &message.ProtocolError{ErrorMessage: "Unexpected message AUTH_RESPONSE"}, nil
		}
		user, pass, ok := parsePlainToken(m.Token)
		if !ok || user != c.n.cl.cfg.Username || pass != c.n.cl.cfg.Password {
			return &message.AuthenticationError{ErrorMessage: fmt.Sprintf("Provided username %s and/or password are incorrect", user)}, nil
		}
		c.authed = true
		return &message.AuthSuccess{}, nil
	}
	if !c.started {
		return &message.ProtocolError{ErrorMessage: fmt.Sprintf("Unexpected message %s, expecting STARTUP or OPTIONS", opName(h.OpCode))}, nil
	}
	if !c.authed {
		return &message.Unauthorized{ErrorMessage: "You have not logged in"}, nil
	}
	n := c.n
	switch m := decoded.Message.(type) {
	case *message.Register:
		var bits uint32
		for _, ev := range m.EventTypes {
			bits |= eventBit(ev)
		}
		c.events.Or(bits)
		return &message.Ready{}, nil
	case *message.Query:
		p, err := n.planFor(&c.sess, m.Query)
		if err != nil {
			return errorMessage(err), nil
		}
		return n.respond(&c.sess, p, m.Options, nil)
	case *message.Prepare:
		p, id, err := n.prepare(&c.sess, m.Query)
		if err != nil {
			return errorMessage(err), nil
		}
		return p.preparedResult(id, c.version), nil
	case *message.Execute:
		p := n.lookupPrepared(m.QueryId)
		if p == nil {
			return unprepared(m.QueryId), nil
		}
		return n.respond(&c.sess, p, m.Options, nil)
	}
	return &message.ProtocolError{ErrorMessage: fmt.Sprintf("Unexpected message %s", opName(h.OpCode))}, nil
}

// execute runs an EXECUTE decoded by decodeExecute.
func (c *conn) execute(req *execRequest) (message.Message, []string) {
	n := c.n
	p := n.lookupPrepared(req.id)
	if p == nil {
		return unprepared(append([]byte(nil), req.id...)), nil
	}
	if n.cl.cfg.Blackhole && (p.kind == planInsert || p.kind == planUpdate || p.kind == planDelete) {
		return n.blackholeExecute(&c.sess, p, req)
	}
	vals := req.vals
	if vals == nil {
		vals = []value{}
	}
	return n.respond(&c.sess, p, &req.opts, vals)
}

func unprepared(id []byte) message.Message {
	return &message.Unprepared{
		ErrorMessage: fmt.Sprintf("Prepared query with ID %x not found (either the query was not prepared on this host (maybe the host has been restarted?) or you have prepared too many queries and it has been evicted from the internal cache)", id),
		Id:           id,
	}
}

// parsePlainToken splits a SASL PLAIN token: authzid NUL authcid NUL password.
func parsePlainToken(tok []byte) (user, pass string, ok bool) {
	parts := bytes.Split(tok, []byte{0})
	if len(parts) != 3 {
		return "", "", false
	}
	return string(parts[1]), string(parts[2]), true
}

// errorMessage turns an error into an ERROR message.
func errorMessage(err error) message.Message {
	var re *reqError
	if errors.As(err, &re) {
		return re.msg
	}
	var se interface{ SyntaxError() bool }
	if errors.As(err, &se) {
		return &message.SyntaxError{ErrorMessage: err.Error()}
	}
	return &message.ServerError{ErrorMessage: err.Error()}
}
