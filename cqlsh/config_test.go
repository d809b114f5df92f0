package cqlsh

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cqlload/cqlload/loader"
)

// TestPositionalHost: the flag form's HOST [PORT] rule never takes a file
// for a host.
func TestPositionalHost(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, f := range []string{"10.0.0.9", "dbhost", "9143", "data.csv"} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir("exports", 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		pos        []string
		host, port string
		files      []string
	}{
		{[]string{"10.0.0.5", "9142", "f.csv"}, "10.0.0.5", "9142", []string{"f.csv"}},
		{[]string{"10.0.0.5", "f.csv"}, "10.0.0.5", "", []string{"f.csv"}},
		{[]string{"db1.example.com", "f.csv", "g.csv"}, "db1.example.com", "", []string{"f.csv", "g.csv"}},
		{[]string{"localhost", "9042", "-"}, "localhost", "9042", []string{"-"}},
		{[]string{"::1", "9042", "f.csv"}, "::1", "9042", []string{"f.csv"}},
		{[]string{"10.0.0.5", "9142"}, "10.0.0.5", "9142", []string{}},
		{[]string{"10.0.0.5", "9142", "f.csv"}[:1], "", "", []string{"10.0.0.5"}},    // a lone argument is a file
		{[]string{"10.0.0.9", "f.csv"}, "", "", []string{"10.0.0.9", "f.csv"}},       // an existing file
		{[]string{"dbhost", "f.csv"}, "", "", []string{"dbhost", "f.csv"}},           // an existing file
		{[]string{"exports", "f.csv"}, "", "", []string{"exports", "f.csv"}},         // a directory
		{[]string{"data.*", "f.csv"}, "", "", []string{"data.*", "f.csv"}},           // a glob
		{[]string{"missing.csv", "f.csv"}, "", "", []string{"missing.csv", "f.csv"}}, // a data file name
		{[]string{"missing.csv.gz", "f.csv"}, "", "", []string{"missing.csv.gz", "f.csv"}},
		{[]string{"in/a.csv", "f.csv"}, "", "", []string{"in/a.csv", "f.csv"}}, // a path
		{[]string{"-", "f.csv"}, "", "", []string{"-", "f.csv"}},
		{[]string{"STDIN", "f.csv"}, "", "", []string{"STDIN", "f.csv"}},
		{[]string{"a.csv,b.csv", "f.csv"}, "", "", []string{"a.csv,b.csv", "f.csv"}},       // a list
		{[]string{"10.0.0.5", "9143", "f.csv"}, "10.0.0.5", "", []string{"9143", "f.csv"}}, // an existing file named like a port
	}
	for _, tt := range tests {
		host, port, files := positionalHost(tt.pos)
		if host != tt.host || port != tt.port || strings.Join(files, "|") != strings.Join(tt.files, "|") {
			t.Errorf("positionalHost(%q) = %q, %q, %q; want %q, %q, %q", tt.pos, host, port, files, tt.host, tt.port, tt.files)
		}
	}
}

func TestPasswordSources(t *testing.T) {
	dir := t.TempDir()
	pf := filepath.Join(dir, "pw")
	os.WriteFile(pf, []byte("fromfile\nignored\n"), 0o600)
	env := func(k string) string {
		if k == "CQLLOAD_PASSWORD" {
			return "fromenv"
		}
		return ""
	}
	tests := []struct {
		c    Config
		want string
	}{
		{Config{Password: "flag"}, "flag"},
		{Config{PasswordFile: pf}, "fromfile"},
		{Config{}, "fromenv"},
	}
	for _, tt := range tests {
		tt.c.Getenv, tt.c.Warn = env, func(string) {}
		r := resolver{Config: tt.c, given: tt.c}
		got, err := r.password()
		if err != nil || got != tt.want {
			t.Errorf("password(%+v) = %q, %v; want %q", tt.c, got, err, tt.want)
		}
	}
}

// TestResolvePrecedence: defaults < the cqlshrc's [copy] < CONFIGFILE in
// its place < WITH < flags; for the connection, fields and positional
// arguments < CQLSH_HOST and CQLSH_PORT < the cqlshrc < defaults, read
// the other way round: the first given wins.
func TestResolvePrecedence(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", dir) // no user's credentials file
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	rc := write("cqlshrc", "[connection]\nhostname = rc-host\nport = 9500\n[authentication]\nusername = rcuser\npassword = rcpw\nkeyspace = rcks\n[copy]\nchunksize = 10\nmaxbatchsize = 11\nminbatchsize = 3\n")
	cf := write("copy.conf", "[copy]\nchunksize = 20\n")
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	tests := []struct {
		name string
		c    Config
		env  map[string]string
		want func(o loader.Options) string
	}{
		{"cqlshrc under WITH under flags",
			Config{Execute: "COPY t FROM 'x.csv' WITH CHUNKSIZE = 30 AND MAXBATCHSIZE = 31", Flags: [][2]string{{"max-batch-size", "41"}}},
			nil, func(o loader.Options) string {
				return join(o.Keyspace, o.ChunkSize, o.MaxBatchSize, o.MinBatchSize, o.Hosts, o.Port, o.Username, o.Password)
			}},
		{"CONFIGFILE in the cqlshrc's place",
			Config{Execute: "COPY ks.t FROM 'x.csv' WITH CONFIGFILE = '" + cf + "'"},
			nil, func(o loader.Options) string { return join(o.ChunkSize, o.MaxBatchSize) }},
		{"environment over the cqlshrc",
			Config{Table: "ks.t", Args: []string{"x.csv"}},
			map[string]string{"CQLSH_HOST": "env-host", "CQLSH_PORT": "9600", "CQLLOAD_PASSWORD": "envpw"},
			func(o loader.Options) string { return join(o.Hosts, o.Port, o.Username, o.Password) }},
		{"fields and positional arguments over the environment",
			Config{Table: "ks.t", Args: []string{"10.1.1.1", "9700", "x.csv"}, Username: "me"},
			map[string]string{"CQLSH_HOST": "env-host", "CQLSH_PORT": "9600"},
			func(o loader.Options) string { return join(o.Hosts, o.Port, o.Username, o.Password, o.Files) }},
	}
	wants := []string{
		"rcks 30 41 3 [rc-host] 9500 rcuser rcpw",
		"20 20",
		"[env-host] 9600 rcuser envpw",
		"[10.1.1.1] 9700 me  [x.csv]",
	}
	for i, tt := range tests {
		env = tt.env
		tt.c.Cqlshrc, tt.c.Getenv = rc, getenv
		o, err := tt.c.Resolve()
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got := tt.want(o); got != wants[i] {
			t.Errorf("%s: %q, want %q", tt.name, got, wants[i])
		}
	}
}

func join(a ...any) string { return strings.TrimSuffix(fmt.Sprintln(a...), "\n") }

// TestSSLVerifyPrecedence: the cqlshrc's [ssl] validate decides only
// when SSLNoVerify is not given; a caller that asks for verification
// gets it whatever the file says.
func TestSSLVerifyPrecedence(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	yes, no := true, false
	for _, tc := range []struct {
		name     string
		validate string // the cqlshrc's [ssl] validate; "" for none
		noVerify *bool
		want     bool // InsecureSkipVerify
	}{
		{"neither", "", nil, false},
		{"file off", "false", nil, true},
		{"file on", "true", nil, false},
		{"file off, verification asked for", "false", &no, false},
		{"file on, verification turned off", "true", &yes, true},
		{"no file, turned off", "", &yes, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := filepath.Join(t.TempDir(), "cqlshrc")
			content := "[connection]\nssl = true\n"
			if tc.validate != "" {
				content += "[ssl]\nvalidate = " + tc.validate + "\n"
			}
			if err := os.WriteFile(rc, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			o, err := Config{Table: "ks.t", Args: []string{"x.csv"}, Cqlshrc: rc, SSLNoVerify: tc.noVerify,
				Getenv: func(string) string { return "" }}.Resolve()
			if err != nil {
				t.Fatal(err)
			}
			if o.TLS == nil {
				t.Fatal("no TLS configuration for ssl = true")
			}
			if o.TLS.InsecureSkipVerify != tc.want {
				t.Errorf("InsecureSkipVerify %v, want %v", o.TLS.InsecureSkipVerify, tc.want)
			}
		})
	}
}
