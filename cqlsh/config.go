package cqlsh

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cqlload/cqlload/internal/homedir"
	"github.com/cqlload/cqlload/internal/wholefile"
	"github.com/cqlload/cqlload/loader"
)

// Config is what a cqlsh-style command line gives a load: what to load,
// how to reach the cluster, and loader options. Zero fields were not
// given, unless Given names them; Resolve fills them from the
// environment, the cqlshrc, the credentials file and the defaults, as
// cqlsh does.
type Config struct {
	// What to load: Execute, a COPY … FROM statement (cqlsh -e), or
	// Script, the path of a file holding one (cqlsh -f); or else Table
	// (keyspace.table, named as in CQL) with Columns (a column list as
	// COPY's) and the files among Args.
	Execute, Script string
	Table, Columns  string
	// Args are the positional arguments: HOST and PORT before a
	// statement; with Table, [HOST [PORT]] FILE… (a first argument is a
	// host only if Hosts is empty, it names no existing file, directory
	// or glob match, and it looks like a host).
	Args []string
	// Keyspace is the keyspace of a COPY statement that names none and
	// runs no USE (cqlsh -k).
	Keyspace string

	// Hosts are comma-separated contact points; "" is a positional HOST,
	// else CQLSH_HOST, else the cqlshrc's, else 127.0.0.1. Port 0 is a
	// positional PORT, else CQLSH_PORT, else the cqlshrc's, else 9042.
	Hosts string
	Port  int
	// Username, else the credentials file's, else the cqlshrc's.
	Username string
	// The password: Password (with CommandLinePasswordWarning unless
	// NoPasswordWarning), else PasswordFile's first line, else
	// CQLLOAD_PASSWORD, else the credentials file's or the cqlshrc's for
	// the same user, else what Prompt answers.
	Password, PasswordFile string
	NoPasswordWarning      bool
	// TLS, with the cqlshrc's [ssl] certfile, userkey and usercert
	// where these are empty. SSLNoVerify nil is the cqlshrc's [ssl]
	// validate (else verify); given, it wins either way: a flag that
	// asks for verification is never overruled by a file.
	SSL                                   bool
	SSLNoVerify                           *bool
	SSLCA, SSLCert, SSLKey, SSLServerName string
	// ConnectTimeout and RequestTimeout: 0 is the cqlshrc's, else the
	// loader's default.
	ConnectTimeout, RequestTimeout time.Duration
	DC                             string // the local data center

	// Cqlshrc is the cqlsh configuration file; "" reads
	// ~/.cassandra/cqlshrc when it exists. Credentials is cqlsh's
	// credentials file; "" reads the cqlshrc's [authentication]
	// credentials, else ~/.cassandra/credentials, when it exists.
	Cqlshrc, Credentials string
	// ConfigFile is CONFIGFILE; "" is the statement's. Its [copy]
	// sections are read in place of the cqlshrc's, never beside them.
	ConfigFile string
	// Flags are loader options (by flag or COPY name, with their text),
	// applied in order over the statement's WITH clause.
	Flags [][2]string
	// Given names the fields above that the user gave, by the long flag
	// that sets each ("hosts", "port", "username", "password",
	// "password-file", "ssl", "ssl-ca", "ssl-cert", "ssl-key",
	// "connect-timeout", "request-timeout", "keyspace", "cqlshrc",
	// "credentials", "config-file"). A field named here wins even when
	// it is zero: -u '' is no user name, whatever the cqlshrc says, and
	// --cqlshrc '' reads no cqlshrc. Where zero is no valid value
	// (--hosts '', --port 0, a timeout of 0, --password-file ''),
	// Resolve fails naming the flag. Unnamed fields are given when not
	// zero, as they are for a caller that leaves Given nil.
	Given []string

	// Getenv reads CQLSH_HOST, CQLSH_PORT and CQLLOAD_PASSWORD;
	// os.Getenv when nil.
	Getenv func(string) string
	// Prompt asks for the password of a user name given without one
	// (cqlsh asks at a terminal); nil, or "" answered, is no password.
	Prompt func(username string) (string, error)
	// Warn receives what cqlsh would warn about, in order: a cqlshrc or
	// credentials file other users may read, a password on the command
	// line (CommandLinePasswordWarning, word for word). nil drops them.
	Warn func(string)
}

// CommandLinePasswordWarning is cqlsh's, word for word: a password on the
// command line is in the shell's history and, while the run lasts, in
// every user's ps output.
const CommandLinePasswordWarning = "Warning: Using a password on the command line interface can be insecure.\nRecommendation: use the credentials file to securely provide the password.\n"

// Parse resolves a COPY … FROM statement, with the user's cqlshrc and
// credentials file and the environment, into the options of its load.
func Parse(stmt string) (loader.Options, error) {
	return Config{Execute: stmt}.Resolve()
}

// Resolve settles the load's options, low to high: the loader's
// defaults, CONFIGFILE's [copy] sections (or else the cqlshrc's), the
// statement's WITH clause, Flags; and the connection from the fields,
// the environment, the credentials file and the cqlshrc. It does not
// validate the result: loader.New does, or Options.Validate.
func (c Config) Resolve() (loader.Options, error) {
	opts := loader.DefaultOptions()
	if c.Getenv == nil {
		c.Getenv = os.Getenv
	}
	if c.Warn == nil {
		c.Warn = func(string) {}
	}
	if err := c.checkGiven(); err != nil {
		return opts, err
	}
	r := resolver{Config: c, given: c}
	if r.ConnectTimeout == 0 {
		r.ConnectTimeout = opts.ConnectTimeout
	}
	if r.RequestTimeout == 0 {
		r.RequestTimeout = opts.RequestTimeout
	}
	rc, err := r.readCqlshrc()
	if err != nil {
		return opts, err
	}
	if err := r.readCredentials(rc); err != nil {
		return opts, err
	}
	stmt, err := r.target(&opts)
	if err != nil {
		return opts, err
	}
	configFile := r.ConfigFile
	what := "CONFIGFILE"
	if r.flag("config-file") {
		// Given, even empty, it wins over the statement's.
		what = "--config-file"
	} else if stmt != nil && configFile == "" {
		configFile = stmt.ConfigFile()
	}
	ks, table := opts.Keyspace, opts.Table
	if stmt != nil {
		ks, table = stmt.Keyspace, stmt.Table
		if ks == "" {
			ks = r.keyspace
		}
	}
	// cqlsh's COPY takes the timestamps' display format as DATETIMEFORMAT's
	// default.
	if rc != nil && rc.TimeFormat != "" {
		if err := opts.SetOption("datetimeformat", rc.TimeFormat); err != nil {
			return opts, fmt.Errorf("cqlshrc %s [ui] time_format: %w", rc.Path, err)
		}
	}
	// As cqlsh: CONFIGFILE's sections, or else the cqlshrc's; never both.
	file := configFile
	if file == "" && rc != nil {
		what, file = "cqlshrc", rc.Path
	}
	if file != "" {
		if err := ApplyConfigFile(&opts, what, file, ks, table); err != nil {
			return opts, err
		}
	}
	if stmt != nil {
		if err := stmt.Apply(&opts, r.keyspace); err != nil {
			return opts, err
		}
	}
	var errs []error
	for _, kv := range r.Flags {
		errs = append(errs, flagError(kv[0], opts.SetOption(kv[0], kv[1])))
	}
	if err := errors.Join(errs...); err != nil {
		return opts, err
	}
	return opts, r.connection(&opts, rc)
}

// flagError names the flag a user wrote in the error of a loader
// option set by it: the loader's errors name the option's COPY name.
func flagError(name string, err error) error {
	opt, ok := loader.LookupOption(name)
	if err == nil || !ok || !strings.EqualFold(name, opt.Flag) || strings.HasPrefix(err.Error(), "option --"+opt.Flag+":") {
		return err
	}
	return fmt.Errorf("--%s: %w", opt.Flag, err)
}

// given reports whether the user gave the field that flag sets.
func (c Config) isGiven(flag string) bool {
	for _, g := range c.Given {
		if g == flag {
			return true
		}
	}
	return false
}

// checkGiven refuses the given flags whose value is zero where zero is
// no valid value: taken for "not given", they let the environment, the
// cqlshrc or a default win over what the user typed.
func (c Config) checkGiven() error {
	var errs []error
	if c.isGiven("hosts") && strings.Trim(c.Hosts, ", \t") == "" {
		errs = append(errs, fmt.Errorf("--hosts %q: no contact point: give one or more hosts, comma-separated", c.Hosts))
	}
	if c.isGiven("port") && (c.Port < 1 || c.Port > 65535) {
		errs = append(errs, fmt.Errorf("--port %d is not a port (1 to 65535)", c.Port))
	}
	if c.isGiven("connect-timeout") && c.ConnectTimeout <= 0 {
		errs = append(errs, fmt.Errorf("--connect-timeout %v: must be more than 0", c.ConnectTimeout))
	}
	if c.isGiven("request-timeout") && c.RequestTimeout <= 0 {
		errs = append(errs, fmt.Errorf("--request-timeout %v: must be more than 0", c.RequestTimeout))
	}
	if c.isGiven("password-file") && c.PasswordFile == "" {
		errs = append(errs, errors.New(`--password-file "": give the path of a file`))
	}
	return errors.Join(errs...)
}

// resolver is a Config being resolved: the fields the cqlshrc and the
// credentials file fill in, and what they left.
type resolver struct {
	Config                 // as resolved so far
	given     Config       // as the caller gave it
	keyspace  string       // Keyspace, else the cqlshrc's
	creds     *Credentials // the credentials file, nil if none
	portGiven bool         // Port, or a positional PORT
	// Where the TLS files came from, as errors name them: the flag, or
	// the cqlshrc's key.
	caFrom, certFrom, keyFrom string
}

// flag reports whether the user gave the field that flag sets.
func (r *resolver) flag(name string) bool { return r.given.isGiven(name) }

// readCqlshrc reads the cqlsh configuration file (Cqlshrc, else
// ~/.cassandra/cqlshrc when it exists) and takes from it what the
// command line did not give: host and port are taken later, since
// positional arguments may still give them. Its [copy] sections are
// applied with the other options. nil when there is no file.
func (r *resolver) readCqlshrc() (*Cqlshrc, error) {
	r.keyspace = r.Keyspace
	r.caFrom, r.certFrom, r.keyFrom = "--ssl-ca", "--ssl-cert", "--ssl-key"
	path, explicit := r.Cqlshrc, r.Cqlshrc != ""
	if r.flag("cqlshrc") && !explicit {
		return nil, nil // --cqlshrc '': none
	}
	if !explicit {
		path = DefaultCqlshrcPath()
	}
	if path == "" {
		return nil, nil
	}
	rc, ok, err := ReadCqlshrc(path)
	if err != nil {
		return nil, err
	}
	if !ok {
		if explicit {
			return nil, fmt.Errorf("--cqlshrc %s: no such file", path)
		}
		return nil, nil
	}
	for _, w := range rc.Warnings {
		r.Warn(w)
	}
	if r.Username == "" && !r.flag("username") {
		r.Username = rc.Username
	}
	if r.keyspace == "" && !r.flag("keyspace") {
		r.keyspace = rc.Keyspace
	}
	// --ssl=false wins over the file: neither its ssl = true nor its
	// [ssl] files turn TLS on.
	sslOff := r.flag("ssl") && !r.SSL
	r.SSL = r.SSL || rc.SSL && !sslOff
	if r.given.ConnectTimeout == 0 && rc.ConnectTimeout > 0 {
		r.ConnectTimeout = rc.ConnectTimeout
	}
	if r.given.RequestTimeout == 0 && rc.RequestTimeout > 0 {
		r.RequestTimeout = rc.RequestTimeout
	}
	key := func(k string) string { return fmt.Sprintf("cqlshrc %s [ssl] %s", rc.Path, k) }
	if r.SSLCA == "" && !r.flag("ssl-ca") && !sslOff && rc.CertFile != "" {
		r.SSLCA, r.caFrom = rc.CertFile, key("certfile")
	}
	if r.SSLNoVerify == nil && rc.Validate != nil {
		noVerify := !*rc.Validate
		r.SSLNoVerify = &noVerify
	}
	if r.SSLCert == "" && !r.flag("ssl-cert") && !sslOff && rc.UserCert != "" {
		r.SSLCert, r.certFrom = rc.UserCert, key("usercert")
	}
	if r.SSLKey == "" && !r.flag("ssl-key") && !sslOff && rc.UserKey != "" {
		r.SSLKey, r.keyFrom = rc.UserKey, key("userkey")
	}
	return rc, nil
}

// readCredentials reads cqlsh's credentials file (Credentials, else the
// cqlshrc's [authentication] credentials, else ~/.cassandra/credentials
// when it exists): its user name is taken over the cqlshrc's unless
// Username gave one; connection takes its password.
func (r *resolver) readCredentials(rc *Cqlshrc) error {
	path, explicit := r.Credentials, r.Credentials != ""
	if r.flag("credentials") && !explicit {
		return nil // --credentials '': none
	}
	from := "--credentials" // what the errors name
	if !explicit && rc != nil {
		path, from = rc.Credentials, fmt.Sprintf("cqlshrc %s [authentication] credentials", rc.Path)
	}
	if path == "" {
		path, from = DefaultCredentialsPath(), ""
	}
	if path == "" {
		return nil
	}
	cr, err := ReadCredentials(homedir.Expand(path))
	switch {
	case err != nil && from != "":
		return fmt.Errorf("%s: %w", from, err)
	case err != nil:
		return err
	case cr == nil && explicit:
		return fmt.Errorf("--credentials %s: no such file", path)
	case cr == nil:
		return nil
	case cr.Warning != "":
		r.Warn(cr.Warning)
		return nil
	}
	r.creds = cr
	if r.given.Username == "" && !r.flag("username") && cr.Username != "" {
		r.Username = cr.Username
	}
	return nil
}

// target reads what to load: a COPY statement (returned, applied later
// with the other options) or Table and the files, with the positional
// HOST and PORT that may precede either.
func (r *resolver) target(opts *loader.Options) (stmt *CopyStatement, err error) {
	r.portGiven = r.Port != 0
	setPort := func(p string) error {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("the PORT argument %q is not a port (1 to 65535)", p)
		}
		r.Port, r.portGiven = n, true
		return nil
	}
	pos := r.Args
	if r.Script != "" {
		// cqlsh -f: the script is the statement -e would give.
		if r.Execute != "" {
			return nil, errors.New("give either -e COPY ... or -f FILE, not both")
		}
		data, err := wholefile.Read(r.Script, "-f script", wholefile.MaxScript)
		if err != nil {
			return nil, fmt.Errorf("-f: %w", err)
		}
		// As cqlsh, a script may start with a UTF-8 byte order mark.
		if r.Execute = strings.TrimPrefix(string(data), "\ufeff"); strings.TrimSpace(r.Execute) == "" {
			return nil, fmt.Errorf("-f %s: the file holds no COPY statement", r.Script)
		}
	}
	switch {
	case r.Execute != "" && r.Table != "":
		return nil, errors.New("give either -e COPY ... or --table, not both")
	case r.Execute != "" && r.Columns != "":
		// The statement's column list (or its absence) decides: the
		// flag was dropped without a word.
		return nil, errors.New("give the columns in the COPY statement's column list, not --columns")
	case r.Execute != "":
		if stmt, err = ParseCopy(r.Execute); err != nil && r.Script != "" {
			return nil, fmt.Errorf("-f %s: %w", r.Script, err)
		} else if err != nil {
			return nil, err
		}
		if len(pos) > 2 {
			return nil, fmt.Errorf("unexpected arguments %v (only HOST and PORT may precede -e)", pos[2:])
		}
		if len(pos) >= 1 {
			r.Hosts = pos[0]
		}
		if len(pos) == 2 {
			err = setPort(pos[1])
		}
		return stmt, err
	case r.Table != "":
		if opts.Keyspace, opts.Table, err = ParseTable(r.Table); err != nil {
			return nil, fmt.Errorf("--table: %w", err)
		}
		if r.Columns != "" {
			// The COPY statement's column list parser: a quoted name may
			// hold commas.
			if opts.Columns, err = ParseColumns(r.Columns); err != nil {
				return nil, fmt.Errorf("--columns: %w", err)
			}
		}
		if r.Hosts == "" {
			host, port, rest := positionalHost(pos)
			if host != "" {
				r.Hosts, pos = host, rest
			}
			if port != "" {
				if err := setPort(port); err != nil {
					return nil, err
				}
			}
		}
		if len(pos) == 0 {
			return nil, fmt.Errorf("--table %s: no input files given (name them after the flags)", r.Table)
		}
		opts.Files = pos
		return nil, nil
	}
	return nil, errors.New(`nothing to do: give -e "COPY ..." or --table ks.table and files`)
}

// connection sets hosts, port, credentials and TLS: the fields and
// positional arguments first, then CQLSH_HOST and CQLSH_PORT, then the
// cqlshrc, then the defaults.
func (r *resolver) connection(opts *loader.Options, rc *Cqlshrc) error {
	if r.Hosts == "" {
		r.Hosts = r.Getenv("CQLSH_HOST")
	}
	if p := r.Getenv("CQLSH_PORT"); p != "" && !r.portGiven {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n <= 0 || n > 65535 {
			return fmt.Errorf("CQLSH_PORT %q is not a port", p)
		}
		r.Port, r.portGiven = n, true
	}
	if rc != nil && r.Hosts == "" {
		r.Hosts = rc.Hostname
	}
	if rc != nil && !r.portGiven && rc.Port > 0 {
		r.Port = rc.Port
	}
	if r.Hosts == "" {
		r.Hosts = "127.0.0.1"
	}
	if r.Port == 0 {
		r.Port = 9042
	}
	for _, h := range strings.Split(r.Hosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			opts.Hosts = append(opts.Hosts, h)
		}
	}
	opts.Port = r.Port
	opts.Username = r.Username
	opts.ConnectTimeout, opts.RequestTimeout = r.ConnectTimeout, r.RequestTimeout
	opts.LocalDC = r.DC
	pw, err := r.password()
	if err != nil {
		return err
	}
	// -p '' is no password: none is looked for, nor asked.
	given := r.flag("password")
	if cr := r.creds; pw == "" && !given && cr != nil && (cr.Username == "" || r.Username == cr.Username) {
		pw = cr.Password
	}
	if pw == "" && !given && rc != nil && r.Username == rc.Username {
		pw = rc.Password
	}
	if pw == "" && !given && r.Username != "" && r.Prompt != nil {
		// As cqlsh: a user name without a password asks for it.
		if pw, err = r.Prompt(r.Username); err != nil {
			return fmt.Errorf("reading the password: %w", err)
		}
	}
	opts.Password = pw
	if r.SSL || r.SSLCA != "" || r.SSLCert != "" || r.SSLKey != "" || r.SSLServerName != "" {
		t, err := r.tlsConfig()
		if err != nil {
			return err
		}
		opts.TLS = t
	}
	return nil
}

// password returns the password of Password, PasswordFile or
// CQLLOAD_PASSWORD, in that order, and warns as cqlsh does.
func (r *resolver) password() (string, error) {
	switch {
	case r.Password != "":
		if !r.NoPasswordWarning {
			r.Warn(CommandLinePasswordWarning)
		}
		return r.Password, nil
	case r.flag("password"):
		return "", nil // -p '': no password, and no secret to warn about
	case r.PasswordFile != "":
		pw, warning, err := ReadPasswordFile(r.PasswordFile)
		if err != nil {
			return "", fmt.Errorf("--password-file: %w", err)
		}
		if warning != "" {
			r.Warn(warning)
		}
		return pw, nil
	}
	return r.Getenv("CQLLOAD_PASSWORD"), nil
}

func (r *resolver) tlsConfig() (*tls.Config, error) {
	t := &tls.Config{InsecureSkipVerify: r.SSLNoVerify != nil && *r.SSLNoVerify, ServerName: r.SSLServerName, MinVersion: tls.VersionTLS12}
	if r.SSLCA != "" {
		pem, err := wholefile.Read(r.SSLCA, r.caFrom+" file", wholefile.MaxPEM)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.caFrom, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s %s: no PEM certificate found", r.caFrom, r.SSLCA)
		}
		t.RootCAs = pool
	}
	if r.SSLCert != "" || r.SSLKey != "" {
		switch {
		case r.SSLCert == "":
			return nil, fmt.Errorf("%s without --ssl-cert: a client key needs its certificate", r.keyFrom)
		case r.SSLKey == "":
			return nil, fmt.Errorf("%s without --ssl-key: a client certificate needs its key", r.certFrom)
		}
		certPEM, err := wholefile.Read(r.SSLCert, r.certFrom+" file", wholefile.MaxPEM)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.certFrom, err)
		}
		keyPEM, err := wholefile.Read(r.SSLKey, r.keyFrom+" file", wholefile.MaxPEM)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.keyFrom, err)
		}
		cert, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, fmt.Errorf("%s/%s: %w", r.certFrom, r.keyFrom, err)
		}
		t.Certificates = []tls.Certificate{cert}
	}
	return t, nil
}

// dataExtensions end names that are files, never hosts.
var dataExtensions = map[string]bool{"csv": true, "tsv": true, "txt": true, "dat": true, "gz": true, "zst": true, "zstd": true}

// positionalHost splits the flag form's arguments into HOST, PORT and
// the input files. pos[0] is a host only if more arguments follow, it
// names no existing file, directory or glob match, and it looks like a
// host (an IP address, or a host name whose last label is no data file
// extension); pos[1] is then a port if it is a number and no existing
// file. Otherwise host and port are "" and files is pos.
func positionalHost(pos []string) (host, port string, files []string) {
	if len(pos) < 2 || !looksLikeHost(pos[0]) || pathExists(pos[0]) {
		return "", "", pos
	}
	host, files = pos[0], pos[1:]
	if _, err := strconv.Atoi(files[0]); err == nil && !pathExists(files[0]) {
		port, files = files[0], files[1:]
	}
	return host, port, files
}

func pathExists(p string) bool {
	if _, err := os.Stat(p); err == nil {
		return true
	}
	m, _ := filepath.Glob(p)
	return len(m) > 0
}

func looksLikeHost(s string) bool {
	if s == "" || s == "-" || strings.EqualFold(s, "stdin") || strings.ContainsAny(s, "/\\*?[],~ ") {
		return net.ParseIP(strings.Trim(s, "[]")) != nil && !strings.Contains(s, "/")
	}
	if net.ParseIP(s) != nil {
		return true
	}
	labels := strings.Split(s, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for _, r := range l {
			if !(r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
				return false
			}
		}
	}
	return len(labels) == 1 || !dataExtensions[strings.ToLower(labels[len(labels)-1])]
}
