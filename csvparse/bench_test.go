package csvparse

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// wideRows builds n rows of about 1 KB, most of it one quoted text field
// with commas, line breaks and a few doubled quotes, like JSON or prose.
func wideRows(n int) []byte {
	text := strings.Repeat("lorem ipsum, dolor sit amet\n", 30) + `and ""quoted"" words`
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%d,\"%s\",%d\n", i, text, i%7)
	}
	return []byte(b.String())
}

// kbRows builds n rows of about 1 KB without quotes: a short key, a
// number and 1,000 letters, the benchmark's 1 KB dataset.
func kbRows(n int) []byte {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "k%011d,%d,%s\n", i, i, strings.Repeat(string(rune('a'+i%26)), 1000))
	}
	return []byte(b.String())
}

// benchRows builds n narrow rows of about 100 bytes and 6 fields, the
// loader's target shape; quoted makes most text fields quoted, with
// doubled quotes and escapes now and then.
func benchRows(n int, quoted bool) []byte {
	var b strings.Builder
	for i := range n {
		if quoted {
			fmt.Fprintf(&b, "%d,\"user %d, \"\"vip\"\"\",\"line\\\\%d\",2024-01-%02dT03:04:05Z,%d.%03d,%t\n",
				1000000+i, i%977, i%13, 1+i%28, i%1000, i%997, i%2 == 0)
		} else {
			fmt.Fprintf(&b, "%d,user number %d,some plain text value %d,2024-01-%02dT03:04:05Z,%d.%03d,%t\n",
				1000000+i, i%977, i%13, 1+i%28, i%1000, i%997, i%2 == 0)
		}
	}
	return []byte(b.String())
}

func BenchmarkSplit(b *testing.B) {
	for _, tc := range []struct {
		name   string
		quoted bool
		gzip   bool
	}{{"plain", false, false}, {"quoted", true, false}, {"wide", false, false}, {"kb", false, false}, {"gzip", false, true}} {
		data := benchRows(100000, tc.quoted)
		switch tc.name {
		case "wide":
			data = wideRows(10000)
		case "kb":
			data = kbRows(10000)
		}
		input := data
		if tc.gzip {
			var buf bytes.Buffer
			w := gzip.NewWriter(&buf)
			if _, err := w.Write(data); err != nil {
				b.Fatal(err)
			}
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
			input = buf.Bytes()
		}
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(data))) // decompressed: comparable across cases
			b.ReportAllocs()
			rows := 0
			for b.Loop() {
				s := NewSplitter([]Source{memSource("bench.csv", input, false)}, DefaultDialect(), DefaultChunkRecords, 256<<10)
				for {
					c, err := s.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					rows += c.Records
					c.Release() // as the loader does: blocks are reused
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(rows), "ns/row")
		})
	}
}

func BenchmarkReader(b *testing.B) {
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"plain", benchRows(DefaultChunkRecords, false)},
		{"quoted", benchRows(DefaultChunkRecords, true)},
		{"wide", wideRows(1000)},
		{"kb", kbRows(1000)},
	} {
		data := tc.data
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			rows := 0
			d := DefaultDialect()
			for b.Loop() {
				r := NewReader(&Chunk{Data: data, FirstLine: 1}, d)
				for {
					rec, err := r.Next()
					if err == io.EOF {
						break
					}
					if err != nil || len(rec.Fields) < 3 {
						b.Fatalf("record %d: %v, %d fields", rows, err, len(rec.Fields))
					}
					rows++
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(rows), "ns/row")
		})
	}
}
