package source

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
)

// bucket is what this package needs of a store: a listing, one object's
// size, and ranged reads. S3 (s3.go) and local directories (file://)
// are built in; mem:// is an in-process store for tests and examples;
// gs:// and azblob:// come through gocloud.dev in builds with -tags gcs
// or azure (driver_gocloud.go).
//
// S3 is not reached through gocloud.dev/blob in the default build,
// although it would serve S3 and file:// alike: its core imports gRPC and
// OpenTelemetry, whose initialisation and globals every load would pay
// for in peak RSS and binary size, S3 or not (the figures are in
// docs/benchmarks.md).
type bucket interface {
	// list returns the objects whose keys start with prefix, in any
	// order; unless recursive, not those with a '/' after the prefix.
	// Folder markers (keys ending in '/') may be among them.
	list(ctx context.Context, prefix string, recursive bool) ([]listed, error)
	// stat returns one object's size and version tag ("" when the store
	// has none); an error of kind errNotFound when there is no such
	// object.
	stat(ctx context.Context, key string) (listed, error)
	// openRange streams n > 0 bytes of key from off. A version tag other
	// than "" makes the read fail with errChanged when the object is no
	// longer that version. size is the object's whole size now.
	openRange(ctx context.Context, key string, off, n int64, etag string) (body io.ReadCloser, size int64, err error)
	// kind says what an error of this bucket's means.
	kind(err error) errKind
}

// listed is an object as a listing or stat gives it.
type listed struct {
	key  string
	size int64
	etag string
}

// dirBucket is file:///dir/: keys are slash-separated paths below dir.
type dirBucket struct{ dir string }

func (d dirBucket) path(key string) string { return filepath.Join(d.dir, filepath.FromSlash(key)) }

func (d dirBucket) list(ctx context.Context, prefix string, recursive bool) ([]listed, error) {
	// Walk only the directory the prefix names, not the whole tree.
	root := prefix[:strings.LastIndex(prefix, "/")+1]
	var out []listed
	err := filepath.WalkDir(d.path(root), func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == d.path(root) {
				return fs.SkipAll // nothing there: an empty listing
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, _ := filepath.Rel(d.dir, p)
		key := filepath.ToSlash(rel)
		if e.IsDir() {
			if p != d.path(root) && !recursive {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasPrefix(key, prefix) {
			return nil
		}
		// Follows a symlink, as opening it will; a device, socket or
		// pipe is no object.
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() {
			return nil
		}
		out = append(out, listed{key: key, size: fi.Size()})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (d dirBucket) stat(_ context.Context, key string) (listed, error) {
	fi, err := os.Stat(d.path(key))
	if err != nil {
		return listed{}, err
	}
	if !fi.Mode().IsRegular() {
		return listed{}, &fs.PathError{Op: "open", Path: d.path(key), Err: fs.ErrNotExist}
	}
	return listed{key: key, size: fi.Size()}, nil
}

func (d dirBucket) openRange(_ context.Context, key string, off, n int64, _ string) (io.ReadCloser, int64, error) {
	f, err := os.Open(d.path(key))
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return struct {
		io.Reader
		io.Closer
	}{io.NewSectionReader(f, off, n), f}, fi.Size(), nil
}

func (dirBucket) kind(err error) errKind {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errNotFound
	case errors.Is(err, fs.ErrPermission):
		return errDenied
	}
	return errOther
}

// memBucket is mem://name: objects in this process's memory, the same
// for every URL naming the bucket. For tests and examples.
type memBucket struct {
	mu      sync.Mutex
	objects map[string][]byte
}

var (
	memMu      sync.Mutex
	memBuckets = map[string]*memBucket{}
)

// memStore returns the bucket mem://name.
func memStore(name string) *memBucket {
	memMu.Lock()
	defer memMu.Unlock()
	b := memBuckets[name]
	if b == nil {
		b = &memBucket{objects: map[string][]byte{}}
		memBuckets[name] = b
	}
	return b
}

// put stores data as key, replacing what was there.
func (m *memBucket) put(key string, data []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.objects[key] = bytes.Clone(data)
}

func (m *memBucket) list(_ context.Context, prefix string, recursive bool) ([]listed, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []listed
	for k, v := range m.objects {
		if strings.HasPrefix(k, prefix) && (recursive || !strings.Contains(k[len(prefix):], "/")) {
			out = append(out, listed{key: k, size: int64(len(v))})
		}
	}
	return out, nil
}

func (m *memBucket) stat(_ context.Context, key string) (listed, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.objects[key]
	if !ok {
		return listed{}, errNoObject
	}
	return listed{key: key, size: int64(len(v))}, nil
}

func (m *memBucket) openRange(_ context.Context, key string, off, n int64, _ string) (io.ReadCloser, int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.objects[key]
	if !ok {
		return nil, 0, errNoObject
	}
	end := min(off+n, int64(len(v)))
	off = min(off, end)
	return io.NopCloser(bytes.NewReader(v[off:end])), int64(len(v)), nil
}

func (*memBucket) kind(err error) errKind {
	if errors.Is(err, errNoObject) {
		return errNotFound
	}
	return errOther
}

// hidden reports whether a key's last segment starts with a dot.
func hidden(key string) bool {
	return strings.HasPrefix(path.Base(key), ".")
}
