package loader

import (
	"fmt"
	"io"
	"log"
	"net"
	"strconv"

	"github.com/gocql/gocql"

	"github.com/cqlload/cqlload/internal/shard"
)

// Connect opens a session the way cqlload needs it: token-aware routing
// (shard-aware too on ScyllaDB, through the scylladb driver), no driver
// retries (the loader retries itself, per batch, and counts them), and
// the data center preference of LocalDC.
func Connect(o Options) (*gocql.Session, error) {
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
	if o.LocalDC != "" {
		c.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.DCAwareRoundRobinPolicy(o.LocalDC))
	} else {
		c.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy())
	}
	if o.Username != "" {
		c.Authenticator = gocql.PasswordAuthenticator{Username: o.Username, Password: o.Password}
	}
	if o.TLS != nil {
		c.SslOpts = &gocql.SslOptions{Config: o.TLS, EnableHostVerification: !o.TLS.InsecureSkipVerify}
	}
	s, err := c.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("connect to %v: %w", hosts, err)
	}
	return s, nil
}

// loadRing builds the replica map of keyspace from the hosts and tokens
// the driver discovered.
func loadRing(s *gocql.Session, keyspace string) (*ring, error) {
	ks, err := s.KeyspaceMetadata(keyspace)
	if err != nil {
		return nil, fmt.Errorf("keyspace %s: %w", keyspace, err)
	}
	repl, err := parseReplication(ks.StrategyClass, ks.StrategyOptions)
	if err != nil {
		return nil, fmt.Errorf("keyspace %s: %w", keyspace, err)
	}
	var nodes []node
	for _, h := range s.GetHosts() {
		n := node{ID: h.HostID(), DC: h.DataCenter(), Rack: h.Rack()}
		for _, t := range h.Tokens() {
			v, err := strconv.ParseInt(t, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("host %s has token %q: only Murmur3Partitioner is supported", h.ConnectAddress(), t)
			}
			n.Tokens = append(n.Tokens, v)
		}
		nodes = append(nodes, n)
	}
	r := newRing(nodes, repl)
	r.shards, r.ignoreMSB = shard.Hosts(s.GetHosts())
	return r, nil
}

// loadTabletRing returns the ring of a table's tablets as the driver knows
// them so far, or nil when the cluster does not use tablets for it.
func loadTabletRing(s *gocql.Session, keyspace, table string) *ring {
	entries, err := s.TableTabletsMetadata(keyspace, table)
	if err != nil || len(entries) == 0 {
		return nil
	}
	ranges := make([]tokenRange, 0, len(entries))
	for _, e := range entries {
		tr := tokenRange{last: e.LastToken()}
		for _, rep := range e.ReplicasUnsafe() {
			tr.hosts = append(tr.hosts, rep.HostID())
		}
		ranges = append(ranges, tr)
	}
	r := rangeRing(ranges)
	r.shards, r.ignoreMSB = shard.Hosts(s.GetHosts())
	return r
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
