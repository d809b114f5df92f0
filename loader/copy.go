package loader

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cqlload/cqlload/internal/homedir"
	"github.com/cqlload/cqlload/internal/wholefile"
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
	p := &copyParser{src: stmt}
	cs, err := p.parse()
	if err != nil {
		return nil, fmt.Errorf("COPY statement: %w", err)
	}
	return cs, nil
}

// Apply sets the statement's table, columns, files and options on o.
// defaultKeyspace is used when the statement names no keyspace.
func (c *CopyStatement) Apply(o *Options, defaultKeyspace string) error {
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

type copyParser struct {
	src string
	pos int
	// flag: the text is a flag's value, not a statement, and "--" or
	// "/*" in it is text, not a comment that would drop the rest.
	flag bool
}

// errorf says where the parse stopped: the character of a one-line
// statement, the line and column of a script (cqlload -f).
func (p *copyParser) errorf(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	switch before := p.src[:min(p.pos, len(p.src))]; {
	case strings.TrimSpace(p.src[len(before):]) == "" && strings.Contains(p.src, "\n"):
		return fmt.Errorf("at the end: %s", msg)
	case strings.Contains(p.src, "\n"):
		line := strings.Count(before, "\n") + 1
		col := len(before) - strings.LastIndexByte(before, '\n')
		return fmt.Errorf("at line %d, column %d: %s", line, col, msg)
	}
	return fmt.Errorf("at character %d: %s", p.pos+1, msg)
}

// skipSpace skips white space and comments, which cqlsh's lexer drops:
// -- and // to the end of the line, /* to */.
func (p *copyParser) skipSpace() {
	for p.pos < len(p.src) {
		rest := p.src[p.pos:]
		switch {
		case unicode.IsSpace(rune(rest[0])):
			p.pos++
		case p.flag:
			return
		case strings.HasPrefix(rest, "--"), strings.HasPrefix(rest, "//"):
			if i := strings.IndexByte(rest, '\n'); i >= 0 {
				p.pos += i + 1
			} else {
				p.pos = len(p.src)
			}
		case strings.HasPrefix(rest, "/*"):
			if i := strings.Index(rest[2:], "*/"); i >= 0 {
				p.pos += 2 + i + 2
			} else {
				p.pos = len(p.src)
			}
		default:
			return
		}
	}
}

// word reads a bare word (letters, digits, _ . - + /) or returns "".
func (p *copyParser) word() string {
	p.skipSpace()
	start := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c == '_' || c == '-' || c == '+' || c == '.' || c == '/' || c == ':' || unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c)) {
			p.pos++
			continue
		}
		break
	}
	return p.src[start:p.pos]
}

// endOfLine reports whether only blanks are left on the line, or on the
// statement, and moves past them.
func (p *copyParser) endOfLine() bool {
	i := p.pos
	for i < len(p.src) && (p.src[i] == ' ' || p.src[i] == '\t' || p.src[i] == '\r') {
		i++
	}
	if i < len(p.src) && p.src[i] != '\n' {
		return false
	}
	p.pos = i
	return true
}

func (p *copyParser) keyword(kw string) bool {
	save := p.pos
	if strings.EqualFold(p.word(), kw) {
		return true
	}
	p.pos = save
	return false
}

func (p *copyParser) peek() byte {
	p.skipSpace()
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

// ident reads an identifier: bare (lower-cased) or "quoted" ("" escapes).
func (p *copyParser) ident() (string, error) {
	if p.peek() == '"' {
		return p.quoted('"', "quoted identifier")
	}
	p.skipSpace()
	start := p.pos
	for p.pos < len(p.src) {
		// By rune: a byte of a multi-byte letter is no letter itself.
		r, size := utf8.DecodeRuneInString(p.src[p.pos:])
		if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		p.pos += size
	}
	if start == p.pos {
		return "", p.errorf("expected an identifier")
	}
	return strings.ToLower(p.src[start:p.pos]), nil
}

// identList reads identifiers separated by commas, as COPY's column list
// and --columns name columns: bare ones lower-cased, as CQL reads them,
// "quoted" ones kept in their quotes, so that the table's column is found
// by exactly that name (schema.Table.Ident). A quoted name may hold
// commas, quotes ("" for one), blanks, anything.
func (p *copyParser) identList() ([]string, error) {
	var out []string
	for {
		quoted := p.peek() == '"'
		c, err := p.ident()
		if err != nil {
			return nil, err
		}
		if quoted {
			c = `"` + strings.ReplaceAll(c, `"`, `""`) + `"`
		}
		out = append(out, c)
		if p.peek() != ',' {
			return out, nil
		}
		p.pos++
	}
}

// ParseColumns parses a column list given apart from a COPY statement
// (--columns) exactly as the statement's own list: `a, b, "My Col",
// "x,y"`.
func ParseColumns(list string) ([]string, error) {
	p := &copyParser{src: list, flag: true}
	cols, err := p.identList()
	if err == nil && p.peek() != 0 {
		err = p.errorf("expected , after %s (a name of other characters than letters, digits and _ is written in double quotes: \"my col\")", cols[len(cols)-1])
	}
	if err != nil {
		return nil, fmt.Errorf("column list %s: %w", list, err)
	}
	return cols, nil
}

// parseNames parses SKIPCOLS: the file's column names, separated by
// commas, blanks around each dropped, as cqlsh splits them. A name that
// begins with a double quote is read to its closing quote ("" for one)
// and kept in its quotes: it may hold commas, and is compared exactly.
// Bare names are kept as written, to be compared with the file's names
// (a header's are not CQL identifiers, which lower-casing assumes).
func parseNames(list string) ([]string, error) {
	p := &copyParser{src: list, flag: true}
	var out []string
	for {
		for p.pos < len(p.src) && unicode.IsSpace(rune(p.src[p.pos])) {
			p.pos++
		}
		if p.pos < len(p.src) && p.src[p.pos] == '"' {
			n, err := p.quoted('"', "quoted name")
			if err != nil {
				return nil, fmt.Errorf("%s: %w", list, err)
			}
			out = append(out, `"`+strings.ReplaceAll(n, `"`, `""`)+`"`)
			for p.pos < len(p.src) && unicode.IsSpace(rune(p.src[p.pos])) {
				p.pos++
			}
			if p.pos < len(p.src) && p.src[p.pos] != ',' {
				return nil, fmt.Errorf("%s: %w", list, p.errorf("expected , after the quoted name %s", out[len(out)-1]))
			}
		} else {
			end := strings.IndexByte(p.src[p.pos:], ',')
			if end < 0 {
				end = len(p.src) - p.pos
			}
			if n := strings.TrimSpace(p.src[p.pos : p.pos+end]); n != "" {
				out = append(out, n)
			}
			p.pos += end
		}
		if p.pos >= len(p.src) {
			return out, nil
		}
		p.pos++ // the comma
	}
}

// str reads a 'single-quoted' string with ” escapes.
func (p *copyParser) str() (string, error) {
	if p.peek() != '\'' {
		return "", p.errorf("expected a quoted string")
	}
	return p.quoted('\'', "string")
}

// quoted reads text between q quotes, a doubled q standing for one, from
// the opening quote at p.pos; what names it in the error.
func (p *copyParser) quoted(q byte, what string) (string, error) {
	p.pos++
	var b strings.Builder
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		p.pos++
		if c == q {
			if p.pos < len(p.src) && p.src[p.pos] == q {
				b.WriteByte(q)
				p.pos++
				continue
			}
			return b.String(), nil
		}
		b.WriteByte(c)
	}
	return "", p.errorf("unterminated %s", what)
}

// tableName reads [keyspace.]table.
func (p *copyParser) tableName() (keyspace, table string, err error) {
	if table, err = p.ident(); err != nil {
		return "", "", err
	}
	if p.peek() == '.' {
		p.pos++
		keyspace = table
		if table, err = p.ident(); err != nil {
			return "", "", err
		}
	}
	return keyspace, table, nil
}

// ParseTable parses keyspace.table as COPY names a table (the --table
// flag): each part bare, which CQL lower-cases, or "double-quoted", taken
// as written ("MyKs"."Events").
func ParseTable(name string) (keyspace, table string, err error) {
	p := &copyParser{src: name}
	keyspace, table, err = p.tableName()
	switch {
	case err != nil:
	case p.peek() != 0:
		err = p.errorf("unexpected %q after the table's name", p.src[p.pos:])
	case keyspace == "":
		err = errors.New("no keyspace")
	}
	if err != nil {
		return "", "", fmt.Errorf("%s: want keyspace.table: %w", name, err)
	}
	return keyspace, table, nil
}

func (p *copyParser) parse() (*CopyStatement, error) {
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
		case p.keyword("use"):
			ks, err := p.ident()
			if err != nil {
				return nil, err
			}
			if p.peek() != ';' {
				return nil, p.errorf("expected ; after USE %s", ks)
			}
			use = ks
		case p.keyword("consistency"):
			level := p.word()
			if level == "" {
				return nil, p.errorf("expected a consistency level after CONSISTENCY")
			}
			// A shell command: it ends at the line's end, ; optional.
			if !p.endOfLine() && p.peek() != ';' {
				return nil, p.errorf("expected ; after CONSISTENCY %s", level)
			}
			cs.Options = append(cs.Options, [2]string{"CONSISTENCY", level})
		default:
			break prelude
		}
		for p.peek() == ';' {
			p.pos++
		}
	}
	if !p.keyword("copy") {
		return nil, p.errorf("expected COPY")
	}
	var err error
	if cs.Keyspace, cs.Table, err = p.tableName(); err != nil {
		return nil, err
	}
	if cs.Keyspace == "" {
		cs.Keyspace = use
	}
	if p.peek() == '(' {
		p.pos++
		if cs.Columns, err = p.identList(); err != nil {
			return nil, err
		}
		if p.peek() != ')' {
			return nil, p.errorf("expected , or ) in the column list")
		}
		p.pos++
	}
	switch {
	case p.keyword("from"):
	case p.keyword("to"):
		return nil, fmt.Errorf("COPY TO is not supported: cqlload only loads (COPY FROM)")
	default:
		return nil, p.errorf("expected FROM")
	}
	switch {
	case p.peek() == '\'':
		f, err := p.str()
		if err != nil {
			return nil, err
		}
		cs.Files, cs.literal = []string{f}, true
	case p.keyword("stdin"):
		cs.Files = []string{"STDIN"}
	default:
		return nil, p.errorf("expected a quoted file name or STDIN after FROM")
	}
	if p.keyword("with") {
		for {
			name := p.word()
			if name == "" {
				return nil, p.errorf("expected an option name")
			}
			if p.peek() != '=' {
				return nil, p.errorf("expected = after %s", name)
			}
			p.pos++
			var val string
			if p.peek() == '\'' {
				if val, err = p.str(); err != nil {
					return nil, err
				}
			} else if val = p.word(); val == "" {
				return nil, p.errorf("expected a value for %s", name)
			}
			cs.Options = append(cs.Options, [2]string{name, val})
			if !p.keyword("and") {
				break
			}
		}
	}
	for p.peek() == ';' {
		p.pos++
	}
	// A script may end with the shell's EXIT or QUIT.
	if p.keyword("exit") || p.keyword("quit") {
		for p.peek() == ';' {
			p.pos++
		}
	}
	switch {
	case p.peek() == 0:
		return cs, nil
	case p.keyword("copy"):
		return nil, errors.New("one COPY statement at a time: cqlload runs one load, with one summary and exit status; run it once for each")
	}
	return nil, p.errorf("unexpected %q", p.src[p.pos:])
}

// ApplyConfigFile applies the COPY options of a cqlshrc-style file, as
// cqlsh's CONFIGFILE does: sections [copy], [copy-from], then
// [copy:ks.table] and [copy-from:ks.table], later ones overriding. what
// names the file in errors: "CONFIGFILE", or "cqlshrc" when cqlsh would
// read the user's cqlshrc for want of a CONFIGFILE.
func ApplyConfigFile(o *Options, what, path, keyspace, table string) error {
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
			key := optionKey(kv[0])
			if copyToOnly[key] || shared && key == "encoding" {
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
