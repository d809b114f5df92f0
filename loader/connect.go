package loader

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlload/cqlload/internal/shard"
	"github.com/cqlload/cqlload/loader/internal/ring"
	"github.com/cqlload/cqlload/schema"
)

// Connect opens a session the way cqlload needs it: token-aware routing
// (shard-aware too on ScyllaDB, through the scylladb driver), no driver
// retries (the loader retries itself, per batch, and counts them), and
// the data center preference of LocalDC.
//
// When no session can be opened, the error says why in words a user can
// act on (see explainConnect) rather than the driver's "no connections
// were made": a TLS mismatch, a refused user name, hosts that cannot be
// reached, a keyspace that does not exist. The session keeps Keyspace as
// its own: gocql's token-aware policy computes replicas only for the
// session's keyspace, and without it every request goes to the token's
// first replica, outside LocalDC when that one is elsewhere.
func Connect(o Options) (*gocql.Session, error) {
	return ConnectContext(context.Background(), o)
}

// ConnectContext is Connect, given up when ctx is done: the driver's
// session creation takes no context, and a node that accepts the
// connection but never answers holds it for ConnectTimeout (SIGTERM
// during a connect waited out the whole timeout). The session, should
// it come later, is closed.
func ConnectContext(parent context.Context, o Options) (*gocql.Session, error) {
	hosts, port := contactPoints(o)
	c := clusterConfig(o, hosts, port)
	dials := &dialLog{}
	c.ConnectObserver = dials
	timeout := connectTimeout(o)
	ctx, cancel := context.WithCancel(parent)
	defer cancel()

	// A plain-text client on a TLS port gets an EOF from the driver at
	// best, and from a server that waits for the rest of what it takes
	// for a TLS record, nothing until the connect timeout. Asking the
	// first contact point directly, alongside the driver, names the
	// problem within a round trip and costs one short connection.
	var probe chan probeResult
	if o.TLS == nil && len(hosts) > 0 {
		probe = make(chan probeResult, 1)
		go func() { probe <- probePlain(ctx, hosts[0], timeout) }()
	}
	type result struct {
		s   *gocql.Session
		err error
	}
	done := make(chan result, 1)
	go func() {
		s, err := c.CreateSession()
		done <- result{s, err}
	}()

	var seen *probeResult
	abandon := func() {
		// The driver gives up on its own within its timeouts; close
		// what it may still open.
		go func() {
			if r := <-done; r.s != nil {
				r.s.Close()
			}
		}()
		dials.stop()
	}
	for {
		select {
		case <-parent.Done():
			abandon()
			return nil, parent.Err()
		case r := <-done:
			dials.stop()
			if r.err == nil {
				return r.s, nil
			}
			if probe != nil {
				// The probe ends within timeout of the start,
				// and is usually done by now.
				p := <-probe
				seen = &p
			}
			return nil, explainConnect(o, hosts, port, r.err, dials.failures(hosts), seen)
		case p := <-probe:
			probe = nil
			if p.verdict == speaksTLS {
				abandon()
				return nil, &connectError{msg: p.host + " answered with TLS: use --ssl"}
			}
			seen = &p
		}
	}
}

// connectTimeout bounds Connect's own probes as o.ConnectTimeout bounds the
// driver's connections; without one, it is the default's.
func connectTimeout(o Options) time.Duration {
	if o.ConnectTimeout > 0 {
		return o.ConnectTimeout
	}
	return DefaultOptions().ConnectTimeout
}

// contactPoints gives the hosts as host:port and the port the driver
// should use for the nodes it discovers.
func contactPoints(o Options) ([]string, int) {
	hosts := make([]string, 0, len(o.Hosts))
	port := o.Port
	for _, h := range o.Hosts {
		if _, p, err := net.SplitHostPort(h); err != nil {
			h = net.JoinHostPort(h, strconv.Itoa(o.Port))
		} else if n, err := strconv.Atoi(p); err == nil {
			// Nodes discovered from system.peers get the contact
			// points' port: the driver only learns their addresses.
			port = n
		}
		hosts = append(hosts, h)
	}
	return hosts, port
}

func clusterConfig(o Options, hosts []string, port int) *gocql.ClusterConfig {
	c := gocql.NewCluster(hosts...)
	c.Port = port
	c.Keyspace = o.Keyspace
	c.Consistency = o.Consistency
	c.ConnectTimeout = o.ConnectTimeout
	c.Timeout = o.RequestTimeout
	c.WriteTimeout = o.RequestTimeout
	c.RetryPolicy = &gocql.SimpleRetryPolicy{NumRetries: 0}
	// The driver logs every reconnection attempt, including those it
	// abandons when the session closes; failures that matter reach the
	// loader as errors anyway.
	logTo := o.DriverLog
	if logTo == nil {
		logTo = io.Discard
	}
	c.Logger = log.New(logTo, "driver: ", log.LstdFlags)
	// The default handler formats and logs every warning; a load with
	// batches over Cassandra's 5 KiB warn threshold gets one per batch.
	c.WarningsHandlerBuilder = gocql.NoopWarningHandlerBuilder
	if o.OnWarnings != nil || o.countWarnings != nil {
		h := &warningHandler{count: o.countWarnings, user: o.OnWarnings}
		c.WarningsHandlerBuilder = func(*gocql.Session) gocql.WarningHandler { return h }
	}
	// Replicas not shuffled: a request goes to its token's first replica
	// (local data center first), which is the coordinator whose in-flight
	// limit the loader charges it to (ring.Primary). Shuffled, with more
	// than one replica, requests were spread at random while the loader
	// charged them all to one node of each replica set.
	fallback := gocql.RoundRobinHostPolicy()
	if o.LocalDC != "" {
		fallback = gocql.DCAwareRoundRobinPolicy(o.LocalDC)
	}
	c.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(fallback, gocql.DontShuffleReplicas())
	// Set even without a user name, so that a cluster asking for one
	// yields a typed error (see authenticator).
	c.Authenticator = authenticator{gocql.PasswordAuthenticator{Username: o.Username, Password: o.Password}}
	// The driver's queries of the schema tables wait 60 s by default,
	// whatever the request timeout.
	c.MetadataSchemaRequestTimeout = o.RequestTimeout
	if o.TLS != nil {
		c.HostDialer = newTLSDialer(context.Background(), o.TLS, hosts, connectTimeout(o))
	}
	return c
}

// explainConnect turns the driver's failure into a connectError, from the
// most basic cause to the least: the wrong protocol (TLS or not), then
// credentials and certificates, then hosts that cannot be reached, then a
// keyspace that does not exist. fails are the connection attempts the
// driver made, by host; probe is what the first contact point answered a
// plain-text CQL request, nil with TLS.
func explainConnect(o Options, hosts []string, port int, err error, fails []hostFailure, probe *probeResult) error {
	if probe.is(speaksTLS) {
		return &connectError{msg: probe.host + " answered with TLS: use --ssl", err: err}
	}
	unreachable := 0
	for _, f := range fails {
		var (
			header tls.RecordHeaderError
			verify *tls.CertificateVerificationError
			server interface {
				GetCode() int
				GetMessage() string
			}
			noCreds *authRequiredError
			op      *net.OpError
		)
		var (
			handshake *handshakeTimeoutError
			name      *nameMismatchError
		)
		switch {
		case isStartupTimeout(f.err) || errors.Is(f.err, gocql.ErrTimeoutNoResponse):
			// The driver's errors do not say which request went
			// unanswered; a connection's are these.
			return &connectError{msg: fmt.Sprintf("%s accepted the connection but sent no answer within %v (the connect timeout) while connecting: to OPTIONS, STARTUP, authentication or a query of its system tables", f.host, connectTimeout(o)), cause: f.err, err: err}
		case errors.As(f.err, &handshake):
			return &connectError{msg: handshake.Error() + ": is it a CQL port, with TLS?", cause: f.err, err: err}
		case errors.As(f.err, &name):
			return &connectError{msg: name.explain(), cause: f.err, err: err}
		case errors.As(f.err, &header):
			return &connectError{msg: f.host + " does not speak TLS: drop --ssl", cause: f.err, err: err}
		case errors.As(f.err, &verify):
			return &connectError{msg: fmt.Sprintf("%s: %v (give the CA that signed its certificate with --ssl-ca, or skip the check with --ssl-no-verify)", f.host, verify), cause: f.err, err: err}
		case errors.As(f.err, &server) && server.GetCode() == gocql.ErrCodeCredentials:
			return &connectError{msg: fmt.Sprintf("%s refused user name %q: %s", f.host, o.Username, server.GetMessage()), cause: f.err, err: err}
		case errors.As(f.err, &noCreds):
			return &connectError{msg: fmt.Sprintf("%s requires a user name and password (%s): give --username and a password", f.host, noCreds.class), cause: f.err, err: err}
		case errors.As(f.err, &op) && op.Op == "dial":
			unreachable++
		}
	}
	if unreachable > 0 && unreachable == len(fails) {
		cause := func(err error) string { return dialCause(err, connectTimeout(o)) }
		return &connectError{msg: "cannot reach " + byCause(fails, cause), cause: fails[len(fails)-1].err, err: err}
	}
	if o.Keyspace != "" && errors.Is(err, gocql.ErrNoConnectionsStarted) {
		if nf := missingKeyspace(o, hosts, port); nf != nil {
			return &connectError{msg: nf.Error(), cause: nf, err: err}
		}
	}
	// Each host's own error says more than the driver's summary, which
	// gives only the last one, behind three prefixes and a newline.
	var msg string
	if len(fails) > 0 {
		msg = "connect to " + byCause(fails, func(err error) string { return err.Error() })
	} else {
		msg = "connect to " + strings.Join(hosts, ", ") + ": " + strings.TrimSpace(err.Error())
	}
	if note := probe.note(); note != "" {
		msg += " (" + note + ")"
	}
	return &connectError{msg: msg, err: err}
}

// isStartupTimeout says whether err is the driver's for a node that did
// not answer OPTIONS, STARTUP or an authentication step within the
// connect timeout. The driver has no error value for it, only this text.
func isStartupTimeout(err error) bool {
	return err != nil && strings.Contains(err.Error(), "no response to connection startup within timeout")
}

// byCause lists hosts with the cause of their failure: "h1, h2: cause"
// when they share it, else "h1: cause1; h2: cause2".
func byCause(fails []hostFailure, cause func(error) string) string {
	causes := make([]string, len(fails))
	same := true
	for i, f := range fails {
		causes[i] = cause(f.err)
		same = same && causes[i] == causes[0]
	}
	parts := make([]string, len(fails))
	for i, f := range fails {
		parts[i] = f.host
		if !same {
			parts[i] += ": " + causes[i]
		}
	}
	if same {
		return strings.Join(parts, ", ") + ": " + causes[0]
	}
	return strings.Join(parts, "; ")
}

// dialCause is the reason of a failed dial without the "dial tcp
// ADDRESS: connect:" the caller says already.
func dialCause(err error, timeout time.Duration) string {
	var (
		ne    net.Error
		errno syscall.Errno
		dns   *net.DNSError
	)
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return fmt.Sprintf("no answer within %v (the connect timeout)", timeout)
	case errors.As(err, &errno):
		return errno.Error()
	case errors.As(err, &dns):
		return dns.Error()
	}
	return err.Error()
}

// missingKeyspace asks a session without a keyspace whether o.Keyspace
// exists. It is for when the driver opened no connection at all: with an
// unknown keyspace its USE fails on every one and the driver says only
// that none was made. It returns nil when the keyspace exists or the
// question cannot be asked.
func missingKeyspace(o Options, hosts []string, port int) *schema.NotFoundError {
	c := clusterConfig(o, hosts, port)
	c.Keyspace = ""
	// One connection to a contact point is enough to read the schema.
	c.NumConns = 1
	c.DisableInitialHostLookup = true
	s, err := c.CreateSession()
	if err != nil {
		return nil
	}
	defer s.Close()
	// Quoted, the name is matched exactly, as the driver's USE matches it.
	_, err = schema.LoadKeyspace(s, schema.QuoteIdent(o.Keyspace))
	var nf *schema.NotFoundError
	if errors.As(err, &nf) {
		return nf
	}
	return nil
}

// hostFailure is the last failed connection attempt to one host.
type hostFailure struct {
	host string
	err  error
}

// dialLog records, while Connect waits, the last failed connection attempt
// to each host. The driver flattens its errors into one string and keeps
// only the last host's; explainConnect needs each one with its type. It
// is the session's ConnectObserver for the session's whole life, but does
// nothing once stopped.
type dialLog struct {
	mu      sync.Mutex
	stopped bool
	fails   []hostFailure
}

func (d *dialLog) ObserveConnect(oc gocql.ObservedConnect) {
	if oc.Err == nil || oc.Host == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stopped {
		return
	}
	host := oc.Host.ConnectAddressAndPort()
	for i := range d.fails {
		if d.fails[i].host == host {
			d.fails[i].err = oc.Err
			return
		}
	}
	d.fails = append(d.fails, hostFailure{host: host, err: oc.Err})
}

func (d *dialLog) stop() {
	d.mu.Lock()
	d.stopped = true
	d.mu.Unlock()
}

// failures gives the recorded failures in the order of hosts (the contact
// points), then those of discovered hosts: the driver tries hosts in
// random order, and a message should not change from run to run.
func (d *dialLog) failures(hosts []string) []hostFailure {
	d.mu.Lock()
	fails := append([]hostFailure(nil), d.fails...)
	d.mu.Unlock()
	rank := func(h string) int {
		if i := slices.Index(hosts, h); i >= 0 {
			return i
		}
		return len(hosts)
	}
	slices.SortStableFunc(fails, func(a, b hostFailure) int { return rank(a.host) - rank(b.host) })
	return fails
}

// authenticator is gocql's PasswordAuthenticator, except that a cluster
// asking for credentials when none were given gets a typed error: the
// driver's own is a bare string.
type authenticator struct{ gocql.PasswordAuthenticator }

func (a authenticator) Challenge(req []byte) ([]byte, gocql.Authenticator, error) {
	if a.Username == "" {
		return nil, nil, &authRequiredError{class: string(req)}
	}
	return a.PasswordAuthenticator.Challenge(req)
}

// probeVerdict is what a contact point made of a plain-text CQL request.
type probeVerdict int

const (
	// probeUnknown: no connection, no answer in time, or an answer that
	// is neither; the driver's own error says more.
	probeUnknown probeVerdict = iota
	speaksCQL
	speaksTLS
	// closedSilently: the connection closed before any answer, and the
	// port did not answer a TLS handshake either.
	closedSilently
	// speaksOther: an answer that is neither CQL nor TLS, such as an
	// HTTP server's.
	speaksOther
)

type probeResult struct {
	host    string
	verdict probeVerdict
	head    []byte // the answer's first bytes, for speaksOther
}

func (p *probeResult) is(v probeVerdict) bool { return p != nil && p.verdict == v }

// note is what the probe found that the driver's errors do not say, or "".
func (p *probeResult) note() string {
	switch {
	case p.is(closedSilently):
		return p.host + " closed the connection without answering a CQL OPTIONS request"
	case p.is(speaksOther):
		return fmt.Sprintf("%s answered neither CQL nor TLS: its answer starts %q", p.host, p.head)
	}
	return ""
}

// optionsProbe is two CQL v4 OPTIONS requests, on streams 0 and 1. A CQL
// server answers each with SUPPORTED. A TLS server reads the first five
// bytes as a record header whose length (stream 0's low byte, then the
// OPTIONS opcode) is 5, and the next five bytes complete that record, so
// it has a whole record to reject: one OPTIONS frame alone would leave it
// one byte short, waiting, if its TLS stack reads a record before it
// checks the header.
var optionsProbe = []byte{
	0x04, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00,
	0x04, 0x00, 0x00, 0x01, 0x05, 0x00, 0x00, 0x00, 0x00,
}

// probePlain sends addr a plain-text CQL request and looks at the first
// bytes of the answer, within timeout and until ctx ends.
func probePlain(ctx context.Context, addr string, timeout time.Duration) probeResult {
	res := probeResult{host: addr}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return res
	}
	defer nc.Close()
	// Connect returning ends the probe at once, and the read with it.
	defer context.AfterFunc(ctx, func() { nc.Close() })()
	if dl, ok := ctx.Deadline(); ok {
		_ = nc.SetDeadline(dl)
	}
	if _, err := nc.Write(optionsProbe); err != nil {
		return res
	}
	// Two bytes tell CQL from TLS; a few more show what else it may be.
	var buf [16]byte
	n, err := io.ReadAtLeast(nc, buf[:], 2)
	b := buf[:n]
	switch {
	case n > 0 && b[0]&0x80 != 0:
		// The response bit of a CQL frame's version byte; no TLS
		// record type has it.
		res.verdict = speaksCQL
	case n >= 2 && b[0] >= 0x14 && b[0] <= 0x18 && b[1] == 0x03:
		// A TLS record, version 3.x: an alert, usually.
		res.verdict = speaksTLS
	case n == 0 && ctx.Err() == nil && (errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)):
		// Go's and Java's TLS servers close without a word when the
		// first record is not a handshake; so may a CQL server that
		// is shutting down. A TLS handshake tells them apart.
		res.verdict = closedSilently
		if helloTLS(ctx, addr) {
			res.verdict = speaksTLS
		}
	case n > 0:
		res.verdict, res.head = speaksOther, b
	}
	return res
}

// helloTLS says whether addr answers a TLS handshake as a TLS server. It
// verifies no certificate: it only asks which protocol the port speaks,
// and sends nothing after the handshake.
func helloTLS(ctx context.Context, addr string) bool {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	defer nc.Close()
	host, _, _ := net.SplitHostPort(addr)
	err = tls.Client(nc, &tls.Config{ServerName: host, InsecureSkipVerify: true}).HandshakeContext(ctx)
	// A server that alerts (no shared version, a client certificate
	// required) speaks TLS too.
	var op *net.OpError
	return err == nil || errors.As(err, &op) && op.Op == "remote error"
}

// loadRing builds the replica map of keyspace from the hosts and tokens
// the driver discovered.
func loadRing(s *gocql.Session, keyspace, localDC string) (*ring.Ring, error) {
	ks, err := s.KeyspaceMetadata(keyspace)
	if err != nil {
		return nil, fmt.Errorf("keyspace %s: %w", keyspace, err)
	}
	repl, err := ring.ParseReplication(ks.StrategyClass, ks.StrategyOptions)
	if err != nil {
		return nil, fmt.Errorf("keyspace %s: %w", keyspace, err)
	}
	var nodes []ring.Node
	for _, h := range s.GetHosts() {
		n := ring.Node{ID: h.HostID(), DC: h.DataCenter(), Rack: h.Rack()}
		for _, t := range h.Tokens() {
			v, err := strconv.ParseInt(t, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("host %s has token %q: only Murmur3Partitioner is supported", h.ConnectAddress(), t)
			}
			n.Tokens = append(n.Tokens, v)
		}
		nodes = append(nodes, n)
	}
	r := ring.New(nodes, repl, localDC)
	r.Shards, r.IgnoreMSB = shard.Hosts(s.GetHosts())
	r.Addrs = hostAddrs(s)
	return r, nil
}

// loadTabletRing returns the ring of a table's tablets as the driver knows
// them so far, or nil when the cluster does not use tablets for it.
func loadTabletRing(s *gocql.Session, keyspace, table, localDC string) *ring.Ring {
	entries, err := s.TableTabletsMetadata(keyspace, table)
	if err != nil || len(entries) == 0 {
		return nil
	}
	var nodes []ring.Node
	for _, h := range s.GetHosts() {
		nodes = append(nodes, ring.Node{ID: h.HostID(), DC: h.DataCenter()})
	}
	ranges := make([]ring.Range, 0, len(entries))
	for _, e := range entries {
		tr := ring.Range{Last: e.LastToken()}
		for _, rep := range e.ReplicasUnsafe() {
			tr.Hosts = append(tr.Hosts, rep.HostID())
		}
		ranges = append(ranges, tr)
	}
	r := ring.FromRanges(ranges, nodes, localDC)
	r.Shards, r.IgnoreMSB = shard.Hosts(s.GetHosts())
	r.Addrs = hostAddrs(s)
	return r
}

// hostAddrs maps the nodes' host ids to their addresses, for reports.
func hostAddrs(s *gocql.Session) map[string]string {
	m := map[string]string{}
	for _, h := range s.GetHosts() {
		m[h.HostID()] = h.ConnectAddressAndPort()
	}
	return m
}

// tabletsInUse says whether the driver routes this table by tablets.
func tabletsInUse(s *gocql.Session, keyspace, table string) bool {
	_, err := s.TableTabletsMetadata(keyspace, table)
	return err == nil
}

// warningHandler hands the cluster's warnings to the loader's counter and
// to Options.OnWarnings. With 1 KB rows every batch can carry a warning,
// so the host's address, which costs a few allocations to format, is
// formatted only for OnWarnings.
type warningHandler struct {
	count func(warnings []string)
	user  func(host string, warnings []string)
}

func (h *warningHandler) HandleWarnings(_ gocql.ExecutableQuery, host *gocql.HostInfo, warnings []string) {
	if h.count != nil {
		h.count(warnings)
	}
	if h.user == nil {
		return
	}
	addr := ""
	if host != nil {
		addr = host.ConnectAddressAndPort()
	}
	h.user(addr, warnings)
}
