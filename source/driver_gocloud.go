//go:build gcs || azure

package source

import (
	"context"
	"errors"
	"io"
	"net/url"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// openGocloud opens gs:// and azblob:// buckets through gocloud.dev/blob
// (the drivers are registered by driver_gcs.go and driver_azure.go).
func openGocloud(ctx context.Context, u *url.URL) (bucket, error) {
	b, err := blob.OpenBucket(ctx, u.String())
	if err != nil {
		return nil, err
	}
	return gocloudBucket{b}, nil
}

// gocloudBucket is a bucket of gocloud.dev/blob.
type gocloudBucket struct{ b *blob.Bucket }

func (g gocloudBucket) list(ctx context.Context, prefix string, recursive bool) ([]listed, error) {
	opts := &blob.ListOptions{Prefix: prefix}
	if !recursive {
		opts.Delimiter = "/"
	}
	var out []listed
	for it := g.b.List(opts); ; {
		obj, err := it.Next(ctx)
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
	a, err := g.b.Attributes(ctx, key)
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
