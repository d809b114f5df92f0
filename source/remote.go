package source

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path"
	"sort"
	"strings"
	"time"
)

// knownScheme reports whether a URL scheme names a bucket this package
// can open.
func knownScheme(scheme string) bool {
	switch scheme {
	case "s3", "file", "mem", "gs", "azblob":
		return true // gs and azblob even when built without them: their error says so
	}
	return false
}

// place is a URL item taken apart: a bucket, the key (or pattern) in it,
// and the URL prefix that names the bucket's keys.
type place struct {
	ctx    context.Context // for the listing and every later read
	stall  time.Duration   // Config.Timeout: a read's longest wait for a byte
	item   string          // as given, for messages
	base   string          // scheme://bucket/ (file: file:///dir/); base+key names an object
	key    string
	bucket bucket
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
// cfg bounds their clients' waits.
type buckets struct {
	opened map[string]bucket
	cfg    Config
}

func (bs *buckets) open(key string, open func() (bucket, error)) (bucket, error) {
	if b := bs.opened[key]; b != nil {
		return b, nil
	}
	b, err := open()
	if err == nil {
		bs.opened[key] = b
	}
	return b, err
}

func locate(ctx context.Context, bs *buckets, item string) (*place, error) {
	u, err := parseURL(item)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", item, err)
	}
	p := &place{ctx: ctx, item: item, stall: bs.cfg.Timeout}
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
		p.bucket, _ = bs.open(p.base, func() (bucket, error) { return dirBucket{dir: dir}, nil })
		return p, nil
	}
	if u.Host == "" {
		return nil, fmt.Errorf("%s: no bucket name in the URL", item)
	}
	p.key = strings.TrimPrefix(u.Path, "/")
	p.base = u.Scheme + "://" + u.Host + "/"
	p.bucket, err = bs.open(p.base+"?"+u.RawQuery, func() (bucket, error) {
		switch u.Scheme {
		case "mem":
			return memStore(u.Host), nil
		case "s3":
			return openS3(ctx, u, bs.cfg)
		}
		bu := *u
		bu.Path, bu.RawPath = "", ""
		return openGocloud(ctx, &bu, bs.cfg)
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", item, err)
	}
	return p, nil
}

const globMeta = `*?[\`

// expandURL lists the objects a URL item names.
func expandURL(ctx context.Context, bs *buckets, item string) ([]Object, error) {
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
	obj, err := p.bucket.stat(ctx, key)
	if err == nil {
		return []Object{p.object(obj)}, nil
	}
	if p.bucket.kind(err) == errDenied {
		// A HEAD's 403 has no body to tell rejected credentials from a
		// denied object (the SDK calls it "Forbidden"); a listing's has.
		if _, lerr := p.bucket.list(ctx, key, false); lerr != nil {
			if c := errorCode(lerr); c != "" && c != "AccessDenied" && c != "Forbidden" {
				return nil, p.fail(lerr)
			}
		}
	}
	if p.bucket.kind(err) != errNotFound {
		return nil, p.fail(err)
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
	return nil, p.fail(err)
}

func (p *place) listDir(ctx context.Context, prefix string) ([]Object, error) {
	return p.list(ctx, prefix, false, func(k string) bool { return !hidden(k) })
}

// list returns the objects under prefix (not in "subdirectories" unless
// recursive) whose keys keep says to keep, sorted by key.
func (p *place) list(ctx context.Context, prefix string, recursive bool, keep func(string) bool) ([]Object, error) {
	objs, err := p.bucket.list(ctx, prefix, recursive)
	if err != nil {
		return nil, p.fail(err)
	}
	var out []Object
	for _, o := range objs {
		if !strings.HasSuffix(o.key, "/") && keep(o.key) { // not a folder marker
			obj := p.object(o)
			obj.Listed = true
			out = append(out, obj)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
