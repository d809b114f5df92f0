package cql

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

type tokKind int

const (
	tEOF      tokKind = iota
	tIdent            // unquoted identifier or keyword; val is lower-cased
	tQIdent           // "quoted" identifier; val keeps case, "" unescaped
	tString           // '…' or $$…$$; val unescaped
	tInteger          // 123 (sign is a separate '-' token)
	tFloat            // 1.5, 1e10
	tHex              // 0x…; val keeps the 0x prefix
	tUUID             // unquoted uuid
	tDuration         // 1h30m, P1D, …
	tPunct            // ( ) [ ] { } , ; . * = < > <= >= != + - : ? !
)

// token is one lexeme. pos is the byte offset in the source; end is the offset
// after it, so the parser can slice raw source text (for table options).
type token struct {
	kind     tokKind
	val      string
	pos, end int
}

// SyntaxError is a parse failure. Line is 1-based; Column is the 0-based
// character offset within the line, as Cassandra (ANTLR) reports it.
type SyntaxError struct {
	Line, Column int
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d:%d %s", e.Line, e.Column, e.Msg)
}

// UnsupportedError is returned for valid CQL that cqlsim does not implement,
// such as ALTER TABLE or CREATE INDEX.
type UnsupportedError struct {
	Statement string // e.g. "ALTER TABLE"
}

func (e *UnsupportedError) Error() string {
	return "unsupported statement " + e.Statement
}

func errAt(src string, pos int, format string, args ...any) *SyntaxError {
	if pos > len(src) {
		pos = len(src)
	}
	line := 1 + strings.Count(src[:pos], "\n")
	start := strings.LastIndexByte(src[:pos], '\n') + 1
	return &SyntaxError{Line: line, Column: utf8.RuneCountInString(src[start:pos]), Msg: fmt.Sprintf(format, args...)}
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isHex(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
func isWordChar(c byte) bool { return isLetter(c) || isDigit(c) || c == '_' }

// lex splits src into tokens, ending with one tEOF token.
func lex(src string) ([]token, error) {
	var toks []token
	i := 0
	for {
		i = skipSpace(src, i)
		if i < 0 {
			return nil, errAt(src, len(src), "unterminated comment")
		}
		if i >= len(src) {
			return append(toks, token{kind: tEOF, pos: len(src), end: len(src)}), nil
		}
		t, err := lexOne(src, i)
		if err != nil {
			return nil, err
		}
		toks = append(toks, t)
		i = t.end
	}
}

// skipSpace skips white space and comments; it returns -1 for an unterminated
// block comment.
func skipSpace(src string, i int) int {
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case c == '-' && strings.HasPrefix(src[i:], "--"), c == '/' && strings.HasPrefix(src[i:], "//"):
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				return len(src)
			}
			i += j + 1
		case c == '/' && strings.HasPrefix(src[i:], "/*"):
			j := strings.Index(src[i+2:], "*/")
			if j < 0 {
				return -1
			}
			i += j + 4
		default:
			return i
		}
	}
	return i
}

func lexOne(src string, i int) (token, error) {
	c := src[i]
	switch {
	case c == '\'':
		return lexQuoted(src, i, '\'', tString)
	case c == '"':
		t, err := lexQuoted(src, i, '"', tQIdent)
		if err == nil && t.val == "" {
			return t, errAt(src, i, "empty quoted identifier")
		}
		return t, err
	case c == '$' && strings.HasPrefix(src[i:], "$$"):
		j := strings.Index(src[i+2:], "$$")
		if j < 0 {
			return token{}, errAt(src, i, "unterminated $$ string")
		}
		return token{kind: tString, val: src[i+2 : i+2+j], pos: i, end: i + 4 + j}, nil
	case isDigit(c) || isLetter(c) || c == '_':
		t := lexWord(src, i)
		if t.kind == tIdent && isDigit(c) {
			return t, errAt(src, i, "token recognition error at: '%s'", src[i:t.end])
		}
		return t, nil
	}
	for _, p := range [...]string{"<=", ">=", "!="} {
		if strings.HasPrefix(src[i:], p) {
			return token{kind: tPunct, val: p, pos: i, end: i + 2}, nil
		}
	}
	if strings.IndexByte("()[]{},;.*=<>+-:?!", c) >= 0 {
		return token{kind: tPunct, val: src[i : i+1], pos: i, end: i + 1}, nil
	}
	r, _ := utf8.DecodeRuneInString(src[i:])
	return token{}, errAt(src, i, "token recognition error at: '%c'", r)
}

// lexQuoted reads a q-quoted literal in which a doubled q stands for q.
func lexQuoted(src string, i int, q byte, kind tokKind) (token, error) {
	var b strings.Builder
	j := i + 1
	for {
		k := strings.IndexByte(src[j:], q)
		if k < 0 {
			what := "string literal"
			if kind == tQIdent {
				what = "quoted identifier"
			}
			return token{}, errAt(src, i, "unterminated %s", what)
		}
		b.WriteString(src[j : j+k])
		j += k + 1
		if j < len(src) && src[j] == q {
			b.WriteByte(q)
			j++
			continue
		}
		return token{kind: kind, val: b.String(), pos: i, end: j}, nil
	}
}

// lexWord reads an identifier, number, uuid, hex blob or duration. Cassandra's
// lexer picks the longest match among these, so each is tried and the longest
// wins; a uuid beats an identifier or number that is a prefix of it.
func lexWord(src string, i int) token {
	if n := matchUUID(src[i:]); n > 0 {
		return token{kind: tUUID, val: src[i : i+n], pos: i, end: i + n}
	}
	if src[i] == '0' && i+1 < len(src) && (src[i+1] == 'x' || src[i+1] == 'X') {
		j := i + 2
		for j < len(src) && isHex(src[j]) {
			j++
		}
		if j == len(src) || !isWordChar(src[j]) {
			return token{kind: tHex, val: src[i:j], pos: i, end: j}
		}
	}
	if n := matchDuration(src[i:]); n > 0 && (i+n == len(src) || !isWordChar(src[i+n])) {
		return token{kind: tDuration, val: src[i : i+n], pos: i, end: i + n}
	}
	if isDigit(src[i]) {
		if n, float := matchNumber(src[i:]); n > 0 {
			kind := tInteger
			if float {
				kind = tFloat
			}
			return token{kind: kind, val: src[i : i+n], pos: i, end: i + n}
		}
	}
	j := i
	for j < len(src) && isWordChar(src[j]) {
		j++
	}
	return token{kind: tIdent, val: strings.ToLower(src[i:j]), pos: i, end: j}
}

func matchUUID(s string) int {
	if len(s) < 36 {
		return 0
	}
	for k := 0; k < 36; k++ {
		switch k {
		case 8, 13, 18, 23:
			if s[k] != '-' {
				return 0
			}
		default:
			if !isHex(s[k]) {
				return 0
			}
		}
	}
	if len(s) > 36 && isWordChar(s[36]) {
		return 0
	}
	return 36
}

// matchNumber matches INTEGER, INTEGER '.' DIGIT* EXPONENT? or INTEGER EXPONENT.
func matchNumber(s string) (n int, float bool) {
	j := 0
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	if j < len(s) && s[j] == '.' {
		float = true
		j++
		for j < len(s) && isDigit(s[j]) {
			j++
		}
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			float = true
			j = k
		}
	}
	if j < len(s) && (isLetter(s[j]) || s[j] == '_') {
		return 0, false // 12abc is not a number; let the caller report it
	}
	return j, float
}

// durationUnits are the units of the "1h30m" duration format, longest first
// so that "ms" is preferred to "m".
var durationUnits = [...]string{"mo", "ms", "us", "µs", "ns", "y", "w", "d", "h", "m", "s"}

// matchDuration returns the length of the duration literal at the start of s,
// or 0. It accepts the three formats Cassandra does: (DIGIT+ UNIT)+,
// ISO 8601 P…T… or P…W, and the alternative P0001-02-03T04:05:06.
func matchDuration(s string) int {
	if s == "" {
		return 0
	}
	if isDigit(s[0]) {
		j := 0
		for j < len(s) && isDigit(s[j]) {
			k := j
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			u := matchUnit(s[k:])
			if u == 0 {
				return 0
			}
			j = k + u
		}
		return j
	}
	if s[0] != 'P' && s[0] != 'p' {
		return 0
	}
	if n := matchISOAlt(s); n > 0 {
		return n
	}
	// P(nY)?(nM)?(nD)?(T(nH)?(nM)?(nS)?)? or PnW; at least one component.
	j := 1
	if k := digitsThen(s[j:], "W"); k > 0 {
		return j + k
	}
	comps := 0
	for _, u := range []string{"Y", "M", "D"} {
		if k := digitsThen(s[j:], u); k > 0 {
			j += k
			comps++
		}
	}
	if j < len(s) && (s[j] == 'T' || s[j] == 't') {
		tcomps := 0
		k0 := j + 1
		for _, u := range []string{"H", "M", "S"} {
			if k := digitsThen(s[k0:], u); k > 0 {
				k0 += k
				tcomps++
			}
		}
		if tcomps > 0 {
			j = k0
			comps += tcomps
		}
	}
	if comps == 0 {
		return 0
	}
	return j
}

func matchUnit(s string) int {
	for _, u := range durationUnits {
		if len(s) >= len(u) && strings.EqualFold(s[:len(u)], u) {
			return len(u)
		}
	}
	return 0
}

// digitsThen matches DIGIT+ followed by the (case-insensitive) unit letter.
func digitsThen(s, unit string) int {
	j := 0
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	if j == 0 || j >= len(s) || !strings.EqualFold(s[j:j+1], unit) {
		return 0
	}
	return j + 1
}

// matchISOAlt matches P0001-02-03T04:05:06.
func matchISOAlt(s string) int {
	const pattern = "P0000-00-00T00:00:00"
	if len(s) < len(pattern) {
		return 0
	}
	for k := 1; k < len(pattern); k++ {
		switch pattern[k] {
		case '0':
			if !isDigit(s[k]) {
				return 0
			}
		case 'T':
			if s[k] != 'T' && s[k] != 't' {
				return 0
			}
		default:
			if s[k] != pattern[k] {
				return 0
			}
		}
	}
	return len(pattern)
}
