package loader

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/gocql/gocql"
)

// tlsDialer connects to the nodes over TLS for the driver, which would
// otherwise do the handshake itself with no deadline of its own (a port
// that accepts connections and never answers held cqlload for ever) and
// verify each node's certificate against the address it dialed (so that
// --hosts localhost with a certificate for localhost failed).
//
// Each handshake is bounded by the connect timeout, as the dial is. Each
// node's certificate is checked against one name:
//   - the Options' TLS ServerName (--ssl-server-name) when set, for every
//     node;
//   - else, for a node whose address a contact point resolved to, that
//     contact point as the user gave it (a host name or an address), as
//     cqlsh checks the host it is given;
//   - else (a node the driver discovered, known only by its address), the
//     address, as the DataStax drivers check discovered peers.
//
// It dials the nodes' regular port only: ScyllaDB's shard-aware port is
// for the driver's own dialer, and without it the driver fills each
// node's pool by dialing until every shard has its connections.
type tlsDialer struct {
	timeout time.Duration
	config  *tls.Config
	// names maps a contact point's resolved addresses to the name the
	// user gave for it.
	names map[string]string
}

// newTLSDialer resolves the contact points' names within timeout; a name
// that does not resolve is left to the driver to report.
func newTLSDialer(ctx context.Context, config *tls.Config, hosts []string, timeout time.Duration) *tlsDialer {
	d := &tlsDialer{timeout: timeout, config: config, names: map[string]string{}}
	if config.ServerName != "" {
		return d
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for _, hp := range hosts {
		h, _, err := net.SplitHostPort(hp)
		if err != nil {
			h = hp
		}
		if ip := net.ParseIP(h); ip != nil {
			d.names[ip.String()] = ip.String()
			continue
		}
		ips, err := net.DefaultResolver.LookupIP(ctx, "ip", h)
		if err != nil {
			continue
		}
		for _, ip := range ips {
			if _, taken := d.names[ip.String()]; !taken {
				d.names[ip.String()] = h
			}
		}
	}
	return d
}

// serverName is the name host's certificate is checked against.
func (d *tlsDialer) serverName(ip net.IP) string {
	if d.config.ServerName != "" {
		return d.config.ServerName
	}
	if name, ok := d.names[ip.String()]; ok {
		return name
	}
	return ip.String()
}

func (d *tlsDialer) DialHost(ctx context.Context, host *gocql.HostInfo) (*gocql.DialedHost, error) {
	ip := host.ConnectAddress()
	addr := net.JoinHostPort(ip.String(), strconv.Itoa(host.Port()))
	nd := net.Dialer{Timeout: d.timeout}
	nc, err := nd.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	cfg := d.config.Clone()
	cfg.ServerName = d.serverName(ip)
	hctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	tc := tls.Client(nc, cfg)
	if err := tc.HandshakeContext(hctx); err != nil {
		nc.Close()
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			return nil, &handshakeTimeoutError{host: addr, timeout: d.timeout}
		}
		var verify *tls.CertificateVerificationError
		if errors.As(err, &verify) {
			return nil, &nameMismatchError{host: addr, name: cfg.ServerName, err: verify}
		}
		return nil, err
	}
	// A TLS connection cannot take the driver's gathered writes
	// (writev) anyway; as with the driver's own TLS, it writes each
	// frame at once.
	return &gocql.DialedHost{Conn: tc, DisableCoalesce: true}, nil
}

// certNames lists the names a certificate is valid for, as x509 matches
// them: its DNS names and addresses, or its common name when it has none.
func certNames(c *x509.Certificate) string {
	var names []string
	for _, n := range c.DNSNames {
		names = append(names, "DNS:"+n)
	}
	for _, ip := range c.IPAddresses {
		names = append(names, "IP:"+ip.String())
	}
	if len(names) == 0 {
		if c.Subject.CommonName == "" {
			return "no name"
		}
		return "CN=" + c.Subject.CommonName + " (a common name alone, which is not checked: the certificate needs a DNS or IP subject alternative name)"
	}
	return strings.Join(names, ", ")
}
