// Package redact keeps secrets out of what a run prints and writes:
// messages, log lines, the summary, the error files' log and the
// checkpoint. An object-store URL may carry a password in an endpoint
// (s3://bucket/key?endpoint=http://user:PASS@host:9000), and the password
// given to the run (-p, a file, the environment) may come back in a
// driver's message; either was printed as it was.
//
// A Redactor masks two things: the password of every URL's user
// information, wherever it stands in the text (raw or percent-encoded, as
// in a query parameter's value), and each secret it was given, in the
// forms in which messages and files spell it (as written, percent-encoded,
// quoted by %q or JSON).
package redact

import (
	"encoding/json"
	"io"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Mask replaces a secret; net/url's URL.Redacted writes the same.
const Mask = "xxxxx"

// userinfo matches a URL's scheme, user name and password up to the '@'
// that ends them: "http://user:PASS@". The user name and the password
// stop at what cannot be in them unencoded, so that "host:9000/a@b"
// (a port, then a path) is no password.
var userinfo = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://[^/\s:@?#"'<>\\]*):([^/\s@?#"'<>\\]+)@`)

// encodedUserinfo is userinfo percent-encoded, as the URL of an endpoint=
// parameter stands in the URL around it: "http%3A%2F%2Fuser%3APASS%40".
var encodedUserinfo = regexp.MustCompile(`(?i)(%3A%2F%2F(?:[^\s%/:@&?#"'<>\\]|%[0-9A-F]{2})*?)%3A((?:[^\s%/@&?#"'<>\\]|%[0-9A-F]{2})+?)%40`)

// Redactor masks secrets in text. Safe for concurrent use; the zero
// value masks URL passwords alone.
type Redactor struct {
	mu      sync.RWMutex
	secrets []string // each secret's spellings, longest first
	rep     *strings.Replacer
}

// New returns a Redactor of the given secrets ("" ignored).
func New(secrets ...string) *Redactor {
	r := &Redactor{}
	r.Add(secrets...)
	return r
}

// Add adds secrets ("" ignored).
func (r *Redactor) Add(secrets ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range secrets {
		if s == "" {
			continue
		}
		for _, f := range spellings(s) {
			if f != "" && !slices.Contains(r.secrets, f) {
				r.secrets = append(r.secrets, f)
			}
		}
	}
	// Longest first: a secret's encoded form may hold the plain one.
	slices.SortStableFunc(r.secrets, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(r.secrets))
	for _, s := range r.secrets {
		pairs = append(pairs, s, Mask)
	}
	r.rep = strings.NewReplacer(pairs...)
}

// AddURLs adds the passwords of the URLs in names (inputs such as
// s3://b/k?endpoint=http://u:PASS@h), those inside a URL's query values
// included, so that they are masked even where a message spells them
// apart from their URL.
func (r *Redactor) AddURLs(names ...string) {
	for _, n := range names {
		r.Add(URLPasswords(n)...)
	}
}

// URLPasswords returns the passwords of the URL s and of the URLs in its
// query parameters' values, at any depth.
func URLPasswords(s string) []string {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" {
		return nil
	}
	var out []string
	if p, ok := u.User.Password(); ok {
		out = append(out, p)
	}
	// A query as cqlload's object URLs give it (s3://b/k?endpoint=…) or
	// inside the opaque part of one url.Parse did not split.
	for _, vs := range u.Query() {
		for _, v := range vs {
			out = append(out, URLPasswords(v)...)
		}
	}
	return out
}

// String returns s with every secret masked.
func (r *Redactor) String(s string) string {
	if r != nil {
		r.mu.RLock()
		rep := r.rep
		r.mu.RUnlock()
		if rep != nil {
			s = rep.Replace(s)
		}
	}
	if strings.Contains(s, "@") {
		s = userinfo.ReplaceAllString(s, "${1}:"+Mask+"@")
	}
	if strings.Contains(s, "%") {
		s = encodedUserinfo.ReplaceAllString(s, "${1}%3A"+Mask+"%40")
	}
	return s
}

// Error returns err with its message masked. errors.Is and errors.As
// still see err and its chain: a caller that branches on an error's type
// keeps doing so, and one that prints it prints no secret.
func (r *Redactor) Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if masked := r.String(msg); masked != msg {
		return &maskedError{msg: masked, err: err}
	}
	return err
}

type maskedError struct {
	msg string
	err error
}

func (e *maskedError) Error() string { return e.msg }
func (e *maskedError) Unwrap() error { return e.err }

// Bytes is String for a byte slice.
func (r *Redactor) Bytes(b []byte) []byte { return []byte(r.String(string(b))) }

// Writer returns a writer that masks secrets in each Write before passing
// it on to w. A secret split across two writes is not seen: the callers
// write whole lines.
func (r *Redactor) Writer(w io.Writer) io.Writer { return &writer{w: w, r: r} }

type writer struct {
	w io.Writer
	r *Redactor
}

func (w *writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(w.w, w.r.String(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Unwrap returns the writer written to, so that callers can find the
// terminal beneath.
func (w *writer) Unwrap() io.Writer { return w.w }

// spellings are the forms s may take in a message or a file: as it is,
// percent-encoded for a query or a path (once, and twice for a URL given
// as another URL's parameter), as user information, and escaped by %q
// and by JSON.
func spellings(s string) []string {
	out := []string{s, url.QueryEscape(s), url.PathEscape(s), url.QueryEscape(url.QueryEscape(s))}
	if u := (&url.URL{User: url.UserPassword("u", s)}).String(); strings.HasPrefix(u, "//u:") {
		out = append(out, strings.TrimSuffix(strings.TrimPrefix(u, "//u:"), "@"))
	}
	q := strconv.Quote(s)
	out = append(out, q[1:len(q)-1])
	if j, err := json.Marshal(s); err == nil {
		out = append(out, string(j[1:len(j)-1]))
	}
	return out
}
