package csvparse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// outcome is everything a splitter hands out for one file, and how it
// ends.
type outcome struct {
	good       map[int64]string // line → Raw of records without error
	order      []int64
	incomplete []whole
	err        error // nil at io.EOF
}

func runSplitter(t *testing.T, s *Splitter, d Dialect) outcome {
	t.Helper()
	o := outcome{good: map[int64]string{}}
	for {
		c, err := s.Next()
		if err == io.EOF {
			return o
		}
		if err != nil {
			o.err = err
			if _, again := s.Next(); again != err {
				t.Fatalf("error %v is not final: then %v", err, again)
			}
			return o
		}
		if o.err != nil {
			t.Fatal("a chunk after the error")
		}
		r := NewReader(c, d)
		for {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			switch {
			case errors.Is(err, ErrIncompleteRecord):
				if !c.Incomplete {
					t.Fatal("ErrIncompleteRecord from a chunk not Incomplete")
				}
				o.incomplete = append(o.incomplete, whole{rec.Line, string(rec.Raw), false})
			case err != nil:
				o.good[rec.Line] = "error: " + err.Error()
				o.order = append(o.order, rec.Line)
			default:
				o.good[rec.Line] = string(rec.Raw)
				o.order = append(o.order, rec.Line)
			}
		}
		c.Release()
	}
}

// damageCSV has quoted fields with line breaks, so records and lines
// differ, and enough rows for several deflate blocks and zstd blocks.
func damageCSV(rows int) string {
	var b strings.Builder
	for i := range rows {
		if i%7 == 3 {
			fmt.Fprintf(&b, "%d,\"multi\nline %d, \"\"q\"\"\",%x\n", i, i*31, i*i)
			continue
		}
		fmt.Fprintf(&b, "%d,row %d value %x,%d\n", i, i*17, i*i*i, i%5)
	}
	return b.String()
}

func zstdMembers(t *testing.T, parts ...string) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, zstded(t, p)...)
	}
	return out
}

// checkAgainst asserts that every record handed out as good is the
// original record on its line, that an incomplete one is a prefix of
// the original, that anything short of the whole file comes with an
// *InputError naming the file, and that records handed out but altered
// are within the error's suspect lines.
func checkAgainst(t *testing.T, name string, orig outcome, got outcome, file string) {
	t.Helper()
	var altered []int64
	for _, line := range got.order {
		if got.good[line] != orig.good[line] {
			altered = append(altered, line)
		}
	}
	for _, w := range got.incomplete {
		if _, ok := orig.good[w.Line]; !ok || !strings.HasPrefix(orig.good[w.Line], w.Raw) && !strings.HasPrefix(w.Raw, orig.good[w.Line]) {
			altered = append(altered, w.Line)
		}
	}
	complete := len(altered) == 0 && len(got.order) == len(orig.order) && len(got.incomplete) == 0
	if got.err == nil {
		if !complete {
			t.Fatalf("%s: no error, but %d of %d records, altered %v", name, len(got.order), len(orig.order), altered)
		}
		return
	}
	var ie *InputError
	if !errors.As(got.err, &ie) || ie.File != file || !strings.HasPrefix(got.err.Error(), file+": ") {
		t.Fatalf("%s: error %v is not an *InputError naming %s", name, got.err, file)
	}
	for _, line := range altered {
		if line < ie.SuspectFrom || line > ie.SuspectTo {
			t.Fatalf("%s: record on line %d altered (%q, was %q), error %v does not name it suspect",
				name, line, got.good[line], orig.good[line], got.err)
		}
	}
}

func TestDamagedCompressedInput(t *testing.T) {
	// Every byte of the compressed file is damaged in turn, of 300
	// records in make check; of 60 in make test, the bytes near the
	// ends and every third one between.
	records := 60
	if full {
		records = 300
	}
	text := damageCSV(records)
	d := DefaultDialect()
	orig := runSplitter(t, NewSplitter([]Source{memSource("x.csv", []byte(text), false)}, d, 10, 0), d)
	if len(orig.order) != records {
		t.Fatalf("original: %d records", len(orig.order))
	}
	third := strings.Index(text[len(text)/3:], "\n") + len(text)/3 + 1
	formats := []struct {
		name, file string
		data       []byte
	}{
		{"gzip", "x.csv.gz", gzipped(t, text)},
		{"gzip members", "x.csv.gz", gzipped(t, text[:third], text[third:2*third-5], text[2*third-5:])},
		{"zstd", "x.csv.zst", zstded(t, text)},
		{"zstd frames", "x.csv.zst", zstdMembers(t, text[:third], text[third:2*third-5], text[2*third-5:])},
	}
	for _, fm := range formats {
		for _, verify := range []int{DefaultVerifyBuffer, 64} {
			t.Run(fmt.Sprintf("%s/verify=%d", fm.name, verify), func(t *testing.T) {
				for i := range fm.data {
					if !full && i > 64 && i < len(fm.data)-64 && i%3 != 0 {
						continue // make test: the ends, where framing is, and a third of the rest
					}
					for _, flip := range []byte{0x01, 0x80, 0xff} {
						bad := bytes.Clone(fm.data)
						bad[i] ^= flip
						for _, oneByte := range []bool{false, true} {
							if oneByte && (flip != 0x80 || i%4 != 0) {
								continue // refills at every byte: a sample is enough
							}
							s := NewSplitter([]Source{memSource(fm.file, bad, oneByte)}, d, 10, 0)
							s.VerifyBuffer = verify
							got := runSplitter(t, s, d)
							name := fmt.Sprintf("byte %d of %d ^%#x oneByte=%v", i, len(bad), flip, oneByte)
							checkAgainst(t, name, orig, got, fm.file)
							if verify == DefaultVerifyBuffer {
								var ie *InputError
								if errors.As(got.err, &ie) && ie.SuspectFrom != 0 && !ie.Truncated {
									t.Fatalf("%s: suspect rows %v though every member fits the buffer", name, got.err)
								}
							}
						}
					}
				}
			})
		}
	}
}

// zcat runs the system's decompressor on data, which prints all it can
// of a truncated file.
func zcat(t *testing.T, tool string, data []byte) (string, bool) {
	t.Helper()
	cmd := exec.Command(tool, "-dc")
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.Output() // exits non-zero on a truncated file
	return string(out), err == nil
}

// handedOut rebuilds the text a splitter handed out for an input whose
// records end in "\n" and that has no blank lines: the whole records,
// then the incomplete one.
func handedOut(o outcome) string {
	var b strings.Builder
	for _, line := range o.order {
		b.WriteString(o.good[line] + "\n")
	}
	for _, w := range o.incomplete {
		b.WriteString(w.Raw)
	}
	return b.String()
}

func TestTruncatedCompressedInput(t *testing.T) {
	// Cut at every byte near the ends, where framing is, and at every
	// stride'th between: 200 records and a third of the cuts in make
	// check, 70 records and a seventh in make test.
	records, stride := 70, 7
	if full {
		records, stride = 200, 3
	}
	text := damageCSV(records)
	d := DefaultDialect()
	half := strings.Index(text[len(text)/2:], ",") + len(text)/2 // a member boundary inside a record
	for _, fm := range []struct {
		name, file, tool string
		data             []byte
	}{
		{"gzip", "t.csv.gz", "gzip", gzipped(t, text)},
		{"gzip members", "t.csv.gz", "gzip", gzipped(t, text[:half], text[half:])},
		{"zstd", "t.csv.zst", "zstd", zstded(t, text)},
		{"zstd frames", "t.csv.zst", "zstd", zstdMembers(t, text[:half], text[half:])},
	} {
		if _, err := exec.LookPath(fm.tool); err != nil {
			t.Fatalf("%s is needed to compare with: %v", fm.tool, err)
		}
		for _, verify := range []int{DefaultVerifyBuffer, 64} {
			for n := 1; n < len(fm.data); n++ {
				if n > 64 && n < len(fm.data)-64 && n%stride != 0 {
					continue // zcat per cut is slow
				}
				name := fmt.Sprintf("%s/verify=%d/cut at %d of %d", fm.name, verify, n, len(fm.data))
				s := NewSplitter([]Source{memSource(fm.file, fm.data[:n], n%3 == 0)}, d, 7, 0)
				s.VerifyBuffer = verify
				got := runSplitter(t, s, d)
				out, want := handedOut(got), ""
				want, whole := zcat(t, fm.tool, fm.data[:n])
				if whole {
					// Cut between members: a shorter file, but a sound one.
					if got.err != nil || strings.TrimSuffix(out, "\n") != strings.TrimSuffix(want, "\n") {
						t.Fatalf("%s: a whole file read with error %v, %d bytes of %d", name, got.err, len(out), len(want))
					}
					continue
				}
				var ie *InputError
				if !errors.As(got.err, &ie) || !ie.Truncated || !errors.Is(got.err, io.ErrUnexpectedEOF) || ie.File != fm.file {
					t.Fatalf("%s: error %v, want a truncation *InputError naming the file", name, got.err)
				}
				// What was handed out, whole records then the partial one,
				// is the file's text as far as it goes, and what zcat prints
				// but for the last byte or so: zcat decodes the final symbol
				// of a cut member from fewer bits than Go's inflater, and
				// early in a member Go's may print a byte zcat holds back. A streamed member (over the verify
				// buffer) is decoded by a faster inflater that needs up to
				// 64 bits more, and so may miss the last match (258 bytes);
				// the zstd decoder holds back a streamed frame's last block
				// (at most 128 KiB) until its checksum, which a cut frame
				// lacks. None is altered or invented.
				if !strings.HasPrefix(text, want) {
					t.Fatalf("%s: %s -dc printed what is not in the file", name, fm.tool)
				}
				lag := 1
				switch {
				case verify < DefaultVerifyBuffer && fm.tool == "gzip":
					lag = 258 + 8
				case verify < DefaultVerifyBuffer:
					lag = 128 << 10
				}
				if !strings.HasPrefix(text, out) || len(want)-len(out) > lag {
					t.Fatalf("%s: handed out %d bytes, %s -dc prints %d: %q", name, len(out), fm.tool, len(want), want[min(len(out), len(want)):])
				}
				if len(got.incomplete) > 1 || len(got.incomplete) == 1 && strings.Contains(got.incomplete[0].Raw, "\n") && !strings.Contains(got.incomplete[0].Raw, "\"") {
					t.Fatalf("%s: incomplete records %+v, want at most one, the record after the last line break", name, got.incomplete)
				}
				for _, line := range got.order {
					if strings.HasPrefix(got.good[line], "error") {
						t.Fatalf("%s: line %d: %s", name, line, got.good[line])
					}
				}
			}
		}
	}
}

// TestGzipPadding: zero bytes after the last gzip member, the padding tar
// and dd write, end the input as gzip -d takes them; anything after the
// zeros, or zeros where the first member should be, is damage.
func TestGzipPadding(t *testing.T) {
	text := damageCSV(50)
	gz := gzipped(t, text, text)
	d := DefaultDialect()
	zeros := func(n int) []byte { return make([]byte, n) }
	tests := []struct {
		name    string
		data    []byte
		records int
		damaged bool
	}{
		{"512 zero bytes", append(bytes.Clone(gz), zeros(512)...), 100, false},
		{"more zeros than the buffer", append(bytes.Clone(gz), zeros(300<<10)...), 100, false},
		{"zeros, then more", append(append(bytes.Clone(gz), zeros(512)...), 'x'), 100, true},
		{"zeros only", zeros(4096), 0, true},
	}
	for _, tc := range tests {
		for _, verify := range []int{DefaultVerifyBuffer, 64} {
			s := NewSplitter([]Source{memSource("x.csv.gz", tc.data, false)}, d, 10, 0)
			s.VerifyBuffer = verify
			got := runSplitter(t, s, d)
			if len(got.order) != tc.records || (got.err != nil) != tc.damaged {
				t.Errorf("%s, verify %d: %d records, err %v; want %d, damaged %v", tc.name, verify, len(got.order), got.err, tc.records, tc.damaged)
			}
		}
	}
}
