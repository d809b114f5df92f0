package cqlsh

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cqlload/cqlload/loader"
)

// TestResolveErrorsNameWhatWasWritten: every error of Resolve names what
// the user wrote that is wrong: the flag, the WITH option, the positional
// argument, the environment variable, or the cqlshrc's section and key.
func TestResolveErrorsNameWhatWasWritten(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", dir) // no user's cqlshrc nor credentials file
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	missing := filepath.Join(dir, "missing")
	notPEM := write("not.pem", "no certificate here\n")
	badINI := write("bad.ini", "garbage\n")
	rc := func(content string) string { return write("cqlshrc", content) }
	copyT := "COPY ks.t FROM 'x.csv'"
	table := Config{Table: "ks.t", Args: []string{"x.csv"}}
	with := func(c Config, f func(*Config)) Config { f(&c); return c }
	for _, tc := range []struct {
		name string
		c    func() Config
		env  map[string]string
		want string // in the error
	}{
		{"--hosts ''", func() Config { return with(table, func(c *Config) { c.Given = []string{"hosts"} }) }, nil, "--hosts"},
		{"--port 0", func() Config { return with(table, func(c *Config) { c.Given = []string{"port"} }) }, nil, "--port"},
		{"--port 70000", func() Config {
			return with(table, func(c *Config) { c.Port, c.Given = 70000, []string{"port"} })
		}, nil, "--port"},
		{"--connect-timeout 0", func() Config { return with(table, func(c *Config) { c.Given = []string{"connect-timeout"} }) }, nil, "--connect-timeout"},
		{"--request-timeout -1s", func() Config {
			return with(table, func(c *Config) { c.RequestTimeout, c.Given = -time.Second, []string{"request-timeout"} })
		}, nil, "--request-timeout"},
		{"--password-file ''", func() Config { return with(table, func(c *Config) { c.Given = []string{"password-file"} }) }, nil, "--password-file"},
		{"--password-file missing", func() Config { return with(table, func(c *Config) { c.PasswordFile = missing }) }, nil, "--password-file"},
		{"--cqlshrc missing", func() Config { return with(table, func(c *Config) { c.Cqlshrc = missing }) }, nil, "--cqlshrc"},
		{"cqlshrc port", func() Config {
			return with(table, func(c *Config) { c.Cqlshrc = rc("[connection]\nport = x\n") })
		}, nil, "[connection] port"},
		{"cqlshrc connect_timeout", func() Config {
			return with(table, func(c *Config) { c.Cqlshrc = rc("[connection]\nconnect_timeout = 0\n") })
		}, nil, "[connection] connect_timeout"},
		{"cqlshrc ssl", func() Config {
			return with(table, func(c *Config) { c.Cqlshrc = rc("[connection]\nssl = maybe\n") })
		}, nil, "[connection] ssl"},
		{"cqlshrc validate", func() Config {
			return with(table, func(c *Config) { c.Cqlshrc = rc("[ssl]\nvalidate = maybe\n") })
		}, nil, "[ssl] validate"},
		{"cqlshrc certfile", func() Config {
			return with(table, func(c *Config) { c.Cqlshrc = rc("[connection]\nssl = true\n[ssl]\ncertfile = " + missing + "\n") })
		}, nil, "[ssl] certfile"},
		{"cqlshrc certfile not PEM", func() Config {
			return with(table, func(c *Config) { c.Cqlshrc = rc("[connection]\nssl = true\n[ssl]\ncertfile = " + notPEM + "\n") })
		}, nil, "[ssl] certfile"},
		{"cqlshrc usercert", func() Config {
			return with(table, func(c *Config) {
				c.Cqlshrc = rc("[ssl]\nusercert = " + missing + "\nuserkey = " + notPEM + "\n")
			})
		}, nil, "[ssl] usercert"},
		{"cqlshrc userkey without usercert", func() Config {
			return with(table, func(c *Config) { c.Cqlshrc = rc("[ssl]\nuserkey = " + notPEM + "\n") })
		}, nil, "[ssl] userkey"},
		{"cqlshrc credentials", func() Config {
			return with(table, func(c *Config) { c.Cqlshrc = rc("[authentication]\ncredentials = " + badINI + "\n") })
		}, nil, "[authentication] credentials"},
		{"--credentials missing", func() Config { return with(table, func(c *Config) { c.Credentials = missing }) }, nil, "--credentials"},
		{"--credentials bad", func() Config { return with(table, func(c *Config) { c.Credentials = badINI }) }, nil, "--credentials"},
		{"--chunk-size", func() Config {
			return with(table, func(c *Config) { c.Flags = [][2]string{{"chunk-size", "x"}} })
		}, nil, "--chunk-size"},
		{"CHUNKSIZE among Flags", func() Config {
			return with(table, func(c *Config) { c.Flags = [][2]string{{"CHUNKSIZE", "x"}} })
		}, nil, "CHUNKSIZE"},
		{"WITH CHUNKSIZE", func() Config { return Config{Execute: copyT + " WITH CHUNKSIZE = x"} }, nil, "CHUNKSIZE"},
		{"WITH NOSUCH", func() Config { return Config{Execute: copyT + " WITH NOSUCH = 1"} }, nil, "NOSUCH"},
		{"WITH CONFIGFILE missing", func() Config { return Config{Execute: copyT + " WITH CONFIGFILE = '" + missing + "'"} }, nil, "CONFIGFILE"},
		{"--config-file missing", func() Config {
			return Config{Execute: copyT, ConfigFile: missing, Given: []string{"config-file"}}
		}, nil, "--config-file"},
		{"cqlshrc [copy]", func() Config {
			return with(table, func(c *Config) { c.Cqlshrc = rc("[copy]\nchunksize = x\n") })
		}, nil, "[copy]"},
		{"-f missing", func() Config { return Config{Script: missing} }, nil, "-f"},
		{"-f bad", func() Config { return Config{Script: write("bad.cql", "COPY ks.t FROM")} }, nil, "-f"},
		{"-f and -e", func() Config { return Config{Script: badINI, Execute: copyT} }, nil, "-f"},
		{"-e and --table", func() Config { return Config{Execute: copyT, Table: "ks.t"} }, nil, "--table"},
		{"-e and --columns", func() Config { return Config{Execute: copyT, Columns: "a"} }, nil, "--columns"},
		{"--table bad", func() Config { return Config{Table: "a.b.c", Args: []string{"x.csv"}} }, nil, "--table"},
		{"--table without files", func() Config { return Config{Table: "ks.t"} }, nil, "--table"},
		{"--columns bad", func() Config { return with(table, func(c *Config) { c.Columns = `"a` }) }, nil, "--columns"},
		{"PORT", func() Config { return Config{Execute: copyT, Args: []string{"h", "x"}} }, nil, "PORT"},
		{"PORT 0", func() Config { return Config{Execute: copyT, Args: []string{"h", "0"}} }, nil, "PORT"},
		{"CQLSH_PORT", func() Config { return table }, map[string]string{"CQLSH_PORT": "x"}, "CQLSH_PORT"},
		{"--ssl-ca missing", func() Config { return with(table, func(c *Config) { c.SSLCA = missing }) }, nil, "--ssl-ca"},
		{"--ssl-ca not PEM", func() Config { return with(table, func(c *Config) { c.SSLCA = notPEM }) }, nil, "--ssl-ca"},
		{"--ssl-key alone", func() Config { return with(table, func(c *Config) { c.SSLKey = notPEM }) }, nil, "--ssl-key"},
		{"--ssl-cert alone", func() Config { return with(table, func(c *Config) { c.SSLCert = notPEM }) }, nil, "--ssl-cert"},
		{"--ssl-cert and --ssl-key not a pair", func() Config {
			return with(table, func(c *Config) { c.SSLCert, c.SSLKey = notPEM, notPEM })
		}, nil, "--ssl-cert"},
		{"COPY without keyspace", func() Config { return Config{Execute: "COPY t FROM 'x.csv'"} }, nil, "COPY t"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.c()
			c.Getenv = func(k string) string { return tc.env[k] }
			_, err := c.Resolve()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Resolve: %v; want an error naming %s", err, tc.want)
			}
		})
	}
}

// TestGivenZeroWins: a field named in Given wins over the cqlshrc, the
// credentials file, the environment and the statement even when it is
// zero, as a flag the user typed with an empty value does.
func TestGivenZeroWins(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	dot := filepath.Join(home, ".cassandra")
	if err := os.Mkdir(dot, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(path, content string) string {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	write(filepath.Join(dot, "cqlshrc"), "[connection]\nhostname = rc-host\nport = 9500\nssl = true\n"+
		"[authentication]\nusername = rcuser\npassword = rcpw\nkeyspace = rcks\n"+
		"[ssl]\ncertfile = "+filepath.Join(home, "missing.pem")+"\n[copy]\nchunksize = 10\n")
	write(filepath.Join(dot, "credentials"), "[PlainTextAuthProvider]\nusername = creduser\npassword = credpw\n")
	cf := write(filepath.Join(home, "copy.conf"), "[copy]\nchunksize = 20\n")
	env := map[string]string{"CQLLOAD_PASSWORD": "envpw"}
	for _, tc := range []struct {
		name string
		c    Config
		want func(o loader.Options) string
		is   string
	}{
		// Without Given, the files win: the cqlshrc's certfile is
		// missing, so every case gives --ssl or --ssl-ca.
		{"zero fields not given", Config{Table: "ks.t", Args: []string{"x.csv"}, Given: []string{"ssl-ca"}},
			func(o loader.Options) string {
				return join(o.Hosts, o.Port, o.Username, o.Password, o.ChunkSize, o.TLS != nil)
			},
			"[rc-host] 9500 creduser envpw 10 true"},
		{"-u ''", Config{Table: "ks.t", Args: []string{"x.csv"}, Given: []string{"username", "ssl-ca"}},
			func(o loader.Options) string { return join(o.Username, o.Password) }, " envpw"},
		{"-u rcuser -p ''", Config{Table: "ks.t", Args: []string{"x.csv"}, Username: "rcuser", Given: []string{"username", "password", "ssl-ca"},
			Prompt: func(string) (string, error) { return "asked", nil }},
			func(o loader.Options) string { return join(o.Username, o.Password) }, "rcuser "},
		{"--ssl=false", Config{Table: "ks.t", Args: []string{"x.csv"}, Given: []string{"ssl"}},
			func(o loader.Options) string { return join(o.TLS != nil) }, "false"},
		{"--ssl-ca ''", Config{Table: "ks.t", Args: []string{"x.csv"}, SSL: true, Given: []string{"ssl", "ssl-ca"}},
			func(o loader.Options) string { return join(o.TLS != nil && o.TLS.RootCAs == nil) }, "true"},
		{"-k ''", Config{Execute: "COPY t FROM 'x.csv'", Keyspace: "", Given: []string{"keyspace", "ssl"}}, nil,
			"COPY t: no keyspace given"},
		{"--cqlshrc ''", Config{Table: "ks.t", Args: []string{"x.csv"}, Given: []string{"cqlshrc"}},
			func(o loader.Options) string {
				return join(o.Hosts, o.Port, o.Username, o.Password, o.ChunkSize, o.TLS != nil)
			},
			"[127.0.0.1] 9042 creduser envpw 5000 false"},
		{"--credentials ''", Config{Table: "ks.t", Args: []string{"x.csv"}, Given: []string{"credentials", "ssl"}},
			func(o loader.Options) string { return join(o.Username, o.Password) }, "rcuser envpw"},
		{"--config-file ''", Config{Execute: "COPY ks.t FROM 'x.csv' WITH CONFIGFILE = '" + cf + "'", Given: []string{"config-file", "ssl"}},
			func(o loader.Options) string { return join(o.ChunkSize) }, "10"},
		{"CONFIGFILE not overruled", Config{Execute: "COPY ks.t FROM 'x.csv' WITH CONFIGFILE = '" + cf + "'", Given: []string{"ssl"}},
			func(o loader.Options) string { return join(o.ChunkSize) }, "20"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.c.Getenv = func(k string) string { return env[k] }
			o, err := tc.c.Resolve()
			if tc.want == nil {
				if err == nil || !strings.Contains(err.Error(), tc.is) {
					t.Errorf("Resolve: %v; want %q", err, tc.is)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := tc.want(o); got != tc.is {
				t.Errorf("%q, want %q", got, tc.is)
			}
		})
	}
}
