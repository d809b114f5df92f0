package source

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
)

// waitClient sends one store client's requests and decides what a wait
// that ran out means. Until the store has answered a request (any
// status: a 503 is an answer), a request whose connection, TLS handshake
// or response headers did not come within their bounds fails with a
// *silentError, which nothing retries: a store that has said nothing at
// all is a wrong endpoint or a dead one, and retrying it (the SDK's
// attempts, the reader's) held a run for minutes without a word. Once
// the store has answered, the same timeout is a stall of a live store
// and is retried as before. The bounds themselves are the transport's
// (see openS3).
type waitClient struct {
	next interface {
		Do(*http.Request) (*http.Response, error)
	}
	cfg      Config
	answered atomic.Bool
}

func (c *waitClient) Do(req *http.Request) (*http.Response, error) {
	if c.answered.Load() {
		return c.next.Do(req)
	}
	// Which wait ran out: the connection's (no connection yet) or the
	// response's (a connection, no headers).
	var tlsStarted, gotConn atomic.Bool
	ctx := httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		TLSHandshakeStart: func() { tlsStarted.Store(true) },
		GotConn:           func(httptrace.GotConnInfo) { gotConn.Store(true) },
	})
	resp, err := c.next.Do(req.WithContext(ctx))
	if err == nil {
		c.answered.Store(true)
		return resp, nil
	}
	var ne net.Error
	if c.answered.Load() || req.Context().Err() != nil || !errors.As(err, &ne) || !ne.Timeout() {
		// Answered meanwhile, canceled by the caller (a context's
		// deadline is a timeout too), or no wait that ran out.
		return nil, err
	}
	se := &silentError{host: hostPort(req), wait: "response", limit: c.cfg.Timeout, option: "--store-timeout", err: err}
	switch {
	case gotConn.Load():
	case tlsStarted.Load():
		se.wait, se.limit, se.option = "TLS handshake", c.cfg.ConnectTimeout, "--store-connect-timeout"
	default:
		se.wait, se.limit, se.option = "connection", c.cfg.ConnectTimeout, "--store-connect-timeout"
	}
	return nil, se
}

// hostPort is the address a request goes to, with the scheme's port
// when its URL has none.
func hostPort(req *http.Request) string {
	port := req.URL.Port()
	if port == "" {
		port = "443"
		if req.URL.Scheme == "http" {
			port = "80"
		}
	}
	return net.JoinHostPort(req.URL.Hostname(), port)
}
