package source

import (
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// s3Env points the SDK at endpoint with test credentials, and nothing of
// the machine's configuration.
func s3Env(t *testing.T, endpoint string) {
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDTEST")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_ENDPOINT_URL", endpoint)
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_PROFILE", "")
}

// silentStore accepts connections and answers nothing, not even a TLS
// handshake; they are closed when the test ends.
func silentStore(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		conns []net.Conn
	)
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go func() { _, _ = io.Copy(io.Discard, c) }()
		}
	}()
	return ln.Addr().String()
}

// TestS3WaitsEnd: a store that refuses connections fails the listing at
// once, saying so, where the SDK's retries and the reader's hid it for
// about two minutes; one that accepts connections and never answers is
// given up within the bounds of its waits (the connect timeout for the
// dial and TLS handshake, stallAfter for the response's headers), the
// SDK's retries included.
func TestS3WaitsEnd(t *testing.T) {
	s := stallAfter
	stallAfter = 200 * time.Millisecond
	t.Cleanup(func() { stallAfter = s })
	closed := func(t *testing.T) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		return addr
	}
	for _, tc := range []struct {
		name     string
		endpoint func(t *testing.T) string
		item     string
		want     string
		// within bounds the whole expansion, retries included.
		within time.Duration
		// fast shortens the retries' backoff: a refused connection
		// must not wait for it, retries at the default pace would.
		fast bool
	}{
		{"refused, listing", func(t *testing.T) string { return "http://" + closed(t) }, "s3://bkt/data/*.csv",
			"connection refused: nothing listens at the store's endpoint", 2 * time.Second, false},
		{"refused, one object", func(t *testing.T) string { return "http://" + closed(t) }, "s3://bkt/data/a.csv",
			"connection refused: nothing listens at the store's endpoint", 2 * time.Second, false},
		{"silent, no response headers", func(t *testing.T) string { return "http://" + silentStore(t) }, "s3://bkt/data/a.csv",
			"timeout awaiting response headers", 20 * time.Second, true},
		{"silent, no TLS handshake", func(t *testing.T) string { return "https://" + silentStore(t) }, "s3://bkt/data/a.csv",
			"TLS handshake timeout", 20 * time.Second, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.fast {
				fastRetries(t)
			}
			s3Env(t, tc.endpoint(t))
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			start := time.Now()
			_, err := ExpandObjectsConfig(ctx, []string{tc.item}, nil, Config{ConnectTimeout: 200 * time.Millisecond})
			took := time.Since(start)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.item) {
				t.Errorf("error %q does not name %s and say %q", err, tc.item, tc.want)
			}
			if took > tc.within {
				t.Errorf("gave up after %v, want within %v", took, tc.within)
			}
		})
	}
}
