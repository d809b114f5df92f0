package schema

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Composite values (collections, tuples, UDTs, vectors) are read in CQL
// literal syntax, which is what cqlsh COPY TO writes:
//
//	[1, 2]   {'a', 'b'}   {'k': 1}   (1, 'x')   {street: 'Main', no: 3}
//
// Strings are single-quoted with '' for a quote, or JSON-style
// double-quoted with JSON escapes (what DSBulk writes). Scalars may also be
// bare (unquoted) when they contain no separator. Inside tuples and UDTs a
// bare null (any case) or an empty value is null; lists, sets and maps
// cannot hold nulls. Like cqlsh, a list or set may use either [...] or {...}.

// encodeFunc parses one value at the parser's position and appends its
// serialized form.
type encodeFunc func(p *litParser, dst []byte) ([]byte, error)

type litParser struct {
	s []byte
	i int
}

func (p *litParser) space() {
	for p.i < len(p.s) && isBlank(p.s[p.i]) {
		p.i++
	}
}

func (p *litParser) peek() byte {
	p.space()
	if p.i >= len(p.s) {
		return 0
	}
	return p.s[p.i]
}

func (p *litParser) errorf(format string, args ...any) error {
	return fmt.Errorf("at offset %d: "+format, append([]any{p.i}, args...)...)
}

func (p *litParser) expect(c byte) error {
	if got := p.peek(); p.i >= len(p.s) || got != c {
		if p.i >= len(p.s) {
			return p.errorf("expected %q, found the end", c)
		}
		return p.errorf("expected %q, found %q", c, got)
	}
	p.i++
	return nil
}

// token reads one scalar: a quoted string (returned unescaped, quoted=true)
// or a bare run of text up to a separator at this level, with blanks
// trimmed. colonEnds says whether ':' ends a bare token; colonNeedsBlank
// narrows that to ": " for key types whose values contain colons (time,
// timestamp, inet), so that {10:00:00: 1} reads as a key 10:00:00.
func (p *litParser) token(colonEnds, colonNeedsBlank bool) (tok []byte, quoted bool, err error) {
	p.space()
	if p.i < len(p.s) && (p.s[p.i] == '\'' || p.s[p.i] == '"') {
		return p.quoted()
	}
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if tokenStops[c] {
			if c != ':' {
				break
			}
			if colonEnds && (!colonNeedsBlank || p.i+1 >= len(p.s) || isBlank(p.s[p.i+1])) {
				break
			}
		}
		p.i++
	}
	return trimBlanks(p.s[start:p.i]), false, nil
}

// tokenStops marks the bytes that may end a bare token: separators,
// brackets and quotes; a lookup keeps the per-byte loop short.
var tokenStops = [256]bool{',': true, ']': true, '}': true, ')': true, '[': true, '{': true, '(': true, '\'': true, '"': true, ':': true}

// quoted reads a single-quoted CQL string or a double-quoted JSON string.
// Without escapes the result aliases the input and costs nothing.
func (p *litParser) quoted() ([]byte, bool, error) {
	s, q, start := p.s, p.s[p.i], p.i
	var out []byte
	seg := start + 1
	for i := seg; i < len(s); {
		// The next byte that matters: the quote, or for JSON strings a
		// backslash too. IndexByte scans many bytes at a time.
		k := indexQuote(s[i:], q)
		if q == '"' {
			end := len(s)
			if k >= 0 {
				end = i + k // not past the quote: a field may hold many strings
			}
			if b := bytes.IndexByte(s[i:end], '\\'); b >= 0 {
				out = append(out, s[seg:i+b]...)
				p.i = i + b
				var err error
				if out, err = p.jsonEscape(out); err != nil {
					return nil, false, err
				}
				i, seg = p.i, p.i
				continue
			}
		}
		if k < 0 {
			break
		}
		i += k
		if q == '\'' && i+1 < len(s) && s[i+1] == '\'' {
			out = append(out, s[seg:i+1]...)
			i += 2
			seg = i
			continue
		}
		tok := s[seg:i]
		if out != nil {
			tok = append(out, tok...)
		}
		p.i = i + 1
		return tok, true, nil
	}
	p.i = start
	return nil, false, p.errorf("unterminated %c-quoted string", q)
}

// indexQuote is bytes.IndexByte(s, q), with the first bytes looked at
// one by one: most quoted values in a collection are a few bytes long, and
// for them the call costs more than the loop.
func indexQuote(s []byte, q byte) int {
	n := min(len(s), 16)
	for i := 0; i < n; i++ {
		if s[i] == q {
			return i
		}
	}
	if n == len(s) {
		return -1
	}
	if k := bytes.IndexByte(s[n:], q); k >= 0 {
		return n + k
	}
	return -1
}

// jsonEscape decodes the escape at p.i (which is a backslash) onto out.
func (p *litParser) jsonEscape(out []byte) ([]byte, error) {
	if p.i+1 >= len(p.s) {
		return nil, p.errorf("unterminated escape")
	}
	c := p.s[p.i+1]
	p.i += 2
	switch c {
	case '"', '\\', '/':
		return append(out, c), nil
	case 'b':
		return append(out, '\b'), nil
	case 'f':
		return append(out, '\f'), nil
	case 'n':
		return append(out, '\n'), nil
	case 'r':
		return append(out, '\r'), nil
	case 't':
		return append(out, '\t'), nil
	case 'u':
		r, ok := p.hex4()
		if !ok {
			return nil, p.errorf(`invalid \u escape`)
		}
		if utf16.IsSurrogate(r) {
			// A surrogate pair, or an error: a lone surrogate is no
			// character, and replacing it would change the text silently.
			if p.i+1 >= len(p.s) || p.s[p.i] != '\\' || p.s[p.i+1] != 'u' {
				return nil, p.errorf(`lone surrogate in \u escape`)
			}
			p.i += 2
			r2, ok := p.hex4()
			if !ok {
				return nil, p.errorf(`invalid \u escape`)
			}
			if r = utf16.DecodeRune(r, r2); r == utf8.RuneError {
				return nil, p.errorf(`lone surrogate in \u escape`)
			}
		}
		return utf8.AppendRune(out, r), nil
	}
	return nil, p.errorf(`invalid escape \%c`, c)
}

func (p *litParser) hex4() (rune, bool) {
	if p.i+4 > len(p.s) {
		return 0, false
	}
	var r rune
	for k := 0; k < 4; k++ {
		d, ok := unhex(p.s[p.i+k])
		if !ok {
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	p.i += 4
	return r, true
}

// isNull reports whether a bare token is a null: "null" in any case, or
// empty (cqlsh writes a null inside a UDT as its NULL marker, empty by
// default).
func isNull(tok []byte, quoted bool) bool {
	return !quoted && (len(tok) == 0 || equalFoldASCII(tok, "null"))
}

func (b *builder) composite(t *Type, depth int) (Converter, error) {
	enc, err := b.encoder(t, depth)
	if err != nil {
		return nil, err
	}
	return func(dst, field []byte) ([]byte, error) {
		n := len(dst)
		p := b.parsers.Get().(*litParser)
		*p = litParser{s: field}
		out, err := enc(p, dst)
		if p.space(); err == nil && p.i < len(p.s) {
			err = p.errorf("unexpected %q after the value", p.s[p.i:])
		}
		*p = litParser{} // drop the reference to field before pooling
		b.parsers.Put(p)
		if err != nil {
			return dst[:n], newConvertError(t, field, err)
		}
		return out, nil
	}, nil
}

// encoder returns the function that reads one value of type t in literal
// syntax.
func (b *builder) encoder(t *Type, depth int) (encodeFunc, error) {
	if depth > maxTypeDepth {
		return nil, fmt.Errorf("type nested deeper than %d", maxTypeDepth)
	}
	if fn := b.scalar(t); fn != nil {
		return scalarEncoder(t, fn), nil
	}
	switch t.Kind {
	case KindList, KindSet:
		if len(t.Elems) != 1 {
			return nil, fmt.Errorf("%s needs one element type", t)
		}
		return b.listEncoder(t, depth)
	case KindMap:
		if len(t.Elems) != 2 {
			return nil, fmt.Errorf("%s needs key and value types", t)
		}
		return b.mapEncoder(t, depth)
	case KindTuple:
		return b.tupleEncoder(t, depth)
	case KindUDT:
		return b.udtEncoder(t, depth)
	case KindVector:
		if len(t.Elems) != 1 || t.Dim <= 0 {
			return nil, fmt.Errorf("%s needs an element type and a positive dimension", t)
		}
		return b.vectorEncoder(t, depth)
	case KindCustom:
		return nil, fmt.Errorf("cannot load values of custom type %s", t)
	}
	return nil, fmt.Errorf("no converter for type %s", t)
}

// scalarEncoder reads a scalar token where an encodeFunc is needed (a
// vector's elements). Scalars inside lists, sets, maps, tuples and UDTs are
// read by element, which also knows where a bare map key ends.
func scalarEncoder(t *Type, fn scalarFunc) encodeFunc {
	return func(p *litParser, dst []byte) ([]byte, error) {
		tok, quoted, err := p.token(false, false)
		if err != nil {
			return dst, err
		}
		if err := p.afterBare(quoted); err != nil {
			return dst, err
		}
		return scalarValue(t, fn, dst, tok)
	}
}

// afterBare rejects a bare token that runs into a bracket or a quote, as in
// "[1, x[2]]", which would otherwise be read as a value and a stray
// bracket.
func (p *litParser) afterBare(quoted bool) error {
	if quoted {
		return nil
	}
	if c := p.peek(); opensValue(c) {
		return p.errorf("unexpected %q", c)
	}
	return nil
}

func scalarValue(t *Type, fn scalarFunc, dst, tok []byte) ([]byte, error) {
	n := len(dst)
	out, err := fn(dst, tok)
	if err != nil {
		return dst[:n], newConvertError(t, tok, err)
	}
	return out, nil
}

// colonInValues lists the types whose bare text contains ':'.
func colonInValues(t *Type) bool {
	return t.Kind == KindTime || t.Kind == KindTimestamp || t.Kind == KindInet
}

// appendValue writes one length-prefixed element: [int32 length][bytes].
func appendValue(p *litParser, dst []byte, enc encodeFunc) ([]byte, error) {
	at := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	out, err := enc(p, dst)
	if err != nil {
		return dst[:at], err
	}
	binary.BigEndian.PutUint32(out[at:], uint32(len(out)-at-4))
	return out, nil
}

// element reads the values inside a composite: the elements of a list, set
// or map (and its keys), the components of a tuple, the fields of a UDT. A
// scalar's token goes straight to its function: nearly every such value is
// a scalar, and the encodeFunc layers around one cost as much as parsing
// it.
type element struct {
	t      *Type
	scalar scalarFunc // nil for a composite element, read by enc
	enc    encodeFunc
	// colonEnds is for map keys, which a ':' ends; colonNeedsBlank
	// narrows that to ": " for keys whose values hold colons.
	colonEnds, colonNeedsBlank bool
}

func (b *builder) element(t *Type, depth int, mapKey bool) (*element, error) {
	e := &element{t: t, colonEnds: mapKey}
	if e.scalar = b.scalar(t); e.scalar != nil {
		e.colonNeedsBlank = mapKey && colonInValues(t)
		return e, nil
	}
	var err error
	e.enc, err = b.encoder(t, depth+1)
	return e, err
}

// appendTo appends one element, named what and numbered i from 0 in
// errors.
func (e *element) appendTo(p *litParser, dst []byte, what string, i int) ([]byte, error) {
	if p.nullAhead(e.colonEnds) {
		return dst, fmt.Errorf("%s %d: %w", what, i+1, errNullElement)
	}
	out, err := e.read(p, dst)
	if err != nil {
		return dst, fmt.Errorf("%s %d: %w", what, i+1, err)
	}
	return out, nil
}

// read appends one value with its length, as appendValue does.
func (e *element) read(p *litParser, dst []byte) ([]byte, error) {
	if e.scalar == nil {
		return appendValue(p, dst, e.enc)
	}
	tok, quoted, err := p.token(e.colonEnds, e.colonNeedsBlank)
	if err == nil {
		err = p.afterBare(quoted)
	}
	if err != nil {
		return dst, err
	}
	at := len(dst)
	out, err := e.scalar(append(dst, 0, 0, 0, 0), tok)
	if err != nil {
		return dst[:at], newConvertError(e.t, tok, err)
	}
	binary.BigEndian.PutUint32(out[at:], uint32(len(out)-at-4))
	return out, nil
}

// closer gives the closing bracket for an opening one.
func closer(open byte) byte {
	switch open {
	case '[':
		return ']'
	case '{':
		return '}'
	case '(':
		return ')'
	}
	return 0
}

// anyBracket opens a list, set, map, tuple or user-defined type value,
// as in cqlsh, whose split() takes any of the three for any of them
// (closed by its pair): its COPY TO writes a set of tuples as {(1, 2)},
// and files written for it use [ ] for sets or ( ) for lists.
const anyBracket = "[{("

// elements reads "open elem, elem, ... close", calling each for every
// element, and returns how many there were.
func (p *litParser) elements(opens string, each func(i int) error) (int, error) {
	c := p.peek()
	if p.i >= len(p.s) || strings.IndexByte(opens, c) < 0 {
		want := quoteBytes(opens)
		if p.i >= len(p.s) {
			return 0, p.errorf("expected %s, found the end", want)
		}
		return 0, p.errorf("expected %s, found %q", want, c)
	}
	end := closer(c)
	p.i++
	if p.peek() == end {
		p.i++
		return 0, nil
	}
	n := 0
	for {
		if err := each(n); err != nil {
			return n, err
		}
		n++
		c := p.peek()
		switch {
		case p.i >= len(p.s):
			return n, p.errorf("expected ',' or %q, found the end", end)
		case c == ',':
			p.i++
			if p.peek() == end && p.i < len(p.s) {
				// A trailing comma ends the list, as cqlsh's split reads it.
				p.i++
				return n, nil
			}
		case c == end:
			p.i++
			return n, nil
		default:
			return n, p.errorf("expected ',' or %q, found %q", end, c)
		}
	}
}

// quoteBytes lists the accepted opening brackets: "'{'" or "'[' or '{'".
func quoteBytes(s string) string {
	parts := make([]string, len(s))
	for i := range s {
		parts[i] = fmt.Sprintf("%q", s[i])
	}
	return strings.Join(parts, " or ")
}

// nullAhead reports whether the next value is a bare null ("null" in any
// case), consuming it.
func (p *litParser) nullAhead(colonEnds bool) bool {
	save := p.i
	if c := p.peek(); c != 'n' && c != 'N' {
		return false // the common case, decided without scanning a token
	}
	tok, _, _ := p.token(colonEnds, false)
	if len(tok) > 0 && equalFoldASCII(tok, "null") {
		return true
	}
	p.i = save
	return false
}

func opensValue(c byte) bool {
	return c == '[' || c == '{' || c == '(' || c == '\'' || c == '"'
}

func (b *builder) listEncoder(t *Type, depth int) (encodeFunc, error) {
	elem, err := b.element(t.Elems[0], depth, false)
	if err != nil {
		return nil, err
	}
	return func(p *litParser, dst []byte) ([]byte, error) {
		at := len(dst)
		dst = append(dst, 0, 0, 0, 0)
		n, err := p.elements(anyBracket, func(i int) (err error) {
			dst, err = elem.appendTo(p, dst, "element", i)
			return err
		})
		if err != nil {
			return dst[:at], err
		}
		binary.BigEndian.PutUint32(dst[at:], uint32(n))
		return dst, nil
	}, nil
}

func (b *builder) mapEncoder(t *Type, depth int) (encodeFunc, error) {
	key, err := b.element(t.Elems[0], depth, true)
	if err != nil {
		return nil, err
	}
	val, err := b.element(t.Elems[1], depth, false)
	if err != nil {
		return nil, err
	}
	return func(p *litParser, dst []byte) ([]byte, error) {
		at := len(dst)
		dst = append(dst, 0, 0, 0, 0)
		n, err := p.elements(anyBracket, func(i int) (err error) {
			if dst, err = key.appendTo(p, dst, "key", i); err != nil {
				return err
			}
			if err := p.expect(':'); err != nil {
				return fmt.Errorf("entry %d: %w", i+1, err)
			}
			dst, err = val.appendTo(p, dst, "value", i)
			return err
		})
		if err != nil {
			return dst[:at], err
		}
		binary.BigEndian.PutUint32(dst[at:], uint32(n))
		return dst, nil
	}, nil
}

// nullOrEmptyAhead reports whether the next value of a tuple or UDT is
// null: a bare null, nothing at all before the separator, or the NULL
// marker, which is how cqlsh COPY TO writes a null field of a UDT.
func (p *litParser) nullOrEmptyAhead(marker string) bool {
	save := p.i
	c := p.peek()
	if c != 'n' && c != 'N' && c != ',' && c != ')' && c != ']' && c != '}' && c != 0 && (marker == "" || c != marker[0]) {
		return false // none of those: no need to scan a token
	}
	tok, quoted, _ := p.token(false, false)
	if isNull(tok, quoted) || !quoted && marker != "" && string(tok) == marker {
		return true
	}
	p.i = save
	return false
}

// pythonNoneAhead reports whether the next value is None, bare or quoted,
// consuming it: cqlsh COPY TO writes a null tuple component as Python's
// str(None), quoted for the types it quotes (timestamps, inet). Callers ask
// only for types where "None" cannot be a value.
func (p *litParser) pythonNoneAhead() bool {
	save := p.i
	if c := p.peek(); c != 'N' && c != '\'' {
		return false
	}
	tok, _, err := p.token(false, false)
	if err == nil && string(tok) == "None" {
		return true
	}
	p.i = save
	return false
}

func (b *builder) tupleEncoder(t *Type, depth int) (encodeFunc, error) {
	elems := make([]*element, len(t.Elems))
	for i, e := range t.Elems {
		var err error
		if elems[i], err = b.element(e, depth, false); err != nil {
			return nil, err
		}
	}
	return func(p *litParser, dst []byte) ([]byte, error) {
		at := len(dst)
		n, err := p.elements(anyBracket, func(i int) error {
			if i >= len(elems) {
				return fmt.Errorf("more than the %d components of %s", len(elems), t)
			}
			if p.nullOrEmptyAhead(b.f.NullMarker) || !t.Elems[i].IsText() && p.pythonNoneAhead() {
				dst = binary.BigEndian.AppendUint32(dst, 0xffffffff)
				return nil
			}
			out, err := elems[i].read(p, dst)
			if err != nil {
				return fmt.Errorf("component %d: %w", i+1, err)
			}
			dst = out
			return nil
		})
		if err != nil {
			return dst[:at], err
		}
		// Components left out are null, as cqlsh leaves them.
		for ; n < len(elems); n++ {
			dst = binary.BigEndian.AppendUint32(dst, 0xffffffff)
		}
		return dst, nil
	}, nil
}

func (b *builder) udtEncoder(t *Type, depth int) (encodeFunc, error) {
	if t.Fields == nil {
		return nil, fmt.Errorf("user-defined type %s has no fields: resolve it with LoadTable or give Fields", t)
	}
	fields := make([]*element, len(t.Fields))
	for i, f := range t.Fields {
		var err error
		if fields[i], err = b.element(f.Type, depth, false); err != nil {
			return nil, fmt.Errorf("field %s: %w", f.Name, err)
		}
	}
	return func(p *litParser, dst []byte) ([]byte, error) {
		at := len(dst)
		// Fields may come in any order; each is serialized after the
		// output, its place remembered, and the output assembled in the
		// type's field order at the end.
		var small [8][2]int // most UDTs are small: no allocation for them
		var spans [][2]int
		if len(t.Fields) <= len(small) {
			spans = small[:len(t.Fields)]
		} else {
			spans = make([][2]int, len(t.Fields))
		}
		for i := range spans {
			spans[i] = [2]int{-1, -1}
		}
		_, err := p.elements(anyBracket, func(int) error {
			name, err := p.fieldName()
			if err != nil {
				return err
			}
			k := t.fieldIndex(name)
			if k < 0 {
				return fmt.Errorf("user-defined type %s has no field %q", QuoteIdent(t.Name), name)
			}
			if spans[k][0] >= 0 {
				return fmt.Errorf("field %s given twice", t.Fields[k].Name)
			}
			if err := p.expect(':'); err != nil {
				return fmt.Errorf("field %s: %w", t.Fields[k].Name, err)
			}
			start := len(dst)
			if p.nullOrEmptyAhead(b.f.NullMarker) {
				dst = binary.BigEndian.AppendUint32(dst, 0xffffffff)
			} else {
				out, err := fields[k].read(p, dst)
				if err != nil {
					return fmt.Errorf("field %s: %w", t.Fields[k].Name, err)
				}
				dst = out
			}
			spans[k] = [2]int{start, len(dst)}
			return nil
		})
		if err != nil {
			return dst[:at], err
		}
		body := len(dst)
		for _, s := range spans {
			if s[0] < 0 {
				dst = binary.BigEndian.AppendUint32(dst, 0xffffffff)
				continue
			}
			dst = append(dst, dst[s[0]:s[1]]...)
		}
		n := copy(dst[at:], dst[body:])
		return dst[:at+n], nil
	}, nil
}

// fieldName reads a UDT field name: bare, or quoted (double quotes as in
// CQL and JSON, single quotes as cqlsh also takes).
func (p *litParser) fieldName() ([]byte, error) {
	p.space()
	if p.i < len(p.s) && (p.s[p.i] == '"' || p.s[p.i] == '\'') {
		name, _, err := p.quoted()
		return name, err
	}
	// A bare name runs to the colon: cqlsh COPY TO writes field names as
	// they are, so a quoted-identifier field such as "home town" comes bare
	// and with its blank.
	start := p.i
	for p.i < len(p.s) && p.s[p.i] != ':' && p.s[p.i] != ',' && p.s[p.i] != '}' {
		p.i++
	}
	name := trimBlanks(p.s[start:p.i])
	if len(name) == 0 {
		p.i = start
		if p.i >= len(p.s) {
			return nil, p.errorf("expected a field name, found the end")
		}
		return nil, p.errorf("expected a field name, found %q", p.s[p.i])
	}
	return name, nil
}

// fieldIndex finds a field by name: exactly first, then ignoring case
// (field names are identifiers, which CQL folds to lower case unquoted).
func (t *Type) fieldIndex(name []byte) int {
	for i, f := range t.Fields {
		if f.Name == string(name) {
			return i
		}
	}
	k := -1
	for i, f := range t.Fields {
		if strings.EqualFold(f.Name, string(name)) {
			if k >= 0 {
				return -1
			}
			k = i
		}
	}
	return k
}

// fixedSize gives the serialized size of a vector element type that
// Cassandra's VectorType packs (its valueLengthIfFixed is set), or 0;
// vectors of these are written without per-element lengths. smallint,
// tinyint, date and time have one size but are not among them: their
// elements carry a length, as gocql's isVectorVariableLengthType agrees.
func fixedSize(t *Type) int {
	switch t.Kind {
	case KindBoolean:
		return 1
	case KindInt, KindFloat:
		return 4
	case KindBigint, KindDouble, KindTimestamp:
		return 8
	case KindUUID, KindTimeuuid:
		return 16
	case KindVector:
		if n := fixedSize(t.Elems[0]); n > 0 {
			return n * t.Dim
		}
	}
	return 0
}

func (b *builder) vectorEncoder(t *Type, depth int) (encodeFunc, error) {
	elem, err := b.encoder(t.Elems[0], depth+1)
	if err != nil {
		return nil, err
	}
	fixed := fixedSize(t.Elems[0]) > 0
	return func(p *litParser, dst []byte) ([]byte, error) {
		at := len(dst)
		n, err := p.elements("[", func(i int) error {
			if i >= t.Dim {
				return fmt.Errorf("more than %d elements", t.Dim)
			}
			if p.nullAhead(false) {
				return fmt.Errorf("element %d: null is not allowed in a vector", i+1)
			}
			start := len(dst)
			out, err := elem(p, dst)
			if err != nil {
				return fmt.Errorf("element %d: %w", i+1, err)
			}
			if !fixed {
				// Variable-size elements carry an unsigned vint length in
				// front; it is known only now, so shift the bytes.
				var lenBuf [9]byte
				pre := appendUvint(lenBuf[:0], uint64(len(out)-start))
				out = append(out, pre...)
				copy(out[start+len(pre):], out[start:len(out)-len(pre)])
				copy(out[start:], pre)
			}
			dst = out
			return nil
		})
		if err != nil {
			return dst[:at], err
		}
		if n != t.Dim {
			return dst[:at], fmt.Errorf("%d elements, %s needs %d", n, t, t.Dim)
		}
		return dst, nil
	}, nil
}
