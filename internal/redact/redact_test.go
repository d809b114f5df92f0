package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	const pw = "p@ss w/rd&1"
	enc := url.QueryEscape(pw)
	r := New("hunter2", pw)
	r.AddURLs("s3://b/k.csv?endpoint=http://minio:" + "S3CRET" + "@127.0.0.1:9000&region=x")
	for _, tc := range []struct{ in, want string }{
		{"s3://b/k?endpoint=http://user:PLAIN@host:9000: refused", "s3://b/k?endpoint=http://user:xxxxx@host:9000: refused"},
		{"s3://b/k?endpoint=http%3A%2F%2Fuser%3APLAIN%40host%3A9000", "s3://b/k?endpoint=http%3A%2F%2Fuser%3Axxxxx%40host%3A9000"},
		{"https://user:PLAIN@h/x and ftp://a:b@c", "https://user:xxxxx@h/x and ftp://a:xxxxx@c"},
		{`"https://user:PLAIN@h/x"`, `"https://user:xxxxx@h/x"`},
		{"http://host:9000/a@b", "http://host:9000/a@b"},
		{"user@example.com wrote a:b@c", "user@example.com wrote a:b@c"},
		{"auth failed for hunter2", "auth failed for xxxxx"},
		{"password " + pw + " and " + enc, "password xxxxx and xxxxx"},
		{fmt.Sprintf("%q", "x"+pw), `"xxxxxx"`},
		{"a secret found in the URL alone: S3CRET", "a secret found in the URL alone: xxxxx"},
		{"nothing here", "nothing here"},
	} {
		if got := r.String(tc.in); got != tc.want {
			t.Errorf("%q:\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
	j, _ := json.Marshal(map[string]string{"v": "pw is " + pw + " <" + pw + ">"})
	if got := r.String(string(j)); strings.Contains(got, "ss w") || strings.Contains(got, `p\u0026ss`) {
		t.Errorf("JSON keeps the secret: %s", got)
	}
}

func TestURLPasswords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"s3://b/k?endpoint=http://u:PW@h:9000", []string{"PW"}},
		{"s3://b/k?endpoint=http%3A%2F%2Fu%3AP%2540W%40h", []string{"P@W"}},
		{"https://u:top@h/x", []string{"top"}},
		{"s3://b/k", nil},
		{"data/file.csv", nil},
	} {
		got := URLPasswords(tc.in)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%q: %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestWriter(t *testing.T) {
	var b bytes.Buffer
	w := New("hunter2").Writer(&b)
	n, err := fmt.Fprintf(w, "cqlload: login as u with hunter2 at s3://b/k?endpoint=http://u:x1@h failed\n")
	if err != nil || n != len("cqlload: login as u with hunter2 at s3://b/k?endpoint=http://u:x1@h failed\n") {
		t.Fatalf("Write: %d, %v", n, err)
	}
	if want := "cqlload: login as u with xxxxx at s3://b/k?endpoint=http://u:xxxxx@h failed\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	if u, ok := w.(interface{ Unwrap() io.Writer }); !ok || u.Unwrap() != &b {
		t.Errorf("the writer does not unwrap to the one beneath")
	}
}

// BenchmarkString: the cost on one error-log line, the hot use (one call
// per rejected row), with a password and a URL's password to look for.
func BenchmarkString(b *testing.B) {
	r := New("hunter2")
	r.AddURLs("s3://b/k?endpoint=http://u:PW@h:9000")
	line := `data/rows.csv:12:17: parse error: column age: invalid int "x1": not a number [write timestamp 1796445047362168]`
	for b.Loop() {
		_ = r.String(line)
	}
}

// typedErr is an error type a caller branches on.
type typedErr struct{ url string }

func (e *typedErr) Error() string { return "cannot read " + e.url }

func TestError(t *testing.T) {
	r := New("Pa55word")
	for _, tc := range []struct {
		name   string
		err    error
		want   string // the masked message; "" for a nil error
		masked bool   // whether a new error stands for err
	}{
		{"nil", nil, "", false},
		{"no secret", errors.New("no such table"), "no such table", false},
		{"URL password", &typedErr{url: "s3://b/k?endpoint=http://u:S3cr3t@h:9000"}, "cannot read s3://b/k?endpoint=http://u:" + Mask + "@h:9000", true},
		{"known secret, wrapped", fmt.Errorf("auth: %w", &typedErr{url: "Pa55word"}), "auth: cannot read " + Mask, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := r.Error(tc.err)
			if tc.err == nil {
				if got != nil {
					t.Fatalf("Error(nil) = %v", got)
				}
				return
			}
			if got.Error() != tc.want {
				t.Errorf("message %q, want %q", got.Error(), tc.want)
			}
			if (got != tc.err) != tc.masked {
				t.Errorf("a new error: %v, want %v", got != tc.err, tc.masked)
			}
			if !errors.Is(got, tc.err) {
				t.Error("errors.Is does not find the original error")
			}
			var te *typedErr
			if errors.As(tc.err, &te) && !errors.As(got, &te) {
				t.Error("errors.As does not find the original's type")
			}
		})
	}
}
