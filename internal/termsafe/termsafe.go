// Package termsafe prints names that come from outside the program (file
// names, object keys, header names) so that they cannot act on the
// terminal or the log that shows them: a file named "\x1b[2J.csv" cleared
// the screen of whoever read the message naming it, and a carriage return
// in a name can overwrite the line it is on.
package termsafe

import (
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Name returns s as it is when every character of it is printable (as
// strconv.IsPrint has it: no control characters, no invisible formatting
// such as a right-to-left override, valid UTF-8), else s quoted as Go
// quotes a string, as messages quote field values (%q): the name stays
// readable, and the quotes say it holds something unusual.
func Name(s string) string {
	if printable(s) {
		return s
	}
	return strconv.Quote(s)
}

func printable(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 || !strconv.IsPrint(r) {
			return false
		}
		i += n
	}
	return true
}

// Writer returns a writer that passes text on to w with every control
// character other than a line feed, a carriage return and a tab written
// escaped, as Name escapes it (ESC as \x1b): whatever a message quotes
// that no one thought to pass through Name (a driver's error, an object
// store's), no escape sequence reaches the terminal through it. Carriage
// returns stay: the progress bar redraws its line with them.
func Writer(w io.Writer) io.Writer { return &writer{w: w} }

type writer struct{ w io.Writer }

func (w *writer) Write(p []byte) (int, error) {
	if !hasControl(p) {
		return w.w.Write(p)
	}
	var b strings.Builder
	for _, r := range string(p) {
		if !control(r) {
			b.WriteRune(r)
			continue
		}
		q := strconv.QuoteRune(r)
		b.WriteString(q[1 : len(q)-1])
	}
	if _, err := io.WriteString(w.w, b.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Unwrap returns the writer written to, so that callers can find the
// terminal beneath.
func (w *writer) Unwrap() io.Writer { return w.w }

func control(r rune) bool {
	return unicode.IsControl(r) && r != '\n' && r != '\r' && r != '\t'
}

func hasControl(p []byte) bool {
	for _, c := range p {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' || c == 0x7f || c == 0xc2 {
			return true // 0xc2 leads the UTF-8 of the C1 controls, U+0080–U+009F
		}
	}
	return false
}
