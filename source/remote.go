package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"sort"
	"strings"
	"sync"

	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/blob/memblob"
	"gocloud.dev/gcerrors"
)

// knownScheme reports whether a URL scheme names a bucket this package
// can open.
func knownScheme(scheme string) bool {
	switch scheme {
	case "s3", "file", "mem", "gs", "azblob":
		return true // gs and azblob even when built without them: their error says so
	}
	return blob.DefaultURLMux().ValidBucketScheme(scheme)
}

var (
	memMu      sync.Mutex
	memBuckets = map[string]*blob.Bucket{}
)

// memBucket returns the in-process bucket mem://name, the same one on
// every call (memblob's own URL opener makes a new, empty one each time).
func memBucket(name string) *blob.Bucket {
	memMu.Lock()
	defer memMu.Unlock()
	b := memBuckets[name]
	if b == nil {
		b = memblob.OpenBucket(nil)
		memBuckets[name] = b
	}
	return b
}

// place is a URL item taken apart: a bucket, the key (or pattern) in it,
// and the URL prefix that names the bucket's keys.
type place struct {
	ctx    context.Context // for the listing and every later read
	item   string          // as given, for messages
	base   string          // scheme://bucket/ (file: file:///dir/); base+key names an object
	key    string
	bucket *blob.Bucket
}

// parseURL parses a URL item whose key may hold glob metacharacters:
// a '?' starts the query only where all that follows is name=value
// pairs (endpoint=…&region=…); before it, '?' and '#' are key
// characters.
func parseURL(item string) (*url.URL, error) {
	rest, query := item, ""
	for i := 0; i < len(item); i++ {
		if item[i] == '?' && isQuery(item[i+1:]) {
			rest, query = item[:i], item[i+1:]
			break
		}
	}
	rest = strings.NewReplacer("?", "%3F", "#", "%23").Replace(rest)
	u, err := url.Parse(rest)
	if err != nil {
		return nil, err
	}
	u.RawQuery = query
	return u, nil
}

func isQuery(s string) bool {
	if s == "" {
		return false
	}
	for _, kv := range strings.Split(s, "&") {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || k == "" || strings.ContainsAny(k, "/?*[") {
			return false
		}
	}
	return true
}

// buckets holds the buckets one ExpandObjects call opened, so that the
// items of one bucket share its client (and one credentials lookup).
type buckets map[string]*blob.Bucket

func (bs buckets) open(key string, open func() (*blob.Bucket, error)) (*blob.Bucket, error) {
	if b := bs[key]; b != nil {
		return b, nil
	}
	b, err := open()
	if err == nil {
		bs[key] = b
	}
	return b, err
}

func locate(ctx context.Context, bs buckets, item string) (*place, error) {
	u, err := parseURL(item)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", item, err)
	}
	p := &place{ctx: ctx, item: item}
	if u.Scheme == "file" {
		if u.Host != "" && u.Host != "localhost" {
			return nil, fmt.Errorf("%s: a file URL names a local path (file:///path)", item)
		}
		full := u.Path
		dir := full
		switch i := strings.IndexAny(full, globMeta); {
		case i >= 0:
			dir = full[:strings.LastIndex(full[:i], "/")+1]
		case strings.HasSuffix(full, "/"):
		default:
			if fi, err := os.Stat(full); err == nil && fi.IsDir() {
				full += "/"
				dir = full
			} else {
				dir = strings.TrimSuffix(path.Dir(full), "/") + "/"
			}
		}
		if dir == "" {
			return nil, fmt.Errorf("%s: a file URL needs an absolute path (file:///path)", item)
		}
		p.key = full[len(dir):]
		p.base = "file://" + dir
		p.bucket, err = bs.open(p.base, func() (*blob.Bucket, error) { return fileblob.OpenBucket(dir, nil) })
		if err != nil {
			return nil, fail(item, err)
		}
		return p, nil
	}
	if u.Host == "" {
		return nil, fmt.Errorf("%s: no bucket name in the URL", item)
	}
	p.key = strings.TrimPrefix(u.Path, "/")
	p.base = u.Scheme + "://" + u.Host + "/"
	p.bucket, err = bs.open(p.base+"?"+u.RawQuery, func() (*blob.Bucket, error) {
		switch u.Scheme {
		case "mem":
			return memBucket(u.Host), nil
		case "s3":
			return openS3(ctx, u)
		}
		bu := *u
		bu.Path, bu.RawPath = "", ""
		return blob.OpenBucket(ctx, bu.String())
	})
	if err != nil {
		return nil, fail(item, err)
	}
	return p, nil
}

const globMeta = `*?[\`

// expandURL lists the objects a URL item names.
func expandURL(ctx context.Context, bs buckets, item string) ([]Object, error) {
	p, err := locate(ctx, bs, item)
	if err != nil {
		return nil, err
	}
	key := p.key
	if i := strings.IndexAny(key, globMeta); i >= 0 {
		if _, err := path.Match(key, ""); err != nil {
			return nil, fmt.Errorf("%s: %w", item, err)
		}
		recursive := strings.Contains(key[i:], "/")
		hiddenOK := strings.HasPrefix(path.Base(key), ".")
		objs, err := p.list(ctx, key[:i], recursive, func(k string) bool {
			ok, _ := path.Match(key, k)
			return ok && (hiddenOK || !hidden(k))
		})
		if err != nil {
			return nil, err
		}
		if len(objs) == 0 {
			return nil, fmt.Errorf("%s: no object matches", item)
		}
		return objs, nil
	}
	if key == "" || strings.HasSuffix(key, "/") {
		objs, err := p.listDir(ctx, key)
		if err != nil {
			return nil, err
		}
		if len(objs) == 0 {
			return nil, fmt.Errorf("%s: no objects under this prefix", item)
		}
		return objs, nil
	}
	attrs, err := p.bucket.Attributes(ctx, key)
	if err == nil {
		return []Object{p.object(key, attrs.Size, headETag(attrs))}, nil
	}
	if gcerrors.Code(err) != gcerrors.NotFound {
		return nil, fail(item, err)
	}
	// Perhaps a "directory", as a local one may be named without its
	// slash; the listing also tells a missing bucket from a missing key,
	// which a HEAD's bodiless 404 does not.
	objs, lerr := p.listDir(ctx, key+"/")
	if lerr != nil {
		return nil, lerr
	}
	if len(objs) > 0 {
		return objs, nil
	}
	return nil, fail(item, err)
}

func (p *place) listDir(ctx context.Context, prefix string) ([]Object, error) {
	return p.list(ctx, prefix, false, func(k string) bool { return !hidden(k) })
}

// list returns the objects under prefix (not in "subdirectories" unless
// recursive) whose keys keep says to keep, sorted by key.
func (p *place) list(ctx context.Context, prefix string, recursive bool, keep func(string) bool) ([]Object, error) {
	opts := &blob.ListOptions{Prefix: prefix}
	if !recursive {
		opts.Delimiter = "/"
	}
	var out []Object
	it := p.bucket.List(opts)
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fail(p.item, err)
		}
		if obj.IsDir || strings.HasSuffix(obj.Key, "/") || !keep(obj.Key) {
			continue // a common prefix, or a folder marker
		}
		out = append(out, p.object(obj.Key, obj.Size, listedETag(obj)))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// hidden reports whether a key's last segment starts with a dot.
func hidden(key string) bool {
	return strings.HasPrefix(path.Base(key), ".")
}
