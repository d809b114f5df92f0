package cqlsh

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/cqlload/cqlload/internal/cqlscan"
	"github.com/cqlload/cqlload/internal/homedir"
	"github.com/cqlload/cqlload/internal/wholefile"
	"github.com/cqlload/cqlload/loader"
	"github.com/cqlload/cqlload/source"
)

// CopyStatement is a parsed cqlsh COPY … FROM statement.
type CopyStatement struct {
	Keyspace, Table string      // as stored: bare names lower-cased, quoted ones as written
	Columns         []string    // bare names lower-cased, quoted ones kept in their quotes
	Files           []string    // one spec (cqlsh allows a comma-separated list inside the quotes); "STDIN" for standard input
	Options         [][2]string // WITH options in order, names as written
	// literal: Files is a quoted name, which cqlsh always reads as a
	// path, never as the STDIN keyword.
	literal bool
}

// ParseCopy parses `COPY [ks.]table [(c1, c2, …)] FROM 'file' | STDIN
// [WITH opt = value [AND opt = value …]] [;]` as cqlsh accepts it, after
// any `USE ks;` (the keyspace of a table named without one) and cqlsh's
// `CONSISTENCY level` (an option CONSISTENCY before the WITH ones), and
// before an `EXIT` or `QUIT`: a cqlsh script (cqlload -f) that loads.
// Identifiers are case-insensitive unless "double-quoted".
func ParseCopy(stmt string) (*CopyStatement, error) {
	cs, err := parse(&cqlscan.Scanner{Src: stmt})
	if err != nil {
		return nil, fmt.Errorf("COPY statement: %w", err)
	}
	return cs, nil
}

// Apply sets the statement's table, columns, files and options on o.
// defaultKeyspace is used when the statement names no keyspace.
func (c *CopyStatement) Apply(o *loader.Options, defaultKeyspace string) error {
	o.Keyspace, o.Table = c.Keyspace, c.Table
	if o.Keyspace == "" {
		o.Keyspace = defaultKeyspace
	}
	if o.Keyspace == "" {
		return fmt.Errorf("COPY %s: no keyspace given (write keyspace.table)", c.Table)
	}
	o.Columns = c.Columns
	o.Files = c.Files
	if f := strings.TrimSpace(c.Files[0]); c.literal && source.IsStdin(f) {
		// FROM 'stdin' is the file of that name in cqlsh, where one
		// exists; the name alone would read standard input.
		if _, err := os.Stat(f); err == nil {
			o.Files = []string{"./" + f}
		}
	}
	var errs []string
	for _, kv := range c.Options {
		if strings.EqualFold(kv[0], "configfile") {
			continue // applied by the caller before the rest
		}
		if err := o.SetOption(kv[0], kv[1]); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// ConfigFile returns the CONFIGFILE option's value, if any.
func (c *CopyStatement) ConfigFile() string {
	for _, kv := range c.Options {
		if strings.EqualFold(kv[0], "configfile") {
			return kv[1]
		}
	}
	return ""
}

// ParseColumns parses a column list given apart from a COPY statement
// (--columns) exactly as the statement's own list: `a, b, "My Col",
// "x,y"`. Bare names are lower-cased, quoted ones kept in their quotes.
func ParseColumns(list string) ([]string, error) { return cqlscan.Columns(list) }

// ParseTable parses keyspace.table as COPY names a table (the --table
// flag): each part bare, which CQL lower-cases, or "double-quoted", taken
// as written ("MyKs"."Events").
func ParseTable(name string) (keyspace, table string, err error) { return cqlscan.Table(name) }

func parse(p *cqlscan.Scanner) (*CopyStatement, error) {
	cs := &CopyStatement{}
	// What cqlsh runs before a COPY and the COPY heeds, as in
	// cqlsh -e "USE ks; CONSISTENCY QUORUM; COPY t FROM …": USE gives the
	// keyspace of a table the COPY names without one (the last USE,
	// over -k); cqlsh's COPY writes at the shell's CONSISTENCY, which
	// WITH CONSISTENCY and --consistency override.
	var use string
prelude:
	for {
		switch {
		case p.Keyword("use"):
			ks, err := p.Ident()
			if err != nil {
				return nil, err
			}
			if p.Peek() != ';' {
				return nil, p.Errorf("expected ; after USE %s", ks)
			}
			use = ks
		case p.Keyword("consistency"):
			level := p.Word()
			if level == "" {
				return nil, p.Errorf("expected a consistency level after CONSISTENCY")
			}
			// A shell command: it ends at the line's end, ; optional.
			if !p.EndOfLine() && p.Peek() != ';' {
				return nil, p.Errorf("expected ; after CONSISTENCY %s", level)
			}
			cs.Options = append(cs.Options, [2]string{"CONSISTENCY", level})
		default:
			break prelude
		}
		for p.Peek() == ';' {
			p.Pos++
		}
	}
	if !p.Keyword("copy") {
		return nil, p.Errorf("expected COPY")
	}
	var err error
	if cs.Keyspace, cs.Table, err = p.TableName(); err != nil {
		return nil, err
	}
	if cs.Keyspace == "" {
		cs.Keyspace = use
	}
	if p.Peek() == '(' {
		p.Pos++
		if cs.Columns, err = p.IdentList(); err != nil {
			return nil, err
		}
		if p.Peek() != ')' {
			return nil, p.Errorf("expected , or ) in the column list")
		}
		p.Pos++
	}
	switch {
	case p.Keyword("from"):
	case p.Keyword("to"):
		return nil, fmt.Errorf("COPY TO is not supported: cqlload only loads (COPY FROM)")
	default:
		return nil, p.Errorf("expected FROM")
	}
	switch {
	case p.Peek() == '\'':
		f, err := p.Str()
		if err != nil {
			return nil, err
		}
		cs.Files, cs.literal = []string{f}, true
	case p.Keyword("stdin"):
		cs.Files = []string{"STDIN"}
	default:
		return nil, p.Errorf("expected a quoted file name or STDIN after FROM")
	}
	if p.Keyword("with") {
		for {
			name := p.Word()
			if name == "" {
				return nil, p.Errorf("expected an option name")
			}
			if p.Peek() != '=' {
				return nil, p.Errorf("expected = after %s", name)
			}
			p.Pos++
			var val string
			if p.Peek() == '\'' {
				if val, err = p.Str(); err != nil {
					return nil, err
				}
			} else if val = p.Word(); val == "" {
				return nil, p.Errorf("expected a value for %s", name)
			}
			cs.Options = append(cs.Options, [2]string{name, val})
			if !p.Keyword("and") {
				break
			}
		}
	}
	for p.Peek() == ';' {
		p.Pos++
	}
	// A script may end with the shell's EXIT or QUIT.
	if p.Keyword("exit") || p.Keyword("quit") {
		for p.Peek() == ';' {
			p.Pos++
		}
	}
	switch {
	case p.Peek() == 0:
		return cs, nil
	case p.Keyword("copy"):
		return nil, errors.New("one COPY statement at a time: cqlload runs one load, with one summary and exit status; run it once for each")
	}
	return nil, p.Errorf("unexpected %q", p.Src[p.Pos:])
}

// ApplyConfigFile applies the COPY options of a cqlshrc-style file, as
// cqlsh's CONFIGFILE does: sections [copy], [copy-from], then
// [copy:ks.table] and [copy-from:ks.table], later ones overriding. what
// names the file in errors: "CONFIGFILE", or "cqlshrc" when cqlsh would
// read the user's cqlshrc for want of a CONFIGFILE.
func ApplyConfigFile(o *loader.Options, what, path, keyspace, table string) error {
	b, err := wholefile.Read(homedir.Expand(path), what, wholefile.MaxConfig)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	sections, err := readINI(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, path, err)
	}
	qualified := keyspace + "." + table
	for _, name := range []string{"copy", "copy-from", "copy:" + qualified, "copy-from:" + qualified} {
		shared := !strings.HasPrefix(name, "copy-from")
		for _, kv := range sections[name] {
			if loader.CopyToOnly(kv[0]) || shared && loader.SameOption(kv[0], "encoding") {
				// [copy] and [copy:ks.t] serve COPY TO as well: cqlsh
				// ignores these when loading, and so does cqlload. It
				// ignores ENCODING too, which cqlload reads elsewhere:
				// set there for exports, it garbled UTF-8 input.
				continue
			}
			if err := o.SetOption(kv[0], kv[1]); err != nil {
				return fmt.Errorf("%s %s [%s]: %w", what, path, name, err)
			}
		}
	}
	return nil
}

func readINI(r io.Reader) (map[string][][2]string, error) {
	out := map[string][][2]string{}
	sc := bufio.NewScanner(r)
	section := ""
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || s[0] == '#' || s[0] == ';' {
			continue
		}
		if s[0] == '[' && s[len(s)-1] == ']' {
			section = strings.TrimSpace(s[1 : len(s)-1])
			continue
		}
		k, v, ok := strings.Cut(s, "=")
		if !ok {
			k, v, ok = strings.Cut(s, ":")
		}
		if !ok {
			return nil, fmt.Errorf("line %d: expected name = value", line)
		}
		out[section] = append(out[section], [2]string{strings.TrimSpace(k), strings.TrimSpace(v)})
	}
	return out, sc.Err()
}
