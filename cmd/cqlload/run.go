package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/cqlload/cqlload/csvparse"
	"github.com/cqlload/cqlload/loader"
)

// Exit statuses, as documented in the README.
const (
	exitOK          = 0
	exitRejected    = 1  // finished, but some rows were rejected or their outcome is unknown
	exitAborted     = 2  // MAXPARSEERRORS or MAXINSERTERRORS was crossed
	exitFatal       = 3  // the run could not go on: cluster unreachable or silent, schema mismatch, damaged input
	exitInterrupted = 4  // SIGINT or SIGTERM
	exitUsage       = 64 // bad command line, or a --resume that cannot be honoured
)

// optionFlags maps flags to cqlsh COPY option names, so that both forms
// go through loader.Options.SetOption and mean the same thing.
var optionFlags = []struct{ flag, option, help string }{
	{"header", "HEADER", "the first line of each file holds column names"},
	{"delimiter", "DELIMITER", "field delimiter"},
	{"quote", "QUOTE", "quote character"},
	{"escape", "ESCAPE", "escape character inside fields; empty for none (plain RFC 4180 files with backslashes in data)"},
	{"null", "NULL", "the text of a null value (unquoted)"},
	{"null-mode", "NULLMODE", "null: write nulls as cqlsh does; unset: leave those columns unset (no tombstones)"},
	{"datetime-format", "DATETIMEFORMAT", "timestamp format, strftime syntax as in cqlsh"},
	{"timezone", "TIMEZONE", "time zone of timestamps that carry none"},
	{"decimal-sep", "DECIMALSEP", "decimal separator"},
	{"thousands-sep", "THOUSANDSSEP", "thousands separator (none by default)"},
	{"bool-style", "BOOLSTYLE", "true and false words, comma separated"},
	{"cqlsh-escapes", "CQLSHESCAPES", "the input was written by cqlsh COPY TO: undo its backslash escapes inside text (\\\\, \\n, \\xHH)"},
	{"encoding", "ENCODING", "input encoding: utf-8, latin-1, utf-16, utf-16le, utf-16be"},
	{"max-attempts", "MAXATTEMPTS", "attempts per batch for retryable errors at most; 0 = as many as --retry-window allows"},
	{"verify-buffer", "VERIFYBUFFER", "compressed bytes of a gzip member or zstd frame checked before its rows are sent; 0 = none"},
	{"flush-interval", "FLUSHINTERVAL", "a stream (stdin, a pipe) silent this long has the rows read so far sent"},
	{"retry-window", "RETRYWINDOW", "how long a failing batch is retried, and how long the run waits while no node answers"},
	{"report-frequency", "REPORTFREQUENCY", "seconds between progress reports"},
	{"workers", "NUMPROCESSES", "parse/convert workers"},
	{"chunk-size", "CHUNKSIZE", "records per chunk handed to a worker"},
	{"ingest-rate", "INGESTRATE", "rows per second at most; 0 = unlimited (cqlsh's default is 100000)"},
	{"min-batch-size", "MINBATCHSIZE", "a partition with at least this many rows gets batches of its own"},
	{"max-batch-size", "MAXBATCHSIZE", "rows per batch at most"},
	{"max-batch-bytes", "MAXBATCHBYTES", "value bytes per batch at most (Cassandra fails multi-partition batches over 50 KiB)"},
	{"max-in-flight", "MAXINFLIGHT", "requests awaiting the cluster at once"},
	{"max-rows", "MAXROWS", "records read per file at most; -1 = all"},
	{"max-record-bytes", "MAXRECORDBYTES", "a record longer than this is rejected whole (its bytes go to the error file intact)"},
	{"skip-rows", "SKIPROWS", "records skipped at the start of each file"},
	{"skip-cols", "SKIPCOLS", "comma-separated columns of the file not to load"},
	{"max-parse-errors", "MAXPARSEERRORS", "abort after this many rows fail to parse; -1 = no limit"},
	{"max-insert-errors", "MAXINSERTERRORS", "abort after this many rows fail to insert; -1 = no limit"},
	{"err-file", "ERRFILE", "file receiving rejected rows (default import_<ks>_<table>.err)"},
	{"ttl", "TTL", "time to live of written rows in seconds; -1 = none"},
	{"rate-file", "RATEFILE", "file to append progress lines to"},
	{"resume", "RESUME", "checkpoint file: records how far the run got; if it exists, what it says is done is skipped"},
	{"consistency", "CONSISTENCY", "write consistency level"},
}

// optValue holds a flag's text until it is applied through SetOption,
// which does the checking; kind only labels the flag in --help.
type optValue struct{ s, kind string }

func (v *optValue) String() string     { return v.s }
func (v *optValue) Set(s string) error { v.s = s; return nil }
func (v *optValue) Type() string       { return v.kind }

func optionKind(option string) string {
	switch option {
	case "HEADER", "CQLSHESCAPES":
		// Not "bool": these take a value (--header true), as in cqlsh's
		// WITH HEADER = true, so `--header true FILE` reads as expected.
		return "true|false"
	case "REPORTFREQUENCY":
		return "seconds"
	case "RETRYWINDOW", "FLUSHINTERVAL":
		return "duration"
	case "MAXATTEMPTS", "NUMPROCESSES", "CHUNKSIZE", "INGESTRATE", "MINBATCHSIZE", "MAXBATCHSIZE",
		"MAXBATCHBYTES", "MAXINFLIGHT", "MAXROWS", "MAXRECORDBYTES", "VERIFYBUFFER", "SKIPROWS", "MAXPARSEERRORS", "MAXINSERTERRORS", "TTL":
		return "int"
	}
	return "string"
}

func defaultText(o loader.Options, option string) string {
	switch option {
	case "HEADER":
		return strconv.FormatBool(o.Dialect.Header)
	case "CQLSHESCAPES":
		return strconv.FormatBool(o.Formats.CqlshEscapes)
	case "DELIMITER":
		return string(o.Dialect.Delimiter)
	case "QUOTE":
		return string(o.Dialect.Quote)
	case "ESCAPE":
		return string(o.Dialect.Escape)
	case "NULL":
		return o.Null
	case "NULLMODE":
		return "null"
	case "DATETIMEFORMAT":
		return o.Formats.DateTimeFormat
	case "TIMEZONE":
		return "UTC"
	case "DECIMALSEP":
		return o.Formats.DecimalSep
	case "THOUSANDSSEP":
		return o.Formats.ThousandsSep
	case "BOOLSTYLE":
		return o.Formats.BoolStyle[0] + "," + o.Formats.BoolStyle[1]
	case "ENCODING":
		return "utf-8"
	case "MAXATTEMPTS":
		return strconv.Itoa(o.MaxAttempts)
	case "RETRYWINDOW":
		return o.RetryWindow.String()
	case "FLUSHINTERVAL":
		return o.FlushInterval.String()
	case "VERIFYBUFFER":
		return strconv.Itoa(o.VerifyBuffer)
	case "REPORTFREQUENCY":
		return strconv.FormatFloat(o.ReportFrequency.Seconds(), 'f', -1, 64)
	case "NUMPROCESSES":
		return strconv.Itoa(o.Workers)
	case "CHUNKSIZE":
		return strconv.Itoa(o.ChunkSize)
	case "INGESTRATE":
		return strconv.Itoa(o.IngestRate)
	case "MINBATCHSIZE":
		return strconv.Itoa(o.MinBatchSize)
	case "MAXBATCHSIZE":
		return strconv.Itoa(o.MaxBatchSize)
	case "MAXBATCHBYTES":
		return strconv.Itoa(o.MaxBatchBytes)
	case "MAXINFLIGHT":
		return strconv.Itoa(o.MaxInFlight)
	case "MAXROWS":
		return strconv.Itoa(o.Dialect.MaxRows)
	case "MAXRECORDBYTES":
		if o.Dialect.MaxRecordBytes == 0 {
			return strconv.Itoa(csvparse.DefaultMaxRecordBytes)
		}
		return strconv.Itoa(o.Dialect.MaxRecordBytes)
	case "SKIPROWS":
		return strconv.Itoa(o.Dialect.SkipRows)
	case "MAXPARSEERRORS":
		return strconv.Itoa(o.MaxParseErrors)
	case "MAXINSERTERRORS":
		return strconv.Itoa(o.MaxInsertErrors)
	case "TTL":
		return strconv.Itoa(o.TTL)
	case "CONSISTENCY":
		return o.Consistency.String()
	}
	return ""
}

type cli struct {
	execute, table, columns, hosts, keyspace string
	username, password, passwordFile         string
	ssl, sslNoVerify                         bool
	sslCA, sslCert, sslKey                   string
	port                                     int
	connectTimeout, requestTimeout           time.Duration
	dc, summaryJSON, progress, metricsAddr   string
	help, count, verbose, version, dryRun    bool
	dryRunRows                               int
	cqlshrc                                  string
}

const usageHead = `cqlload loads CSV files into Apache Cassandra or ScyllaDB.

Usage:
  cqlload [flags] [HOST [PORT]] -e "COPY ks.table [(c1, c2, ...)] FROM 'file.csv' [WITH opt = value [AND ...]]"
  cqlload [flags] [HOST [PORT]] --table ks.table [--columns c1,c2] FILE|GLOB|DIR|- ...

With --table, a first argument is taken for HOST only if no --hosts is
given, more arguments follow it, it is no existing file, directory or glob
match, and it is an IP address or a host name not ending in a data file
extension (.csv, .tsv, .txt, .dat, .gz, .zst); a PORT after it is a number
that is no existing file.

Every cqlsh COPY FROM option is accepted in the WITH clause (names are
case-insensitive) and as a flag of the same name in kebab case; flags
override the statement. Exit status: 0 all rows written, 1 some rows
rejected or unknown (see the error file), 2 aborted by MAXPARSEERRORS or
MAXINSERTERRORS, 3 fatal error (cluster unreachable or silent, schema
mismatch, damaged input), 4 interrupted, 64 usage error.

Flags:
`

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// First, so that a signal that comes while the options are read or
	// the cluster is reached stops the run in order instead of killing it.
	ctx, stop := interruptContext(stderr)
	defer stop()
	opts := loader.DefaultOptions()
	fs := pflag.NewFlagSet("cqlload", pflag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported once, below
	fs.SortFlags = false
	var c cli
	fs.StringVarP(&c.execute, "execute", "e", "", "a cqlsh COPY ... FROM statement")
	fs.StringVar(&c.table, "table", "", "the table to load, as keyspace.table")
	fs.StringVar(&c.columns, "columns", "", "comma-separated columns in file order (default: all, or the header's names)")
	fs.StringVar(&c.hosts, "hosts", "", "comma-separated contact points, host or host:port (default 127.0.0.1)")
	fs.IntVar(&c.port, "port", 9042, "CQL native port")
	fs.StringVarP(&c.keyspace, "keyspace", "k", "", "keyspace of a COPY statement that names none")
	fs.StringVarP(&c.username, "username", "u", "", "user name (PasswordAuthenticator)")
	fs.StringVarP(&c.password, "password", "p", "", "password (better: CQLLOAD_PASSWORD or --password-file)")
	fs.StringVar(&c.passwordFile, "password-file", "", "read the password from this file's first line")
	fs.BoolVar(&c.ssl, "ssl", false, "connect with TLS")
	fs.StringVar(&c.sslCA, "ssl-ca", "", "CA certificate file (PEM) to verify the nodes")
	fs.StringVar(&c.sslCert, "ssl-cert", "", "client certificate file (PEM)")
	fs.StringVar(&c.sslKey, "ssl-key", "", "client key file (PEM)")
	fs.BoolVar(&c.sslNoVerify, "ssl-no-verify", false, "do not verify node certificates")
	fs.DurationVar(&c.connectTimeout, "connect-timeout", opts.ConnectTimeout, "connection timeout")
	fs.DurationVar(&c.requestTimeout, "request-timeout", opts.RequestTimeout, "per-request timeout")
	fs.StringVar(&c.dc, "dc", "", "local data center: coordinators are chosen there")
	fs.StringVar(&c.summaryJSON, "summary-json", "", "write the summary as JSON to this file (- for standard output)")
	fs.StringVar(&c.metricsAddr, "metrics-addr", "", "serve Prometheus metrics of the run at http://HOST:PORT/metrics")
	fs.StringVar(&c.progress, "progress", "auto", "progress display: auto (a bar on a terminal, else log lines), bar, log, none")
	optVals := make(map[string]*optValue, len(optionFlags))
	for _, f := range optionFlags {
		v := &optValue{s: defaultText(opts, f.option), kind: optionKind(f.option)}
		optVals[f.flag] = v
		help := fmt.Sprintf("%s (%s)", f.help, f.option)
		if v.s == "0" || v.s == "false" {
			help += " (default " + v.s + ")" // pflag omits zero defaults
		}
		fs.Var(v, f.flag, help)
	}
	fs.StringVar(new(string), "config-file", "", "cqlshrc-style file with [copy] / [copy-from] sections (CONFIGFILE)")
	fs.StringVar(&c.cqlshrc, "cqlshrc", "", "cqlsh's configuration file: [connection], [authentication], [ssl] and [copy] sections (default ~/.cassandra/cqlshrc, when it exists); flags win")
	fs.BoolVar(&c.dryRun, "dry-run", false, "connect, check the table, read and convert the input, write the error file and summary, send nothing")
	fs.IntVar(&c.dryRunRows, "dry-run-rows", 0, "with --dry-run: read at most this many records per file (0: all)")
	fs.BoolVar(&c.count, "count", false, "after loading, read back SELECT count(*) of the table (a full scan: for small tables and demos)")
	fs.BoolVarP(&c.verbose, "verbose", "v", false, "also print the driver's log (reconnections, host events) to standard error")
	fs.BoolVar(&c.version, "version", false, "print the version of cqlload, its Go and its driver, and exit")
	fs.BoolVarP(&c.help, "help", "h", false, "show this help")
	fs.Usage = func() {
		fmt.Fprint(stderr, usageHead)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(stderr, "cqlload: %v\nRun cqlload --help for usage.\n", err)
		return exitUsage
	}
	if c.help {
		fmt.Fprint(stdout, usageHead)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return exitOK
	}
	if c.version {
		v := buildVersion()
		fmt.Fprintf(stdout, "cqlload %s (commit %s, %s, driver %s)\n", v.Version, v.Commit, v.Go, v.Driver)
		return exitOK
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "cqlload: "+format+"\n", a...)
		fmt.Fprintln(stderr, "Run cqlload --help for usage.")
		return exitUsage
	}

	rc, err := readCqlshrc(fs, &c, stderr)
	if err != nil {
		return usage("%v", err)
	}
	portGiven := fs.Lookup("port").Changed

	pos := fs.Args()
	var copyStmt *loader.CopyStatement
	switch {
	case c.execute != "" && c.table != "":
		return usage("give either -e COPY ... or --table, not both")
	case c.execute != "":
		cs, err := loader.ParseCopy(c.execute)
		if err != nil {
			return usage("%v", err)
		}
		copyStmt = cs
		if len(pos) > 2 {
			return usage("unexpected arguments %v (only HOST and PORT may precede -e)", pos[2:])
		}
		if len(pos) >= 1 {
			c.hosts = pos[0]
		}
		if len(pos) == 2 {
			p, err := strconv.Atoi(pos[1])
			if err != nil {
				return usage("port %q is not a number", pos[1])
			}
			c.port, portGiven = p, true
		}
	case c.table != "":
		ks, t, ok := strings.Cut(c.table, ".")
		if !ok || ks == "" || t == "" {
			return usage("--table wants keyspace.table, got %q", c.table)
		}
		opts.Keyspace, opts.Table = strings.ToLower(ks), strings.ToLower(t)
		if c.columns != "" {
			for _, col := range strings.Split(c.columns, ",") {
				opts.Columns = append(opts.Columns, strings.TrimSpace(col))
			}
		}
		if c.hosts == "" {
			host, port, rest := positionalHost(pos)
			if host != "" {
				c.hosts, pos = host, rest
			}
			if port != "" {
				p, err := strconv.Atoi(port)
				if err != nil {
					return usage("port %q is not a number", port)
				}
				c.port, portGiven = p, true
			}
		}
		if len(pos) == 0 {
			return usage("no input files given")
		}
		opts.Files = pos
	default:
		return usage("nothing to do: give -e \"COPY ...\" or --table ks.table FILE...")
	}

	// Precedence, low to high: defaults, the cqlshrc's [copy] sections,
	// CONFIGFILE, WITH options, flags.
	configFile := ""
	if copyStmt != nil {
		configFile = copyStmt.ConfigFile()
	}
	if f := fs.Lookup("config-file"); f.Changed {
		configFile = f.Value.String()
	}
	ks, table := opts.Keyspace, opts.Table
	if copyStmt != nil {
		ks, table = copyStmt.Keyspace, copyStmt.Table
		if ks == "" {
			ks = c.keyspace
		}
	}
	for _, f := range []string{rcPath(rc), configFile} {
		if f == "" {
			continue
		}
		if err := loader.ApplyConfigFile(&opts, f, ks, table); err != nil {
			return usage("%v", err)
		}
	}
	if copyStmt != nil {
		if err := copyStmt.Apply(&opts, c.keyspace); err != nil {
			return usage("%v", err)
		}
	}
	var optErrs []string
	for _, f := range optionFlags {
		if fs.Lookup(f.flag).Changed {
			if err := opts.SetOption(f.option, optVals[f.flag].s); err != nil {
				optErrs = append(optErrs, err.Error())
			}
		}
	}
	if len(optErrs) > 0 {
		return usage("%s", strings.Join(optErrs, "; "))
	}

	// Connection.
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
	opts.DryRun = c.dryRun
	if c.dryRun && c.dryRunRows > 0 && (opts.Dialect.MaxRows < 0 || c.dryRunRows < opts.Dialect.MaxRows) {
		opts.Dialect.MaxRows = c.dryRunRows
	}
	if c.verbose {
		opts.DriverLog = stderr
	}
	opts.Stdin = stdin
	pw, err := password(c)
	if err != nil {
		return usage("%v", err)
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
				return usage("reading the password: %v", err)
			}
			pw = string(b)
		}
	}
	opts.Password = pw
	if c.ssl || c.sslCA != "" || c.sslCert != "" {
		t, err := tlsConfig(c)
		if err != nil {
			return usage("%v", err)
		}
		opts.TLS = t
	}
	if err := opts.Validate(); err != nil {
		return usage("%v", err)
	}

	l, err := loader.New(opts)
	if err != nil {
		return usage("%v", err)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		// The pipeline's working set is bounded (chunks are capped at
		// 512 KiB each), but on a busy machine the collector gets too
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
			return usage("%v", err)
		}
		defer stopMetrics()
	}
	rep := startReporter(l, mode, reportEvery(&opts, mode), stderr)
	sum, runErr := l.Run(ctx)
	rep.stop()

	if runErr != nil && sum.Aborted == "" {
		sum.Aborted = runErr.Error()
	}
	// With the JSON summary on standard output, that stays pure JSON and
	// everything for people goes to standard error.
	human := stdout
	if c.summaryJSON == "-" {
		human = stderr
	}
	if sum.Files > 0 || runErr == nil {
		// A run that failed before opening its input (no cluster, no
		// such table) has nothing to summarise: the error says it all.
		printSummary(human, sum, runErr)
	}
	if c.count && runErr == nil {
		n, err := countRows(opts)
		if err != nil {
			fmt.Fprintf(stderr, "cqlload: count: %v\n", err)
		} else {
			fmt.Fprintf(human, "%s.%s now holds %d rows (SELECT count(*)).\n", opts.Keyspace, opts.Table, n)
		}
	}
	if c.summaryJSON != "" {
		if err := writeJSON(c.summaryJSON, stdout, sum); err != nil {
			fmt.Fprintf(stderr, "cqlload: %v\n", err)
		}
	}
	if runErr != nil {
		fmt.Fprintf(stderr, "cqlload: %v\n", runErr)
	}
	return exitStatus(sum, runErr)
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

// exitStatus is what a scheduler learns from the run (see the README).
func exitStatus(sum loader.Summary, runErr error) int {
	var ae *loader.AbortError
	var re *loader.ResumeError
	switch {
	case errors.As(runErr, &re):
		return exitUsage
	case errors.Is(runErr, context.Canceled):
		return exitInterrupted
	case errors.As(runErr, &ae) && !ae.Fatal:
		return exitAborted
	case runErr != nil:
		return exitFatal
	case sum.RowsFailedParse+sum.RowsFailedInsert+sum.RowsUnknown+sum.RowsNotSent > 0,
		len(sum.ErrFiles) > 0:
		// The second case: a resumed run that finished cleanly, while
		// the error files hold rows of the runs before it.
		return exitRejected
	}
	return exitOK
}

// interruptContext is cancelled by the first SIGINT or SIGTERM, which
// stops the run in an orderly way (rows in flight settle, rows not sent
// go to the error file); a second signal exits at once.
func interruptContext(stderr io.Writer) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
		case <-done:
			return
		}
		fmt.Fprintln(stderr, "cqlload: interrupted: settling the rows in flight; interrupt again to exit at once")
		cancel()
		select {
		case <-sigs:
			fmt.Fprintln(stderr, "cqlload: interrupted again: exiting without settling")
			os.Exit(exitInterrupted)
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}

// softMemoryLimit is 44 MiB for the driver, buffers and the collector's
// slack, plus 4 MiB per worker (a chunk, its converted slabs and batches).
// The live heap of a default load is about 20 MiB. At 44 MiB in all the
// collector ran 130 times per million 1 KB rows, 15% of the CPU; with
// arenas sized to need (see loader's slabs) 48 MiB takes that to about
// 50 runs for a peak RSS of 57 MiB, where 52 MiB would reach 63 MiB.
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
func readCqlshrc(fs *pflag.FlagSet, c *cli, stderr io.Writer) (*loader.Cqlshrc, error) {
	path, explicit := c.cqlshrc, c.cqlshrc != ""
	if !explicit {
		path = loader.DefaultCqlshrcPath()
	}
	if path == "" {
		return nil, nil
	}
	rc, ok, err := loader.ReadCqlshrc(path)
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
	unset := func(name string) bool { return !fs.Lookup(name).Changed }
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

func rcPath(rc *loader.Cqlshrc) string {
	if rc == nil {
		return ""
	}
	return rc.Path
}

func password(c cli) (string, error) {
	switch {
	case c.password != "":
		return c.password, nil
	case c.passwordFile != "":
		b, err := os.ReadFile(c.passwordFile)
		if err != nil {
			return "", fmt.Errorf("password file: %w", err)
		}
		first, _, _ := strings.Cut(string(b), "\n")
		return strings.TrimRight(first, "\r"), nil
	}
	return os.Getenv("CQLLOAD_PASSWORD"), nil
}

func tlsConfig(c cli) (*tls.Config, error) {
	t := &tls.Config{InsecureSkipVerify: c.sslNoVerify, MinVersion: tls.VersionTLS12}
	if c.sslCA != "" {
		pem, err := os.ReadFile(c.sslCA)
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
		cert, err := tls.LoadX509KeyPair(c.sslCert, c.sslKey)
		if err != nil {
			return nil, fmt.Errorf("--ssl-cert/--ssl-key: %w", err)
		}
		t.Certificates = []tls.Certificate{cert}
	}
	return t, nil
}

func printSummary(w io.Writer, s loader.Summary, runErr error) {
	if s.NothingToDo {
		fmt.Fprintf(w, "Nothing to do: the checkpoint records a completed run of these files with these options (%d rows); remove it to load them again.\n", s.RowsResumed)
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
	if rej := s.RowsFailedParse + s.RowsFailedInsert + s.RowsUnknown + s.RowsNotSent; rej > 0 {
		files := strings.Join(s.ErrFiles, ", ")
		fmt.Fprintf(w, "%d rows not written: %d failed to parse, %d failed to insert, %d unknown (may have been applied), %d not sent (the run stopped); see %s and %s\n",
			rej, s.RowsFailedParse, s.RowsFailedInsert, s.RowsUnknown, s.RowsNotSent, files, s.ErrLog)
	}
	fmt.Fprintf(w, "%d rows read, %.0f rows/s, %d requests, %d retries; latency ms p50 %.2f p95 %.2f p99 %.2f max %.2f\n",
		s.RowsRead, s.RowsPerSec, s.Requests, s.Retries, s.Latency.P50, s.Latency.P95, s.Latency.P99, s.Latency.Max)
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

// jsonSummary is the --summary-json document: the loader's summary and
// the build that produced it.
type jsonSummary struct {
	loader.Summary
	Version versionInfo `json:"version"`
}

func writeJSON(path string, stdout io.Writer, s loader.Summary) error {
	b, err := json.MarshalIndent(jsonSummary{s, buildVersion()}, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if path == "-" {
		_, err = stdout.Write(b)
		return err
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	return nil
}
