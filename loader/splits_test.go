package loader

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cqlload/cqlload/csvparse"
	"github.com/cqlload/cqlload/source"
	"github.com/cqlload/cqlload/split"
)

// TestSplitSources: every record of the inputs is in exactly one split's
// parts, a part that does not start its file carries the header line, and
// files are kept whole where cutting them would change what is read:
// SKIPROWS or MAXROWS, compression.
func TestSplitSources(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("k,v\n")
	for i := range 20000 {
		b.WriteString(strings.Repeat("x", i%7) + `"a` + "\n" + `b",` + "1\n")
	}
	big := filepath.Join(dir, "big.csv")
	os.WriteFile(big, []byte(b.String()), 0o644)
	gz := filepath.Join(dir, "z.csv.gz")
	f, _ := os.Create(gz)
	zw := gzip.NewWriter(f)
	io.WriteString(zw, b.String())
	zw.Close()
	f.Close()

	// A file starting with a BOM and a blank line before its header.
	bom := filepath.Join(dir, "bom.csv")
	os.WriteFile(bom, []byte("\xef\xbb\xbf\nk,v\n"+strings.TrimPrefix(b.String(), "k,v\n")), 0o644)

	tests := []struct {
		name       string
		tweak      func(*Options)
		file       string
		wantWhole  bool
		wantHeader bool
	}{
		{"cut, header", func(o *Options) { o.Dialect.Header = true }, big, false, true},
		{"cut, header after a BOM and a blank line", func(o *Options) { o.Dialect.Header = true }, bom, false, true},
		{"cut, no header", func(o *Options) {}, big, false, false},
		{"SKIPROWS keeps files whole", func(o *Options) { o.Dialect.SkipRows = 1 }, big, true, false},
		{"MAXROWS keeps files whole", func(o *Options) { o.Dialect.MaxRows = 10 }, big, true, false},
		{"gzip is whole", func(o *Options) {}, gz, true, false},
	}
	for _, tt := range tests {
		srcs, err := source.ExpandObjects(context.Background(), []string{tt.file}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var total int64
		parts := 0
		for i := range 3 {
			o := DefaultOptions()
			o.SplitIndex, o.SplitCount, o.SplitSize = i, 3, 16<<10
			tt.tweak(&o)
			got, searched, err := splitSources(srcs, &o)
			if err != nil {
				t.Fatalf("%s: split %d: %v", tt.name, i, err)
			}
			// Only a range that starts inside the file searches for a
			// record start, and this file has quotes in every record:
			// a window's worth, not the prefix.
			switch {
			case tt.wantWhole && searched != 0:
				t.Errorf("%s: split %d searched %d bytes of a whole file", tt.name, i, searched)
			case !tt.wantWhole && i > 0 && (searched <= 0 || searched > 4*64<<10):
				t.Errorf("%s: split %d searched %d bytes, want a window of 64 KiB or so", tt.name, i, searched)
			}
			for _, s := range got {
				parts++
				if s.Size == srcs[0].Size {
					total += s.Size // whole
					continue
				}
				rc, err := s.Open()
				if err != nil {
					t.Fatal(err)
				}
				data, _ := io.ReadAll(rc)
				rc.Close()
				hasHeader := strings.HasPrefix(strings.TrimLeft(string(data), "\xef\xbb\xbf\n"), "k,v\n")
				starts := !strings.Contains(s.Name, "@")
				if tt.wantHeader && !hasHeader || !tt.wantHeader && hasHeader && !starts {
					t.Errorf("%s: part %s header %v, want %v", tt.name, s.Name, hasHeader, tt.wantHeader)
				}
				total += s.Size
			}
		}
		size := srcs[0].Size
		if total != size {
			t.Errorf("%s: the parts hold %d bytes of the file's %d", tt.name, total, size)
		}
		// Cut, one file gives each split one range of it.
		if tt.wantWhole && parts != 1 || !tt.wantWhole && parts != 3 {
			t.Errorf("%s: %d parts over 3 splits (whole %v)", tt.name, parts, tt.wantWhole)
		}
	}
}

// TestSplitLeadingFEFF: a range that starts inside a file begins with
// data, even where a record opens with U+FEFF (EF BB BF, as a BOM would
// be): N splits of a file whose every record does so read the records a
// whole-file parse reads, with and without a header, whose own BOM the
// file's first bytes hold.
func TestSplitLeadingFEFF(t *testing.T) {
	dir := t.TempDir()
	for _, header := range []bool{false, true} {
		var b strings.Builder
		b.WriteString("\ufeff") // the file's BOM
		if header {
			b.WriteString("k,v\n")
		}
		for i := range 3000 {
			fmt.Fprintf(&b, "\ufeff%d,\"v\n%d\"\n", i, i)
		}
		_, objs := localObject(t, filepath.Join(dir, fmt.Sprintf("feff-%v.csv", header)), b.String())
		d := DefaultOptions().Dialect
		d.Header = header
		whole := readRecords(t, sourcesOf(objs), d)
		if len(whole) != 3000 || whole[0][0] != "\ufeff0" {
			t.Fatalf("header %v: the whole file gives %d records, the first %q", header, len(whole), whole[0])
		}
		for _, n := range []int{2, 3, 7} {
			var got [][]string
			cut := 0
			for i := range n {
				srcs := splitParts(t, objs, d, i, n)
				for _, s := range srcs {
					if strings.Contains(s.Name, "@") {
						cut++
					}
				}
				got = append(got, readRecords(t, srcs, d)...)
			}
			if cut != n-1 {
				t.Errorf("header %v, %d splits: %d ranges inside the file, want %d", header, n, cut, n-1)
			}
			if !slices.EqualFunc(got, whole, slices.Equal) {
				for k := range min(len(got), len(whole)) {
					if !slices.Equal(got[k], whole[k]) {
						t.Fatalf("header %v, %d splits: %d records, record %d is %q, want %q", header, n, len(got), k, got[k], whole[k])
					}
				}
				t.Fatalf("header %v, %d splits: %d records, want %d", header, n, len(got), len(whole))
			}
		}
	}
}

// TestSplitEncodings: in UTF-8 a range ends where it is parsed (Until);
// in latin-1 and cp1252, which the Splitter transcodes, its end is
// searched for. Either way N splits read the records of the whole file,
// quoted line breaks and bytes past ASCII included.
func TestSplitEncodings(t *testing.T) {
	dir := t.TempDir()
	for _, enc := range []string{"utf-8", "latin-1", "cp1252"} {
		var b strings.Builder
		b.WriteString("k,v\n")
		for i := range 3000 {
			fmt.Fprintf(&b, "%d,\"caf\xe9 %d\n\xe9t\xe9, \"\"%d\"\"\"\n", i, i, i)
		}
		data := b.String()
		if enc == "utf-8" {
			data = strings.ReplaceAll(data, "\xe9", "é")
		}
		_, objs := localObject(t, filepath.Join(dir, enc+".csv"), data)
		d := DefaultOptions().Dialect
		d.Header, d.Encoding = true, enc
		whole := readRecords(t, sourcesOf(objs), d)
		if len(whole) != 3000 || whole[1][1] != "café 1\nété, \"1\"" {
			t.Fatalf("%s: the whole file gives %d records, the second %q", enc, len(whole), whole[1])
		}
		for _, n := range []int{2, 3, 7} {
			var got [][]string
			for i := range n {
				srcs := splitParts(t, objs, d, i, n)
				for _, s := range srcs {
					if until := s.Until > 0; until != (enc == "utf-8") {
						t.Errorf("%s, split %d/%d: %s has Until %d", enc, i, n, s.Name, s.Until)
					}
				}
				got = append(got, readRecords(t, srcs, d)...)
			}
			if !slices.EqualFunc(got, whole, slices.Equal) {
				t.Fatalf("%s, %d splits: %d records, want the whole file's %d", enc, n, len(got), len(whole))
			}
		}
	}
}

// splitParts is what split i of n reads of objs, cut into 1 KiB units.
func splitParts(t *testing.T, objs []source.Object, d csvparse.Dialect, i, n int) []csvparse.Source {
	t.Helper()
	o := DefaultOptions()
	o.Dialect = d
	o.SplitIndex, o.SplitCount, o.SplitSize = i, n, 1<<10
	srcs, _, err := splitSources(objs, &o)
	if err != nil {
		t.Fatal(err)
	}
	return srcs
}

// readRecords parses srcs as the loader would, returning every record's
// fields; with a header, every part must find the file's.
func readRecords(t *testing.T, srcs []csvparse.Source, d csvparse.Dialect) [][]string {
	t.Helper()
	s := csvparse.NewSplitter(srcs, d, 100, 0)
	defer s.Close()
	var out [][]string
	for {
		c, err := s.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if d.Header && !slices.Equal(c.Header, []string{"k", "v"}) {
			t.Fatalf("%s: header %q", c.File, c.Header)
		}
		r := csvparse.NewReader(c, d)
		for {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			var fields []string
			for _, f := range rec.Fields {
				fields = append(fields, string(f))
			}
			out = append(out, fields)
		}
	}
}

// TestSplitResume: a split's checkpoint records the split: another split
// given it is refused, naming the split, and the same split resumes it.
// Each split has its own error file.
func TestSplitResume(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.b (k int PRIMARY KEY, v text);`, nil)
	path := writeCSV(t, "rows.csv", 60000, func(i int) string { return fmt.Sprintf("%d,v%d\n", i, i) })
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "ckpt")
	opts := func(i int) Options {
		o := testOptions(t, c, "b", path)
		o.SplitIndex, o.SplitCount, o.SplitSize = i, 3, 64<<10
		o.Resume, o.ErrFile = ckpt, filepath.Join(dir, "rejected.err")
		// Chunks small enough that some settle before the cancel: a
		// split's one range of 20000 rows would be four chunks of 5000
		// in flight at once.
		o.ChunkSize = 1000
		return o
	}
	o := opts(0)
	o.IngestRate = 10000 // several seconds: the cancel comes first
	l, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "rejected.0.err"); l.opts.ErrFile != want {
		t.Errorf("error file %s, want %s", l.opts.ErrFile, want)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(700*time.Millisecond, cancel)
	first, err := l.Run(ctx)
	if !errors.Is(err, context.Canceled) || first.RowsWritten == 0 {
		t.Fatalf("first run: %v, %d rows written; want an interrupted run that wrote some", err, first.RowsWritten)
	}
	_, err = runLoad(t, opts(1))
	var re *ResumeError
	if !errors.As(err, &re) || !strings.Contains(re.Reason, "split") {
		t.Fatalf("split 1/3 with split 0/3's checkpoint: %v, want a refusal naming the split", err)
	}
	// A checkpoint of another way of planning splits covers other
	// ranges: refused, naming the plan.
	saved, err := os.ReadFile(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	planKey := fmt.Sprintf("%q: %q", "splitplan", split.PlanVersion)
	if !bytes.Contains(saved, []byte(planKey)) {
		t.Fatalf("the checkpoint does not record %s:\n%s", planKey, saved)
	}
	other := bytes.Replace(saved, []byte(planKey), []byte(fmt.Sprintf("%q: %q", "splitplan", "0")), 1)
	if err := os.WriteFile(ckpt, other, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = runLoad(t, opts(0))
	if !errors.As(err, &re) || !strings.Contains(re.Reason, "splitplan") {
		t.Fatalf("split 0/3 with a checkpoint of another split plan: %v, want a refusal naming splitplan", err)
	}
	if err := os.WriteFile(ckpt, saved, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := runLoad(t, opts(0))
	if err != nil || s.RowsResumed == 0 || s.RowsResumed+s.RowsRead == 0 {
		t.Fatalf("split 0/3 resumed: %v, %d resumed, %d read", err, s.RowsResumed, s.RowsRead)
	}
}

// TestOpenThrough: a range read on past its end asks for [off, through)
// first and for the rest of the object only when it is read past that,
// and an object cut short before through is an unexpected EOF.
func TestOpenThrough(t *testing.T) {
	data := []byte(strings.Repeat("0123456789", 100))
	type call struct{ off, n int64 }
	obj := func(size int64, body []byte) (source.Object, *[]call) {
		var calls []call
		return source.Object{Source: csvparse.Source{Name: "mem", Size: size}, OpenRange: func(off, n int64) (io.ReadCloser, error) {
			calls = append(calls, call{off, n})
			end := int64(len(body))
			if n >= 0 {
				end = min(end, off+n)
			}
			return io.NopCloser(bytes.NewReader(body[off:end])), nil
		}}, &calls
	}
	for _, c := range []struct {
		name         string
		off, through int64
		read         int64 // bytes to read; -1: all
		want         []call
	}{
		{"within the first request", 100, 300, 150, []call{{100, 200}}},
		{"up to its end", 100, 300, 200, []call{{100, 200}}},
		{"past it", 100, 300, -1, []call{{100, 200}, {300, -1}}},
		{"through past the end", 100, 5000, -1, []call{{100, -1}}},
	} {
		o, calls := obj(int64(len(data)), data)
		rc, err := openThrough(o, c.off, c.through)
		if err != nil {
			t.Fatal(err)
		}
		var got []byte
		if c.read < 0 {
			got, err = io.ReadAll(rc)
		} else {
			got = make([]byte, c.read)
			_, err = io.ReadFull(rc, got)
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if want := data[c.off:][:len(got)]; !bytes.Equal(got, want) || c.read < 0 && int64(len(got)) != int64(len(data))-c.off {
			t.Errorf("%s: read %d bytes that differ from the object's", c.name, len(got))
		}
		if err := rc.Close(); err != nil {
			t.Errorf("%s: close: %v", c.name, err)
		}
		if !slices.Equal(*calls, c.want) {
			t.Errorf("%s: requests %v, want %v", c.name, *calls, c.want)
		}
	}
	// Listed at 1000 bytes, but only 250 are there.
	o, _ := obj(int64(len(data)), data[:250])
	rc, err := openThrough(o, 100, 300)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(rc); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("an object cut short: %v, want an unexpected EOF", err)
	}
	// The second request fails: its error comes back once, and every
	// later read is an error too, never the end of the input.
	denied := errors.New("access denied")
	o = source.Object{Source: csvparse.Source{Name: "mem", Size: int64(len(data))}, OpenRange: func(off, n int64) (io.ReadCloser, error) {
		if off >= 300 {
			return nil, denied
		}
		return io.NopCloser(bytes.NewReader(data[off : off+n])), nil
	}}
	if rc, err = openThrough(o, 100, 300); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(rc)
	if !errors.Is(err, denied) || !bytes.Equal(got, data[100:300]) {
		t.Errorf("a failed second request: %d bytes, %v; want the first request's 200 and its error", len(got), err)
	}
	if n, err := rc.Read(make([]byte, 10)); n != 0 || err == nil || err == io.EOF {
		t.Errorf("a read after the failed request: %d bytes, %v; want an error", n, err)
	}
	if err := rc.Close(); err != nil {
		t.Errorf("close after a failed request: %v", err)
	}
}

// TestSplitPlan: splits that take their record starts from a split plan
// read the same records as splits that search, without reading the
// prefix of a file that has no quotes; a plan made for other splits,
// options or file contents is refused, as is a start the bytes before
// its cut contradict.
func TestSplitPlan(t *testing.T) {
	dir := t.TempDir()
	var plain, quoted strings.Builder
	plain.WriteString("k,v\n")
	quoted.WriteString("k,v\n")
	// plain.csv is several times what a split checks before a cut.
	for i := range 80000 {
		fmt.Fprintf(&plain, "%d,value %d\n", i, i)
	}
	for i := range 6000 {
		fmt.Fprintf(&quoted, "%d,\"line %d\nnext, \"\"%d\"\"\"\n", i, i, i)
	}
	write := func(name, data string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	paths := []string{write("plain.csv", plain.String()), write("quoted.csv", quoted.String())}
	objs, err := source.ExpandObjects(context.Background(), paths, nil)
	if err != nil {
		t.Fatal(err)
	}
	opts := func(i, n int, plan string) Options {
		o := DefaultOptions()
		o.Files = paths
		o.Dialect.Header = true
		o.SplitIndex, o.SplitCount, o.SplitSize, o.SplitPlan = i, n, 4<<10, plan
		return o
	}
	whole := readRecords(t, sourcesOf(objs), opts(0, 1, "").Dialect)
	if len(whole) != 86000 {
		t.Fatalf("the whole input gives %d records, want 86000", len(whole))
	}
	for _, n := range []int{3, 7} {
		plan := filepath.Join(dir, fmt.Sprintf("plan-%d.json", n))
		st, err := WriteSplitPlan(context.Background(), opts(0, n, ""), plan)
		if err != nil {
			t.Fatal(err)
		}
		// Each file's prefix is read once for all its cuts, plus a
		// window before each cut.
		if most := int64(plain.Len()+quoted.Len()) + int64(st.Starts)<<16; st.Files < 1 || st.Starts < n-1 || st.Searched > most {
			t.Errorf("%d splits: plan of %d starts in %d files, %d bytes read; want at least %d starts, at most %d bytes", n, st.Starts, st.Files, st.Searched, n-1, most)
		}
		var got [][]string
		for i := range n {
			o := opts(i, n, plan)
			srcs, searched, err := splitSources(objs, &o)
			if err != nil {
				t.Fatalf("%d splits, split %d with the plan: %v", n, i, err)
			}
			// Each cut costs a check of the bytes just before it, not
			// the file's prefix.
			if searched > 2*planCheckBytes {
				t.Errorf("%d splits, split %d with the plan read %d bytes", n, i, searched)
			}
			got = append(got, readRecords(t, srcs, o.Dialect)...)
		}
		if !slices.EqualFunc(got, whole, slices.Equal) {
			t.Fatalf("%d splits with a plan: %d records, want the whole input's %d, in order", n, len(got), len(whole))
		}
	}
	// Without the plan the split holding plain.csv's last range reads
	// most of it: what the plan saves.
	o := opts(6, 7, "")
	if _, searched, err := splitSources(objs, &o); err != nil || searched < int64(plain.Len())/2 {
		t.Fatalf("split 6/7 without a plan: %v, %d bytes searched; want most of plain.csv's %d", err, searched, plain.Len())
	}

	// A start in plain.csv moved to the next line: no quote near the cut
	// decides the parse state there, but a quoted field that never closes
	// cannot put a record start there either.
	tamper := func(plan, name string, move func(s *[2]int64)) string {
		t.Helper()
		b, err := os.ReadFile(plan)
		if err != nil {
			t.Fatal(err)
		}
		var pf splitPlanFile
		if err := json.Unmarshal(b, &pf); err != nil {
			t.Fatal(err)
		}
		for i := range pf.Files {
			if strings.HasSuffix(pf.Files[i].Name, name) {
				move(&pf.Files[i].Starts[len(pf.Files[i].Starts)-1])
			}
		}
		out := filepath.Join(dir, "tampered-"+filepath.Base(plan))
		b, _ = json.Marshal(pf)
		if err := os.WriteFile(out, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return out
	}
	refusedBy := func(what, plan string, n int) {
		t.Helper()
		for i := range n {
			o := opts(i, n, plan)
			if _, _, err := splitSources(objs, &o); err != nil {
				if !strings.Contains(err.Error(), "not where the file's bytes put it") {
					t.Errorf("%s: split %d/%d: %v", what, i, n, err)
				}
				return
			}
		}
		t.Errorf("%s: taken by every split", what)
	}
	refusedBy("a start in plain.csv moved a line on", tamper(filepath.Join(dir, "plan-7.json"), "plain.csv", func(s *[2]int64) {
		s[1] += int64(strings.IndexByte(plain.String()[s[1]:], '\n')) + 1
	}), 7)

	// Refusals, on quoted.csv alone.
	paths, objs = paths[1:], objs[1:]
	plan := filepath.Join(dir, "quoted-plan.json")
	if _, err := WriteSplitPlan(context.Background(), opts(0, 3, ""), plan); err != nil {
		t.Fatal(err)
	}
	refused := func(what string, o Options, want string) {
		t.Helper()
		_, _, err := splitSources(objs, &o)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", what, err, want)
		}
	}
	refused("another number of splits", opts(0, 4, plan), "made for 3 splits")
	o = opts(1, 3, plan)
	o.Dialect.Delimiter = ';'
	refused("another delimiter", o, `option delimiter was ",", now ";"`)
	o = opts(1, 3, plan)
	o.SplitSize = 8 << 10
	refused("another split size", o, "splitsize")

	// A start in quoted.csv moved into its record, after a line break
	// inside quotes: the quotes before the cut say otherwise.
	refusedBy("a start in quoted.csv moved into its record", tamper(plan, "quoted.csv", func(s *[2]int64) {
		s[1] += int64(strings.IndexByte(quoted.String()[s[1]:], '\n')) + 1
	}), 3)

	// The cut file changes after the plan was made: same size, other
	// bytes.
	changed := strings.Replace(quoted.String(), "line 5999", "line 5998", 1)
	write("quoted.csv", changed)
	later := time.Now().Add(time.Minute)
	os.Chtimes(paths[0], later, later)
	refused("a changed file", opts(1, 3, plan), "has other content")
	write("quoted.csv", changed+"6000,x\n")
	objs, err = source.ExpandObjects(context.Background(), paths, nil)
	if err != nil {
		t.Fatal(err)
	}
	refused("a longer file", opts(1, 3, plan), "had")
}

// TestSplitPlanEncodings: in latin-1 and cp1252 a range's end is searched
// for as well as its start, so the plan holds both; splits that take them
// read the records of the whole file.
func TestSplitPlanEncodings(t *testing.T) {
	dir := t.TempDir()
	for _, enc := range []string{"latin-1", "cp1252"} {
		var b strings.Builder
		b.WriteString("k,v\n")
		for i := range 3000 {
			fmt.Fprintf(&b, "%d,\"caf\xe9 %d\n\xe9t\xe9, \"\"%d\"\"\"\n", i, i, i)
		}
		path, objs := localObject(t, filepath.Join(dir, enc+".csv"), b.String())
		opts := func(i int, plan string) Options {
			o := DefaultOptions()
			o.Files = []string{path}
			o.Dialect.Header, o.Dialect.Encoding = true, enc
			o.SplitIndex, o.SplitCount, o.SplitSize, o.SplitPlan = i, 5, 1<<10, plan
			return o
		}
		whole := readRecords(t, sourcesOf(objs), opts(0, "").Dialect)
		plan := filepath.Join(dir, enc+".plan")
		st, err := WriteSplitPlan(context.Background(), opts(0, ""), plan)
		if err != nil {
			t.Fatal(err)
		}
		// Four cuts, each the end of one range and the start of the next.
		if st.Starts != 4 {
			t.Errorf("%s: the plan has %d starts, want 4", enc, st.Starts)
		}
		var got [][]string
		for i := range 5 {
			o := opts(i, plan)
			srcs, _, err := splitSources(objs, &o)
			if err != nil {
				t.Fatalf("%s, split %d: %v", enc, i, err)
			}
			got = append(got, readRecords(t, srcs, o.Dialect)...)
		}
		if len(whole) != 3000 || !slices.EqualFunc(got, whole, slices.Equal) {
			t.Fatalf("%s, 5 planned splits: %d records, want the whole file's %d", enc, len(got), len(whole))
		}
	}
}

// TestSplitPlanDamaged: a plan file that is missing, not a plan, of
// another format, or whose inputs or starts were edited is refused with a
// SplitPlanError (the CLI's usage error, never retried) saying what is
// wrong, and no split loads from it.
func TestSplitPlanDamaged(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("k,v\n")
	for i := range 4000 {
		fmt.Fprintf(&b, "%d,value %d\n", i, i)
	}
	path, objs := localObject(t, filepath.Join(dir, "plain.csv"), b.String())
	opts := func(i int, plan string) Options {
		o := DefaultOptions()
		o.Files = []string{path}
		o.Dialect.Header = true
		o.SplitIndex, o.SplitCount, o.SplitSize, o.SplitPlan = i, 3, 4<<10, plan
		return o
	}
	good := filepath.Join(dir, "plan.json")
	if _, err := WriteSplitPlan(context.Background(), opts(0, ""), good); err != nil {
		t.Fatal(err)
	}
	if tmps, _ := filepath.Glob(filepath.Join(dir, ".plan.json.tmp*")); len(tmps) > 0 {
		t.Errorf("the plan's temporary file is left: %q", tmps)
	}
	raw, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	edit := func(change func(pf *splitPlanFile)) []byte {
		var pf splitPlanFile
		if err := json.Unmarshal(raw, &pf); err != nil {
			t.Fatal(err)
		}
		if len(pf.Files) != 1 || len(pf.Files[0].Starts) != 2 {
			t.Fatalf("the plan has %d files, want 1 with 2 starts: %s", len(pf.Files), raw)
		}
		change(&pf)
		out, _ := json.Marshal(pf)
		return out
	}
	for _, c := range []struct {
		name string
		plan []byte // nil: no plan file at all
		want string
		// refusers: the splits that must refuse it; the others take it.
		// A plan that does not fit the run is refused by every split,
		// a wrong start by the split that starts there (in UTF-8 a
		// range's end is where the Splitter reading it gets to, not a
		// start the plan gives).
		refusers []int
	}{
		{"missing", nil, "no such file", []int{0, 1, 2}},
		{"not JSON", []byte("{\"version\": 1, "), "not a split plan", []int{0, 1, 2}},
		{"another format", edit(func(pf *splitPlanFile) { pf.Version++ }), "format 2, this cqlload reads 1", []int{0, 1, 2}},
		{"no inputs", edit(func(pf *splitPlanFile) { pf.Files = nil }), "made for 0 inputs, this run has 1", []int{0, 1, 2}},
		{"another input", edit(func(pf *splitPlanFile) { pf.Files[0].Name += ".old" }), "made without " + path, []int{0, 1, 2}},
		{"another size", edit(func(pf *splitPlanFile) { pf.Files[0].Size-- }), "bytes; it has", []int{0, 1, 2}},
		{"a cut without its start", edit(func(pf *splitPlanFile) { pf.Files[0].Starts = pf.Files[0].Starts[1:] }), "no record start for the cut at byte", []int{1}},
		{"a start before its cut", edit(func(pf *splitPlanFile) { pf.Files[0].Starts[0][1] = pf.Files[0].Starts[0][0] - 1 }), "is outside", []int{1}},
		{"a start past the file", edit(func(pf *splitPlanFile) { pf.Files[0].Starts[1][1] = int64(b.Len()) + 1 }), "is outside", []int{2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			plan := filepath.Join(t.TempDir(), "plan.json")
			if c.plan != nil {
				if err := os.WriteFile(plan, c.plan, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for i := range 3 {
				o := opts(i, plan)
				_, _, err := splitSources(objs, &o)
				var pe *SplitPlanError
				switch {
				case !slices.Contains(c.refusers, i):
					if err != nil {
						t.Errorf("split %d/3: %v; its range does not depend on what was changed", i, err)
					}
				case err == nil:
					t.Errorf("split %d/3 took the plan", i)
				case !errors.As(err, &pe) || !strings.Contains(err.Error(), c.want):
					t.Errorf("split %d/3: %v, want a SplitPlanError saying %q", i, err, c.want)
				}
			}
		})
	}
}

// localObject writes data to path and returns path and the file as the
// loader's inputs list it.
func localObject(t *testing.T, path, data string) (string, []source.Object) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	objs, err := source.ExpandObjects(context.Background(), []string{path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return path, objs
}

// TestSplitOf: every split of one load names the same load, whatever its
// index and error file; other inputs, sizes, N or cutting options name
// another.
func TestSplitOf(t *testing.T) {
	objs := func(sizes ...int64) []source.Object {
		var out []source.Object
		for i, n := range sizes {
			out = append(out, source.Object{Source: csvparse.Source{Name: fmt.Sprintf("in%d.csv", i), Size: n}})
		}
		return out
	}
	opts := func(i, n int, set func(*Options)) *Options {
		o := DefaultOptions()
		o.Keyspace, o.Table, o.SplitIndex, o.SplitCount = "ks", "t", i, n
		o.ErrFile = fmt.Sprintf("e.%d.err", i)
		if set != nil {
			set(&o)
		}
		return &o
	}
	if s := splitOf(objs(10), opts(0, 1, nil)); s != nil {
		t.Fatalf("a run without --split: %+v", s)
	}
	base := splitOf(objs(10, 20), opts(0, 3, nil))
	same := []*SplitOf{
		splitOf(objs(10, 20), opts(2, 3, nil)),
		splitOf([]source.Object{objs(10, 20)[1], objs(10, 20)[0]}, opts(1, 3, nil)), // the order given
	}
	for i, s := range same {
		if s.Load != base.Load {
			t.Errorf("same load %d: %s, want %s", i, s.Load, base.Load)
		}
	}
	if same[0].Index != 2 || same[0].Count != 3 || same[0].Files != 2 {
		t.Errorf("split %+v, want 2 of 3 of a load of 2 files", same[0])
	}
	for name, s := range map[string]*SplitOf{
		"another size":   splitOf(objs(10, 21), opts(0, 3, nil)),
		"another input":  splitOf(objs(10, 20, 5), opts(0, 3, nil)),
		"another N":      splitOf(objs(10, 20), opts(0, 4, nil)),
		"another table":  splitOf(objs(10, 20), opts(0, 3, func(o *Options) { o.Table = "u" })),
		"another header": splitOf(objs(10, 20), opts(0, 3, func(o *Options) { o.Dialect.Header = true })),
	} {
		if s.Load == base.Load {
			t.Errorf("%s: the same load %s", name, s.Load)
		}
	}
}

// TestSplitLineNumbers: a row's place in the log is right in every range
// of a --split file: FILE:LINE in the range that starts the file, and
// FILE@OFFSET:LINE, LINE counted from the range's start, in the others.
// With HEADER, the header line put before a range inside the file
// counted as its first line, so every line given was one too high.
func TestSplitLineNumbers(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.t (k int PRIMARY KEY, v text);`, nil)
	for _, header := range []bool{false, true} {
		t.Run(fmt.Sprintf("header=%v", header), func(t *testing.T) {
			var b strings.Builder
			if header {
				b.WriteString("k,v\n")
			}
			for i := range 3000 {
				switch {
				case i%250 == 7:
					fmt.Fprintf(&b, "bad%d,v\n", i)
				case i%3 == 0:
					fmt.Fprintf(&b, "%d,\"two\nlines\"\n", i) // a line break inside a record
				default:
					fmt.Fprintf(&b, "%d,v\n", i)
				}
			}
			path := writeCSV(t, "lines.csv", 1, func(int) string { return b.String() })
			data := []byte(b.String())
			logged := 0
			for i := range 3 {
				o := testOptions(t, c, "t", path)
				o.Dialect.Header = header
				o.SplitIndex, o.SplitCount, o.SplitSize = i, 3, 8<<10
				if _, err := runLoad(t, o); err != nil {
					t.Fatal(err)
				}
				errFile := strings.TrimSuffix(o.ErrFile, ".err") + fmt.Sprintf(".%d.err", i)
				log, err := os.ReadFile(errFile + ".log")
				if errors.Is(err, fs.ErrNotExist) {
					continue // no bad row in this split
				} else if err != nil {
					t.Fatal(err)
				}
				for _, ln := range strings.Split(strings.TrimSpace(string(log)), "\n") {
					// lines.csv@OFFSET:LINE:COLUMN: parse error: … "badN" …
					where, _, _ := strings.Cut(ln, ": ")
					parts := strings.Split(where, ":")
					name, lineNo := parts[0], parts[1]
					var from int
					if _, off, ok := strings.Cut(name, "@"); ok {
						from, _ = strconv.Atoi(off)
					}
					n, _ := strconv.Atoi(lineNo)
					// The text at line n counted from the range's start.
					rest := data[from:]
					for range n - 1 {
						rest = rest[bytes.IndexByte(rest, '\n')+1:]
					}
					got, _, _ := bytes.Cut(rest, []byte{','})
					if !strings.HasPrefix(string(got), "bad") || !strings.Contains(ln, `"`+string(got)+`"`) {
						t.Errorf("split %d: log line %q: line %d of the range holds %q", i, ln, n, got)
					}
					logged++
				}
			}
			if logged != 12 {
				t.Fatalf("%d rows logged over the splits, want the 12 bad ones", logged)
			}
		})
	}
}

// TestSplitSkipAndMaxRows: MAXROWS's one-input rule (it counts the rows
// SKIPROWS dropped) follows the whole input set, so every N loads the
// same rows: a split dealt one file of two is not a load of one file.
func TestSplitSkipAndMaxRows(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.sm (k int PRIMARY KEY, v text);`, nil)
	var files []string
	for f := range 2 {
		files = append(files, writeCSV(t, fmt.Sprintf("part%d.csv", f), 10, func(i int) string { return fmt.Sprintf("%d,v\n", f*100+i) }))
	}
	// Per file: rows 2..6 (SKIPROWS 2, then MAXROWS 5).
	want := 10
	for _, n := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("N=%d", n), func(t *testing.T) {
			if err := c.Exec(`TRUNCATE ks.sm;`); err != nil {
				t.Fatal(err)
			}
			var written int64
			for i := range n {
				o := testOptions(t, c, "sm", files...)
				o.Dialect.SkipRows, o.Dialect.MaxRows = 2, 5
				if n > 1 {
					o.SplitIndex, o.SplitCount = i, n
				}
				s, err := runLoad(t, o)
				if err != nil {
					t.Fatalf("split %d/%d: %v", i, n, err)
				}
				written += s.RowsWritten
			}
			rows, err := c.Query(`SELECT k FROM ks.sm`)
			if err != nil {
				t.Fatal(err)
			}
			if written != int64(want) || len(rows) != want {
				t.Errorf("%d splits wrote %d rows, the table holds %d; want %d", n, written, len(rows), want)
			}
		})
	}
}

// TestSplitFinishedCheckpoint: a finished split's checkpoint, given to
// another split of the same input (or the same split under another N),
// is refused rather than taken for last night's run: the rows it holds
// would be written twice, and a counter table keeps each increment.
func TestSplitFinishedCheckpoint(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.fc (k int PRIMARY KEY, n counter);`, nil)
	path := writeCSV(t, "rows.csv", 4000, func(i int) string { return fmt.Sprintf("%d,1\n", i) })
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "ckpt")
	opts := func(i, n int) Options {
		o := testOptions(t, c, "fc", path)
		o.SplitIndex, o.SplitCount, o.SplitSize = i, n, 8<<10
		o.Resume, o.ErrFile = ckpt, filepath.Join(dir, "rejected.err")
		return o
	}
	first, err := runLoad(t, opts(0, 2))
	if err != nil || first.RowsWritten == 0 {
		t.Fatalf("split 0/2: %v, %d rows written", err, first.RowsWritten)
	}
	again, err := runLoad(t, opts(0, 2))
	if err != nil || !again.NothingToDo || again.RowsWritten != 0 {
		t.Fatalf("split 0/2 again: %v, nothing to do %v, %d written", err, again.NothingToDo, again.RowsWritten)
	}
	for _, other := range [][2]int{{1, 2}, {0, 3}} {
		s, err := runLoad(t, opts(other[0], other[1]))
		var re *ResumeError
		if !errors.As(err, &re) || !strings.Contains(re.Reason, "split") || s.RowsWritten != 0 {
			t.Errorf("split %d/%d with split 0/2's finished checkpoint: %v, %d written; want a refusal naming the split", other[0], other[1], err, s.RowsWritten)
		}
	}
	rows, err := c.Query(`SELECT n FROM ks.fc`)
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, r := range rows {
		n, err := strconv.ParseInt(r["n"], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		sum += n
	}
	if sum != first.RowsWritten {
		t.Errorf("the counters add up to %d, split 0/2 wrote %d", sum, first.RowsWritten)
	}
}
