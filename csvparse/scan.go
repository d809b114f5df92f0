package csvparse

import (
	"bytes"

	"github.com/gofiber/utils/v2/simd"
)

// codes is a Dialect compiled into the byte tables the hot loops use.
// The Reader and the Splitter's scanner are built from the same codes
// and follow the same transitions, so a record ends at the same byte in
// both; FuzzSplitConsistency holds them to it.
type codes struct {
	delim, quote, esc byte
	hasEsc            bool
	strict            bool
	// Bytes that stop a run of ordinary bytes in an unquoted field in the
	// Reader: '\n', '\r', delimiter, escape, and quote with StrictQuotes.
	readUnq [256]bool
	// The same for the boundary scanner's unquoted state, which ignores
	// bare quotes.
	scanUnq [256]bool
}

func compile(d Dialect) *codes {
	c := &codes{delim: d.Delimiter, quote: d.Quote, esc: d.Escape, strict: d.StrictQuotes}
	// An escape equal to the quote would be ambiguous with "" doubling,
	// which is always on; treat it as no escape.
	c.hasEsc = d.Escape != 0 && d.Escape != d.Quote
	for _, t := range []*[256]bool{&c.readUnq, &c.scanUnq} {
		t['\n'] = true
		if c.hasEsc {
			t[c.esc] = true
		}
	}
	c.readUnq['\r'] = true
	c.scanUnq['\r'] = true
	c.readUnq[c.delim] = true
	c.scanUnq[c.delim] = true
	if c.strict {
		c.readUnq[c.quote] = true
	}
	return c
}

// escapable reports whether esc+b stands for b alone; before any other
// byte the escape is kept, so backslashes in paths and regexes survive.
func (c *codes) escapable(b byte) bool {
	return b == c.quote || b == c.esc || b == c.delim || b == '\n' || b == '\r'
}

func countLF(p []byte) int { return bytes.Count(p, []byte{'\n'}) }

type scanState uint8

const (
	stFieldStart scanState = iota
	stUnquoted
	stUnquotedEsc
	stQuoted
	stQuotedEsc
	stAfterQuote
)

// scanner finds where records end without extracting fields. It keeps
// its state between calls so a record may arrive in pieces.
type scanner struct {
	c     *codes
	st    scanState
	lines int64 // line breaks consumed since reset
	fresh bool  // no byte of the record seen yet
	// The record ended at a CR; the line break is not counted yet and an
	// LF right after it belongs to it. The caller settles both, because
	// the next byte may not have been read.
	endedAtCR bool
	// plain: plainLine found the record, so it is one line ending in LF
	// with no quote and no CR but one right before the LF.
	plain bool
	// retries counts the scans of this record that consumed nothing
	// (scan's retry), at most maxPlainRetries: a line trickling in a
	// few bytes a read is not searched again at every one.
	retries uint8
}

const maxPlainRetries = 4

func (s *scanner) reset() {
	s.st = stFieldStart
	s.lines = 0
	s.fresh = true
	s.endedAtCR = false
	s.plain = false
	s.retries = 0
}

// plainLine returns the end of a record that is one whole line of p
// without quotes or escapes (most records), found with one vectorised
// pass for the line break, a quote and a CR instead of a byte loop; or
// -1. partial says that p holds no line break yet and nothing else that
// rules a plain line out: with more input, the record may still be one.
func (s *scanner) plainLine(p []byte) (end int, partial bool) {
	k := simd.Memchr3(p, '\n', s.c.quote, '\r')
	if k >= 0 && p[k] == '\r' {
		switch {
		case k+1 == len(p):
			return -1, true // a CRLF, perhaps, cut by the read
		case p[k+1] != '\n':
			return -1, false // a lone CR ends the record there
		}
		k++
	}
	switch {
	case k < 0:
		return -1, true
	case p[k] != '\n':
		return -1, false // a quote
	}
	// Outside quotes an escape moves a record's end only when it
	// escapes the line break itself, so only the last byte needs looking
	// at; an escaped CR before the LF ends the record at the LF too.
	if s.c.hasEsc && k > 0 && p[k-1] == s.c.esc {
		return -1, false
	}
	s.lines++
	return k + 1, false
}

// scan consumes p from the saved state and returns the index just past
// the '\n' that ends the record, or -1 if p ends first. With retry, p
// begins a record and more input can follow: if p holds only the start
// of what may be a plain line, scan consumes nothing (the scanner stays
// fresh), so that the caller hands it the whole record again once more
// is read (up to maxPlainRetries times). A record that straddles a read
// would otherwise go through the byte loop and, not being plain, take the
// plain path away from the Reader for every record of its chunk: about
// one chunk in every read.
func (s *scanner) scan(p []byte, retry bool) int {
	if s.fresh {
		// Only at the record's first byte: trying at every field would
		// rescan a long line once per field.
		k, partial := s.plainLine(p)
		if k >= 0 {
			s.fresh = false
			s.plain = true
			return k
		}
		if partial && retry && s.retries < maxPlainRetries {
			s.retries++
			return -1
		}
		s.fresh = false
	}
	c := s.c
	st := s.st
	i, n := 0, len(p)
	nextQuote := -1 // position of the next quote in p, when searched
loop:
	for i < n {
		switch st {
		case stFieldStart:
			if p[i] == c.quote {
				st = stQuoted
				i++
				continue
			}
			st = stUnquoted
		case stUnquoted:
			for i < n && !c.scanUnq[p[i]] {
				i++
			}
			if i == n {
				break loop
			}
			b := p[i]
			i++
			switch b {
			case '\n':
				s.lines++
				s.st = stFieldStart
				return i
			case '\r':
				s.st, s.endedAtCR = stFieldStart, true
				return i
			case c.delim:
				st = stFieldStart
			default:
				st = stUnquotedEsc
			}
		case stUnquotedEsc, stQuotedEsc:
			if p[i] == '\n' {
				s.lines++
			}
			i++
			if st == stUnquotedEsc {
				st = stUnquoted
			} else {
				st = stQuoted
			}
		case stQuoted:
			// Quoted fields can be long (JSON, text), so jump between
			// quotes and escapes with the vectorised bytes functions.
			// nextQuote is kept across escapes so each byte is searched
			// once, however many escapes the field holds.
			if nextQuote < i {
				nextQuote = n
				if k := bytes.IndexByte(p[i:], c.quote); k >= 0 {
					nextQuote = i + k
				}
			}
			end, esc := nextQuote, false
			if c.hasEsc {
				if k := bytes.IndexByte(p[i:end], c.esc); k >= 0 {
					end, esc = i+k, true
				}
			}
			s.lines += int64(countLF(p[i:end]))
			if end == n {
				break loop // the field goes on in the next piece
			}
			i = end + 1
			if esc {
				st = stQuotedEsc
			} else {
				st = stAfterQuote
			}
		case stAfterQuote:
			switch p[i] {
			case c.quote:
				st = stQuoted
				i++
			case c.delim:
				st = stFieldStart
				i++
			case '\n':
				s.lines++
				s.st = stFieldStart
				return i + 1
			case '\r':
				s.st, s.endedAtCR = stFieldStart, true
				return i + 1
			default:
				// Malformed (the Reader reports ErrQuote); like Python's
				// csv, the rest of the field is read as unquoted.
				st = stUnquoted
			}
		}
	}
	s.st = st
	return -1
}
