// Package source expands input specs that may name objects in cloud
// storage (s3://, gs://, azblob://, file://, mem://) as well as local
// files, and gives each input ranged and random access on top of the
// streaming Open of a csvparse.Source.
//
// A URL spec is scheme://bucket/key. The key may end in a glob (path.Match
// syntax; '*' does not cross '/'), matched against the keys listed under
// the part before its first metacharacter; a key ending in '/' (or no
// key) lists that "directory", not recursively. Hidden keys (a last
// segment starting with '.') are left out unless the pattern asks for
// them, as for local globs. Other specs are csvparse.Sources', unchanged.
//
// Credentials and endpoints come from each store's usual configuration:
// for S3 the AWS SDK's (AWS_REGION, AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY, AWS_PROFILE and the shared files, web identity,
// container and instance roles; AWS_ENDPOINT_URL or AWS_ENDPOINT_URL_S3
// for an S3-compatible store, addressed path-style when
// AWS_S3_USE_PATH_STYLE=true or the endpoint is an IP address or
// localhost), for GCS Application Default Credentials, for Azure the
// AZURE_STORAGE_* variables or DefaultAzureCredential. The URL
// parameters of gocloud.dev's drivers
// (s3://b/k?region=…&endpoint=…&use_path_style=true, anonymous=true,
// profile=…) override them.
//
// Reads stream, holding no more than the HTTP client's buffers; a read
// that fails on a transient error (a dropped connection, an early end,
// 5xx, throttling) resumes at the byte it reached after a backoff, and
// S3 reads are pinned to the ETag listed. Permanent errors (no such
// bucket or object, access denied) come at once, naming the URL.
package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/cqlload/cqlload/csvparse"
)

// Object is one input: the csvparse.Source (Name, Size, Open) with what
// the loader needs past a streaming read of the whole input.
type Object struct {
	csvparse.Source
	// OpenRange streams bytes [off, off+n) of the input; n < 0 reads to
	// its end. Remote reads resume where a dropped connection left
	// off. nil when the input is not seekable (stdin, a pipe).
	OpenRange func(off, n int64) (io.ReadCloser, error)
	// ReaderAt reads small pieces at any offset (a header, a few KB
	// around a split point); each ReadAt of a remote object is one
	// ranged request. Safe for concurrent use. nil when the input is not
	// seekable.
	ReaderAt io.ReaderAt
	// Version names the object's content where its store gives it one
	// (S3's ETag), as listed: every read asks for that content. Empty
	// for local files and stores without one.
	Version string
}

// Expand is ExpandObjects without the extras: the inputs as
// csvparse.Sources. Their Open of a remote object (and of a local file)
// returns a reader that is also an io.ReaderAt.
func Expand(ctx context.Context, specs []string, stdin io.Reader) ([]csvparse.Source, error) {
	objs, err := ExpandObjects(ctx, specs, stdin)
	if err != nil {
		return nil, err
	}
	out := make([]csvparse.Source, len(objs))
	for i, o := range objs {
		out[i] = o.Source
	}
	return out, nil
}

// Config holds the bounds of a remote store's network waits.
type Config struct {
	// ConnectTimeout bounds each connection to a store: the dial and
	// the TLS handshake (S3). Zero is DefaultConfig's.
	ConnectTimeout time.Duration
	// Timeout is the longest any request to a store waits for a byte:
	// its response's headers, or the next byte of a body being read.
	// A request that waits it out is made again from the byte reached,
	// unless the store has answered nothing yet: then it fails at once.
	// Zero is DefaultConfig's.
	Timeout time.Duration
}

// DefaultConfig is the Config ExpandObjects uses.
func DefaultConfig() Config {
	return Config{ConnectTimeout: 10 * time.Second, Timeout: time.Minute}
}

// orDefault is c with DefaultConfig's bounds where c has none.
func (c Config) orDefault() Config {
	d := DefaultConfig()
	if c.ConnectTimeout <= 0 {
		c.ConnectTimeout = d.ConnectTimeout
	}
	if c.Timeout <= 0 {
		c.Timeout = d.Timeout
	}
	return c
}

// ExpandObjects is ExpandObjectsConfig with DefaultConfig.
func ExpandObjects(ctx context.Context, specs []string, stdin io.Reader) ([]Object, error) {
	return ExpandObjectsConfig(ctx, specs, stdin, DefaultConfig())
}

// ExpandObjectsConfig expands specs as csvparse.Sources does, where any
// comma-separated item may also be a URL of a registered scheme (see the
// package comment). A spec with no URL in it goes to csvparse.Sources
// whole. Remote objects are named by their full URL (without the query,
// which may hold options such as endpoint=), in key order per item. ctx
// bounds the listing and every later read of the objects returned.
// Errors name the item and the cause; all of them are returned together.
func ExpandObjectsConfig(ctx context.Context, specs []string, stdin io.Reader, cfg Config) ([]Object, error) {
	var out []Object
	var errs []error
	usedStdin := false
	bs := &buckets{opened: map[string]bucket{}, cfg: cfg.orDefault()}
	local := func(specs []string) {
		for _, s := range specs {
			for _, it := range splitSpec(s) {
				if IsStdin(it) && usedStdin {
					errs = append(errs, fmt.Errorf("%s: standard input can be read only once", it))
					return
				}
			}
		}
		in := stdin
		if usedStdin {
			in = nil
		}
		srcs, err := csvparse.Sources(specs, in)
		if err != nil {
			errs = append(errs, err)
			return
		}
		for _, s := range srcs {
			if s.Size < 0 && IsStdin(s.Name) {
				usedStdin = true
			}
			out = append(out, localObject(s))
		}
	}
	for _, spec := range specs {
		if strings.Trim(spec, ", \t") == "" {
			continue // as csvparse.Sources skips empty items
		}
		items := splitSpec(spec)
		hasURL := false
		for _, it := range items {
			if IsURL(it) {
				hasURL = true
				break
			}
		}
		if !hasURL {
			local([]string{spec})
			continue
		}
		for _, it := range items {
			if !IsURL(it) {
				local([]string{it})
				continue
			}
			objs, err := expandURL(ctx, bs, it)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			out = append(out, objs...)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if len(out) == 0 {
		return nil, errors.New("no input files given")
	}
	return out, nil
}

// splitSpec splits a spec on commas as csvparse.Sources does (not when
// the whole spec names an existing local file). A comma inside a URL's
// key is written %2C.
func splitSpec(spec string) []string {
	if !strings.Contains(spec, ",") {
		return []string{strings.TrimSpace(spec)}
	}
	if _, err := os.Stat(spec); err == nil {
		return []string{spec}
	}
	var items []string
	for _, it := range strings.Split(spec, ",") {
		if it = strings.TrimSpace(it); it != "" {
			items = append(items, it)
		}
	}
	return items
}

// IsStdin says whether an input name means standard input: "-" or
// "stdin" in any case, as cqlsh and the command line name it.
func IsStdin(s string) bool {
	s = strings.TrimSpace(s)
	return s == "-" || strings.EqualFold(s, "stdin")
}

// LocalPath is the path on this machine of the input an Object names: its
// name for a local file, the path of a file:// URL (an Object's name is
// file:// and the path, as given, decoded); ok is false for an object in
// storage. An input given as a file URL is as much this machine's file
// as one given by its path: a loader's checks of its own outputs, and of
// inputs given twice, must see it.
func LocalPath(name string) (path string, ok bool) {
	if !IsURL(name) {
		return name, true
	}
	if p, ok := strings.CutPrefix(name, "file://"); ok && strings.HasPrefix(p, "/") {
		return p, true
	}
	return "", false
}

// IsURL reports whether spec is a URL this package opens: a scheme it
// knows (s3, gs, azblob, file, mem) followed by "://". A Windows drive
// letter (C:\) is not a scheme.
func IsURL(spec string) bool {
	i := strings.Index(spec, "://")
	if i < 2 {
		return false
	}
	u, err := parseURL(spec)
	if err != nil || u.Scheme == "" {
		return false
	}
	return knownScheme(u.Scheme)
}
