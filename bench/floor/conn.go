package floor

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlload/cqlload/loader"
)

// conn is one raw connection, set up and with the statement prepared.
type conn struct {
	nc   net.Conn
	br   *bufio.Reader
	addr string
	// shard is the ScyllaDB shard the node gave the connection (from
	// SUPPORTED), -1 when it announces none.
	shard int
	id    []byte // the prepared statement's id
	// rows are the rows of the request in flight on each stream id, put
	// there by the writer and read by the reader when the answer comes.
	rows []atomic.Int32
	// answered counts responses read, for the pool's stall check.
	answered atomic.Int64
}

// dial opens a connection to addr and does what a driver does before its
// first request: OPTIONS, STARTUP, the password exchange when asked for.
func dial(ctx context.Context, addr string, o *loader.Options) (*conn, error) {
	d := net.Dialer{Timeout: o.ConnectTimeout}
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("floor: %w", err)
	}
	if o.TLS != nil {
		cfg := o.TLS.Clone()
		if cfg.ServerName == "" {
			cfg.ServerName, _, _ = net.SplitHostPort(addr)
		}
		nc = tls.Client(nc, cfg)
	}
	c := &conn{nc: nc, br: bufio.NewReaderSize(nc, 64<<10), addr: addr, shard: -1}
	if o.ConnectTimeout > 0 {
		_ = nc.SetDeadline(time.Now().Add(o.ConnectTimeout))
	}
	if err := c.setup(o); err != nil {
		nc.Close()
		return nil, fmt.Errorf("%w (%s)", err, addr)
	}
	_ = nc.SetDeadline(time.Time{})
	return c, nil
}

// roundTrip sends one setup request on stream 0 and reads its answer.
func (c *conn) roundTrip(op byte, body func([]byte) []byte) (header, []byte, error) {
	f := body(beginFrame(nil, op))
	endFrame(f, 0)
	if _, err := c.nc.Write(f); err != nil {
		return header{}, nil, fmt.Errorf("floor: %w", err)
	}
	h, b, err := readFrame(c.br)
	if err != nil {
		return h, nil, fmt.Errorf("floor: %w", err)
	}
	if h.stream != 0 {
		return h, nil, fmt.Errorf("floor: setup answer on stream %d, want 0", h.stream)
	}
	return h, b, nil
}

func (c *conn) setup(o *loader.Options) error {
	h, b, err := c.roundTrip(opOptions, func(f []byte) []byte { return f })
	if err != nil {
		return err
	}
	d, err := expect(h, b, opSupported, "OPTIONS")
	if err != nil {
		return err
	}
	for n := d.short(); n > 0; n-- {
		k, vs := d.string(), d.stringList()
		if k == "SCYLLA_SHARD" && len(vs) == 1 {
			if s, err := strconv.Atoi(vs[0]); err == nil {
				c.shard = s
			}
		}
	}
	if d.err != nil {
		return fmt.Errorf("floor: SUPPORTED: %w", d.err)
	}

	h, b, err = c.roundTrip(opStartup, func(f []byte) []byte {
		f = appendShort(f, 1)
		return appendString(appendString(f, "CQL_VERSION"), "3.0.0")
	})
	if err != nil {
		return err
	}
	if h.op != opAuthenticate {
		_, err = expect(h, b, opReady, "STARTUP")
		return err
	}
	if o.Username == "" {
		return fmt.Errorf("floor: the cluster asks for a password (%s); give a user name", bodyOf(h, b).string())
	}
	h, b, err = c.roundTrip(opAuthResponse, func(f []byte) []byte {
		// PasswordAuthenticator's SASL PLAIN token.
		tok := append(append(append([]byte{0}, o.Username...), 0), o.Password...)
		return appendValue(f, tok)
	})
	if err != nil {
		return err
	}
	if h.op == opAuthChallenge {
		return fmt.Errorf("floor: the cluster sent an authentication challenge, which PasswordAuthenticator never does")
	}
	_, err = expect(h, b, opAuthSuccess, "AUTH_RESPONSE")
	return err
}

// prepare prepares stmt on the connection and keeps its id.
func (c *conn) prepare(stmt string) error {
	h, b, err := c.roundTrip(opPrepare, func(f []byte) []byte { return appendLongString(f, stmt) })
	if err != nil {
		return err
	}
	d, err := expect(h, b, opResult, "PREPARE")
	if err != nil {
		return err
	}
	if kind := d.int(); d.err == nil && kind != resultPrepared {
		return fmt.Errorf("floor: PREPARE: result kind %#x, want %#x", kind, resultPrepared)
	}
	id := d.take(d.short())
	if d.err != nil {
		return fmt.Errorf("floor: PREPARE: %w", d.err)
	}
	c.id = append([]byte(nil), id...)
	return nil
}

// pool is the connections of a run, opened as the driver opens its own:
// one per shard of a node announcing ScyllaDB sharding, else as many
// as gocql's NumConns default, and routed as it routes requests.
type pool struct {
	conns []*conn
	// byHost[h] are host h's connections: indexed by shard when sharded,
	// taken in turn otherwise (as gocql's connection picker does).
	byHost    [][]*conn
	index     map[*conn]int
	sharded   bool
	next      []int
	closeOnce sync.Once
}

// openPool connects to every host and prepares stmt on each connection.
// streams is the number of stream ids each connection needs room for.
func openPool(ctx context.Context, hosts []*gocql.HostInfo, shards int, o *loader.Options, stmt string, streams int) (*pool, error) {
	p := &pool{sharded: shards > 0, next: make([]int, len(hosts)), index: map[*conn]int{}}
	for _, h := range hosts {
		addr := net.JoinHostPort(h.ConnectAddress().String(), strconv.Itoa(h.Port()))
		var cs []*conn
		var err error
		if p.sharded {
			cs, err = p.dialShards(ctx, addr, shards, o)
		} else {
			for range gocql.NewCluster().NumConns {
				var c *conn
				if c, err = dial(ctx, addr, o); err != nil {
					break
				}
				cs = append(cs, c)
				p.add(c)
			}
		}
		p.byHost = append(p.byHost, cs)
		if err != nil {
			p.close()
			return nil, err
		}
	}
	for _, c := range p.conns {
		if err := c.prepare(stmt); err != nil {
			p.close()
			return nil, fmt.Errorf("%w (%s)", err, c.addr)
		}
		c.rows = make([]atomic.Int32, streams)
	}
	return p, nil
}

func (p *pool) add(c *conn) {
	p.index[c] = len(p.conns)
	p.conns = append(p.conns, c)
}

// dialShards connects to addr until every shard has a connection: a
// node's regular port hands connections to shards as it likes, so a
// driver without its shard-aware port opens more and keeps one a shard.
// After 4 tries a shard, a shard still without one shares another's, as
// the driver then sends its requests down another shard's connection.
func (p *pool) dialShards(ctx context.Context, addr string, shards int, o *loader.Options) ([]*conn, error) {
	cs := make([]*conn, shards)
	have := 0
	for try := 0; have < shards && try < 4*shards; try++ {
		c, err := dial(ctx, addr, o)
		if err != nil {
			return nil, err
		}
		if c.shard < 0 || c.shard >= shards || cs[c.shard] != nil {
			c.nc.Close()
			continue
		}
		cs[c.shard] = c
		p.add(c)
		have++
	}
	if have == 0 {
		return nil, fmt.Errorf("floor: %s: no connection on any of %d shards", addr, shards)
	}
	var some *conn
	for _, c := range cs {
		if c != nil {
			some = c
			break
		}
	}
	for s := range cs {
		if cs[s] == nil {
			cs[s] = some
		}
	}
	return cs, nil
}

// route is the index of the connection a request goes down.
func (p *pool) route(host, shard int) int {
	cs := p.byHost[host]
	if p.sharded {
		return p.index[cs[shard]]
	}
	i := p.next[host] % len(cs)
	p.next[host]++
	return p.index[cs[i]]
}

// close closes every connection, which also ends a reader waiting on one.
func (p *pool) close() {
	p.closeOnce.Do(func() {
		for _, c := range p.conns {
			c.nc.Close()
		}
	})
}
