package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cqlload/cqlload/loader"
)

// TestFlagZeroValues: a flag typed with its zero value wins over the
// cqlshrc and the environment as any other value does, or, where zero is
// no value, is refused naming the flag; it is never taken for a flag not
// given. Through the flag parsing, with no cluster.
func TestFlagZeroValues(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CQLSH_HOST", "env-host")
	t.Setenv("CQLSH_PORT", "9600")
	t.Setenv("CQLLOAD_PASSWORD", "")
	if err := os.Mkdir(filepath.Join(home, ".cassandra"), 0o700); err != nil {
		t.Fatal(err)
	}
	rc := "[connection]\nconnect_timeout = 3\nrequest_timeout = 4\nssl = true\n[authentication]\nusername = rcuser\npassword = rcpw\nkeyspace = rcks\n"
	if err := os.WriteFile(filepath.Join(home, ".cassandra", "cqlshrc"), []byte(rc), 0o600); err != nil {
		t.Fatal(err)
	}
	table := []string{"--table", "ks.t", "x.csv"}
	for _, tc := range []struct {
		name string
		args []string
		want func(o loader.Options) bool // nil: an error naming args[0]
	}{
		{"none given", nil, func(o loader.Options) bool {
			return o.Username == "rcuser" && o.Password == "rcpw" && o.TLS != nil &&
				o.ConnectTimeout == 3*time.Second && o.RequestTimeout == 4*time.Second
		}},
		{"-u ''", []string{"-u", ""}, func(o loader.Options) bool { return o.Username == "" && o.Password == "" }},
		{"--username=", []string{"--username="}, func(o loader.Options) bool { return o.Username == "" && o.Password == "" }},
		{"-p ''", []string{"-p", ""}, func(o loader.Options) bool { return o.Username == "rcuser" && o.Password == "" }},
		{"--ssl=false", []string{"--ssl=false"}, func(o loader.Options) bool { return o.TLS == nil }},
		{"--cqlshrc ''", []string{"--cqlshrc", ""}, func(o loader.Options) bool {
			return o.Username == "" && o.TLS == nil && o.ConnectTimeout == 5*time.Second
		}},
		{"--connect-timeout 0", []string{"--connect-timeout", "0"}, nil},
		{"--request-timeout 0", []string{"--request-timeout", "0s"}, nil},
		{"--port 0", []string{"--port", "0"}, nil},
		{"--hosts ''", []string{"--hosts", ""}, nil},
		{"--password-file ''", []string{"--password-file", ""}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := loader.DefaultOptions()
			c, _ := newCLI(&opts)
			if err := c.fs.Parse(append(tc.args, table...)); err != nil {
				t.Fatal(err)
			}
			err := c.options(&opts, strings.NewReader(""), io.Discard)
			if tc.want == nil {
				flag := strings.SplitN(tc.args[0], "=", 2)[0]
				if err == nil || !strings.Contains(err.Error(), flag) {
					t.Errorf("%q: %v; want an error naming %s", tc.args, err, flag)
				}
				return
			}
			if err != nil {
				t.Fatalf("%q: %v", tc.args, err)
			}
			if !tc.want(opts) {
				t.Errorf("%q: user %q, password %q, TLS %v, timeouts %v %v", tc.args, opts.Username, opts.Password, opts.TLS != nil, opts.ConnectTimeout, opts.RequestTimeout)
			}
		})
	}
	// And through run: the usage exit status, the flag named.
	code, _, stderr := runCLI(t, "", append([]string{"--connect-timeout", "0"}, table...)...)
	if code != exitUsage || !strings.Contains(stderr, "--connect-timeout") {
		t.Errorf("--connect-timeout 0: exit %d, want %d naming the flag; stderr:\n%s", code, exitUsage, stderr)
	}
}
