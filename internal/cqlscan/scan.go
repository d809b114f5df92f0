// Package cqlscan reads the lexical forms of cqlsh's statements: CQL
// identifiers bare or "quoted", 'strings', comments, and the name lists
// of COPY's column list and of SKIPCOLS. The cqlsh package parses COPY
// with it; the loader reads SKIPCOLS with it.
package cqlscan

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Scanner reads CQL's lexical forms from Src, from Pos on: words,
// identifiers, quoted strings, the comments cqlsh's lexer drops.
type Scanner struct {
	Src string
	Pos int
	// Flag: the text is a flag's value, not a statement, and "--" or
	// "/*" in it is text, not a comment that would drop the rest.
	Flag bool
}

// Errorf says where the parse stopped: the character of a one-line
// statement, the line and column of a script (cqlload -f).
func (p *Scanner) Errorf(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	switch before := p.Src[:min(p.Pos, len(p.Src))]; {
	case strings.TrimSpace(p.Src[len(before):]) == "" && strings.Contains(p.Src, "\n"):
		return fmt.Errorf("at the end: %s", msg)
	case strings.Contains(p.Src, "\n"):
		line := strings.Count(before, "\n") + 1
		col := len(before) - strings.LastIndexByte(before, '\n')
		return fmt.Errorf("at line %d, column %d: %s", line, col, msg)
	}
	return fmt.Errorf("at character %d: %s", p.Pos+1, msg)
}

// SkipSpace skips white space and comments, which cqlsh's lexer drops:
// -- and // to the end of the line, /* to */.
func (p *Scanner) SkipSpace() {
	for p.Pos < len(p.Src) {
		rest := p.Src[p.Pos:]
		switch {
		case spaceLen(rest) > 0:
			p.Pos += spaceLen(rest)
		case p.Flag:
			return
		case strings.HasPrefix(rest, "--"), strings.HasPrefix(rest, "//"):
			if i := strings.IndexByte(rest, '\n'); i >= 0 {
				p.Pos += i + 1
			} else {
				p.Pos = len(p.Src)
			}
		case strings.HasPrefix(rest, "/*"):
			if i := strings.Index(rest[2:], "*/"); i >= 0 {
				p.Pos += 2 + i + 2
			} else {
				p.Pos = len(p.Src)
			}
		default:
			return
		}
	}
}

// spaceLen is the length of the white space character s begins with, 0
// if it begins with none. By rune, as strings.TrimSpace reads: U+0085
// is two bytes, and a lone byte 0x85 is no space.
func spaceLen(s string) int {
	r, size := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError || !unicode.IsSpace(r) {
		return 0
	}
	return size
}

// skipBlanks moves past white space, and only that.
func (p *Scanner) skipBlanks() {
	for n := spaceLen(p.Src[p.Pos:]); n > 0; n = spaceLen(p.Src[p.Pos:]) {
		p.Pos += n
	}
}

// Word reads a bare word (letters, digits, _ . - + /) or returns "".
func (p *Scanner) Word() string {
	p.SkipSpace()
	start := p.Pos
	for p.Pos < len(p.Src) {
		c := p.Src[p.Pos]
		if c == '_' || c == '-' || c == '+' || c == '.' || c == '/' || c == ':' || unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c)) {
			p.Pos++
			continue
		}
		break
	}
	return p.Src[start:p.Pos]
}

// EndOfLine reports whether only blanks are left on the line, or on the
// statement, and moves past them.
func (p *Scanner) EndOfLine() bool {
	i := p.Pos
	for i < len(p.Src) && (p.Src[i] == ' ' || p.Src[i] == '\t' || p.Src[i] == '\r') {
		i++
	}
	if i < len(p.Src) && p.Src[i] != '\n' {
		return false
	}
	p.Pos = i
	return true
}

// Keyword reads the word kw, in any case, or reads nothing.
func (p *Scanner) Keyword(kw string) bool {
	save := p.Pos
	if strings.EqualFold(p.Word(), kw) {
		return true
	}
	p.Pos = save
	return false
}

// Peek skips space and comments and returns the next byte, 0 at the end.
func (p *Scanner) Peek() byte {
	p.SkipSpace()
	if p.Pos < len(p.Src) {
		return p.Src[p.Pos]
	}
	return 0
}

// Ident reads an identifier: bare (lower-cased) or "quoted" ("" escapes).
func (p *Scanner) Ident() (string, error) {
	if p.Peek() == '"' {
		return p.Quoted('"', "quoted identifier")
	}
	p.SkipSpace()
	start := p.Pos
	for p.Pos < len(p.Src) {
		// By rune: a byte of a multi-byte letter is no letter itself.
		r, size := utf8.DecodeRuneInString(p.Src[p.Pos:])
		if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		p.Pos += size
	}
	if start == p.Pos {
		return "", p.Errorf("expected an identifier")
	}
	return strings.ToLower(p.Src[start:p.Pos]), nil
}

// IdentList reads identifiers separated by commas, as COPY's column list
// and --columns name columns: bare ones lower-cased, as CQL reads them,
// "quoted" ones kept in their quotes, so that the table's column is found
// by exactly that name (schema.Table.Ident). A quoted name may hold
// commas, quotes ("" for one), blanks, anything.
func (p *Scanner) IdentList() ([]string, error) {
	var out []string
	for {
		quoted := p.Peek() == '"'
		c, err := p.Ident()
		if err != nil {
			return nil, err
		}
		if quoted {
			c = `"` + strings.ReplaceAll(c, `"`, `""`) + `"`
		}
		out = append(out, c)
		if p.Peek() != ',' {
			return out, nil
		}
		p.Pos++
	}
}

// Columns parses a column list given apart from a COPY statement
// (--columns) exactly as the statement's own list: `a, b, "My Col",
// "x,y"`.
func Columns(list string) ([]string, error) {
	p := &Scanner{Src: list, Flag: true}
	cols, err := p.IdentList()
	if err == nil && p.Peek() != 0 {
		err = p.Errorf("expected , after %s (a name of other characters than letters, digits and _ is written in double quotes: \"my col\")", cols[len(cols)-1])
	}
	if err != nil {
		return nil, fmt.Errorf("column list %s: %w", list, err)
	}
	return cols, nil
}

// Names parses SKIPCOLS: the file's column names, separated by
// commas, blanks around each dropped, as cqlsh splits them. A name that
// begins with a double quote is read to its closing quote ("" for one)
// and kept in its quotes: it may hold commas, and is compared exactly.
// Bare names are kept as written, to be compared with the file's names
// (a header's are not CQL identifiers, which lower-casing assumes).
func Names(list string) ([]string, error) {
	p := &Scanner{Src: list, Flag: true}
	var out []string
	for {
		p.skipBlanks()
		if p.Pos < len(p.Src) && p.Src[p.Pos] == '"' {
			n, err := p.Quoted('"', "quoted name")
			if err != nil {
				return nil, fmt.Errorf("%s: %w", list, err)
			}
			out = append(out, `"`+strings.ReplaceAll(n, `"`, `""`)+`"`)
			p.skipBlanks()
			if p.Pos < len(p.Src) && p.Src[p.Pos] != ',' {
				return nil, fmt.Errorf("%s: %w", list, p.Errorf("expected , after the quoted name %s", out[len(out)-1]))
			}
		} else {
			end := strings.IndexByte(p.Src[p.Pos:], ',')
			if end < 0 {
				end = len(p.Src) - p.Pos
			}
			if n := strings.TrimSpace(p.Src[p.Pos : p.Pos+end]); n != "" {
				out = append(out, n)
			}
			p.Pos += end
		}
		if p.Pos >= len(p.Src) {
			return out, nil
		}
		p.Pos++ // the comma
	}
}

// Str reads a 'single-quoted' string with ” escapes.
func (p *Scanner) Str() (string, error) {
	if p.Peek() != '\'' {
		return "", p.Errorf("expected a quoted string")
	}
	return p.Quoted('\'', "string")
}

// Quoted reads text between q quotes, a doubled q standing for one, from
// the opening quote at p.Pos; what names it in the error.
func (p *Scanner) Quoted(q byte, what string) (string, error) {
	p.Pos++
	var b strings.Builder
	for p.Pos < len(p.Src) {
		c := p.Src[p.Pos]
		p.Pos++
		if c == q {
			if p.Pos < len(p.Src) && p.Src[p.Pos] == q {
				b.WriteByte(q)
				p.Pos++
				continue
			}
			return b.String(), nil
		}
		b.WriteByte(c)
	}
	return "", p.Errorf("unterminated %s", what)
}

// TableName reads [keyspace.]table.
func (p *Scanner) TableName() (keyspace, table string, err error) {
	if table, err = p.Ident(); err != nil {
		return "", "", err
	}
	if p.Peek() == '.' {
		p.Pos++
		keyspace = table
		if table, err = p.Ident(); err != nil {
			return "", "", err
		}
	}
	return keyspace, table, nil
}

// Table parses keyspace.table as COPY names a table (the --table
// flag): each part bare, which CQL lower-cases, or "double-quoted", taken
// as written ("MyKs"."Events").
func Table(name string) (keyspace, table string, err error) {
	p := &Scanner{Src: name}
	keyspace, table, err = p.TableName()
	switch {
	case err != nil:
	case p.Peek() != 0:
		err = p.Errorf("unexpected %q after the table's name", p.Src[p.Pos:])
	case keyspace == "":
		err = errors.New("no keyspace")
	}
	if err != nil {
		return "", "", fmt.Errorf("%s: want keyspace.table: %w", name, err)
	}
	return keyspace, table, nil
}
