package loader

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/cqlload/cqlload/csvparse"
	"github.com/cqlload/cqlload/loader/internal/ring"
	"github.com/cqlload/cqlload/loader/internal/tokenorder"
	"github.com/cqlload/cqlload/source"
)

// TestOrderHint: the hint names the lines, the file and the nodes, and
// the remedy of the input's kind; rows of a few partitions are named as
// such, with no remedy of order.
func TestOrderHint(t *testing.T) {
	const q = int64(1) << 62
	rg := ring.New([]ring.Node{{ID: "a", Tokens: []int64{-q}}, {ID: "b", Tokens: []int64{0}}, {ID: "c", Tokens: []int64{q}}},
		mustReplication(t), "")
	rg.Addrs = map[string]string{"a": "10.0.0.1", "b": "10.0.0.2", "c": "10.0.0.3"}
	b, c := rg.SetOf(-5), rg.SetOf(5)
	mem := func(name string, data []byte) source.Object {
		return source.Object{Source: csvparse.Source{Name: name, Size: int64(len(data))}, ReaderAt: bytes.NewReader(data)}
	}
	inputs := []source.Object{
		mem("plain.csv", []byte("1,a\n")),
		mem("export.gz", []byte("\x1f\x8b\x08\x00")),
		mem("export", []byte("\x1f\x8b\x08\x00")),
		mem("export.zst", []byte("x")),
		mem("frames", []byte("\x28\xb5\x2f\xfd")),
		{Source: csvparse.Source{Name: "-", Size: -1, Open: func() (io.ReadCloser, error) { return nil, nil }}},
	}
	for _, tc := range []struct {
		file       string
		partitions int
		want       []string
	}{
		{"plain.csv", 0, []string{"lines 10–40009 of plain.csv", "of 3 (10.0.0.2, then 10.0.0.3)", "token order", "load it with --split I/N"}},
		{"export.gz", 0, []string{"A gzip file", "decompress it"}},
		{"export", 0, []string{"A gzip file"}},
		{"export.zst", 0, []string{"A zstd file", "decompress it"}},
		{"frames", 0, []string{"A zstd file"}},
		{"-", 0, []string{"A stream is read in order: write it to a file"}},
		{"plain.csv", 1, []string{"lines 10–40009 of plain.csv are in one partition", "whatever the order of the file"}},
		{"plain.csv", 3, []string{"are in 3 partitions"}},
	} {
		f := tokenorder.Finding{File: tc.file, FirstLine: 10, LastLine: 40009, Rows: 40000, Sets: []int{b, c}, Partitions: tc.partitions}
		got := orderHint(f, rg, inputKindOf(inputs, tc.file))
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s, %d partitions: %q lacks %q", tc.file, tc.partitions, got, w)
			}
		}
		if tc.partitions > 0 && strings.Contains(got, "--split") {
			t.Errorf("%s, %d partitions: %q gives the remedy of order", tc.file, tc.partitions, got)
		}
	}
}

func mustReplication(t *testing.T) ring.Replication {
	t.Helper()
	r, err := ring.ParseReplication("SimpleStrategy", map[string]any{"replication_factor": "1"})
	if err != nil {
		t.Fatal(err)
	}
	return r
}
