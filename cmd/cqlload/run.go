package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/cqlload/cqlload/cqlsh"
	"github.com/cqlload/cqlload/internal/homedir"
	"github.com/cqlload/cqlload/internal/redact"
	"github.com/cqlload/cqlload/internal/termsafe"
	"github.com/cqlload/cqlload/internal/wholefile"
	"github.com/cqlload/cqlload/loader"
)

// Exit statuses, as documented in the README.
const (
	exitOK          = 0
	exitRejected    = 1  // finished, but some rows were rejected or their outcome is unknown
	exitAborted     = 2  // MAXPARSEERRORS or MAXINSERTERRORS was crossed
	exitFatal       = 3  // the run could not go on: cluster unreachable or silent, schema mismatch, damaged input, outputs held by another run
	exitInterrupted = 4  // SIGINT, SIGTERM or SIGHUP, or standard output or error closed
	exitUsage       = 64 // bad command line, a --resume that cannot be honoured, or a --split-plan that does not fit
)

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// First, so that a signal that comes while the options are read or
	// the cluster is reached stops the run in order instead of killing it.
	if len(args) > 0 && args[0] == "summarize" {
		return summarize(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "--generate" { // hidden: the manual page and completions
		return generateDocs(args[1:], stdout, stderr)
	}
	// Everything printed passes through one redactor: a URL's password
	// (an input's endpoint=http://user:PASS@host) anywhere, and the
	// run's password once it is known.
	red := redact.New(os.Getenv("CQLLOAD_PASSWORD"))
	// And no control character from a name or a message reaches the
	// terminal raw (termsafe): a file named "\x1b[2J.csv" cleared it.
	stdout, stderr = red.Writer(termsafe.Writer(stdout)), red.Writer(termsafe.Writer(stderr))
	in := interruptContext(stderr)
	defer in.stop()
	ctx := in.ctx
	stdout = in.stopWhenClosed(stdout, "standard output")
	stderr = in.stopWhenClosed(stderr, "standard error")
	opts := loader.DefaultOptions()
	c, docs := newCLI(&opts)
	c.red = red
	err := c.fs.Parse(args)
	red.Add(c.password)
	red.AddURLs(c.fs.Args()...)
	if err != nil {
		return usageError(stderr, err)
	}
	if c.help {
		printHelp(stdout, docs)
		return exitOK
	}
	if c.version {
		v := buildVersion()
		fmt.Fprintf(stdout, "cqlload %s (commit %s, %s, driver %s)\n", v.Version, v.Commit, v.Go, v.Driver)
		return exitOK
	}
	err = c.options(&opts, stdin, stderr)
	red.Add(opts.Password)
	red.AddURLs(opts.Files...)
	if err != nil {
		return usageError(stderr, err)
	}
	if ign := c.ignoredShellFlags(); len(ign) > 0 {
		why := ""
		if slices.ContainsFunc(ign, func(f string) bool { return strings.HasSuffix(f, "version") }) {
			why = " (the driver negotiates the protocol with each node)"
		}
		fmt.Fprintf(stderr, "cqlload: note: %s: cqlsh's flags for its shell, which change nothing in a load: ignored%s\n", strings.Join(ign, ", "), why)
	}
	if ign := opts.Ignored(); len(ign) > 0 {
		fmt.Fprintf(stderr, "cqlload: note: %s tune cqlsh's worker processes, which cqlload does not have: ignored\n", strings.Join(ign, ", "))
	}
	if c.writeSplitPlan != "" {
		return writeSplitPlan(ctx, opts, c.writeSplitPlan, stdout, stderr)
	}
	return load(in, c, opts, stdout, stderr)
}

// writeSplitPlan writes the split plan of the run opts describes
// (--write-split-plan) and says what it found.
func writeSplitPlan(ctx context.Context, opts loader.Options, path string, stdout, stderr io.Writer) int {
	if opts.SplitCount < 2 {
		return usageError(stderr, errors.New("--write-split-plan needs --split I/N (the index does not matter)"))
	}
	st, err := loader.WriteSplitPlan(ctx, opts, path)
	if err != nil {
		fmt.Fprintf(stderr, "cqlload: %v\n", err)
		return exitStatus(loader.Summary{}, err)
	}
	fmt.Fprintf(stdout, "Split plan for %d splits written to %s: %d record starts in %d files, %.1f MB read in %v of CPU.\n",
		opts.SplitCount, path, st.Starts, st.Files, float64(st.Searched)/1e6, st.CPU.Round(time.Millisecond))
	return exitOK
}

func usageError(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "cqlload: %v\nRun cqlload --help for usage.\n", err)
	return exitUsage
}

// options settles the load's options from the command line, the cqlshrc
// and the COPY statement, and validates them. Precedence, low to high:
// defaults, CONFIGFILE's [copy] sections (or else the cqlshrc's), WITH,
// flags.
func (c *cli) options(opts *loader.Options, stdin io.Reader, stderr io.Writer) error {
	rc, err := readCqlshrc(c, stderr)
	if err != nil {
		return err
	}
	if err := c.readCredentials(rc, stderr); err != nil {
		return err
	}
	stmt, portGiven, err := c.target(opts)
	if err != nil {
		return err
	}
	configFile := c.vals["config-file"].s
	if stmt != nil && !c.fs.Lookup("config-file").Changed {
		configFile = stmt.ConfigFile()
	}
	ks, table := opts.Keyspace, opts.Table
	if stmt != nil {
		ks, table = stmt.Keyspace, stmt.Table
		if ks == "" {
			ks = c.keyspace
		}
	}
	// cqlsh's COPY takes the timestamps' display format as DATETIMEFORMAT's
	// default.
	if rc != nil && rc.TimeFormat != "" {
		if err := opts.SetOption("datetimeformat", rc.TimeFormat); err != nil {
			return fmt.Errorf("cqlshrc %s [ui] time_format: %w", rc.Path, err)
		}
	}
	// As cqlsh: CONFIGFILE's sections, or else the cqlshrc's; never both.
	what, file := "CONFIGFILE", configFile
	if file == "" {
		what, file = "cqlshrc", rcPath(rc)
	}
	if file != "" {
		if err := cqlsh.ApplyConfigFile(opts, what, file, ks, table); err != nil {
			return err
		}
	}
	if stmt != nil {
		if err := stmt.Apply(opts, c.keyspace); err != nil {
			return err
		}
	}
	var errs []error
	for _, opt := range loader.OptionTable() {
		if v := c.vals[opt.Flag]; v != nil && opt.Settable() && c.fs.Lookup(opt.Flag).Changed {
			errs = append(errs, opts.SetOption(opt.Flag, v.s))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if err := c.connection(opts, rc, portGiven, stdin, stderr); err != nil {
		return err
	}
	opts.DryRun = c.dryRun
	if c.dryRun && c.dryRunRows > 0 && (opts.Dialect.MaxRows < 0 || c.dryRunRows < opts.Dialect.MaxRows) {
		opts.Dialect.MaxRows = c.dryRunRows
	}
	if c.verbose {
		opts.DriverLog = stderr
	}
	opts.Stdin = typedInput(stdin, opts.Files, stderr)
	return opts.Validate()
}

// target reads what to load: a COPY statement (returned, applied later
// with the other options) or --table and the files, with the positional
// HOST and PORT that may precede either. portGiven reports a PORT.
func (c *cli) target(opts *loader.Options) (stmt *cqlsh.CopyStatement, portGiven bool, err error) {
	portGiven = c.fs.Lookup("port").Changed
	setPort := func(p string) error {
		n, err := strconv.Atoi(p)
		if err != nil {
			return fmt.Errorf("port %q is not a number", p)
		}
		c.port, portGiven = n, true
		return nil
	}
	pos := c.fs.Args()
	if c.file != "" {
		// cqlsh -f: the script is the statement -e would give.
		if c.execute != "" {
			return nil, false, errors.New("give either -e COPY ... or -f FILE, not both")
		}
		data, err := wholefile.Read(c.file, "-f script", wholefile.MaxScript)
		if err != nil {
			return nil, false, fmt.Errorf("-f: %w", err)
		}
		// As cqlsh, a script may start with a UTF-8 byte order mark.
		if c.execute = strings.TrimPrefix(string(data), "\ufeff"); strings.TrimSpace(c.execute) == "" {
			return nil, false, fmt.Errorf("-f %s: the file holds no COPY statement", c.file)
		}
	}
	switch {
	case c.execute != "" && c.table != "":
		return nil, false, errors.New("give either -e COPY ... or --table, not both")
	case c.execute != "" && c.columns != "":
		// The statement's column list (or its absence) decides: the
		// flag was dropped without a word.
		return nil, false, errors.New("give the columns in the COPY statement's column list, not --columns")
	case c.execute != "":
		if stmt, err = cqlsh.ParseCopy(c.execute); err != nil && c.file != "" {
			return nil, false, fmt.Errorf("%s: %w", c.file, err)
		} else if err != nil {
			return nil, false, err
		}
		if len(pos) > 2 {
			return nil, false, fmt.Errorf("unexpected arguments %v (only HOST and PORT may precede -e)", pos[2:])
		}
		if len(pos) >= 1 {
			c.hosts = pos[0]
		}
		if len(pos) == 2 {
			err = setPort(pos[1])
		}
		return stmt, portGiven, err
	case c.table != "":
		if opts.Keyspace, opts.Table, err = cqlsh.ParseTable(c.table); err != nil {
			return nil, false, fmt.Errorf("--table: %w", err)
		}
		if c.columns != "" {
			// The COPY statement's column list parser: a quoted name may
			// hold commas.
			if opts.Columns, err = cqlsh.ParseColumns(c.columns); err != nil {
				return nil, false, fmt.Errorf("--columns: %w", err)
			}
		}
		if c.hosts == "" {
			host, port, rest := positionalHost(pos)
			if host != "" {
				c.hosts, pos = host, rest
			}
			if port != "" {
				if err := setPort(port); err != nil {
					return nil, false, err
				}
			}
		}
		if len(pos) == 0 {
			return nil, false, errors.New("no input files given")
		}
		opts.Files = pos
		return nil, portGiven, nil
	}
	return nil, false, errors.New(`nothing to do: give -e "COPY ..." or --table ks.table and files`)
}

// connection sets hosts, port, credentials and TLS: flags and positional
// arguments first, then CQLSH_HOST and CQLSH_PORT, then the cqlshrc,
// then the defaults.
func (c *cli) connection(opts *loader.Options, rc *cqlsh.Cqlshrc, portGiven bool, stdin io.Reader, stderr io.Writer) error {
	if c.hosts == "" {
		c.hosts = os.Getenv("CQLSH_HOST")
	}
	if p := os.Getenv("CQLSH_PORT"); p != "" && !portGiven {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n <= 0 || n > 65535 {
			return fmt.Errorf("CQLSH_PORT %q is not a port", p)
		}
		c.port, portGiven = n, true
	}
	if rc != nil && c.hosts == "" {
		c.hosts = rc.Hostname
	}
	if rc != nil && !portGiven && rc.Port > 0 {
		c.port = rc.Port
	}
	if c.hosts == "" {
		c.hosts = "127.0.0.1"
	}
	for _, h := range strings.Split(c.hosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			opts.Hosts = append(opts.Hosts, h)
		}
	}
	opts.Port = c.port
	opts.Username = c.username
	opts.ConnectTimeout, opts.RequestTimeout = c.connectTimeout, c.requestTimeout
	opts.LocalDC = c.dc
	pw, warning, err := password(*c)
	if err != nil {
		return err
	}
	fmt.Fprint(stderr, warning)
	if cr := c.creds; pw == "" && cr != nil && (cr.Username == "" || c.username == cr.Username) {
		pw = cr.Password
	}
	if pw == "" && rc != nil && c.username == rc.Username {
		pw = rc.Password
	}
	if pw == "" && c.username != "" {
		// As cqlsh: a user name without a password asks for it, without
		// echo, when someone is at the terminal.
		if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			fmt.Fprintf(stderr, "Password for %s: ", c.username)
			b, err := term.ReadPassword(int(f.Fd()))
			fmt.Fprintln(stderr)
			if err != nil {
				return fmt.Errorf("reading the password: %w", err)
			}
			pw = string(b)
		}
	}
	opts.Password = pw
	if c.ssl || c.sslCA != "" || c.sslCert != "" || c.sslServerName != "" {
		t, err := tlsConfig(*c)
		if err != nil {
			return err
		}
		opts.TLS = t
	}
	return nil
}

// load runs the load with its progress display, then prints the summary
// and returns the exit status.
func load(in *interrupts, c *cli, opts loader.Options, stdout, stderr io.Writer) int {
	ctx := in.ctx
	if c.summaryJSON != "" && c.summaryJSON != "-" {
		// Written at the end: a path that cannot take it must fail the
		// run before it loads, not after; nor may it be an input.
		if err := loader.CheckCreatable(c.summaryJSON); err != nil {
			return usageError(stderr, fmt.Errorf("--summary-json %s: %w", c.summaryJSON, err))
		}
		opts.OtherOutputs = append(opts.OtherOutputs, loader.Output{Option: "--summary-json", Path: c.summaryJSON})
	}
	l, err := loader.New(opts)
	if err != nil {
		return usageError(stderr, err)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		// The pipeline's working set is bounded (chunks are capped at
		// loader.MaxChunkBytes), but on a busy machine the collector gets too
		// little CPU and the heap overshoots it; a soft limit sized from
		// the options keeps peak RSS near the working set. GOMEMLIMIT
		// overrides it.
		prev := debug.SetMemoryLimit(softMemoryLimit(opts))
		defer debug.SetMemoryLimit(prev)
	}
	mode := c.progress
	if mode == "auto" {
		mode = "log"
		if isTerminal(stderr) {
			mode = "bar"
		}
	}
	if c.metricsAddr != "" {
		_, stopMetrics, err := serveMetrics(c.metricsAddr, l)
		if err != nil {
			return usageError(stderr, err)
		}
		defer stopMetrics()
	}
	rep := startReporter(l, mode, reportEvery(&opts, mode), stderr)
	sum, runErr := l.Run(ctx)
	in.runEnded()
	// A run that failed before opening its input (no cluster, no such
	// table), or was refused before loading (exit 64), has nothing to
	// report or summarise: the error says it all.
	started := (sum.Files > 0 || runErr == nil) && exitStatus(sum, runErr) != exitUsage
	rep.stop(started)

	if cause := context.Cause(ctx); errors.Is(runErr, context.Canceled) && cause != nil && cause != runErr {
		runErr = cause // what stopped the run: a signal or a closed output (interruptError)
		if opts.Resume != "" {
			runErr = fmt.Errorf("%w; the same command with --resume %s loads the rest", runErr, opts.Resume)
		}
	}
	if runErr != nil && sum.Aborted == "" {
		sum.Aborted = runErr.Error()
	}
	// With the JSON summary on standard output, that stays pure JSON and
	// everything for people goes to standard error.
	human := stdout
	if c.summaryJSON == "-" {
		human = stderr
	}
	if started {
		printSummary(human, sum, runErr)
		printReasons(stderr, sum)
	}
	if c.count && runErr == nil {
		n, err := countRows(opts)
		if err != nil {
			fmt.Fprintf(stderr, "cqlload: count: %v\n", err)
		} else {
			fmt.Fprintf(human, "%s.%s now holds %d rows (SELECT count(*)).\n", opts.Keyspace, opts.Table, n)
		}
	}
	code := exitStatus(sum, runErr)
	// Not over an input: the summary file may be the one that clashed.
	if c.summaryJSON != "" && !errors.As(runErr, new(*loader.InputClashError)) {
		if err := writeJSON(c.summaryJSON, stdout, c.red, jsonSummary{sum, buildVersion(), code}); err != nil {
			// A job that asked for the summary reads it back: without
			// it the run must not look like a success. With --resume,
			// running again writes it (there is nothing left to load).
			fmt.Fprintf(stderr, "cqlload: %v\n", err)
			switch {
			case c.summaryJSON != "-":
				code = exitFatal
			case code != exitFatal:
				code = exitInterrupted // standard output closed, as during a run
			}
		}
	}
	if runErr != nil {
		fmt.Fprintf(stderr, "cqlload: %v\n", runErr)
	}
	return code
}

// logReportFrequency is the default interval of progress log lines (off
// a terminal); an explicit REPORTFREQUENCY overrides it.
const logReportFrequency = 5 * time.Second

// reportEvery is the interval of progress reports in mode: log lines
// every logReportFrequency unless REPORTFREQUENCY was given (cqlsh's 0.25 s
// suits a line redrawn in place, not a log file); the bar keeps it.
func reportEvery(o *loader.Options, mode string) time.Duration {
	if mode == "log" && !o.Explicit("REPORTFREQUENCY") {
		return logReportFrequency
	}
	return o.ReportFrequency
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

// versionInfo names the build: the module version, the commit, the Go
// release and the CQL driver's module version; "devel" when unknown.
type versionInfo struct {
	Version string `json:"version"`
	Commit  string `json:"commit"`
	Go      string `json:"go"`
	Driver  string `json:"driver"`
}

func buildVersion() versionInfo {
	v := versionInfo{Version: "devel", Commit: "devel", Go: runtime.Version(), Driver: "devel"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v.Version = bi.Main.Version
	}
	if bi.GoVersion != "" {
		v.Go = bi.GoVersion
	}
	modified := false
	for _, st := range bi.Settings {
		switch st.Key {
		case "vcs.revision":
			v.Commit = st.Value
		case "vcs.modified":
			modified = st.Value == "true"
		}
	}
	if modified && v.Commit != "devel" {
		v.Commit += "-dirty"
	}
	for _, d := range bi.Deps {
		if d.Path != "github.com/gocql/gocql" {
			continue
		}
		v.Driver = d.Path + " " + d.Version
		if d.Replace != nil {
			v.Driver = d.Replace.Path + " " + d.Replace.Version
		}
		if strings.HasSuffix(v.Driver, " ") || strings.HasSuffix(v.Driver, "(devel)") {
			v.Driver = "devel"
		}
	}
	return v
}

// exitStatus is what a scheduler learns from the run (see the README's
// exit status table): the number of the loader's class of its outcome.
func exitStatus(sum loader.Summary, runErr error) int {
	return exitCodes[loader.Classify(sum, runErr)]
}

var exitCodes = map[loader.Class]int{
	loader.ClassOK:          exitOK,
	loader.ClassRejected:    exitRejected,
	loader.ClassAborted:     exitAborted,
	loader.ClassFatal:       exitFatal,
	loader.ClassInterrupted: exitInterrupted,
	loader.ClassUsage:       exitUsage,
}

// softMemoryLimit is 44 MiB for the driver, buffers and the collector's
// slack, plus 4 MiB per worker (a chunk, its converted slabs and batches).
// The live heap of a default load is about 20 MiB. Less headroom makes
// the collector run often on 1 KB rows; more adds peak RSS and saves
// little of its CPU (the figures are in docs/benchmarks.md).
func softMemoryLimit(o loader.Options) int64 {
	return int64(44+4*o.Workers) << 20
}

func countRows(o loader.Options) (int64, error) {
	s, err := loader.Connect(o)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	var n int64
	q := fmt.Sprintf("SELECT count(*) FROM %q.%q", o.Keyspace, o.Table)
	if err := s.Query(q).Scan(&n); err != nil {
		return 0, err
	}
	return n, nil
}

// readCqlshrc reads the cqlsh configuration file (--cqlshrc, else
// ~/.cassandra/cqlshrc when it exists) and takes from it what the command
// line did not give: host and port are applied later, since positional
// arguments may still give them. Its [copy] sections are applied with the
// other options. nil when there is no file.
func readCqlshrc(c *cli, stderr io.Writer) (*cqlsh.Cqlshrc, error) {
	path, explicit := c.cqlshrc, c.cqlshrc != ""
	if !explicit {
		path = cqlsh.DefaultCqlshrcPath()
	}
	if path == "" {
		return nil, nil
	}
	rc, ok, err := cqlsh.ReadCqlshrc(path)
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
		fmt.Fprintf(stderr, "cqlload: warning: %s\n", w)
	}
	unset := func(name string) bool { return !c.fs.Lookup(name).Changed }
	if unset("username") && rc.Username != "" {
		c.username = rc.Username
	}
	if unset("keyspace") && rc.Keyspace != "" {
		c.keyspace = rc.Keyspace
	}
	if unset("ssl") && rc.SSL {
		c.ssl = true
	}
	if unset("connect-timeout") && rc.ConnectTimeout > 0 {
		c.connectTimeout = rc.ConnectTimeout
	}
	if unset("request-timeout") && rc.RequestTimeout > 0 {
		c.requestTimeout = rc.RequestTimeout
	}
	if unset("ssl-ca") && rc.CertFile != "" {
		c.sslCA = rc.CertFile
	}
	if unset("ssl-no-verify") && rc.Validate != nil && !*rc.Validate {
		c.sslNoVerify = true
	}
	if unset("ssl-cert") && rc.UserCert != "" {
		c.sslCert = rc.UserCert
	}
	if unset("ssl-key") && rc.UserKey != "" {
		c.sslKey = rc.UserKey
	}
	return rc, nil
}

// readCredentials reads cqlsh's credentials file (--credentials, else
// the cqlshrc's [authentication] credentials, else
// ~/.cassandra/credentials when it exists): its user name is taken over
// the cqlshrc's unless -u gave one; connection takes its password.
func (c *cli) readCredentials(rc *cqlsh.Cqlshrc, stderr io.Writer) error {
	path, explicit := c.credentials, c.credentials != ""
	if !explicit && rc != nil {
		path = rc.Credentials
	}
	if path == "" {
		path = cqlsh.DefaultCredentialsPath()
	}
	if path == "" {
		return nil
	}
	cr, err := cqlsh.ReadCredentials(homedir.Expand(path))
	switch {
	case err != nil:
		return err
	case cr == nil && explicit:
		return fmt.Errorf("--credentials %s: no such file", path)
	case cr == nil:
		return nil
	case cr.Warning != "":
		fmt.Fprintf(stderr, "cqlload: warning: %s\n", cr.Warning)
		return nil
	}
	c.creds = cr
	if !c.fs.Lookup("username").Changed && cr.Username != "" {
		c.username = cr.Username
	}
	return nil
}

func rcPath(rc *cqlsh.Cqlshrc) string {
	if rc == nil {
		return ""
	}
	return rc.Path
}

// cmdlinePasswordWarning is cqlsh's, word for word: a password on the
// command line is in the shell's history and, while the run lasts, in
// every user's ps output.
const cmdlinePasswordWarning = "Warning: Using a password on the command line interface can be insecure.\nRecommendation: use the credentials file to securely provide the password.\n"

// password returns the password of -p, --password-file or
// CQLLOAD_PASSWORD, in that order, and the warning to print, if any.
func password(c cli) (pw, warning string, err error) {
	switch {
	case c.password != "":
		if !c.insecurePassword {
			warning = cmdlinePasswordWarning
		}
		return c.password, warning, nil
	case c.passwordFile != "":
		pw, warning, err = cqlsh.ReadPasswordFile(c.passwordFile)
		if warning != "" {
			warning = "cqlload: warning: " + warning + "\n"
		}
		return pw, warning, err
	}
	return os.Getenv("CQLLOAD_PASSWORD"), "", nil
}

func tlsConfig(c cli) (*tls.Config, error) {
	t := &tls.Config{InsecureSkipVerify: c.sslNoVerify, ServerName: c.sslServerName, MinVersion: tls.VersionTLS12}
	if c.sslCA != "" {
		pem, err := wholefile.Read(c.sslCA, "--ssl-ca file", wholefile.MaxPEM)
		if err != nil {
			return nil, fmt.Errorf("--ssl-ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--ssl-ca %s: no PEM certificate found", c.sslCA)
		}
		t.RootCAs = pool
	}
	if c.sslCert != "" || c.sslKey != "" {
		certPEM, err := wholefile.Read(c.sslCert, "--ssl-cert file", wholefile.MaxPEM)
		if err != nil {
			return nil, fmt.Errorf("--ssl-cert: %w", err)
		}
		keyPEM, err := wholefile.Read(c.sslKey, "--ssl-key file", wholefile.MaxPEM)
		if err != nil {
			return nil, fmt.Errorf("--ssl-key: %w", err)
		}
		cert, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, fmt.Errorf("--ssl-cert/--ssl-key: %w", err)
		}
		t.Certificates = []tls.Certificate{cert}
	}
	return t, nil
}

// errLogs names the logs of a summary's error files: one for a run, one
// per split for a summary that merges splits.
func errLogs(s loader.Summary) string {
	if len(s.ErrLogs) == 0 {
		return s.ErrLog
	}
	return strings.Join(s.ErrLogs, ", ")
}

// seeErrFiles points to the error files and logs that hold the rows not
// written; when none could be written (a full disk), it says so rather
// than name nothing: the error printed after the summary says why.
func seeErrFiles(s loader.Summary) string {
	var names []string
	if files := strings.Join(s.ErrFiles, ", "); files != "" {
		names = append(names, files)
	}
	if logs := errLogs(s); logs != "" {
		names = append(names, logs)
	}
	if len(names) == 0 {
		return "no error file holds them: it could not be written"
	}
	return "see " + strings.Join(names, " and ")
}

func printSummary(w io.Writer, s loader.Summary, runErr error) {
	if s.NothingToDo {
		fmt.Fprintf(w, "Nothing to do: the checkpoint records a completed run of these files with these options (%d rows); remove it to load them again.\n", s.RowsResumed)
		if len(s.ErrFiles) > 0 {
			// The checkpoint names them; the user may have moved them
			// since, to mend and load them.
			files := make([]string, len(s.ErrFiles))
			for i, f := range s.ErrFiles {
				files[i] = f
				if _, err := os.Stat(f); errors.Is(err, fs.ErrNotExist) {
					files[i] += " (since moved or removed)"
				}
			}
			fmt.Fprintf(w, "That run did not write every row: the rows it could not write were written to %s, each with its reason in %s.\n", strings.Join(files, ", "), errLogs(s))
		}
		return
	}
	if s.DryRun {
		fmt.Fprintf(w, "Dry run: %d rows would be imported from %d files, read and converted in %.3f seconds (%d skipped); nothing was sent.\n",
			s.RowsDryRun, s.Files, s.ElapsedS, s.RowsSkipped-s.RowsDryRun)
	} else {
		fmt.Fprintf(w, "%d rows imported from %d files in %.3f seconds (%d skipped).\n", s.RowsWritten, s.Files, s.ElapsedS, s.RowsSkipped)
	}
	if s.RowsResumed > 0 {
		fmt.Fprintf(w, "%d rows were settled by the run this one resumed, and not read again.\n", s.RowsResumed)
	}
	if len(s.InputsLeftOut) > 0 {
		fmt.Fprintf(w, "Left out of the files listed, as this run's own: %s.\n", strings.Join(s.InputsLeftOut, ", "))
	}
	if len(s.PreviousErrFiles) > 0 {
		fmt.Fprintf(w, "The error files an earlier run left were renamed, as cqlsh renames them: %s.\n", strings.Join(s.PreviousErrFiles, ", "))
	}
	if rej := s.RowsFailedParse + s.RowsFailedInsert + s.RowsUnknown + s.RowsNotSent; rej > 0 {
		fmt.Fprintf(w, "%d rows not written: %d failed to parse, %d failed to insert, %d unknown (may have been applied), %d not sent (the run stopped); %s\n",
			rej, s.RowsFailedParse, s.RowsFailedInsert, s.RowsUnknown, s.RowsNotSent, seeErrFiles(s))
	} else if len(s.ErrFiles) > 0 && s.RowsResumed > 0 {
		// The exit status says rows were not written: name where they are.
		fmt.Fprintf(w, "The run this one resumed did not write some of its rows: %s\n", seeErrFiles(s))
	}
	if s.DryRun {
		// Nothing was sent: no rates, latencies or limits to report.
		fmt.Fprintf(w, "%d rows read.\n", s.RowsRead)
	} else {
		fmt.Fprintf(w, "%d rows read, %.0f rows/s, %d requests, %d retries; latency ms p50 %.2f p95 %.2f p99 %.2f max %.2f\n",
			s.RowsRead, s.RowsPerSec, s.Requests, s.Retries, s.Latency.P50, s.Latency.P95, s.Latency.P99, s.Latency.Max)
	}
	if r := s.LatencyRaw; r != nil {
		fmt.Fprintf(w, "Latency above is from each request's place on the INGESTRATE schedule; as sent: p50 %.2f p95 %.2f p99 %.2f max %.2f\n",
			r.P50, r.P95, r.P99, r.Max)
	}
	if s.RowsNotSentByDuration > 0 {
		fmt.Fprintf(w, "--duration ended the run: %d rows read were not sent (skipped).\n", s.RowsNotSentByDuration)
	}
	if len(s.Limits) > 0 && !s.DryRun {
		var parts []string
		for _, h := range s.Limits {
			part := fmt.Sprintf("%s %d", h.Host, h.Limit)
			if h.Paced > 0 {
				part += fmt.Sprintf(" (paced at %.0f requests/s)", h.Paced)
			}
			parts = append(parts, part)
		}
		kind := "adaptive"
		if !s.Adaptive {
			kind = "fixed"
		}
		fmt.Fprintf(w, "In-flight limits (%s) at the end: %s; %d error responses (%.2f%% of responses)\n",
			kind, strings.Join(parts, ", "), s.ErrorResponses, 100*s.ErrorShare)
	}
	if s.Warnings > 0 {
		fmt.Fprintf(w, "%d warnings from the cluster; the first: %s\n", s.Warnings, s.FirstWarning)
	}
	for _, h := range s.Hints {
		fmt.Fprintf(w, "Hint: %s\n", h)
	}
	var ae *loader.AbortError
	if errors.As(runErr, &ae) {
		fmt.Fprintf(w, "Aborted: %s\n", ae.Reason)
	}
}

// shownReasons is how many of the reasons rows were not written the
// terminal shows; the summary JSON has up to loader.MaxReasons.
// shownReasonBytes cuts a long one there (a header's list of 1,500
// unknown names is 30 KB), which the log and the JSON keep whole.
const (
	shownReasons     = 5
	shownReasonBytes = 300
)

// printReasons says on standard error why rows were not written, as cqlsh
// prints its errors there: each distinct reason with its first row and
// how many rows it took, the first shownReasons of them. Only counts and
// the log's name were shown before, and a header with a typo, which
// rejects every row, said why only in the log.
func printReasons(w io.Writer, s loader.Summary) {
	if len(s.Reasons) == 0 {
		return
	}
	for _, r := range s.Reasons[:min(len(s.Reasons), shownReasons)] {
		reason := r.Reason
		if len(reason) > shownReasonBytes {
			cut := shownReasonBytes
			for cut > 0 && !utf8.RuneStart(reason[cut]) {
				cut--
			}
			reason = reason[:cut] + "… (in full in " + errLogs(s) + ")"
		}
		fmt.Fprintf(w, "%s: %s (%d %s)\n", r.First, reason, r.Rows, plural(r.Rows, "row"))
	}
	var rows int64
	for _, r := range s.Reasons[min(len(s.Reasons), shownReasons):] {
		rows += r.Rows
	}
	rows += s.OtherReasonRows
	if more := len(s.Reasons) - shownReasons; more > 0 || s.OtherReasonRows > 0 {
		what := fmt.Sprintf("%d more %s", more, plural(int64(more), "reason"))
		if s.OtherReasonRows > 0 {
			what = "more reasons"
		}
		fmt.Fprintf(w, "… and %s for %d %s: %s\n", what, rows, plural(rows, "row"), seeErrFiles(s))
	}
}

func plural(n int64, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// jsonSummary is the --summary-json document: the loader's summary, the
// build that produced it and the run's exit status.
type jsonSummary struct {
	loader.Summary
	Version    versionInfo `json:"version"`
	ExitStatus int         `json:"exit_status"`
}

func writeJSON(path string, stdout io.Writer, red *redact.Redactor, s jsonSummary) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	// Inputs' names and error messages may hold a URL's password.
	b = append(red.Bytes(b), '\n')
	if path == "-" {
		if _, err := stdout.Write(b); err != nil {
			return fmt.Errorf("summary not written to standard output: %w", err)
		}
		return nil
	}
	if err := wholefile.Write(path, b, (*os.File).Sync, 0o644); err != nil {
		// Nor an earlier run's summary, which would pass for this one's.
		_ = wholefile.Discard(path)
		return fmt.Errorf("summary %s not written: %w", path, err)
	}
	return nil
}
