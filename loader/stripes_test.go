package loader

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/cqlload/cqlload/cqlsim"
	"github.com/cqlload/cqlload/internal/bgzf"
	"github.com/cqlload/cqlload/internal/murmur3"
	"github.com/cqlload/cqlload/loader/internal/runlog"
	"github.com/cqlload/cqlload/source"
)

// dupsFile writes rows of keys 0..99 over and over, each row's values
// smaller than the last's for its key, with a header, quoted fields
// holding line breaks, blank lines, and one bad row at badLine (0: none).
// It returns the file and the number of data rows.
func dupsFile(t *testing.T, rows, badLine int) (string, int) {
	t.Helper()
	var b strings.Builder
	b.WriteString("k,c,v,n\n")
	line := 2
	for i := range rows {
		if i%50 == 0 {
			b.WriteString("\n")
			line++
		}
		if line == badLine {
			b.WriteString("notanumber,0,x,1\n")
			line++
		}
		if i%9 == 0 {
			fmt.Fprintf(&b, "%d,0,\"v%05d\nnext line\",%d\n", i%100, 99999-i, 100000-i)
			line += 2
			continue
		}
		fmt.Fprintf(&b, "%d,0,v%05d,%d\n", i%100, 99999-i, 100000-i)
		line++
	}
	path := filepath.Join(t.TempDir(), "dups.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, rows
}

// compressedParts writes the file at path compressed in parts of about
// 2 KiB of text, each ending inside a record: as bgzip writes it (gzip
// members whose header says BGZF) or as zstd frames; "plain" is path.
func compressedParts(t *testing.T, path, format string) string {
	t.Helper()
	if format == "plain" {
		return path
	}
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	ext := ".gz"
	switch format {
	case "bgzip":
		if out, err = bgzf.Compress(text, 2000); err != nil {
			t.Fatal(err)
		}
	default:
		ext = ".zst"
		zw, err := zstd.NewWriter(nil)
		if err != nil {
			t.Fatal(err)
		}
		for from := 0; from < len(text); from += 2000 {
			out = zw.EncodeAll(text[from:min(from+2000, len(text))], out)
		}
	}
	dst := path + ext
	if err := os.WriteFile(dst, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// isLineStart reports whether byte off of data begins line line.
func isLineStart(data []byte, off int, line int64) bool {
	return off == 0 || data[off-1] == '\n' && int64(bytes.Count(data[:off], []byte("\n"))+1) == line
}

// spansOf is the spans a run with o reads.
func spansOf(t *testing.T, o *Options) []span {
	t.Helper()
	objs, err := source.ExpandObjects(context.Background(), o.Files, nil)
	if err != nil {
		t.Fatal(err)
	}
	spans, _, err := splitSpans(objs, o)
	if err != nil {
		t.Fatal(err)
	}
	return spans
}

// TestStripePlan: a file is cut where the stripes' first records begin,
// and each stripe knows the file's records and lines before it, as a
// reading from start to end counts them.
func TestStripePlan(t *testing.T) {
	path, _ := dupsFile(t, 3000, 0)
	o := DefaultOptions()
	o.Files = []string{path}
	o.Dialect.Header = true
	o.Readers = 4
	o.StripeSize = 4 << 10
	spans := spansOf(t, &o)
	st, err := stripeSources(spans, &o, false)
	if err != nil || st == nil {
		t.Fatalf("stripes %v, %v; want 4", st, err)
	}
	if len(st.sources) != 4 || st.bases[0] != 0 {
		t.Fatalf("%d stripes from %v, want 4 from 0", len(st.sources), st.bases)
	}
	// Read in order, the same file numbers its records so.
	data, _ := os.ReadFile(path)
	want := map[int64]int64{} // a record's first byte → its ordinal
	ordinal, inQuotes, start := int64(0), false, true
	for i, ch := range data {
		if start && ch != '\n' {
			if i > 0 { // not the header
				want[int64(i)] = ordinal
				ordinal++
			}
			start = false
		}
		switch {
		case ch == '"':
			inQuotes = !inQuotes
		case ch == '\n' && !inQuotes:
			start = true
		}
	}
	for i, s := range st.sources[1:] {
		off := strings.TrimPrefix(s.Name, path)
		if off != "" {
			t.Errorf("stripe %d is named %q, want the file's name", i+1, s.Name)
		}
		if s.FirstLine <= 1 || s.HeaderBytes == 0 {
			t.Errorf("stripe %d: FirstLine %d, header %d bytes", i+1, s.FirstLine, s.HeaderBytes)
		}
	}
	// Read in a spread order, the stripes' ordinals are distinct.
	sorted := slices.Sorted(slices.Values(st.bases))
	for i := 1; i < len(sorted); i++ {
		if sorted[i] <= sorted[i-1] {
			t.Errorf("ordinals %v: two stripes start at one record", st.bases)
		}
	}
	found := 0
	for _, b := range st.bases[1:] {
		for _, o := range want {
			if o == b {
				found++
				break
			}
		}
	}
	if found != 3 {
		t.Errorf("stripe ordinals %v: %d of 3 are records' ordinals", st.bases, found)
	}

	// A compressed file in parts: its stripes, read one after another in
	// the order of their first records, are its text.
	for _, format := range []string{"bgzip", "zstd frames"} {
		o2 := o
		o2.Files = []string{compressedParts(t, path, format)}
		o2.StripeSize = 1 << 10
		st, err := stripeSources(spansOf(t, &o2), &o2, false)
		if err != nil || st == nil || len(st.sources) != 4 {
			t.Fatalf("%s: stripes %v, %v; want 4", format, st, err)
		}
		order := make([]int, len(st.sources))
		for i := range order {
			order[i] = i
		}
		sort.Slice(order, func(a, b int) bool { return st.bases[order[a]] < st.bases[order[b]] })
		var text []byte
		for n, i := range order {
			src := st.sources[i]
			rc, err := src.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(rc)
			_ = rc.Close()
			if err != nil {
				t.Fatalf("%s: stripe %d: %v", format, i, err)
			}
			// The header: the text before the first record (a blank
			// line follows it in this file).
			if n > 0 && (!bytes.HasPrefix(b, []byte("k,c,v,n\n")) || src.HeaderBytes != int64(len("k,c,v,n\n\n"))) {
				t.Fatalf("%s: stripe %d does not begin with the header (%d bytes): %.20q", format, i, src.HeaderBytes, b)
			}
			b = b[src.HeaderBytes:]
			if src.Until > 0 {
				b = b[:src.Until-src.HeaderBytes]
			}
			text = append(text, b...)
			if !bytes.HasPrefix(data, text) {
				t.Fatalf("%s: stripe %d (from record %d, line %d) is not the text that follows the stripe before it", format, i, st.bases[i], src.FirstLine)
			}
			if at := len(text) - len(b); n > 0 && (!isLineStart(data, at, src.FirstLine) || want[int64(at)] != st.bases[i]) {
				t.Fatalf("%s: stripe %d at byte %d of the text says line %d, record %d; want line %d, record %d",
					format, i, at, src.FirstLine, st.bases[i], bytes.Count(data[:at], []byte("\n"))+1, want[int64(at)])
			}
		}
		if !bytes.Equal(text, data) {
			t.Fatalf("%s: the stripes hold %d bytes of the file's %d", format, len(text), len(data))
		}
	}

	// A damaged block: the first pass fails, and the file is read in
	// order, where the load names the damage.
	bz := compressedParts(t, path, "bgzip")
	data2, _ := os.ReadFile(bz)
	data2[len(data2)/2] ^= 0xff
	os.WriteFile(bz, data2, 0o644)
	o3 := o
	o3.Files, o3.StripeSize = []string{bz}, 1<<10
	if st, err := stripeSources(spansOf(t, &o3), &o3, false); st != nil || err != nil {
		t.Errorf("a damaged bgzip file: %v stripes (%v), want it read in order", st != nil, err)
	}

	for _, tc := range []struct {
		name string
		mod  func(*Options)
	}{
		{"--readers 1", func(o *Options) { o.Readers = 1 }},
		{"SKIPROWS", func(o *Options) { o.Dialect.SkipRows = 1 }},
		{"MAXROWS", func(o *Options) { o.Dialect.MaxRows = 10 }},
		{"--repeat", func(o *Options) { o.Repeat = 2 }},
		{"latin-1", func(o *Options) { o.Dialect.Encoding = "latin1" }},
		{"too small", func(o *Options) { o.StripeSize = 1 << 30 }},
	} {
		o2 := o
		tc.mod(&o2)
		if st, err := stripeSources(spansOf(t, &o2), &o2, false); st != nil || err != nil {
			t.Errorf("%s: striped (%v), want the file read in order", tc.name, err)
		}
	}
	if st, _ := stripeSources(spans, &o, true); st != nil {
		t.Error("inputs with recorded write timestamps were striped")
	}
}

// TestStripesKeepTheInputsOrder: read as stripes, a file loads as read in
// order: of rows with one key the file's last wins (the rows' write
// timestamps are their ordinals in the file), a bad row is reported at
// its line in the file, and every row is accounted for.
func TestStripesKeepTheInputsOrder(t *testing.T) {
	c := startCluster(t, 3, 1, `CREATE TABLE ks.d (k int, c int, v text, n int, PRIMARY KEY (k, c));`, nil)
	const badLine = 2500
	plain, rows := dupsFile(t, 3000, badLine)
	for _, tc := range []struct {
		format  string
		readers int
	}{{"plain", 1}, {"plain", 5}, {"bgzip", 5}, {"zstd frames", 5}} {
		path := compressedParts(t, plain, tc.format)
		readers := tc.readers
		o := testOptions(t, c, "d", path)
		o.Dialect.Header = true
		o.Readers = readers
		o.StripeSize = 4 << 10
		o.ChunkSize = 100
		s, err := runLoad(t, o)
		if err != nil || s.RowsWritten != int64(rows) || s.RowsFailedParse != 1 {
			t.Fatalf("%s, readers %d: written %d, failed parse %d, err %v; want %d and 1", tc.format, readers, s.RowsWritten, s.RowsFailedParse, err, rows)
		}
		// A compressed file has fewer stripes: --stripe-size counts its
		// bytes, not its text's.
		if readers == 1 && s.Stripes != 0 || readers > 1 && (s.Stripes < 3 || s.Stripes > readers) {
			t.Errorf("%s, readers %d: %d stripes, want 3 to %d", tc.format, readers, s.Stripes, readers)
		}
		log, _ := os.ReadFile(o.ErrFile + ".log")
		if !strings.Contains(string(log), fmt.Sprintf("%s:%d:", path, badLine)) {
			t.Errorf("%s, readers %d: the error log does not name line %d:\n%s", tc.format, readers, badLine, log)
		}
		iter := session(t, c).Query(`SELECT k, v, n FROM ks.d`).Iter()
		var k, n int
		var v string
		seen := 0
		for iter.Scan(&k, &v, &n) {
			seen++
			last := 2900 + k // the key's last row in the file
			if n != 100000-last || !strings.HasPrefix(v, fmt.Sprintf("v%05d", 99999-last)) {
				t.Errorf("%s, readers %d: key %d holds %q, %d; want the file's last row, n = %d", tc.format, readers, k, v, n, 100000-last)
			}
		}
		if err := iter.Close(); err != nil || seen != 100 {
			t.Fatalf("%s, readers %d: %d keys (err %v)", tc.format, readers, seen, err)
		}
		if err := session(t, c).Query(`TRUNCATE ks.d`).Exec(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestStripesKeepEveryNodeBusy: a file in token order, one token per
// node, loads with every node writing from the start when read as
// stripes; read in order, one node takes the first rows alone.
func TestStripesKeepEveryNodeBusy(t *testing.T) {
	c := startCluster(t, 3, 1, `CREATE TABLE ks.s (k bigint PRIMARY KEY, v text);`, func(cfg *cqlsim.Config) { cfg.VNodes = 1 })
	const rows = 30000
	keys := make([]int64, rows)
	for i := range keys {
		keys[i] = int64(i)
	}
	sort.Slice(keys, func(i, j int) bool { return tokenOfBigint(keys[i]) < tokenOfBigint(keys[j]) })
	fileShare := make([]float64, c.NumNodes()) // each node's share of the file's rows
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%d,value %d\n", k, k)
		fileShare[c.Replicas("ks", tokenOfBigint(k))[0]] += 1.0 / rows
	}
	path := filepath.Join(t.TempDir(), "sorted.csv")
	os.WriteFile(path, []byte(b.String()), 0o644)
	for i := range c.NumNodes() {
		// Slow enough that the counts below see the load in progress.
		if err := c.Node(i).SetCapacity(20000, cqlsim.OverloadQueue); err != nil {
			t.Fatal(err)
		}
	}
	// early is each node's share of the first fifth or so of the rows
	// written, over its share of the file: 1 for a node that wrote its
	// part from the start, 0 for one that had not begun.
	early := func(path string, readers int) []float64 {
		base := perNode(c)
		o := testOptions(t, c, "s", path)
		o.Readers = readers
		o.StripeSize = 16 << 10
		o.ChunkSize = 200
		var got []float64
		done := make(chan struct{})
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			tick := time.NewTicker(2 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-done:
					return
				case <-tick.C:
				}
				now := perNode(c)
				var total int64
				for i := range now {
					total += now[i] - base[i]
				}
				if total >= rows/5 {
					for i := range now {
						got = append(got, float64(now[i]-base[i])/float64(total)/fileShare[i])
					}
					return
				}
			}
		}()
		s, err := runLoad(t, o)
		close(done)
		<-sampled
		if err != nil || s.RowsWritten != rows {
			t.Fatalf("readers %d: written %d, err %v", readers, s.RowsWritten, err)
		}
		if got == nil {
			t.Fatalf("readers %d: the load ended between two counts", readers)
		}
		return got
	}
	// The file, and the file compressed with bgzip: its blocks are
	// read from as many places.
	for _, format := range []string{"plain", "bgzip"} {
		for i, r := range early(compressedParts(t, path, format), 6) {
			if r < 0.5 {
				t.Errorf("%s, read as 6 stripes, node %d wrote %.2f of its share in the first fifth of the rows, want at least half", format, i, r)
			}
		}
	}
	// The same file read in order: the check above can fail.
	idle := 0
	for _, r := range early(path, 1) {
		if r < 0.5 {
			idle++
		}
	}
	if idle == 0 {
		t.Error("read in order, every node wrote its share in the first fifth of the rows: the file is not in token order")
	}
}

// perNode is each node's rows written as a replica.
func perNode(c *cqlsim.Cluster) []int64 {
	var out []int64
	for _, n := range c.Stats().Nodes {
		out = append(out, n.RowsWrittenAsReplica)
	}
	return out
}

func tokenOfBigint(k int64) int64 {
	var b [8]byte
	for i := range 8 {
		b[i] = byte(uint64(k) >> (56 - 8*i))
	}
	return murmur3.Token(b[:])
}

// TestStripesBadHeaderOnce: a header that does not fit the table is said
// once for its file, however many stripes read it, and every row is
// rejected with it.
func TestStripesBadHeaderOnce(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.d (k int, c int, v text, n int, PRIMARY KEY (k, c));`, nil)
	path, rows := dupsFile(t, 3000, 0)
	data, _ := os.ReadFile(path)
	os.WriteFile(path, append([]byte("k,c,v,nope"), data[len("k,c,v,n"):]...), 0o644)
	o := testOptions(t, c, "d", path)
	o.Dialect.Header = true
	o.Readers = 4
	o.StripeSize = 4 << 10
	s, _ := runLoad(t, o)
	if s.Stripes != 4 || s.RowsWritten != 0 || s.RowsFailedParse != int64(rows) {
		t.Fatalf("%d stripes, %d written, %d failed parse; want 4, 0, %d", s.Stripes, s.RowsWritten, s.RowsFailedParse, rows)
	}
	log, _ := os.ReadFile(o.ErrFile + ".log")
	if n := strings.Count(string(log), ": header: "); n != 1 {
		t.Errorf("the header's reason is in the log %d times, want once:\n%.2000s", n, log)
	}
}

// TestSpread: every stripe once, the first first, and, of 5 or more, no
// two read one after the other next to each other in the file.
func TestSpread(t *testing.T) {
	for k := 1; k <= 40; k++ {
		got := spread(k)
		seen := map[int]bool{}
		for i, j := range got {
			if seen[j] || j < 0 || j >= k {
				t.Fatalf("spread(%d) = %v", k, got)
			}
			seen[j] = true
			if i > 0 && k >= 5 && (j-got[i-1] == 1 || got[i-1]-j == 1) {
				t.Errorf("spread(%d) = %v: %d after %d", k, got, j, got[i-1])
			}
		}
		if len(got) != k || got[0] != 0 {
			t.Fatalf("spread(%d) = %v", k, got)
		}
	}
}

// TestStripesWithinSplits: each --split process reads its range as
// stripes; together they load every row once, and a bad row is reported
// where its range's lines put it.
func TestStripesWithinSplits(t *testing.T) {
	c := startCluster(t, 3, 1, `CREATE TABLE ks.u (k int PRIMARY KEY, v text);`, nil)
	const rows, badLine = 6000, 5521 // in the last stripe of split 1
	var b strings.Builder
	for i := range rows {
		if i+1 == badLine {
			b.WriteString("bad,row\n")
			continue
		}
		if i%7 == 0 {
			fmt.Fprintf(&b, "%d,\"v%d\nsecond line\"\n", i, i)
			continue
		}
		fmt.Fprintf(&b, "%d,v%d\n", i, i)
	}
	path := filepath.Join(t.TempDir(), "u.csv")
	os.WriteFile(path, []byte(b.String()), 0o644)
	var read, written int64
	logs := ""
	for i := range 2 {
		o := testOptions(t, c, "u", path)
		o.Columns = []string{"k", "v"}
		o.SplitIndex, o.SplitCount, o.SplitSize = i, 2, 1024
		o.Readers, o.StripeSize = 3, 4<<10
		s, err := runLoad(t, o)
		if err != nil || s.Stripes != 3 {
			t.Fatalf("split %d: %d stripes, err %v; want 3", i, s.Stripes, err)
		}
		read += s.RowsRead
		written += s.RowsWritten
		// Each split's error file has its index before the extension.
		found, _ := filepath.Glob(filepath.Join(filepath.Dir(o.ErrFile), "*.log"))
		for _, f := range found {
			log, _ := os.ReadFile(f)
			logs += string(log)
		}
	}
	if read != rows || written != rows-1 {
		t.Errorf("the splits read %d rows and wrote %d; want %d and %d", read, written, rows, rows-1)
	}
	var n int
	if err := session(t, c).Query(`SELECT count(*) FROM ks.u`).Scan(&n); err != nil || n != rows-1 {
		t.Errorf("the table holds %d rows (%v), want %d", n, err, rows-1)
	}
	// The log names the bad row as FILE@OFFSET:LINE, its line counted
	// from the range's start.
	var off, line int
	at := strings.Index(logs, path+"@")
	if at < 0 {
		t.Fatalf("no range named in the logs:\n%s", logs)
	}
	if _, err := fmt.Sscanf(logs[at+len(path):], "@%d:%d:", &off, &line); err != nil {
		t.Fatalf("%v in %q", err, logs[at:])
	}
	lines := strings.Split(b.String()[off:], "\n")
	if line < 1 || line > len(lines) || lines[line-1] != "bad,row" {
		t.Errorf("the log names %s@%d:%d, which is not the bad row", path, off, line)
	}
}

// TestStripesInTheCheckpoint: a striped run's checkpoint records its
// stripes, so that a run that reads the inputs otherwise (in order, or
// in other stripes) does not take its settled chunks for its own.
func TestStripesInTheCheckpoint(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.d (k int, c int, v text, n int, PRIMARY KEY (k, c));`, nil)
	path, _ := dupsFile(t, 3000, 0)
	o := testOptions(t, c, "d", path)
	o.Dialect.Header = true
	o.Readers, o.StripeSize = 4, 4<<10
	o.Resume = filepath.Join(t.TempDir(), "ckpt")
	if s, err := runLoad(t, o); err != nil || s.Stripes != 4 {
		t.Fatalf("%d stripes, err %v", s.Stripes, err)
	}
	var cp runlog.Checkpoint
	if b, err := os.ReadFile(o.Resume); err != nil || json.Unmarshal(b, &cp) != nil {
		t.Fatalf("checkpoint: %v", err)
	}
	if cp.Options["stripes"] != "4" || cp.Options["chunkbytes"] != fmt.Sprint(stripeChunkBytes) {
		t.Fatalf("checkpoint options %v, want 4 stripes of %d-byte chunks", cp.Options, stripeChunkBytes)
	}
	// As if the run had stopped, and had read the file as 3 stripes.
	cp.Complete, cp.Options["stripes"] = false, "3"
	b, _ := json.Marshal(cp)
	os.WriteFile(o.Resume, b, 0o600)
	_, err := runLoad(t, o)
	var re *ResumeError
	if !errors.As(err, &re) || !strings.Contains(re.Reason, "stripes") {
		t.Errorf("resuming a run of other stripes: %v, want a refusal naming the stripes", err)
	}
}
