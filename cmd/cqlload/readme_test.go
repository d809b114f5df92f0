package main

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/cqlload/cqlload/loader"
)

var updateREADME = flag.Bool("update-readme", false, "rewrite the README's generated options table")

const (
	optionsBegin = "<!-- options table: generated from the option table by `go test ./cmd/cqlload -run TestREADMEOptions -update-readme`; do not edit -->\n"
	optionsEnd   = "<!-- end of the options table -->\n"
)

// TestREADMEOptions fails when the README's options table is not the one
// the option table generates (run it with -update-readme to rewrite it).
func TestREADMEOptions(t *testing.T) {
	const path = "../../README.md"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	i, j := strings.Index(readme, optionsBegin), strings.Index(readme, optionsEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md lacks the generated options table's markers")
	}
	opts := loader.DefaultOptions()
	_, docs := newCLI(&opts)
	want := optionsTable(docs)
	got := readme[i+len(optionsBegin) : j]
	if got == want {
		return
	}
	if *updateREADME {
		if err := os.WriteFile(path, []byte(readme[:i+len(optionsBegin)]+want+readme[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md's options table is out of date: run go test ./cmd/cqlload -run TestREADMEOptions -update-readme")
}
