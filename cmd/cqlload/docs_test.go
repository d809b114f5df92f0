package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/cqlload/cqlload/loader"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite the generated parts of docs/")

const (
	optionsBegin = "<!-- options table: generated from the option table by `go test ./cmd/cqlload -run TestDocsOptions -update-docs`; do not edit -->\n"
	optionsEnd   = "<!-- end of the options table -->\n"
)

// TestDocsOptions fails when docs/options.md's options table is not the
// one the option table generates (run it with -update-docs to rewrite it).
func TestDocsOptions(t *testing.T) {
	const path = "../../docs/options.md"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	i, j := strings.Index(page, optionsBegin), strings.Index(page, optionsEnd)
	if i < 0 || j < i {
		t.Fatalf("docs/options.md lacks the generated options table's markers")
	}
	opts := loader.DefaultOptions()
	_, docs := newCLI(&opts)
	want := optionsTable(docs)
	got := page[i+len(optionsBegin) : j]
	if got == want {
		return
	}
	if *updateDocs {
		if err := os.WriteFile(path, []byte(page[:i+len(optionsBegin)]+want+page[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("docs/options.md's options table is out of date: run go test ./cmd/cqlload -run TestDocsOptions -update-docs")
}

// TestDocsLinks fails when a relative link in README.md or docs/*.md
// names a file that does not exist, or a heading that its page lacks.
func TestDocsLinks(t *testing.T) {
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append([]string{"../../README.md"}, pages...)
	anchors := map[string]map[string]bool{} // page → its headings' anchors
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		a := headingAnchors(string(b))
		anchors[path] = a
		return a
	}
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(page, "../../")
		for n, line := range outsideCode(string(b)) {
			for _, m := range link.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, anchor, _ := strings.Cut(target, "#")
				path := page
				if file != "" {
					path = filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
					if _, err := os.Stat(path); err != nil {
						t.Errorf("%s:%d: link %s: %v", name, n+1, target, err)
						continue
					}
				}
				if anchor != "" && strings.HasSuffix(path, ".md") && !anchorsOf(path)[anchor] {
					t.Errorf("%s:%d: link %s: %s has no heading with that anchor", name, n+1, target, file)
				}
			}
		}
	}
}

// outsideCode returns the page's lines with those inside fenced code
// blocks blanked, so that line numbers stay the page's.
func outsideCode(page string) []string {
	lines := strings.Split(page, "\n")
	fenced := false
	for i, l := range lines {
		if strings.HasPrefix(l, "```") {
			fenced = !fenced
			lines[i] = ""
			continue
		}
		if fenced {
			lines[i] = ""
		}
	}
	return lines
}

// headingAnchors are the anchors GitHub gives a page's headings:
// lower case, punctuation dropped, spaces made hyphens, and -1, -2, …
// after a repeated one.
func headingAnchors(page string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, l := range outsideCode(page) {
		text, ok := strings.CutPrefix(strings.TrimLeft(l, "#"), " ")
		if !ok || !strings.HasPrefix(l, "#") {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(text)) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if k := seen[a]; k > 0 {
			seen[a]++
			a = fmt.Sprintf("%s-%d", a, k)
		} else {
			seen[a] = 1
		}
		anchors[a] = true
	}
	return anchors
}

// TestDocsGenerated fails when the manual page or a completion script
// under docs/ is not what `cqlload --generate` prints (run it with
// -update-docs to rewrite them), and checks that --generate all writes
// the same files.
func TestDocsGenerated(t *testing.T) {
	for _, g := range generated {
		path := filepath.Join("../../docs", filepath.FromSlash(g.path))
		code, want, stderr := runCLI(t, "", "--generate", g.kind)
		if code != exitOK {
			t.Fatalf("--generate %s: exit %d: %s", g.kind, code, stderr)
		}
		got, err := os.ReadFile(path)
		if err == nil && string(got) == want {
			continue
		}
		if *updateDocs {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("docs/%s is out of date: run go test ./cmd/cqlload -run TestDocsGenerated -update-docs (or cqlload --generate all docs)", g.path)
	}

	dir := t.TempDir()
	if code, _, stderr := runCLI(t, "", "--generate", "all", dir); code != exitOK {
		t.Fatalf("--generate all: exit %d: %s", code, stderr)
	}
	for _, g := range generated {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(g.path)))
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := generatedText(g.kind); string(got) != want {
			t.Errorf("--generate all wrote another %s than --generate %s prints", g.path, g.kind)
		}
	}
	for _, args := range [][]string{{"--generate"}, {"--generate", "html"}, {"--generate", "all"}} {
		if code, _, _ := runCLI(t, "", args...); code != exitUsage {
			t.Errorf("%q: exit %d, want %d", args, code, exitUsage)
		}
	}
}

// TestDocsExitStatuses: the README's exit status table and the manual
// page list the statuses run returns, each once.
func TestDocsExitStatuses(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var table []string
	row := regexp.MustCompile(`^\| (\d+) \|`)
	for _, l := range strings.Split(string(b), "\n") {
		if m := row.FindStringSubmatch(l); m != nil {
			table = append(table, m[1])
		}
	}
	var want, man []string
	for _, code := range []int{exitOK, exitRejected, exitAborted, exitFatal, exitInterrupted, exitUsage} {
		want = append(want, fmt.Sprint(code))
	}
	for _, e := range exitStatuses {
		man = append(man, fmt.Sprint(e.code))
	}
	if strings.Join(table, " ") != strings.Join(want, " ") {
		t.Errorf("README's exit status table lists %v, want %v", table, want)
	}
	if strings.Join(man, " ") != strings.Join(want, " ") {
		t.Errorf("the manual page lists exit statuses %v, want %v", man, want)
	}
}
