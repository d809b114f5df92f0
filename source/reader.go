package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/cqlload/cqlload/csvparse"
)

// Retries of a read that failed on a transient error: the n-th waits
// retryBase·2^(n-1) (with jitter), at most retryMax, and a read gives up
// after retryTries failures in a row or retryFor since the first of
// them; any bytes read in between start the count over.
var (
	retryBase  = 100 * time.Millisecond
	retryMax   = 5 * time.Second
	retryTries = 8
	retryFor   = time.Minute
)

// stallGuard cancels a request that makes no progress for d (the
// store's Config.Timeout): no headers, or no byte for a read waiting on
// its body. The request is then made again from the byte reached, as a
// dropped connection is. A connection that stays open and sends nothing
// (a stuck proxy, a half-dead peer) hung a load for ever: neither the
// SDK's client nor the store ends it.
type stallGuard struct {
	d      time.Duration
	t      *time.Timer
	cancel context.CancelFunc
	fired  atomic.Bool
}

func newStallGuard(d time.Duration, cancel context.CancelFunc) *stallGuard {
	g := &stallGuard{d: d, cancel: cancel}
	g.t = time.AfterFunc(d, func() {
		g.fired.Store(true)
		cancel()
	})
	return g
}

// watch starts the wait for a byte, and pause ends it: only a read in
// progress waits. A reader that stops reading for a while (its loader
// held back by a slow cluster) does not stall the request.
func (g *stallGuard) watch() { g.t.Reset(g.d) }
func (g *stallGuard) pause() { g.t.Stop() }

// explain turns the error of a request the guard canceled into a
// transient one, naming the stall.
func (g *stallGuard) explain(err error) error {
	if err != nil && g.fired.Load() {
		return fmt.Errorf("%w for %v (--store-timeout): the request was given up", errStalled, g.d)
	}
	return err
}

func (g *stallGuard) stop() {
	g.t.Stop()
	g.cancel()
}

// guardedBody is a response body watched by its request's stallGuard.
type guardedBody struct {
	io.ReadCloser
	g *stallGuard
}

func (b *guardedBody) Read(p []byte) (int, error) {
	b.g.watch()
	n, err := b.ReadCloser.Read(p)
	b.g.pause()
	return n, b.g.explain(err)
}

func (b *guardedBody) Close() error {
	b.g.stop()
	return b.ReadCloser.Close()
}

// remote is one object in a bucket.
type remote struct {
	ctx  context.Context
	b    bucket
	key  string
	name string // full URL, for messages
	size int64  // as listed
	etag string // as listed, when the store gives one: every read asks for that version
	// stall is the longest a request waits for a byte (Config.Timeout).
	stall time.Duration
}

func (p *place) object(o listed) Object {
	r := &remote{ctx: p.ctx, b: p.bucket, key: o.key, name: p.base + o.key, size: o.size, etag: o.etag, stall: p.stall}
	return Object{
		Source: csvparse.Source{Name: r.name, Size: o.size, Open: func() (io.ReadCloser, error) {
			return r.openRange(0, -1)
		}},
		OpenRange: r.openRange,
		ReaderAt:  r,
		Version:   o.etag,
	}
}

// openRange streams [off, off+n) (n < 0: to the end), opening the first
// request at once so that a missing object or a denied read is an error
// here rather than at the first Read.
func (r *remote) openRange(off, n int64) (io.ReadCloser, error) {
	if off < 0 || off > r.size {
		return nil, fmt.Errorf("%s: range offset %d outside the object's %d bytes", r.name, off, r.size)
	}
	end := r.size
	if n >= 0 && off+n < end {
		end = off + n
	}
	rr := &rangeReader{r: r, pos: off, end: end}
	if end > off {
		if err := rr.reopen(); err != nil {
			return nil, err
		}
	}
	return rr, nil
}

// ReadAt reads len(p) bytes at off with one ranged request (retried like
// a stream), io.EOF when the object ends first.
func (r *remote) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("%s: negative offset %d", r.name, off)
	}
	if off >= r.size {
		return 0, io.EOF
	}
	n := int64(len(p))
	if off+n > r.size {
		n = r.size - off
	}
	rr := &rangeReader{r: r, pos: off, end: off + n}
	defer rr.Close()
	m, err := io.ReadFull(rr, p[:n])
	if err != nil {
		return m, err
	}
	if int(n) < len(p) {
		return m, io.EOF
	}
	return m, nil
}

// rangeReader streams [pos, end) of an object, reopening at pos after a
// transient error, so a dropped connection neither loses nor repeats a
// byte. It holds no buffer of its own.
type rangeReader struct {
	r        *remote
	pos, end int64
	body     io.ReadCloser
	err      error     // sticky: a permanent error, or the last after the retries ran out
	fails    int       // transient failures in a row
	first    time.Time // of the first of them
	lastErr  error
	closed   bool
}

func (rr *rangeReader) Read(p []byte) (int, error) {
	for {
		switch {
		case rr.closed:
			return 0, errClosed
		case rr.err != nil:
			return 0, rr.err
		case rr.pos >= rr.end:
			rr.closeBody()
			return 0, io.EOF
		}
		if rr.body == nil {
			if err := rr.reopen(); err != nil {
				return 0, err
			}
		}
		if int64(len(p)) > rr.end-rr.pos {
			p = p[:rr.end-rr.pos]
		}
		n, err := rr.body.Read(p)
		rr.pos += int64(n)
		if n > 0 {
			rr.fails = 0
		}
		if err == nil || err == io.EOF && rr.pos >= rr.end {
			if n > 0 || err == nil {
				return n, nil
			}
			continue
		}
		rr.closeBody()
		if err == io.EOF {
			err = fmt.Errorf("connection ended at byte %d of %d: %w", rr.pos, rr.end, io.ErrUnexpectedEOF)
		}
		if !rr.transient(err) {
			rr.err = rr.r.fail(err)
			return n, rr.err
		}
		rr.noteFailure(err)
		if n > 0 {
			return n, nil
		}
	}
}

// ReadAt makes the stream of a whole object an io.ReaderAt too, as an
// *os.File is (the loader looks for one to peek at a gzip trailer).
func (rr *rangeReader) ReadAt(p []byte, off int64) (int, error) {
	return rr.r.ReadAt(p, off)
}

func (rr *rangeReader) Close() error {
	rr.closed = true
	rr.closeBody()
	return nil
}

func (rr *rangeReader) closeBody() {
	if rr.body != nil {
		_ = rr.body.Close()
		rr.body = nil
	}
}

func (rr *rangeReader) noteFailure(err error) {
	if rr.fails == 0 {
		rr.first = time.Now()
	}
	rr.fails++
	rr.lastErr = err
}

// reopen requests [pos, end), waiting out the backoff of the failures so
// far and retrying transient errors, until it has a body or gives up.
func (rr *rangeReader) reopen() error {
	ctx := rr.r.ctx
	for {
		if rr.fails > 0 {
			if rr.fails >= retryTries || time.Since(rr.first) > retryFor {
				rr.err = fmt.Errorf("%s: gave up at byte %d after %d attempts in %v: %w",
					rr.r.name, rr.pos, rr.fails, time.Since(rr.first).Round(time.Millisecond), describe(rr.lastErr, rr.r.b.kind(rr.lastErr)))
				return rr.err
			}
			d := retryBase << (rr.fails - 1)
			if d > retryMax || d <= 0 {
				d = retryMax
			}
			d = d/2 + rand.N(d/2+1) // jitter, so that many readers dropped at once do not return at once
			t := time.NewTimer(d)
			select {
			case <-ctx.Done():
				t.Stop()
				rr.err = fmt.Errorf("%s: %w", rr.r.name, ctx.Err())
				return rr.err
			case <-t.C:
			}
		}
		reqCtx, cancel := context.WithCancel(ctx)
		g := newStallGuard(rr.r.stall, cancel)
		body, got, err := rr.r.b.openRange(reqCtx, rr.r.key, rr.pos, rr.end-rr.pos, rr.r.etag)
		if err != nil {
			g.stop()
			err = g.explain(err)
		} else {
			g.pause()
			body = &guardedBody{ReadCloser: body, g: g}
		}
		if err == nil {
			if got != rr.r.size {
				_ = body.Close()
				rr.err = fmt.Errorf("%s: object changed while being read (%d bytes when listed, now %d)", rr.r.name, rr.r.size, got)
				return rr.err
			}
			rr.body = body
			return nil
		}
		if !rr.transient(err) {
			rr.err = rr.r.fail(err)
			return rr.err
		}
		rr.noteFailure(err)
	}
}

// transient reports whether err may go away on a retry: not when the
// read was canceled, nor for a missing object or bucket, a denied
// access, a bad request; yes for the rest (connection resets, early
// ends, 5xx, throttling).
func (rr *rangeReader) transient(err error) bool {
	if rr.r.ctx.Err() != nil || errors.Is(err, context.Canceled) {
		return false
	}
	return !rr.r.b.kind(err).permanent()
}

// fail names the object's URL and the cause of a failed read.
func (r *remote) fail(err error) error {
	return fmt.Errorf("%s: %w", r.name, describe(err, r.b.kind(err)))
}

// fail names the item and the cause of a failed listing or stat.
func (p *place) fail(err error) error {
	return fmt.Errorf("%s: %w", p.item, describe(err, p.bucket.kind(err)))
}

// errorCode is the store's code for err (NoSuchBucket, AccessDenied, …),
// or "" when its answer had none.
func errorCode(err error) string {
	var api interface{ ErrorCode() string }
	if errors.As(err, &api) {
		return api.ErrorCode()
	}
	return ""
}

// describe puts the cause of err, of kind k, in words: no such bucket,
// no such object, access denied, …
func describe(err error, k errKind) error {
	code := errorCode(err)
	var status interface{ HTTPStatusCode() int }
	httpStatus := 0
	if errors.As(err, &status) {
		httpStatus = status.HTTPStatusCode()
	}
	var se *silentError
	if k == errSilent && errors.As(err, &se) {
		// Its own words say it all; the SDK's wrapping adds only
		// noise (attempts, an empty request ID).
		return se
	}
	var cause string
	switch {
	case code == "NoSuchBucket":
		cause = "no such bucket"
	case code == "NoSuchKey":
		cause = "no such object"
	case code == "PermanentRedirect" || httpStatus == 301 || code == "AuthorizationHeaderMalformed":
		cause = "the bucket is in another region (set AWS_REGION or region=)"
	case code == "PreconditionFailed" || k == errChanged:
		cause = "object changed since it was listed"
	case code == "InvalidAccessKeyId" || code == "SignatureDoesNotMatch":
		cause = "credentials rejected"
	case k == errRefused:
		cause = "connection refused: nothing listens at the store's endpoint (check endpoint= or AWS_ENDPOINT_URL)"
	case k == errCredentials:
		cause = "no credentials (the environment, the profile's files, web identity and an instance role gave none)"
	case k == errNotFound:
		cause = "not found"
	case k == errDenied:
		cause = "access denied"
	default:
		return err
	}
	return &causeError{cause: cause, err: err}
}
