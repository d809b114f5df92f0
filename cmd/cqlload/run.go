package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/cqlload/cqlload/cqlsh"
	"github.com/cqlload/cqlload/internal/redact"
	"github.com/cqlload/cqlload/internal/termsafe"
	"github.com/cqlload/cqlload/internal/wholefile"
	"github.com/cqlload/cqlload/loader"
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

// options settles the load's options from the command line, the cqlshrc,
// the credentials file and the COPY statement (cqlsh.Config), and
// validates them.
func (c *cli) options(opts *loader.Options, stdin io.Reader, stderr io.Writer) error {
	changed := func(name string) bool { return c.fs.Lookup(name).Changed }
	cfg := cqlsh.Config{
		Execute: c.execute, Script: c.file, Table: c.table, Columns: c.columns, Args: c.fs.Args(), Keyspace: c.keyspace,
		Hosts: c.hosts, Username: c.username, Password: c.password, PasswordFile: c.passwordFile, NoPasswordWarning: c.insecurePassword,
		SSL: c.ssl, SSLCA: c.sslCA, SSLCert: c.sslCert, SSLKey: c.sslKey, SSLServerName: c.sslServerName,
		DC: c.dc, Cqlshrc: c.cqlshrc, Credentials: c.credentials,
		Prompt: func(user string) (string, error) { return askPassword(stdin, stderr, user) },
		Warn: func(w string) {
			if w == cqlsh.CommandLinePasswordWarning {
				fmt.Fprint(stderr, w) // cqlsh's, as cqlsh prints it
				return
			}
			fmt.Fprintf(stderr, "cqlload: warning: %s\n", w)
		},
	}
	// A flag given with its zero value (-u '', --cqlshrc '') still wins
	// over the cqlshrc and the environment, or is refused by name where
	// zero is no value (--port 0): Given says which were typed.
	c.fs.Visit(func(f *pflag.Flag) { cfg.Given = append(cfg.Given, f.Name) })
	// A flag left at its default is not given: the cqlshrc, the
	// environment or the statement may set it.
	if changed("ssl-no-verify") {
		cfg.SSLNoVerify = &c.sslNoVerify
	}
	if changed("port") {
		cfg.Port = c.port
	}
	if changed("connect-timeout") {
		cfg.ConnectTimeout = c.connectTimeout
	}
	if changed("request-timeout") {
		cfg.RequestTimeout = c.requestTimeout
	}
	if changed("config-file") {
		cfg.ConfigFile = c.vals["config-file"].s
	}
	for _, opt := range loader.OptionTable() {
		if v := c.vals[opt.Flag]; v != nil && opt.Settable() && changed(opt.Flag) {
			cfg.Flags = append(cfg.Flags, [2]string{opt.Flag, v.s})
		}
	}
	resolved, err := cfg.Resolve()
	if err != nil {
		return err
	}
	*opts = resolved
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

// askPassword asks for user's password, without echo, as cqlsh does,
// when someone is at the terminal; "" otherwise.
func askPassword(stdin io.Reader, stderr io.Writer, user string) (string, error) {
	f, ok := stdin.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return "", nil
	}
	fmt.Fprintf(stderr, "Password for %s: ", user)
	b, err := term.ReadPassword(int(f.Fd()))
	fmt.Fprintln(stderr)
	return string(b), err
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
