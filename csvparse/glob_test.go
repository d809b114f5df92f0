package csvparse

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fnmatchCases are Python's answers (fnmatch.fnmatchcase(name, pattern),
// Python 3.11) for patterns whose reading differs from filepath.Match's
// or is easy to get wrong.
var fnmatchCases = []struct {
	pattern, name string
	want          bool
}{
	{`[!0].csv`, `1.csv`, true}, // ! negates in Python, not in Match
	{`[!0].csv`, `0.csv`, false},
	{`[!0].csv`, `!.csv`, true},
	{`[^0].csv`, `^.csv`, true}, // ^ is a member in Python, not a negation
	{`[^0].csv`, `0.csv`, true},
	{`[^0].csv`, `1.csv`, false},
	{`[^]`, `^`, true},
	{`[^]`, `]`, false},
	{`a\b.csv`, `a\b.csv`, true}, // \ is a character in Python, not an escape
	{`a\b.csv`, `ab.csv`, false},
	{`a\*`, `a\xyz`, true},
	{`a\*`, `a*`, false},
	{`[\]`, `\`, true},
	{`[\]a]`, `a`, false},
	{`x[.csv`, `x[.csv`, true}, // no closing ]: a plain [
	{`x[.csv`, `x1.csv`, false},
	{`*[`, `ab[`, true},
	{`[`, `[`, true},
	{`[]`, `[]`, true},
	{`[!]`, `[!]`, true},
	{`[!`, `[!`, true},
	{`[]]`, `]`, true}, // ] right after [ or [! is a member
	{`[]a]`, `a`, true},
	{`[!]]`, `a`, true},
	{`[!]]`, `]`, false},
	{`[]-a]`, `^`, true},
	{`[a-c-e]`, `-`, true}, // a range's end begins no other range
	{`[a-c-e]`, `d`, false},
	{`[a-c-e]`, `e`, true},
	{`[a-]`, `-`, true},
	{`[-a]`, `-`, true},
	{`[!-a]`, `-`, false},
	{`[!-a]`, `b`, true},
	{`[z-a]`, `z`, false}, // a range from high to low is empty
	{`[z-a]`, `a`, false},
	{`[!z-a]`, `q`, true},
	{`[az-ab]`, `b`, true},
	{`[az-ab]`, `m`, false},
	{`[*]`, `*`, true},
	{`[*]`, `a`, false},
	{`[?]x`, `?x`, true},
	{`[?]x`, `ax`, false},
	{`[[]`, `[`, true},
	{`[a[]`, `[`, true},
	{`[a&&b]`, `&`, true},
	{`[a~~b]`, `~`, true},
	{`[a-c]`, `b`, true},
	{`[!a-c]x`, `dx`, true},
	{`[!a-c]x`, `bx`, false},
	{`[é]`, `é`, true},
	{`?`, `é`, true},
	{`**.csv`, `a.csv`, true},
	{`*.csv`, `.csv`, true}, // fnmatch's answer; glob leaves hidden names out
	{`[^^-c]`, `b`, true},
	{`[^^-c]`, `^`, true},
	{`[!^]`, `^`, false},
	{`[!^]`, `a`, true},
}

func TestFnmatchToMatch(t *testing.T) {
	esc := filepath.Separator == '/'
	for _, c := range fnmatchCases {
		if !esc && strings.Contains(c.pattern+c.name, `\`) {
			continue // a separator there
		}
		p := fnmatchToMatch(c.pattern, esc)
		got, err := filepath.Match(p, c.name)
		if err != nil || got != c.want {
			t.Errorf("%q as %q on %q: %v, %v; Python: %v", c.pattern, p, c.name, got, err, c.want)
		}
	}
}

// TestFnmatchToMatchNoEscape: the form for Windows, where Match has no
// escape, checked here with Match, which reads a pattern without a
// backslash the same everywhere.
func TestFnmatchToMatchNoEscape(t *testing.T) {
	for _, tt := range []struct{ pattern, want string }{
		{`[!0].csv`, `[^0].csv`},
		{`[^0].csv`, `[0^].csv`},
		{`[^]`, `^`},
		{`[^^-c]`, `[_-c^]`},
		{`[!^]`, `[^^]`},
		{`x[.csv`, `x[[].csv`},
		{`*[?]`, `*[?]`},
		{`[*]`, `[*]`},
		{`a*?`, `a*?`},
		{`[]a]`, `[a]`}, // ] cannot be a member: left out
		{`[a-]`, `[a]`},
		{`[!-]`, `?`},
		{`[z-a]`, noChar},
		{`[!z-a]`, `?`},
	} {
		if got := fnmatchToMatch(tt.pattern, false); got != tt.want {
			t.Errorf("%q: %q, want %q", tt.pattern, got, tt.want)
		}
	}
	for _, c := range fnmatchCases {
		if strings.Contains(c.pattern+c.name, `\`) || strings.ContainsAny(c.pattern, "-]") {
			continue // a backslash, or a member the form cannot have
		}
		p := fnmatchToMatch(c.pattern, false)
		if got, err := filepath.Match(p, c.name); err != nil || got != c.want {
			t.Errorf("%q as %q on %q: %v, %v; Python: %v", c.pattern, p, c.name, got, err, c.want)
		}
	}
}

// FuzzGlobPattern checks that no pattern translates to one Match
// rejects, and that one without glob characters matches itself.
func FuzzGlobPattern(f *testing.F) {
	for _, c := range fnmatchCases {
		f.Add(c.pattern)
	}
	f.Add("[\xff-\xfe]\xff[")
	f.Add("[!^]-]^")
	f.Fuzz(func(t *testing.T, pat string) {
		for _, esc := range []bool{true, false} {
			if esc != (filepath.Separator == '/') && (esc || strings.Contains(pat, `\`)) {
				// The escaping form is for where Match escapes; the other
				// is checked here too, where a backslash (a separator
				// where it is used) is not in the pattern.
				continue
			}
			p := fnmatchToMatch(pat, esc)
			if err := matchSyntax(p); err != nil {
				t.Fatalf("%q (escape %v) as %q: %v", pat, esc, p, err)
			}
			if !strings.ContainsAny(pat, "*?[") {
				if ok, err := filepath.Match(p, pat); !ok || err != nil {
					t.Fatalf("%q (escape %v) as %q does not match itself: %v", pat, esc, p, err)
				}
			}
		}
	})
}

// matchSyntax reports whether Match rejects any part of p. Match itself
// stops at the first chunk (the text between stars) that fails, not
// reading the rest; so each chunk is tried alone, found as Match's own
// scanChunk finds them.
func matchSyntax(p string) error {
	for p != "" {
		p = strings.TrimLeft(p, "*")
		end, inSet := len(p), false
	scan:
		for i := 0; i < len(p); i++ {
			switch p[i] {
			case '\\':
				if filepath.Separator == '/' && i+1 < len(p) {
					i++
				}
			case '[':
				inSet = true
			case ']':
				inSet = false
			case '*':
				if !inSet {
					end = i
					break scan
				}
			}
		}
		if _, err := filepath.Match(p[:end], ""); err != nil {
			return err
		}
		p = p[end:]
	}
	return nil
}

// TestSourcesGlobAsCqlsh: names and patterns are read as cqlsh reads
// them: a name that is there is that input, patterns are Python's, and
// no wildcard matches a leading dot in any component.
func TestSourcesGlobAsCqlsh(t *testing.T) {
	dir := t.TempDir()
	files := []string{
		"g/data[1].csv", "g/data1.csv", "g2/x[.csv", "d[1]/in.csv", "d1/in.csv",
		"n/0.csv", "n/1.csv", "n/!.csv", "n/^.csv", "n/[.csv",
		".git/x.csv", "v/x.csv", ".cache/y.csv", "v/.w/z.csv",
	}
	unix := filepath.Separator == '/'
	if unix {
		files = append(files, `n/a\b.csv`)
	}
	for _, name := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	j := func(p string) string { return filepath.Join(dir, filepath.FromSlash(p)) }
	type src struct {
		Name   string // relative to dir
		Listed bool
	}
	tests := []struct {
		name string
		item string // relative to dir
		unix bool   // a name with a backslash, a separator elsewhere
		want []src
		err  string
	}{
		{"a file named with a set is that file", "g/data[1].csv", false, []src{{"g/data[1].csv", false}}, ""},
		{"a file named with an open [ is that file", "g2/x[.csv", false, []src{{"g2/x[.csv", false}}, ""},
		{"a directory named with a set is that directory", "d[1]", false, []src{{"d[1]/in.csv", true}}, ""},
		{"[!0] negates", "g/data[!0].csv", false, []src{{"g/data1.csv", true}}, ""},
		{"[!0] any but 0", "n/[!0].csv", false, []src{{"n/!.csv", true}, {"n/1.csv", true}, {"n/[.csv", true}, {"n/^.csv", true}}, ""},
		{"[^0] is ^ or 0", "n/[^0].csv", false, []src{{"n/0.csv", true}, {"n/^.csv", true}}, ""},
		{"backslash is a character", `n/a\*`, true, []src{{`n/a\b.csv`, true}}, ""},
		{"open [ is a character", "n/[*", false, []src{{"n/[.csv", true}}, ""},
		{"no wildcard matches a hidden directory", "*/x.csv", false, []src{{"v/x.csv", true}}, ""},
		{"a pattern with a dot matches a hidden directory", ".*/x.csv", false, []src{{".git/x.csv", true}}, ""},
		{"in a hidden directory named", ".cache/*.csv", false, []src{{".cache/y.csv", true}}, ""},
		{"nor one deeper", "v/*/z.csv", false, nil, "v/*/z.csv: no file matches"},
		{"nor a set", "[.]git/x.csv", false, nil, "[.]git/x.csv: no file matches"},
		{"a hidden directory deeper, with a dot", "v/.*/z.csv", false, []src{{"v/.w/z.csv", true}}, ""},
	}
	for _, tt := range tests {
		if tt.unix && !unix {
			continue // a backslash is a separator here
		}
		t.Run(tt.name, func(t *testing.T) {
			item := filepath.Join(dir, tt.item)
			got, err := Sources([]string{item}, nil)
			if tt.err != "" {
				if want := j(tt.err); err == nil || err.Error() != want {
					t.Fatalf("error %v, want %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var gs []src
			for _, s := range got {
				rel, err := filepath.Rel(dir, s.Name)
				if err != nil {
					t.Fatal(err)
				}
				gs = append(gs, src{filepath.ToSlash(rel), s.Listed})
				rc, err := s.Open()
				if err != nil {
					t.Fatal(err)
				}
				_ = rc.Close()
			}
			if !reflect.DeepEqual(gs, tt.want) {
				t.Errorf("got %v, want %v", gs, tt.want)
			}
		})
	}
	// A bad pattern no longer happens; a missing name stays the error
	// of the name, not of a pattern.
	if _, err := Sources([]string{j("nope[1].csv")}, nil); err == nil || err.Error() != j("nope[1].csv")+": no file matches" {
		t.Errorf("missing pattern: %v", err)
	}
	if _, err := Sources([]string{j("nope.csv")}, nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
