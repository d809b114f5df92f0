package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/cqlload/cqlload/internal/redact"
	"github.com/cqlload/cqlload/loader"
)

// cli holds the flags of the command line that are not loader options:
// the connection (resolved with positional HOST PORT and the cqlshrc),
// what to load, and the output. The loader's options are in opts, each
// flag's text in vals until it is applied through SetOption.
type cli struct {
	fs   *pflag.FlagSet
	vals map[string]*optValue // loader options by flag

	execute, file, table, columns, hosts   string
	keyspace                               string
	username, password, passwordFile       string
	insecurePassword                       bool // no warning for -p
	ssl, sslNoVerify                       bool
	sslCA, sslCert, sslKey, sslServerName  string
	port                                   int
	connectTimeout, requestTimeout         time.Duration
	dc, summaryJSON, progress, metricsAddr string
	help, count, verbose, version, dryRun  bool
	dryRunRows                             int
	cqlshrc, credentials                   string
	red                                    *redact.Redactor // masks secrets in all output
	writeSplitPlan                         string
}

// cliFlag is a flag the command line binds itself: an Option without a
// setter documents it beside the loader's, bind registers it on c.
type cliFlag struct {
	loader.Option
	bind func(fs *pflag.FlagSet, c *cli, o *loader.Options, name, short, usage string)
}

func strFlag(field func(*cli) *string) func(*pflag.FlagSet, *cli, *loader.Options, string, string, string) {
	return func(fs *pflag.FlagSet, c *cli, _ *loader.Options, name, short, usage string) {
		fs.StringVarP(field(c), name, short, "", usage)
	}
}

func boolFlag(field func(*cli) *bool) func(*pflag.FlagSet, *cli, *loader.Options, string, string, string) {
	return func(fs *pflag.FlagSet, c *cli, _ *loader.Options, name, short, usage string) {
		fs.BoolVarP(field(c), name, short, false, usage)
	}
}

// cliFlags are the command line's own flags, in --help order within each
// section; the loader's options (loader.OptionTable) join them there.
func cliFlags() []cliFlag {
	const (
		conn = loader.SectionConnection
		in   = loader.SectionInput
		errs = loader.SectionErrors
		out  = loader.SectionOutput
	)
	opt := func(flag, short string, section loader.Section, help string) loader.Option {
		return loader.Option{Flag: flag, Short: short, Section: section, Help: help}
	}
	// path marks a flag that names a file: the shell completions offer
	// file names for it.
	path := func(o loader.Option) loader.Option { o.Value = "path"; return o }
	return []cliFlag{
		{loader.Option{Flag: "hosts", Section: conn, Documented: "`127.0.0.1`",
			Help: "comma-separated contact points, host or host:port (default 127.0.0.1; or HOST before the files)"},
			strFlag(func(c *cli) *string { return &c.hosts })},
		{opt("port", "", conn, "CQL native port (or PORT after HOST)"),
			func(fs *pflag.FlagSet, c *cli, _ *loader.Options, name, short, usage string) {
				fs.IntVarP(&c.port, name, short, 9042, usage)
			}},
		{opt("username", "u", conn, "user name (PasswordAuthenticator); on a terminal, the password is asked for when none is given"),
			strFlag(func(c *cli) *string { return &c.username })},
		{opt("password", "p", conn, "password (better: CQLLOAD_PASSWORD or --password-file; on the command line it gets cqlsh's warning)"),
			strFlag(func(c *cli) *string { return &c.password })},
		{path(opt("password-file", "", conn, "read the password from this file's first line (a warning if other users may read it)")),
			strFlag(func(c *cli) *string { return &c.passwordFile })},
		{opt("insecure-password-without-warning", "", conn, "no warning for a password given with -p, as cqlsh's flag"),
			boolFlag(func(c *cli) *bool { return &c.insecurePassword })},
		{opt("ssl", "", conn, "connect with TLS"), boolFlag(func(c *cli) *bool { return &c.ssl })},
		{path(opt("ssl-ca", "", conn, "CA certificate file (PEM) to verify the nodes")),
			strFlag(func(c *cli) *string { return &c.sslCA })},
		{path(opt("ssl-cert", "", conn, "client certificate file (PEM)")), strFlag(func(c *cli) *string { return &c.sslCert })},
		{path(opt("ssl-key", "", conn, "client key file (PEM)")), strFlag(func(c *cli) *string { return &c.sslKey })},
		{opt("ssl-no-verify", "", conn, "do not verify node certificates"), boolFlag(func(c *cli) *bool { return &c.sslNoVerify })},
		{loader.Option{Flag: "ssl-server-name", Section: conn,
			Help:       "check every node's certificate against this name, and send it as the TLS server name",
			Documented: "the contact point's name as given; a discovered node's address",
			Differs:    "cqlload extension: cqlsh checks the host it is given; a node the driver discovers is checked against its address"},
			strFlag(func(c *cli) *string { return &c.sslServerName })},
		{opt("connect-timeout", "", conn, "connection timeout"),
			func(fs *pflag.FlagSet, c *cli, o *loader.Options, name, short, usage string) {
				fs.DurationVarP(&c.connectTimeout, name, short, o.ConnectTimeout, usage)
			}},
		{opt("request-timeout", "", conn, "longest an attempt waits for its answer, time the process was stopped left out (adaptive: inserts are sent again sooner)"),
			func(fs *pflag.FlagSet, c *cli, o *loader.Options, name, short, usage string) {
				fs.DurationVarP(&c.requestTimeout, name, short, o.RequestTimeout, usage)
			}},
		{opt("dc", "", conn, "local data center: coordinators are chosen there"), strFlag(func(c *cli) *string { return &c.dc })},
		{loader.Option{Flag: "cqlshrc", Value: "path", Section: conn,
			Help:       "cqlsh's configuration file: [connection], [authentication], [ssl] and [copy] sections; flags win, and '' reads none",
			Documented: "`~/.cassandra/cqlshrc`, when it exists",
			Example:    "cqlload 10.0.0.5 9142 -u loader --ssl --ssl-ca ca.pem --table ks.t data.csv"},
			strFlag(func(c *cli) *string { return &c.cqlshrc })},

		{loader.Option{Flag: "credentials", Value: "path", Section: conn,
			Help:       "cqlsh's credentials file: username and password under [PlainTextAuthProvider]; flags win, and it wins over the cqlshrc; '' reads none",
			Documented: "`~/.cassandra/credentials` (or the cqlshrc's `[authentication] credentials`), when it exists"},
			strFlag(func(c *cli) *string { return &c.credentials })},

		{loader.Option{Flag: "execute", Short: "e", Section: in, Help: "a cqlsh COPY ... FROM statement",
			Example: `cqlload -e "COPY ks.t (id, name) FROM 'data/*.csv.gz' WITH HEADER = true"`},
			strFlag(func(c *cli) *string { return &c.execute })},
		{loader.Option{Flag: "file", Short: "f", Value: "path", Section: in, Help: "read the COPY statement (after any USE ks;) from this file, as cqlsh -f runs a script",
			Example: `cqlload -f import.cql`},
			strFlag(func(c *cli) *string { return &c.file })},
		{opt("table", "", in, `the table to load, as keyspace.table, named as in CQL: "MyKs"."MyTable" for names with capitals (the files follow the flags)`),
			strFlag(func(c *cli) *string { return &c.table })},
		{opt("columns", "", in, "comma-separated columns in file order, read as COPY's column list: bare names lower-cased, \"Quoted\" ones exact, which may hold commas (default: all, or the header's names)"),
			strFlag(func(c *cli) *string { return &c.columns })},
		{opt("keyspace", "k", in, "keyspace of a COPY statement that names none"),
			strFlag(func(c *cli) *string { return &c.keyspace })},

		{loader.Option{Flag: "dry-run", Section: errs,
			Help:    "connect, check the table, read and convert the input, write the error file and summary, send nothing",
			Differs: "cqlload extension: `rows_dry_run` counts the rows that would be written, within `rows_skipped`; exit status as a real run's; not with `--resume`"},
			boolFlag(func(c *cli) *bool { return &c.dryRun })},
		{loader.Option{Flag: "dry-run-rows", Section: errs, Help: "with --dry-run: read at most this many records per file",
			Documented: "0 = all"},
			func(fs *pflag.FlagSet, c *cli, _ *loader.Options, name, short, usage string) {
				fs.IntVarP(&c.dryRunRows, name, short, 0, usage)
			}},

		{loader.Option{Flag: "write-split-plan", Value: "path", Section: in,
			Help:    "with --split I/N: find the record starts at every cut of the N splits, write them to this file for --split-plan, and load nothing (needs no cluster)",
			Differs: "cqlload extension: one pass over each cut file instead of one per split"},
			strFlag(func(c *cli) *string { return &c.writeSplitPlan })},

		{path(opt("summary-json", "", out, "write the summary as JSON to this file (- for standard output, which then holds only the JSON)")),
			strFlag(func(c *cli) *string { return &c.summaryJSON })},
		{loader.Option{Flag: "progress", Value: "auto|bar|log|none", Section: out, Help: "progress display: auto (a bar on a terminal, else log lines), bar, log, none"},
			func(fs *pflag.FlagSet, c *cli, _ *loader.Options, name, short, usage string) {
				fs.StringVarP(&c.progress, name, short, "auto", usage)
			}},
		{opt("metrics-addr", "", out, "serve Prometheus metrics of the run (cqlload_rows_written_total, …) at http://HOST:PORT/metrics"),
			strFlag(func(c *cli) *string { return &c.metricsAddr })},
		{opt("count", "", out, "after loading, read back SELECT count(*) of the table (a full scan: for small tables and demos)"),
			boolFlag(func(c *cli) *bool { return &c.count })},
		{opt("verbose", "v", out, "also print the driver's log (reconnections, host events) to standard error"),
			boolFlag(func(c *cli) *bool { return &c.verbose })},
		{opt("version", "", out, "print the version of cqlload, its Go and its driver, and exit"),
			boolFlag(func(c *cli) *bool { return &c.version })},
		{opt("help", "h", out, "show this help"), boolFlag(func(c *cli) *bool { return &c.help })},
	}
}

// optValue holds a loader option's flag text until it is applied through
// SetOption, which does the checking; kind only labels it in --help.
type optValue struct{ s, kind string }

func (v *optValue) String() string     { return v.s }
func (v *optValue) Set(s string) error { v.s = s; return nil }
func (v *optValue) Type() string       { return v.kind }

// documented is one flag as --help and docs/options.md show it.
type documented struct {
	loader.Option
	flag *pflag.Flag
}

// newCLI registers every flag: the command line's own and the loader's
// options, in section order. It returns them in that order too.
func newCLI(opts *loader.Options) (*cli, []documented) {
	c := &cli{fs: pflag.NewFlagSet("cqlload", pflag.ContinueOnError), vals: map[string]*optValue{}}
	c.fs.SetOutput(io.Discard) // errors are reported once, by run
	c.fs.SortFlags = false
	own, table := cliFlags(), loader.OptionTable()
	var docs []documented
	for _, s := range loader.Sections() {
		for _, f := range own {
			if f.Section == s {
				f.bind(c.fs, c, opts, f.Flag, f.Short, f.Help)
				docs = append(docs, documented{f.Option, c.fs.Lookup(f.Flag)})
			}
		}
		for _, o := range table {
			if o.Section != s || o.Flag == "" {
				continue
			}
			v := &optValue{s: o.Default(), kind: o.Value}
			help := o.Help
			if o.Name != "" {
				help += " (" + o.Name + ")"
			}
			if v.s == "0" || v.s == "false" {
				help += " (default " + v.s + ")" // pflag omits zero defaults
			}
			c.vals[o.Flag] = v
			c.fs.VarP(v, o.Flag, o.Short, help)
			docs = append(docs, documented{o, c.fs.Lookup(o.Flag)})
		}
	}
	c.bindShellFlags()
	return c, docs
}

// shellFlags are cqlsh's flags for its interactive shell: they change
// nothing in a load, and are accepted so that a cqlsh command line runs
// as written (with a note naming them). --debug is --verbose.
var shellFlags = []struct {
	name, short string
	bool        bool
}{
	{"color", "C", true}, {"no-color", "", true}, {"tty", "t", true}, {"browser", "", false},
	{"cqlversion", "", false}, {"protocol-version", "", false}, {"debug", "", true},
}

func (c *cli) bindShellFlags() {
	for _, f := range shellFlags {
		usage := "cqlsh's, for its shell: ignored"
		if f.name == "debug" {
			c.fs.BoolVar(&c.verbose, f.name, false, "cqlsh's: --verbose")
		} else if f.bool {
			c.fs.BoolP(f.name, f.short, false, usage)
		} else {
			c.fs.StringP(f.name, f.short, "", usage)
		}
		_ = c.fs.MarkHidden(f.name)
	}
}

// ignoredShellFlags names the shell flags given that change nothing.
func (c *cli) ignoredShellFlags() []string {
	var out []string
	for _, f := range shellFlags {
		if fl := c.fs.Lookup(f.name); f.name != "debug" && fl.Changed {
			out = append(out, "--"+f.name)
		}
	}
	return out
}

const usageHead = `cqlload loads CSV files into Apache Cassandra or ScyllaDB.

Usage:
  cqlload [flags] [HOST [PORT]] -e "COPY ks.table [(c1, c2, ...)] FROM 'file.csv' [WITH opt = value [AND ...]]"
  cqlload [flags] [HOST [PORT]] --table ks.table [--columns c1,c2] FILE|GLOB|DIR|URL|- ...
  cqlload summarize [--summary-json PATH|-] SUMMARY.json...   (merge the summaries of several runs)

An input may be a URL of an object store, with a glob or a prefix:
s3://bucket/prefix/*.csv.gz, gs://..., azblob://..., file:///dir/*.csv.

With --table, a first argument is taken for HOST only if no --hosts is
given, more arguments follow it, it is no existing file, directory or glob
match, and it is an IP address or a host name not ending in a data file
extension (.csv, .tsv, .txt, .dat, .gz, .zst); a PORT after it is a number
that is no existing file.

Every cqlsh COPY FROM option is accepted in the WITH clause (names are
case-insensitive) and as a flag of the same name in kebab case; flags
override the statement, which overrides CONFIGFILE (or else the cqlshrc).
Exit status: 0 all rows written, 1 some rows rejected or unknown (see the
error file), 2 aborted by MAXPARSEERRORS or MAXINSERTERRORS, 3 fatal error
(cluster unreachable or silent, schema mismatch, damaged input),
4 interrupted, 64 usage error.
`

// printHelp writes the usage and the flags by section, each section with
// its example.
func printHelp(w io.Writer, docs []documented) {
	fmt.Fprint(w, usageHead)
	for _, s := range loader.Sections() {
		set := pflag.NewFlagSet(s.String(), pflag.ContinueOnError)
		set.SortFlags = false
		var examples []string
		for _, d := range docs {
			if d.Section == s {
				set.AddFlag(d.flag)
				if d.Example != "" {
					examples = append(examples, d.Example)
				}
			}
		}
		fmt.Fprintf(w, "\n%s:\n%s", s, set.FlagUsages())
		switch len(examples) {
		case 0:
		case 1:
			fmt.Fprintf(w, "  Example:\n    %s\n", examples[0])
		default:
			fmt.Fprintf(w, "  Examples:\n    %s\n", strings.Join(examples, "\n    "))
		}
	}
}

// optionsTable renders docs/options.md's options table: a table per section,
// each flag with its COPY name, default, meaning and difference from
// cqlsh.
func optionsTable(docs []documented) string {
	var b strings.Builder
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	for _, s := range loader.Sections() {
		fmt.Fprintf(&b, "\n## %s\n\n| option | flag | default | meaning | difference from cqlsh |\n|---|---|---|---|---|\n", s)
		for _, d := range docs {
			if d.Section != s {
				continue
			}
			name := "—"
			if d.Name != "" {
				name = d.Name
			}
			flag := "`--" + d.Flag + "`"
			if d.Short != "" {
				flag = "`-" + d.Short + "`, " + flag
			}
			def := d.Documented
			if def == "" {
				def = d.flag.DefValue
				switch {
				case def == "":
					def = "none"
				default:
					def = "`" + def + "`"
				}
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", name, flag, cell(def), cell(d.Help), cell(d.Differs))
		}
	}
	// WITH-only options have no flag, so no documented entry.
	for _, o := range loader.OptionTable() {
		if o.Flag == "" {
			fmt.Fprintf(&b, "\nWITH only: %s (%s): %s.\n", o.Name, o.Documented, cell(o.Differs))
		}
	}
	return b.String()
}
