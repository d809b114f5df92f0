package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/cqlload/cqlload/loader"
)

// The files `cqlload --generate` writes, all from the option table (the
// loader's options and the command line's own flags), as a release and
// docs/ ship them. TestDocsGenerated fails when docs/ holds others.
var generated = []struct{ kind, path string }{
	{"man", "man/cqlload.1"},
	{"bash", "completions/cqlload.bash"},
	{"zsh", "completions/cqlload.zsh"},
	{"fish", "completions/cqlload.fish"},
}

// exitStatuses are the exit statuses as the manual page lists them
// (the README's table says more of each).
var exitStatuses = []struct {
	code    int
	meaning string
}{
	{exitOK, "every row read was written (or skipped by an option), or --resume found the job already done"},
	{exitRejected, "finished, but some rows were rejected or their outcome is unknown: see the error files"},
	{exitAborted, "aborted: MAXPARSEERRORS or MAXINSERTERRORS was crossed; resume after fixing the cause"},
	{exitFatal, "fatal: cluster unreachable or silent, an unknown keyspace or table, a column list that does not fit, unreadable or damaged input, an error file or checkpoint that could not be written or that another run holds"},
	{exitInterrupted, "interrupted (SIGINT, SIGTERM, SIGHUP, or standard output or error closed); rows not sent are in the error file; resume to finish"},
	{exitUsage, "usage error, a --resume that cannot be honoured, a --split-plan that does not fit the run, or outputs that clash with the inputs or each other"},
}

// generateDocs is the hidden `cqlload --generate KIND` mode: it prints
// the manual page or a shell's completion script, or with `all DIR`
// writes every generated file under DIR (docs/ in a checkout; the
// release's before hook runs it).
func generateDocs(args []string, stdout, stderr io.Writer) int {
	usage := func() int {
		fmt.Fprintln(stderr, "usage: cqlload --generate man|bash|zsh|fish, or --generate all DIR")
		return exitUsage
	}
	switch {
	case len(args) == 1:
		text, ok := generatedText(args[0])
		if !ok {
			return usage()
		}
		if _, err := io.WriteString(stdout, text); err != nil {
			fmt.Fprintln(stderr, err)
			return exitFatal
		}
		return exitOK
	case len(args) == 2 && args[0] == "all":
		for _, g := range generated {
			text, _ := generatedText(g.kind)
			path := filepath.Join(args[1], filepath.FromSlash(g.path))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				fmt.Fprintln(stderr, err)
				return exitFatal
			}
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				fmt.Fprintln(stderr, err)
				return exitFatal
			}
		}
		return exitOK
	}
	return usage()
}

// generatedText renders one generated file; false for an unknown kind.
func generatedText(kind string) (string, bool) {
	opts := loader.DefaultOptions()
	_, docs := newCLI(&opts)
	switch kind {
	case "man":
		return manPage(docs), true
	case "bash":
		return bashCompletion(docs), true
	case "zsh":
		return zshCompletion(docs), true
	case "fish":
		return fishCompletion(docs), true
	}
	return "", false
}

// flagKind is what a flag takes: "" for none (a boolean switch), "path"
// for a file name, "a|b|c" for one of those words, else a label.
func flagKind(d documented) string {
	if d.flag.NoOptDefVal != "" {
		return ""
	}
	if d.Value != "" {
		return d.Value
	}
	return d.flag.Value.Type()
}

// choices are the words a flag takes, when it names them (true|false).
func choices(d documented) []string {
	if k := flagKind(d); strings.Contains(k, "|") {
		return strings.Split(k, "|")
	}
	return nil
}

// defaultText is a flag's default as docs/options.md shows it.
func defaultText(d documented) string {
	if d.Documented != "" {
		return d.Documented
	}
	if d.flag.DefValue == "" {
		return "none"
	}
	return "`" + d.flag.DefValue + "`"
}

var (
	codeSpan = regexp.MustCompile("`([^`]*)`")
	emphasis = regexp.MustCompile(`\*([^*\s][^*]*)\*`)
)

// roff escapes text for a man page, with Markdown's code spans in bold
// and its emphasis in italics.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	s = codeSpan.ReplaceAllString(s, `\fB$1\fR`)
	s = emphasis.ReplaceAllString(s, `\fI$1\fR`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	// Outside ASCII, a character by its code point: troff reads its
	// input as Latin-1 unless a preprocessor converts it first.
	var b strings.Builder
	for _, r := range s {
		if r < 0x80 {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, `\[u%04X]`, r)
		}
	}
	return b.String()
}

func manPage(docs []documented) string {
	var b strings.Builder
	b.WriteString(`.\" Generated from the option table by ` + "`cqlload --generate man`" + `; do not edit.
.TH CQLLOAD 1 "" "cqlload" "User Commands"
.SH NAME
cqlload \- load CSV files into Apache Cassandra or ScyllaDB
.SH SYNOPSIS
.B cqlload
[\fIflags\fR] [\fIHOST\fR [\fIPORT\fR]]
\fB\-e\fR "COPY \fIks.table\fR [(\fIc1\fR, \fIc2\fR, ...)] FROM '\fIfile.csv\fR' [WITH \fIopt\fR = \fIvalue\fR [AND ...]]"
.br
.B cqlload
[\fIflags\fR] [\fIHOST\fR [\fIPORT\fR]] \fB\-f\fR \fIscript.cql\fR
.br
.B cqlload
[\fIflags\fR] [\fIHOST\fR [\fIPORT\fR]] \fB\-\-table\fR \fIks.table\fR [\fB\-\-columns\fR \fIc1,c2\fR] \fIFILE\fR|\fIGLOB\fR|\fIDIR\fR|\fIURL\fR|\fB\-\fR ...
.br
.B cqlload summarize
[\fB\-\-summary\-json\fR \fIPATH\fR|\fB\-\fR] \fISUMMARY.json\fR ...
.SH DESCRIPTION
cqlload streams CSV files into Apache Cassandra and ScyllaDB. It takes the
statement and options of cqlsh's COPY FROM, and is built to replace it.
Rows are grouped by partition and by replica set and sent to a coordinator
that owns them; progress counts what the cluster acknowledged; every row
read is written, rejected into the error file with its reason, or skipped
by an option, and the summary shows that the counts add up.
.PP
Every cqlsh COPY FROM option is accepted in the WITH clause (names are
case\-insensitive) and as a flag of the same name in kebab case. Precedence,
low to high: defaults, CONFIGFILE's [copy] sections or else the cqlshrc's,
WITH, flags. A flag typed with an empty or zero value wins as any other
value (\fB\-u ''\fR is no user name, whatever the cqlshrc says), or is a
usage error naming it where zero is no value (\fB\-\-port 0\fR).
.PP
An input may be a file, a glob, a directory (its files, in name order),
\fB\-\fR for standard input, or a URL of an object store with a glob or a
prefix: s3://bucket/prefix/*.csv.gz, gs://..., azblob://..., file:///dir/*.csv.
Gzip and zstd files are read as they are.
.PP
\fBcqlload summarize\fR merges the \fB\-\-summary\-json\fR files of several
runs (the splits of one load) into one summary.
.SH OPTIONS
Each option below shows its COPY option name, when it has one, and its default.
`)
	for _, s := range loader.Sections() {
		fmt.Fprintf(&b, ".SS %s\n", roff(s.String()))
		for _, d := range docs {
			if d.Section != s {
				continue
			}
			b.WriteString(".TP\n")
			if d.Short != "" {
				fmt.Fprintf(&b, `\fB\-%s\fR, `, d.Short)
			}
			fmt.Fprintf(&b, `\fB\-\-%s\fR`, roff(d.Flag))
			if k := flagKind(d); k != "" {
				fmt.Fprintf(&b, ` \fI%s\fR`, roff(k))
			}
			b.WriteString("\n" + roff(d.Help) + ".\n")
			var notes []string
			if d.Name != "" {
				notes = append(notes, "COPY option "+d.Name+".")
			}
			notes = append(notes, "Default: "+defaultText(d)+".")
			if d.Differs != "" {
				notes = append(notes, "Difference from cqlsh: "+d.Differs+".")
			}
			b.WriteString(roff(strings.Join(notes, " ")) + "\n")
		}
	}
	var withOnly []string
	for _, o := range loader.OptionTable() {
		if o.Flag == "" {
			withOnly = append(withOnly, o.Name)
		}
	}
	if len(withOnly) > 0 {
		sort.Strings(withOnly)
		fmt.Fprintf(&b, ".PP\nOnly in WITH, without a flag: %s.\n", roff(strings.Join(withOnly, ", ")))
	}
	b.WriteString(".SH EXIT STATUS\n")
	for _, e := range exitStatuses {
		fmt.Fprintf(&b, ".TP\n.B %d\n%s.\n", e.code, roff(e.meaning))
	}
	b.WriteString(`.SH ENVIRONMENT
.TP
.B CQLLOAD_PASSWORD
The password, instead of \fB\-p\fR on the command line.
.TP
.BR CQLSH_HOST ", " CQLSH_PORT
The host and port, as for cqlsh: over the cqlshrc, under the command line.
.SH FILES
.TP
.I ~/.cassandra/cqlshrc
cqlsh's configuration: [connection], [authentication], [ssl], [ui] and the [copy] sections (\fB\-\-cqlshrc\fR).
.TP
.I ~/.cassandra/credentials
cqlsh's credentials file (\fB\-\-credentials\fR).
.TP
.I import_<keyspace>_<table>.err
The default error file: rows not written, as they were read; \fIERRFILE\fR.log beside it gives each one's reason.
.SH EXAMPLES
.nf
cqlload 127.0.0.1 9042 \-e "COPY demo.users FROM 'users.csv' WITH HEADER = true"
cqlload \-\-hosts 10.0.0.5 \-\-table demo.events \-\-header true events.csv.gz
zcat events.csv.gz | cqlload \-\-table demo.events \-\-header true \-
cqlload \-\-table ks.t \-\-resume ks.t.ckpt \-\-summary\-json run.json data/
.fi
.SH SEE ALSO
.BR cqlsh (1).
The README and docs/ of the source tree: docs/usage.md, docs/options.md,
docs/cqlsh\-differences.md, docs/failures.md.
`)
	return b.String()
}

// completionFlags are the flags as the completions offer them, in --help
// order.
func completionFlags(docs []documented) (names []string) {
	for _, d := range docs {
		names = append(names, "--"+d.Flag)
		if d.Short != "" {
			names = append(names, "-"+d.Short)
		}
	}
	return names
}

// shortHelp is a flag's help without its parentheses, for a
// completion's one-line description.
func shortHelp(d documented) string {
	var b strings.Builder
	depth := 0
	for _, r := range d.Help {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	h := strings.Join(strings.Fields(b.String()), " ")
	h = strings.NewReplacer(" ,", ",", " ;", ";", " :", ":").Replace(h)
	return codeSpan.ReplaceAllString(h, "$1")
}

func bashCompletion(docs []documented) string {
	var b strings.Builder
	b.WriteString(`# bash completion for cqlload. Generated from the option table by
# ` + "`cqlload --generate bash`" + `; do not edit.

_cqlload() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    COMPREPLY=()
    case $prev in
`)
	var files, other []string
	for _, d := range docs {
		names := "--" + d.Flag
		if d.Short != "" {
			names += "|-" + d.Short
		}
		switch k := flagKind(d); {
		case k == "":
		case k == "path":
			files = append(files, names)
		case choices(d) != nil:
			fmt.Fprintf(&b, "        %s)\n            COMPREPLY=($(compgen -W '%s' -- \"$cur\"))\n            return ;;\n",
				names, strings.Join(choices(d), " "))
		default:
			other = append(other, names)
		}
	}
	if len(files) > 0 {
		fmt.Fprintf(&b, "        %s)\n            COMPREPLY=($(compgen -f -- \"$cur\"))\n            return ;;\n", strings.Join(files, "|"))
	}
	if len(other) > 0 {
		fmt.Fprintf(&b, "        %s)\n            COMPREPLY=()\n            return ;;\n", strings.Join(other, "|"))
	}
	fmt.Fprintf(&b, `    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W '%s' -- "$cur"))
        return
    fi
    if [[ $COMP_CWORD == 1 ]]; then
        COMPREPLY=($(compgen -W 'summarize' -- "$cur"))
    fi
    COMPREPLY+=($(compgen -f -- "$cur"))
}
complete -o filenames -F _cqlload cqlload
`, strings.Join(completionFlags(docs), " "))
	return b.String()
}

func zshCompletion(docs []documented) string {
	var b strings.Builder
	b.WriteString(`#compdef cqlload
# zsh completion for cqlload. Generated from the option table by
# ` + "`cqlload --generate zsh`" + `; do not edit.

_arguments \
`)
	quote := func(s string) string { return strings.ReplaceAll(s, "'", `'\''`) }
	desc := strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`, ":", `\:`)
	for _, d := range docs {
		k := flagKind(d)
		long, eq := "--"+d.Flag, ""
		if k != "" {
			eq = "="
		}
		spec := "[" + desc.Replace(shortHelp(d)) + "]"
		switch {
		case k == "":
		case k == "path":
			spec += ":path:_files"
		case choices(d) != nil:
			spec += ":" + strings.ReplaceAll(k, "|", " or ") + ":(" + strings.Join(choices(d), " ") + ")"
		default:
			spec += ":" + desc.Replace(k) + ": "
		}
		if d.Short == "" {
			fmt.Fprintf(&b, "  '%s%s%s' \\\n", long, eq, quote(spec))
			continue
		}
		// Either name, and neither offered again once one is given.
		short := "-" + d.Short
		if k != "" {
			short += "+"
		}
		fmt.Fprintf(&b, "  '(-%s %s)'{%s,%s%s}'%s' \\\n", d.Short, long, short, long, eq, quote(spec))
	}
	b.WriteString("  '*:input file:_files'\n")
	return b.String()
}

func fishCompletion(docs []documented) string {
	var b strings.Builder
	b.WriteString(`# fish completion for cqlload. Generated from the option table by
# ` + "`cqlload --generate fish`" + `; do not edit.

complete -c cqlload -n __fish_use_subcommand -a summarize -d 'merge the summaries of several runs'
`)
	quote := func(s string) string {
		return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
	}
	for _, d := range docs {
		line := "complete -c cqlload -l " + d.Flag
		if d.Short != "" {
			line += " -s " + d.Short
		}
		switch k := flagKind(d); {
		case k == "":
		case k == "path":
			line += " -r -F"
		case choices(d) != nil:
			line += " -x -a " + quote(strings.Join(choices(d), " "))
		default:
			line += " -x"
		}
		b.WriteString(line + " -d " + quote(shortHelp(d)) + "\n")
	}
	return b.String()
}
