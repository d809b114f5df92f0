package csvparse

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cqlload/cqlload/internal/homedir"
	"github.com/cqlload/cqlload/internal/termsafe"
)

// Source is one input.
type Source struct {
	Name string // as the user wrote it (or as a glob or directory expanded it), for messages
	Size int64  // bytes on disk; -1 when unknown (stdin)
	Open func() (io.ReadCloser, error)
	// Continues says Open's stream does not begin a file but carries on
	// from inside one (a byte range of it, as --split reads): its first
	// bytes are data even if they look like a UTF-8 byte order mark,
	// which only a file's own first bytes can be. A stream that puts the
	// file's first bytes before the range (its header line) begins the
	// file and does not continue it.
	Continues bool
	// HeaderBytes, when positive, says the stream is the file's first
	// HeaderBytes bytes (its header line) put before a range from inside
	// the file, which begins with a record: as for a stream that
	// continues the file, line numbers count from 1 at the range's first
	// record, not from the header's line.
	HeaderBytes int64
	// FirstLine, when positive, is the line number of the stream's first
	// record, where a stream that continues a file (Continues, or after
	// HeaderBytes) otherwise counts from 1: a loader that knows how many
	// lines of the file come before the range numbers its lines as the
	// file's.
	FirstLine int64
	// Until, when positive, ends the stream before the first record that
	// begins at or after this offset of it: the record that straddles it
	// is read whole, and nothing after that is read. A --split range
	// ends so, found as it is parsed, rather than by a search that would
	// read the range twice. Blank lines before the next record belong
	// to this stream, as FindRecordStart counts them: a stream with
	// Until b holds the records of the same stream cut short at
	// FindRecordStart(b).
	// Offsets are the stream's bytes, so Until needs a stream the
	// Splitter neither decompresses nor transcodes (see RawOffsets).
	Until int64
	// Decoded says Open's stream is the file's text, decompressed
	// already (a stripe of a multipart file, see Decompress): it is
	// not decompressed again, whatever its name or first bytes.
	Decoded bool
	// Listed: the input was found by listing a directory or matching a
	// glob, not named. A loader leaves its own files (error files, their
	// logs) out of such inputs, where the user did not choose them.
	Listed bool
}

// RawOffsets reports whether the Splitter counts a stream in d's
// encoding by its own bytes: UTF-8 is read as it is, other encodings
// are transcoded to it first. Source.Until needs raw offsets.
func RawOffsets(d Dialect) bool {
	enc, err := lookupEncoding(d.Encoding)
	return err == nil && enc == nil
}

// Sources expands cqlsh-style FROM specs. Each spec may be a
// comma-separated list ('a.csv, dir/*.csv'), unless the whole spec names
// an existing file or directory ('export,2024.csv'), which is then that
// one input, taken literally; each item is a directory (its regular
// files, sorted, not recursive, hidden ones left out), a file (or a
// named pipe, of unknown size), even one with glob characters in its
// name, a glob as cqlsh's Python glob reads it, or "-" or
// "STDIN" (any case) for stdin, which may appear once. A leading "~" or
// "~user" is that home directory, as in cqlsh. An item that matches nothing is an
// error naming it; all such errors are returned together.
func Sources(specs []string, stdin io.Reader) ([]Source, error) {
	var out []Source
	var errs []error
	usedStdin := false
	for _, spec := range specs {
		if strings.Contains(spec, ",") {
			// A comma in a file name is legal; splitting it would name
			// files that do not exist, or worse, other files.
			if path := homePath(spec); exists(path) {
				srcs, err := expandPath(spec, path)
				if err != nil {
					errs = append(errs, err)
				} else {
					out = append(out, srcs...)
				}
				continue
			}
		}
		for _, item := range strings.Split(spec, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			if item == "-" || strings.EqualFold(item, "stdin") {
				switch {
				case stdin == nil:
					errs = append(errs, fmt.Errorf("%s: no standard input available", termsafe.Name(item)))
				case usedStdin:
					errs = append(errs, fmt.Errorf("%s: standard input can be read only once", termsafe.Name(item)))
				default:
					usedStdin = true
					out = append(out, Source{Name: item, Size: -1, Open: func() (io.ReadCloser, error) {
						return io.NopCloser(stdin), nil
					}})
				}
				continue
			}
			srcs, err := expand(item)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			out = append(out, srcs...)
		}
	}
	if len(out) == 0 && len(errs) == 0 {
		errs = append(errs, errors.New("no input files given"))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// homePath expands a leading "~" or "~user", as cqlsh does.
func homePath(item string) string { return homedir.Expand(item) }

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func expand(item string) ([]Source, error) {
	path := homePath(item)
	// As cqlsh reads a name: one that is there (data[1].csv, a
	// directory, a pipe) is that input, glob characters or not; only a
	// name that is nothing is a pattern.
	if !strings.ContainsAny(path, "*?[") || exists(path) {
		return expandPath(item, path)
	}
	return expandGlob(item, path)
}

// expandPath returns the file at path, or the files of the directory
// there; item is the name for messages.
func expandPath(item, path string) ([]Source, error) {
	fi, err := os.Stat(path)
	if err != nil {
		// The cause alone ("no such file or directory", "permission
		// denied"): the PathError would name the path a second time.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s: %w", termsafe.Name(item), err)
	}
	if !fi.IsDir() {
		size := fi.Size()
		if !fi.Mode().IsRegular() {
			size = -1 // a pipe such as <(zcat x.gz): its stat size means nothing
		}
		return []Source{fileSource(item, path, size)}, nil
	}
	ents, err := os.ReadDir(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", termsafe.Name(item), err)
	}
	var out []Source
	for _, e := range ents { // ReadDir sorts by name
		// Hidden files (.DS_Store, .gitkeep) are not data.
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := filepath.Join(path, e.Name())
		// Through a link, as a glob and a named file are read: a link
		// (current.csv -> exports/2024-12-04.csv) was left out unsaid.
		fi, err := os.Stat(p)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err // the path is in the message once
			}
			return nil, fmt.Errorf("%s: a link to nothing, or unreadable: %w", termsafe.Name(filepath.Join(item, e.Name())), err)
		}
		if !fi.Mode().IsRegular() {
			continue // a subdirectory (not read: no recursion), a pipe, a device
		}
		src := fileSource(filepath.Join(item, e.Name()), p, fi.Size())
		src.Listed = true
		out = append(out, src)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: directory has no files", termsafe.Name(item))
	}
	return out, nil
}

// expandGlob returns the regular files that path, a pattern as cqlsh's
// Python glob reads it, matches; item is the name for messages.
func expandGlob(item, path string) ([]Source, error) {
	// Component by component: Python's glob splits the pattern at
	// separators before it matches, so no wildcard or set spans one,
	// and its hidden-name rule is per component.
	sep := string(filepath.Separator)
	parts := strings.Split(filepath.Clean(path), sep)
	pats := make([]string, len(parts))
	for i, p := range parts {
		pats[i] = fnmatchToMatch(p, filepath.Separator == '/')
	}
	matches, err := filepath.Glob(strings.Join(pats, sep))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", termsafe.Name(item), err)
	}
	sort.Strings(matches)
	var out []Source
	for _, m := range matches {
		if hiddenMatch(parts, strings.Split(m, sep)) {
			continue
		}
		fi, err := os.Stat(m)
		if err != nil || !fi.Mode().IsRegular() {
			continue // vanished, or a directory the pattern also matched
		}
		src := fileSource(m, m, fi.Size())
		src.Listed = true
		out = append(out, src)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no file matches", termsafe.Name(item))
	}
	return out, nil
}

// hiddenMatch reports whether a match of pattern components pats has a
// component that begins with a dot where its pattern component does
// not: like the shell and Python's glob (so cqlsh), a wildcard or a set
// does not match a leading dot, in a directory (*/x.csv and .git) as in
// a file name. Glob joins what it matches, so a match has the cleaned
// pattern's components; they are paired from the end all the same.
func hiddenMatch(pats, match []string) bool {
	for i, j := len(pats)-1, len(match)-1; i >= 0 && j >= 0; i, j = i-1, j-1 {
		if strings.HasPrefix(match[j], ".") && !strings.HasPrefix(pats[i], ".") {
			return true
		}
	}
	return false
}

// fnmatchToMatch rewrites one path component of a pattern, as Python's
// fnmatch reads it (cqlsh globs with it, and users write patterns for
// cqlsh), in filepath.Match's syntax, which differs: in Python [!0] is
// "not 0" and [^0] is "^ or 0", a backslash is an ordinary character,
// and a [ without a closing ] is an ordinary [ where Match has a syntax
// error. esc says Match takes a backslash as an escape, as it does where
// the separator is '/'; elsewhere (Windows) a backslash is a separator,
// so characters are quoted in sets instead.
func fnmatchToMatch(pat string, esc bool) string {
	var b strings.Builder
	for i := 0; i < len(pat); {
		switch c := pat[i]; c {
		case '*', '?':
			b.WriteByte(c)
			i++
		case '[':
			if set, n, ok := fnmatchSet(pat[i+1:], esc); ok {
				b.WriteString(set)
				i += 1 + n
				continue
			}
			writeLiteral(&b, '[', esc) // no closing ]: a plain [ to Python
			i++
		default:
			// Bytes, not runes: outside a set Match compares bytes, so a
			// name that is not UTF-8 is matched as it is.
			writeLiteral(&b, c, esc)
			i++
		}
	}
	return b.String()
}

// writeLiteral writes c, to be matched as itself outside a set.
func writeLiteral(b *strings.Builder, c byte, esc bool) {
	switch {
	case c != '*' && c != '?' && c != '[' && c != '\\':
		b.WriteByte(c)
	case esc:
		b.WriteByte('\\')
		b.WriteByte(c)
	case c == '\\':
		b.WriteByte(c) // a separator, where Match does not escape
	default:
		b.WriteByte('[')
		b.WriteByte(c)
		b.WriteByte(']')
	}
}

// fnmatchSet reads a Python fnmatch set from s, which follows its [, and
// returns it in Match's syntax with the bytes of s it used (up to and
// with the closing ]); ok is false when Python reads the [ as a plain
// character, where no ] closes it.
func fnmatchSet(s string, esc bool) (set string, n int, ok bool) {
	// As Python finds the end: a ] right after [ or [! is a member.
	j := 0
	negated := strings.HasPrefix(s, "!")
	if negated {
		j++
	}
	if j < len(s) && s[j] == ']' {
		j++
	}
	end := strings.IndexByte(s[j:], ']')
	if end < 0 {
		return "", 0, false
	}
	end += j
	body := s[:end]
	if negated {
		body = body[1:]
	}
	// Runes, as Python's str; a byte that is not UTF-8 is RuneError, as
	// Match decodes such a byte of a name.
	rs := []rune(body)
	// Python's ranges: a - that is neither the first nor the last member
	// joins its neighbours, and the end of a range does not begin
	// another (a-c-e is a to c, -, e). Every other character, ^ and \
	// too, is a member.
	var spans []span
	for k := 0; k < len(rs); {
		if k+2 < len(rs) && rs[k+1] == '-' {
			spans = append(spans, span{rs[k], rs[k+2]})
			k += 3
			continue
		}
		spans = append(spans, span{rs[k], rs[k]})
		k++
	}
	return writeSet(spans, negated, esc), end + 1, true
}

// span is the characters lo to hi of a set; none when lo > hi, as in
// Python (and Match).
type span struct{ lo, hi rune }

// Match's sets that match no character and any one (the separator
// aside, which a component has not).
const (
	noChar  = "[^\x00-\U0010FFFF]"
	anyChar = "?"
)

// writeSet writes a set of spans in Match's syntax.
func writeSet(spans []span, negated, esc bool) string {
	var keep []span
	for _, sp := range spans {
		if !esc {
			// Without an escape (Windows), Match can have neither -
			// nor ] as a member, nor end a range with one: such a
			// member is left out, where a file name seldom has one.
			for sp.lo <= sp.hi && (sp.lo == '-' || sp.lo == ']') {
				sp.lo++
			}
			for sp.lo <= sp.hi && (sp.hi == '-' || sp.hi == ']') {
				sp.hi--
			}
		}
		if sp.lo <= sp.hi {
			keep = append(keep, sp)
		}
	}
	switch {
	case len(keep) == 0 && negated:
		return anyChar // as Python reads [!z-a]
	case len(keep) == 0:
		return noChar // as Python reads [z-a]
	}
	if !esc && !negated && keep[0].lo == '^' {
		// A ^ first would negate the set, and cannot be escaped: another
		// member goes first, or, when all begin with ^, ^ goes last.
		hi := rune('^')
		for i, sp := range keep {
			if sp.lo != '^' {
				keep[0], keep[i] = keep[i], keep[0]
				break
			}
			hi = max(hi, sp.hi)
		}
		if keep[0].lo == '^' {
			if hi == '^' {
				return "^"
			}
			keep = []span{{'^' + 1, hi}, {'^', '^'}}
		}
	}
	var b strings.Builder
	b.WriteByte('[')
	if negated {
		b.WriteByte('^')
	}
	for _, sp := range keep {
		writeMember(&b, sp.lo, esc)
		if sp.hi != sp.lo {
			b.WriteByte('-')
			writeMember(&b, sp.hi, esc)
		}
	}
	b.WriteByte(']')
	return b.String()
}

// writeMember writes r as a member of a set (RuneError as the valid
// U+FFFD, which Match reads a byte of a name that is not UTF-8 as).
func writeMember(b *strings.Builder, r rune, esc bool) {
	if esc && strings.ContainsRune(`\-]^[`, r) {
		b.WriteByte('\\')
	}
	b.WriteRune(r)
}

func fileSource(name, path string, size int64) Source {
	return Source{Name: name, Size: size, Open: func() (io.ReadCloser, error) {
		return os.Open(path)
	}}
}
