//go:build gcs || azure

package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// openGocloud opens gs:// and azblob:// buckets through gocloud.dev/blob
// (the drivers are registered by driver_gcs.go and driver_azure.go).
// Their HTTP clients are built inside the drivers (GCS's on
// http.DefaultTransport, Azure's by azcore), out of reach of
// cfg.ConnectTimeout; cfg.Timeout bounds each listing page and each
// stat whole, the drivers' own retries included, and a read's wait for a
// byte through the reader's stall guard.
func openGocloud(ctx context.Context, u *url.URL, cfg Config) (bucket, error) {
	b, err := blob.OpenBucket(ctx, u.String())
	if err != nil {
		return nil, err
	}
	return gocloudBucket{b: b, timeout: cfg.Timeout}, nil
}

// gocloudBucket is a bucket of gocloud.dev/blob.
type gocloudBucket struct {
	b       *blob.Bucket
	timeout time.Duration
}

// bounded runs one request with ctx bounded by g.timeout, naming the
// bound when it ran out (and not ctx).
func (g gocloudBucket) bounded(ctx context.Context, req func(context.Context) error) error {
	rctx, cancel := context.WithTimeout(ctx, g.timeout)
	defer cancel()
	err := req(rctx)
	if err != nil && ctx.Err() == nil && errors.Is(rctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("no answer within %v (--store-timeout): %w", g.timeout, err)
	}
	return err
}

func (g gocloudBucket) list(ctx context.Context, prefix string, recursive bool) ([]listed, error) {
	opts := &blob.ListOptions{Prefix: prefix}
	if !recursive {
		opts.Delimiter = "/"
	}
	var out []listed
	for it := g.b.List(opts); ; {
		var obj *blob.ListObject
		err := g.bounded(ctx, func(ctx context.Context) (err error) {
			obj, err = it.Next(ctx)
			return err
		})
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if !obj.IsDir {
			out = append(out, listed{key: obj.Key, size: obj.Size})
		}
	}
}

func (g gocloudBucket) stat(ctx context.Context, key string) (listed, error) {
	var a *blob.Attributes
	err := g.bounded(ctx, func(ctx context.Context) (err error) {
		a, err = g.b.Attributes(ctx, key)
		return err
	})
	if err != nil {
		return listed{}, err
	}
	return listed{key: key, size: a.Size}, nil
}

func (g gocloudBucket) openRange(ctx context.Context, key string, off, n int64, _ string) (io.ReadCloser, int64, error) {
	r, err := g.b.NewRangeReader(ctx, key, off, n, nil)
	if err != nil {
		return nil, 0, err
	}
	return r, r.Size(), nil
}

func (gocloudBucket) kind(err error) errKind {
	switch gcerrors.Code(err) {
	case gcerrors.NotFound:
		return errNotFound
	case gcerrors.PermissionDenied:
		return errDenied
	case gcerrors.FailedPrecondition:
		return errChanged
	case gcerrors.InvalidArgument, gcerrors.Unimplemented, gcerrors.AlreadyExists, gcerrors.Canceled:
		return errInvalid
	}
	return errOther
}
