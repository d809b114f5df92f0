package csvparse

// AppendRecord appends fields as one record in dialect d, ending with
// "\n", such that a Reader with d yields exactly these fields. A field is
// quoted when it holds the delimiter, quote, escape, CR or LF, or when it
// is the only field and empty (else the record would be a blank line);
// inside quotes a quote is doubled and an escape escaped. Error files and
// headers written with it load again unchanged.
func AppendRecord(dst []byte, d Dialect, fields ...string) []byte {
	c := compile(d)
	for i, f := range fields {
		if i > 0 {
			dst = append(dst, c.delim)
		}
		if !c.needsQuotes(f) && (f != "" || len(fields) > 1) {
			dst = append(dst, f...)
			continue
		}
		dst = c.appendQuoted(dst, f)
	}
	return append(dst, '\n')
}

// appendQuoted appends f quoted: quotes doubled, escapes escaped.
func (c *codes) appendQuoted(dst []byte, f string) []byte {
	dst = append(dst, c.quote)
	for j := 0; j < len(f); j++ {
		switch b := f[j]; {
		case b == c.quote:
			dst = append(dst, c.quote, c.quote)
		case c.hasEsc && b == c.esc:
			dst = append(dst, c.esc, c.esc)
		default:
			dst = append(dst, b)
		}
	}
	return append(dst, c.quote)
}

func (c *codes) needsQuotes(f string) bool {
	for i := 0; i < len(f); i++ {
		switch b := f[i]; {
		case b == c.delim, b == c.quote, b == '\n', b == '\r', c.hasEsc && b == c.esc:
			return true
		}
	}
	return false
}
