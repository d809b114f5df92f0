package chaos

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cqlload/cqlload/internal/proctest"
)

// TestOversizedRecord: one record of 20 MB (a quoted field over many
// lines, with doubled quotes and commas, over the 16 MiB default of
// --max-record-bytes) among 1,000 rows is rejected alone: the other 999 are
// stored, and with --max-error-record-bytes -1 the error file holds the
// record exactly as it was in the input.
func TestOversizedRecord(t *testing.T) {
	const (
		rows  = 1000
		field = 20 << 20
	)
	r := newRand(t)
	sim := proctest.StartSim(t, schema(3, "t"), "--nodes", "3")
	vals := rowValues(r, rows)
	big := r.IntN(rows)
	record := hugeRecord(r, big, field)
	var in bytes.Buffer
	line, bigLine := 1, 0
	for i, v := range vals {
		if i == big {
			bigLine = line
			in.Write(record)
			in.WriteByte('\n')
			line += bytes.Count(record, []byte{'\n'}) + 1
			continue
		}
		fmt.Fprintf(&in, "%d,%s\n", i, v)
		line++
	}
	path := filepath.Join(t.TempDir(), "rows.csv")
	if err := os.WriteFile(path, in.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	l := startLoad(t, sim, "t", "--max-error-record-bytes", "-1", path)
	l.wait(t, loadTimeout)
	s := l.summary(t)
	t.Logf("row %d (line %d) is a %d-byte record; %v", big, bigLine, len(record), s)
	if l.exit != 1 || s.RowsRead != rows || s.RowsWritten != rows-1 || s.RowsFailedParse+s.RowsFailedInsert != 1 || s.RowsUnknown+s.RowsNotSent != 0 {
		t.Errorf("want exit 1, %d rows read, %d written, 1 rejected; got exit %d, %v\n%s", rows, rows-1, l.exit, s, l.output())
	}
	byLine, counts := outcomes(t, l.errFile+".log")
	checkLogCounts(t, s, counts)
	if len(byLine) != 1 || byLine[int64(bigLine)] == "" {
		t.Errorf("error log: want one line, for line %d; got %v", bigLine, byLine)
	}
	rejected, err := os.ReadFile(l.errFile)
	if err != nil {
		t.Fatal(err)
	}
	if want := append(record, '\n'); !bytes.Equal(rejected, want) {
		i := 0
		for i < min(len(rejected), len(want)) && rejected[i] == want[i] {
			i++
		}
		t.Errorf("the error file holds %d bytes, differing from the record (%d bytes and its newline) from byte %d", len(rejected), len(record), i)
	}
	compare(t, readTable(t, sim.Session(t), "t"), vals, func(i int) want {
		if i == big {
			return mustNotHold
		}
		return mustHold
	})
}

// hugeRecord is the record of key k with a quoted field of n bytes of
// text lines holding commas and doubled quotes.
func hugeRecord(r *rand.Rand, k, n int) []byte {
	const text = "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789 ,;:.!?"
	b := make([]byte, 0, n+32)
	b = fmt.Appendf(b, "%d,\"", k)
	start := len(b)
	for len(b)-start < n {
		switch x := r.IntN(100); {
		case x == 0:
			b = append(b, '\n')
		case x == 1:
			b = append(b, '"', '"')
		default:
			b = append(b, text[r.IntN(len(text))])
		}
	}
	return append(b, '"')
}

// TestDamagedGzip: a gzip file of 100,000 rows (one member, well under the
// 8 MiB that is checked before use) is damaged. cqlload exits 3 naming the
// file, and never stores a row that differs from the original: with a
// byte flipped in the compressed data, and with the file cut in half,
// where every whole record before the cut (as gzip -dc recovers them) is
// stored.
func TestDamagedGzip(t *testing.T) {
	rows := 30000 // make check: 100,000
	if full {
		rows = 100000
	}
	cases := []struct {
		name   string
		damage func(r *rand.Rand, gz []byte) ([]byte, string)
		// recovered: the records before the cut must be stored.
		recovered bool
	}{
		{
			name: "flipped byte",
			damage: func(r *rand.Rand, gz []byte) ([]byte, string) {
				// Past the 10-byte header, before the 8-byte trailer.
				i := 10 + r.IntN(len(gz)-18)
				gz = bytes.Clone(gz)
				gz[i] ^= 0xff
				return gz, fmt.Sprintf("byte %d of %d flipped", i, len(gz))
			},
		},
		{
			name: "truncated in half",
			damage: func(_ *rand.Rand, gz []byte) ([]byte, string) {
				return gz[:len(gz)/2], fmt.Sprintf("cut at byte %d of %d", len(gz)/2, len(gz))
			},
			recovered: true,
		},
	}
	sim := proctest.StartSim(t, schema(3, "t0", "t1"), "--nodes", "3")
	sess := sim.Session(t)
	for ci, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRand(t)
			vals := rowValues(r, rows)
			var gz bytes.Buffer
			zw := gzip.NewWriter(&gz)
			if _, err := zw.Write(csvOf(vals)); err != nil {
				t.Fatal(err)
			}
			if err := zw.Close(); err != nil {
				t.Fatal(err)
			}
			if gz.Len() >= 8<<20 {
				t.Fatalf("the gzip file is %d bytes, not under 8 MiB", gz.Len())
			}
			damaged, how := c.damage(r, gz.Bytes())
			path := filepath.Join(t.TempDir(), "rows.csv.gz")
			if err := os.WriteFile(path, damaged, 0o644); err != nil {
				t.Fatal(err)
			}
			// What gzip itself recovers: its whole lines.
			zcat := exec.Command("gzip", "-dc")
			zcat.Stdin = bytes.NewReader(damaged)
			plain, zerr := zcat.Output()
			whole := bytes.Count(plain, []byte{'\n'})
			table := fmt.Sprintf("t%d", ci)
			l := startLoad(t, sim, table, path)
			l.wait(t, loadTimeout)
			s := l.summary(t)
			t.Logf("%s; gzip -dc recovers %d whole records (%v); %v; %s", how, whole, zerr, s, l.errorLine())
			if l.exit != 3 || !strings.Contains(l.stderr.String(), path) {
				t.Errorf("want exit status 3 and an error naming %s; got %d\n%s", path, l.exit, l.output())
			}
			_, counts := outcomes(t, l.errFile+".log")
			checkLogCounts(t, s, counts)
			if counts["suspect"] > 0 {
				t.Logf("the error log names rows as suspect %d times", counts["suspect"])
			}
			got := readTable(t, sess, table)
			if c.recovered && !bytes.HasPrefix(csvOf(vals), plain) {
				t.Fatal("what gzip -dc recovers is not the start of the input")
			}
			held := compare(t, got, vals, func(i int) want {
				switch {
				case !c.recovered:
					return mayHold // but only with the original's value
				case i < whole:
					return mustHold
				}
				return mustNotHold
			})
			t.Logf("the table holds %d rows", held)
		})
	}
}
