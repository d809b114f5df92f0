package source

import (
	"bytes"
	"context"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cqlload/cqlload/internal/nettest"
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

// TestS3WaitsEnd: a store that has answered nothing fails the listing at
// once, saying so, whether it refuses connections or accepts them and
// then says nothing past a bound (the connect timeout for the TLS
// handshake, the store timeout for the response's headers); the SDK's
// retries and the reader's hid it for minutes. The retries here keep
// their default pace: ending within the bound shows there were none,
// and so does the one connection a silent store sees.
func TestS3WaitsEnd(t *testing.T) {
	cfg := Config{ConnectTimeout: 200 * time.Millisecond, Timeout: 300 * time.Millisecond}
	closed := func(t *testing.T) (string, func() int) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		return addr, nil
	}
	for _, tc := range []struct {
		name   string
		store  func(t *testing.T) (string, func() int)
		scheme string
		item   string
		want   []string // besides the item and the store's host:port
	}{
		{"refused, listing", closed, "http", "s3://bkt/data/*.csv",
			[]string{"connection refused: nothing listens at the store's endpoint"}},
		{"refused, one object", closed, "http", "s3://bkt/data/a.csv",
			[]string{"connection refused: nothing listens at the store's endpoint"}},
		{"silent, no response headers, one object", silentStore, "http", "s3://bkt/data/a.csv",
			[]string{"answered nothing: no response within 300ms (--store-timeout)", "timeout awaiting response headers"}},
		{"silent, no response headers, listing", silentStore, "http", "s3://bkt/data/*.csv",
			[]string{"answered nothing: no response within 300ms (--store-timeout)"}},
		{"silent, no TLS handshake", silentStore, "https", "s3://bkt/data/a.csv",
			[]string{"answered nothing: no TLS handshake within 200ms (--store-connect-timeout)", "TLS handshake timeout"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr, accepted := tc.store(t)
			s3Env(t, tc.scheme+"://"+addr)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			start := time.Now()
			_, err := ExpandObjectsConfig(ctx, []string{tc.item}, nil, cfg)
			took := time.Since(start)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range append(tc.want, tc.item, addr) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if max(cfg.Timeout, cfg.ConnectTimeout)+time.Second < took {
				t.Errorf("gave up after %v: retried", took)
			}
			if accepted != nil && accepted() != 1 {
				t.Errorf("the store saw %d connections, want the one: retried", accepted())
			}
		})
	}
}

// TestS3StallAfterAnswer: a store that answered the listing and then
// stalls a read (no headers, or no byte of the body) is live: the read
// is made again from the byte reached, as before, and gives up only when
// the reader's retries run out, naming the stall.
func TestS3StallAfterAnswer(t *testing.T) {
	fastRetries(t)
	f := newFakeS3(t)
	f.bucket("bkt")
	data := payload(9, 300000)
	f.put("bkt", "s.csv", data)
	const stall = 200 * time.Millisecond
	objs, err := ExpandObjectsConfig(context.Background(), []string{"s3://bkt/s.csv"}, nil, Config{Timeout: stall})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		stalls []int64
		ranges int    // GETs made, the stalled ones included
		err    string // "": the whole object read
	}{
		{"no headers", []int64{0}, 2, ""},
		{"body stops", []int64{70000}, 2, ""},
		{"both, in turn", []int64{70000, 0, 100000}, 4, ""},
		{"silent ever after", slices.Repeat([]int64{0}, retryTries), retryTries, "gave up at byte 0 after 8 attempts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f.mu.Lock()
			f.stalls = tc.stalls
			f.mu.Unlock()
			before := len(f.ranges("/bkt/s.csv"))
			got, err := readRange(objs[0], 0, -1)
			switch {
			case tc.err == "" && (err != nil || !bytes.Equal(got, data)):
				t.Fatalf("%d bytes read (%v), want the %d exact", len(got), err, len(data))
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "no byte received")):
				t.Fatalf("err %v, want %q naming the stall", err, tc.err)
			}
			if n := len(f.ranges("/bkt/s.csv")) - before; n != tc.ranges {
				t.Errorf("%d GETs, want %d", n, tc.ranges)
			}
		})
	}
}

// silentStore accepts connections and answers nothing, not even a TLS
// handshake. accepted counts them.
func silentStore(t *testing.T) (addr string, accepted func() int) {
	return nettest.Silent(t, nil)
}
