package wholefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	for _, tc := range []struct {
		name    string
		content string // "" with path set: read path instead
		path    string
		limit   int64
		want    string
		tooBig  bool
	}{
		{name: "small", content: "COPY ks.t FROM 'a.csv'", limit: 1024, want: "COPY ks.t FROM 'a.csv'"},
		{name: "exactly the limit", content: "12345678", limit: 8, want: "12345678"},
		{name: "one byte over", content: "123456789", limit: 8, tooBig: true},
		{name: "endless device", path: "/dev/zero", limit: 1 << 10, tooBig: true},
		{name: "empty", content: "", limit: 8, want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.path
			if path == "" {
				path = filepath.Join(t.TempDir(), "f")
				if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			b, err := Read(path, "script", tc.limit)
			var tl *TooLargeError
			if tc.tooBig {
				if !errors.As(err, &tl) || tl.Path != path || tl.Limit != tc.limit || tl.Kind != "script" {
					t.Fatalf("Read = %q, %v; want a *TooLargeError for %s", b, err, path)
				}
				if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, "script") {
					t.Errorf("error %q names neither the file nor its kind", msg)
				}
				return
			}
			if err != nil || string(b) != tc.want {
				t.Fatalf("Read = %q, %v; want %q", b, err, tc.want)
			}
		})
	}
	if _, err := Read(filepath.Join(t.TempDir(), "none"), "script", 8); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want not exist", err)
	}
}

func TestReadLine(t *testing.T) {
	long := strings.Repeat("x", 20)
	for _, tc := range []struct {
		name    string
		content string
		path    string
		want    string
		tooBig  bool
	}{
		{name: "one line", content: "secret\n", want: "secret"},
		{name: "no line break", content: "secret", want: "secret"},
		{name: "CRLF", content: "secret\r\nother\r\n", want: "secret"},
		{name: "later lines ignored even if long", content: "secret\n" + long + long, want: "secret"},
		{name: "line at the limit", content: long[:16] + "\r\n", want: long[:16]},
		{name: "line over the limit", content: long + "\n", tooBig: true},
		{name: "endless device", path: "/dev/zero", tooBig: true},
		{name: "empty", content: "", want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.path
			if path == "" {
				path = filepath.Join(t.TempDir(), "pw")
				if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			got, err := ReadLine(path, "password file", 16)
			var tl *TooLargeError
			if tc.tooBig {
				if !errors.As(err, &tl) || !tl.Line || tl.Limit != 16 {
					t.Fatalf("ReadLine = %q, %v; want a *TooLargeError", got, err)
				}
				if !strings.Contains(err.Error(), "first line") {
					t.Errorf("error %q does not say it is the first line", err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ReadLine = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
