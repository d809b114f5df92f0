package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cqlload/cqlload/csvparse"
	"github.com/cqlload/cqlload/internal/murmur3"
	"github.com/cqlload/cqlload/loader"
)

// TestWriteShapes: the sorted files hold the same rows as the generated
// one, ordered by token and by key; the gzip file is one member of the
// token-sorted bytes; the small files together are the first tenth of
// the rows, each with the header, as the one file is.
func TestWriteShapes(t *testing.T) {
	const rows = 500
	dir := t.TempDir()
	d, _ := findDataset("narrow")
	file := filepath.Join(dir, "narrow.csv")
	if _, err := generateFile(file, d, rows); err != nil {
		t.Fatal(err)
	}
	in, err := writeShapes(file, filepath.Join(dir, "shapes"), rows)
	if err != nil {
		t.Fatal(err)
	}
	read := func(path string) (string, []string) {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		return lines[0], lines[1:]
	}
	_, orig := read(file)
	tokenOf := func(line string) int64 {
		t.Helper()
		tok, err := narrowToken([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	if len(in.tokens) != rows || in.tokens[0] != tokenOf(orig[0]) {
		t.Fatalf("%d tokens, the first %v; want %d, the first row's", len(in.tokens), in.tokens[:1], rows)
	}
	for order, less := range map[string]func(a, b string) bool{
		orderToken: func(a, b string) bool { return tokenOf(a) <= tokenOf(b) },
		orderKey: func(a, b string) bool {
			k1, _, _ := strings.Cut(a, ",")
			k2, _, _ := strings.Cut(b, ",")
			return k1 <= k2
		},
		orderShuffled: func(a, b string) bool { return true },
	} {
		header, lines := read(in.byOrder[order])
		if header != d.header {
			t.Errorf("%s: header %q", order, header)
		}
		for i := 1; i < len(lines); i++ {
			if !less(lines[i-1], lines[i]) {
				t.Fatalf("%s: line %d %q before %q", order, i+1, lines[i-1], lines[i])
			}
		}
		if !slices.Equal(slices.Sorted(slices.Values(lines)), slices.Sorted(slices.Values(orig))) {
			t.Errorf("%s: not the generated rows", order)
		}
	}
	if in.byOrder[orderShuffled] != file {
		t.Errorf("shuffled is %s, want the generated file", in.byOrder[orderShuffled])
	}

	f, err := os.Open(in.gzip)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	zr.Multistream(false)
	unzipped, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if err := zr.Reset(f); err != io.EOF {
		t.Errorf("a second gzip member: %v", err)
	}
	sorted, _ := os.ReadFile(in.byOrder[orderToken])
	if !bytes.Equal(unzipped, sorted) {
		t.Error("the gzip member is not the token-sorted file")
	}
	bz, err := os.ReadFile(in.bgzip)
	if err != nil {
		t.Fatal(err)
	}
	zr, err = gzip.NewReader(bytes.NewReader(bz)) // every member
	if err != nil {
		t.Fatal(err)
	}
	if unzipped, err := io.ReadAll(zr); err != nil || !bytes.Equal(unzipped, sorted) {
		t.Errorf("the bgzip file is not the token-sorted file (%v)", err)
	}
	if parts, err := csvparse.Multipart(in.bgzip, bytes.NewReader(bz), int64(len(bz))); !parts || err != nil {
		t.Errorf("the bgzip file is not read in parts: %v, %v", parts, err)
	}

	const small = rows / 10
	if in.smallFiles != small/smallFileRows || len(in.smallTokens) != small {
		t.Fatalf("%d small files, %d rows; want %d, %d", in.smallFiles, len(in.smallTokens), small/smallFileRows, small)
	}
	_, one := read(in.oneFile)
	if !slices.Equal(one, orig[:small]) {
		t.Errorf("the one file holds %d rows, not the first %d", len(one), small)
	}
	names, err := filepath.Glob(filepath.Join(in.smallDir, "*.csv"))
	if err != nil || len(names) != in.smallFiles {
		t.Fatalf("%d files in %s (%v), want %d", len(names), in.smallDir, err, in.smallFiles)
	}
	var all []string
	for _, n := range names {
		header, lines := read(n)
		if header != d.header || len(lines) != smallFileRows {
			t.Errorf("%s: header %q, %d rows", n, header, len(lines))
		}
		all = append(all, lines...)
	}
	if !slices.Equal(all, one) {
		t.Error("the small files, in name order, are not the one file's rows")
	}
}

func TestWriteShapesRowCount(t *testing.T) {
	dir := t.TempDir()
	d, _ := findDataset("narrow")
	file := filepath.Join(dir, "narrow.csv")
	if _, err := generateFile(file, d, 30); err != nil {
		t.Fatal(err)
	}
	if _, err := writeShapes(file, filepath.Join(dir, "shapes"), 40); err == nil || !strings.Contains(err.Error(), "holds 30 rows, want 40") {
		t.Errorf("writeShapes with the wrong count: %v", err)
	}
}

func TestNarrowToken(t *testing.T) {
	key := []byte{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0x4d, 0xef, 0x81, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef}
	got, err := narrowToken([]byte("12345678-9abc-4def-8123-456789abcdef,1,2,x,2024-01-01 00:00:00.000+0000,1.5"))
	if err != nil || got != murmur3.Token(key) {
		t.Errorf("narrowToken = %d, %v; want %d", got, err, murmur3.Token(key))
	}
	for _, bad := range []string{"", "nope,1", "12345678-9abc-4def-8123-456789abcd,1"} {
		if _, err := narrowToken([]byte(bad)); err == nil {
			t.Errorf("narrowToken(%q): no error", bad)
		}
	}
}

// TestRingShares: a row belongs to the first node token at or after its
// own, wrapping past the largest.
func TestRingShares(t *testing.T) {
	ring := [][]int64{{-100}, {0, 200}, {100}}
	tests := []struct {
		tokens []int64
		want   []float64
	}{
		{[]int64{-100}, []float64{1, 0, 0}},
		{[]int64{-99, 0}, []float64{0, 1, 0}},
		{[]int64{1, 100}, []float64{0, 0, 1}},
		{[]int64{101, 200}, []float64{0, 1, 0}},
		{[]int64{201, math.MaxInt64, math.MinInt64, -150}, []float64{1, 0, 0}},
		{[]int64{-100, 0, 100, 150}, []float64{0.25, 0.5, 0.25}},
		{nil, []float64{0, 0, 0}},
	}
	for _, tc := range tests {
		if got := ringShares(tc.tokens, ring); !slices.Equal(got, tc.want) {
			t.Errorf("ringShares(%v) = %v, want %v", tc.tokens, got, tc.want)
		}
	}
}

func TestTokenOrderWarning(t *testing.T) {
	samples := []sample{{rows: 100}, {rows: 300}, {rows: 900}}
	sum := func(written int64, hints ...string) loader.Summary {
		var s loader.Summary
		s.RowsWritten, s.Hints = written, hints
		return s
	}
	tests := []struct {
		name   string
		lr     loaderRun
		warned bool
		at     int64
	}{
		{"in the log", loaderRun{Samples: samples, Log: []logLine{{"other", 0}, {"hint: the input is in Token Order, so one node works at a time", 1}}}, true, 300},
		{"after the last sample", loaderRun{Samples: samples, Log: []logLine{{"the input is in token order", 3}}, Summary: sum(1000)}, true, 1000},
		{"in the summary only", loaderRun{Samples: samples, Summary: sum(1000, "rows in token order")}, true, 1000},
		{"none", loaderRun{Samples: samples, Log: []logLine{{"warning: something else", 1}}, Summary: sum(0, "DELIMITER = ';'?")}, false, 0},
	}
	for _, tc := range tests {
		warned, at := tokenOrderWarning(tc.lr)
		if warned != tc.warned || at != tc.at {
			t.Errorf("%s: %v at %d, want %v at %d", tc.name, warned, at, tc.warned, tc.at)
		}
	}
}

func TestShapesTargets(t *testing.T) {
	sr := &shapesReport{Rows: 1000, Runs: []shapeRun{
		{Scenario: "token-sorted, 1 token per node", Kind: kindOrder, TokensPerNode: 1, Rows: 1000, Share: 0.5, PeakRSSMiB: 30},
		{Scenario: "shuffled, 1 token per node", Kind: kindOrder, TokensPerNode: 1, Rows: 1000, Share: 0.9, PeakRSSMiB: 30},
		{Scenario: "token-sorted, 16 tokens per node", Kind: kindOrder, TokensPerNode: 16, Rows: 1000, Share: 0.94, PeakRSSMiB: 50},
		{Scenario: "100 rows in one file", Kind: kindOneFile, TokensPerNode: 1, Rows: 100, RowsPerS: 1000},
		{Scenario: "10 files of 10 rows", Kind: kindManyFiles, TokensPerNode: 1, Files: 10, Rows: 100, RowsPerS: 499},
		{Scenario: "gzip", Kind: kindGzip, TokensPerNode: 1, Rows: 1000, Warned: true, WarnedAtRows: 100, PeakRSSMiB: 60},
		{Scenario: "200 rows of one partition", Kind: kindHot, TokensPerNode: 1, Rows: 200, Share: 0.95, Rejected: 1},
	}}
	want := map[string]bool{
		"shapes: token-sorted, 1 token per node: % of the bound":          false,
		"shapes: shuffled, 1 token per node: % of the bound":              true,
		"shapes: token-sorted, 16 tokens per node: % of the bound":        false,
		"shapes: 10 files of 10 rows: % of one file's rows/s":             false,
		"shapes: gzip: token-order warning at % of the rows":              true,
		"shapes: peak RSS MiB, largest of the runs but the gzip member's": false,
		"shapes: 200 rows of one partition: % of the bound":               false, // a row rejected
	}
	got := map[string]bool{}
	for _, tg := range shapesTargets(sr) {
		got[tg.What] = tg.Met
	}
	if len(got) != len(want) {
		t.Errorf("shapesTargets gave %v, want %v", got, want)
	}
	for what, met := range want {
		if m, ok := got[what]; !ok || m != met {
			t.Errorf("%s: met=%v (present %v), want %v", what, m, ok, met)
		}
	}
	// The gzip member's verify buffer is not held against the other
	// runs' bound.
	sr.Runs[2].PeakRSSMiB = 40
	for _, tg := range shapesTargets(sr) {
		if strings.Contains(tg.What, "peak RSS") && (!tg.Met || tg.Value != 40) {
			t.Errorf("%s: %.0f, met %v; want the other runs' 40, met", tg.What, tg.Value, tg.Met)
		}
	}
	// Without the warning, the target is printed as not measured.
	sr.Runs[5].Warned = false
	var out bytes.Buffer
	printReport(&out, &report{Targets: shapesTargets(sr)})
	if line := "  –      shapes: gzip: token-order warning at % of the rows: 0.00 (no target: not measured: cqlload gave no token-order warning)\n"; !strings.Contains(out.String(), line) {
		t.Errorf("report lacks %q:\n%s", line, out.String())
	}
}

func TestOnlyRefusesAnUnknownPart(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-only", "datasets"}, &stdout, &stderr); code != 64 || !strings.Contains(stderr.String(), `-only "datasets": want capacity, splits or shapes`) {
		t.Errorf("-only datasets: exit %d, %q", code, stderr.String())
	}
}
