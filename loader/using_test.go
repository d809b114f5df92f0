package loader

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWriteTimeAndTTLFields: a migration's rows keep the write times
// and TTLs the file gives them. An older row does not overwrite a newer
// live write, loading the file again changes nothing, a row without a
// write time takes the run's own, and a field that is not one is
// rejected with its reason.
func TestWriteTimeAndTTLFields(t *testing.T) {
	c := startCluster(t, 3, 1, `CREATE TABLE ks.m (k int PRIMARY KEY, v text);
CREATE TABLE ks.cnt (k int PRIMARY KEY, n counter);`, nil)
	s := session(t, c)
	for _, k := range []int{1, 2} {
		if err := s.Query(`INSERT INTO ks.m (k, v) VALUES (?, 'live') USING TIMESTAMP 2000`, k).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	at := time.Date(2026, 12, 7, 10, 30, 0, 0, time.UTC)
	path := filepath.Join(t.TempDir(), "export.csv")
	os.WriteFile(path, []byte(`k,v,WT,ttl
1,older,1000,
2,newer,3000,3600
3,stamped,2026-12-07 10:30:00+0000,
4,own,,0
5,bad,yesterday,
6,bad,4000,-5
`), 0o644)
	start := time.Now().UnixMicro()
	o := testOptions(t, c, "m", path)
	o.Dialect.Header = true
	// As COPY's WITH WRITETIMEFIELD = 'wt' AND TTLFIELD = 'ttl' sets
	// them: wt finds the header's WT, by case.
	for name, v := range map[string]string{"WRITETIMEFIELD": "wt", "TTLFIELD": "ttl"} {
		if err := o.SetOption(name, v); err != nil {
			t.Fatal(err)
		}
	}
	for run := range 2 {
		sum, err := runLoad(t, o)
		if sum.RowsWritten != 4 || sum.RowsFailedParse != 2 {
			t.Fatalf("run %d: written %d, failed parse %d (%v); want 4 and 2", run, sum.RowsWritten, sum.RowsFailedParse, err)
		}
		log, _ := os.ReadFile(o.ErrFile + ".log")
		for _, want := range []string{":6:7: parse error: --writetime-field: write time yesterday: neither", ":7:12: parse error: --ttl-field: TTL -5: negative"} {
			if !strings.Contains(string(log), want) {
				t.Errorf("run %d: the log does not say %q:\n%s", run, want, log)
			}
		}
		type cell struct {
			v   string
			wt  int64
			ttl int
		}
		got := map[int]cell{}
		iter := s.Query(`SELECT k, v, writetime(v), ttl(v) FROM ks.m`).Iter()
		var k, ttl int
		var v string
		var wt int64
		for iter.Scan(&k, &v, &wt, &ttl) {
			got[k] = cell{v, wt, ttl}
		}
		if err := iter.Close(); err != nil {
			t.Fatal(err)
		}
		if g := got[1]; g != (cell{"live", 2000, 0}) {
			t.Errorf("run %d: key 1 holds %+v: the file's older row overwrote the newer live write", run, g)
		}
		if g := got[2]; g.v != "newer" || g.wt != 3000 || g.ttl <= 3500 || g.ttl > 3600 {
			t.Errorf("run %d: key 2 holds %+v, want newer at 3000, TTL about 3600", run, g)
		}
		if g := got[3]; g != (cell{"stamped", at.UnixMicro(), 0}) {
			t.Errorf("run %d: key 3 holds %+v, want stamped at %d", run, g, at.UnixMicro())
		}
		if g := got[4]; g.v != "own" || g.wt < start || g.ttl != 0 {
			t.Errorf("run %d: key 4 holds %+v, want the run's own write time (after %d), no TTL", run, g, start)
		}
		if len(got) != 4 {
			t.Errorf("run %d: %d rows, want 4: %v", run, len(got), got)
		}
	}

	// A file whose header lacks the field: its rows are rejected with
	// the header's reason, as for any header that does not fit.
	noField := filepath.Join(t.TempDir(), "nofield.csv")
	os.WriteFile(noField, []byte("k,v,ttl\n7,x,60\n8,y,\n"), 0o644)
	o = testOptions(t, c, "m", noField)
	o.Dialect.Header = true
	o.WriteTimeField, o.TTLField = "wt", "ttl"
	if sum, err := runLoad(t, o); err != nil || sum.RowsWritten != 0 || sum.RowsFailedParse != 2 {
		t.Errorf("a header without the field: written %d, failed parse %d (%v); want 0 and 2", sum.RowsWritten, sum.RowsFailedParse, err)
	}
	if log, _ := os.ReadFile(o.ErrFile + ".log"); !strings.Contains(string(log), "header: the file's header does not fit the table: --writetime-field wt: the header names no such field") {
		t.Errorf("the log does not give the header's reason:\n%s", log)
	}

	for _, tc := range []struct {
		name  string
		table string
		mod   func(*Options)
		want  string
	}{
		{"no such field", "m", func(o *Options) { o.Columns = []string{"k", "v", "ttl"} }, "--writetime-field wt: the column list names no such field"},
		{"fields without names", "m", func(o *Options) { o.Dialect.Header = false }, "give a header (--header) or a column list that names it"},
		{"a counter table", "cnt", func(o *Options) {}, "a counter table's updates take no write time or TTL"},
	} {
		o := testOptions(t, c, tc.table, path)
		o.Dialect.Header = true
		o.WriteTimeField, o.TTLField = "wt", "ttl"
		tc.mod(&o)
		_, err := runLoad(t, o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}

// TestFieldNamed: the write time and TTL fields are found as SKIPCOLS
// finds its names: exactly, else the one name equal but for case; two of
// either kind are an error, never a guess.
func TestFieldNamed(t *testing.T) {
	tests := []struct {
		name   string
		names  []string
		idents bool
		want   int
		err    string
	}{
		{"wt", []string{"k", "v", "wt"}, false, 2, ""},
		{"wt", []string{"k", "WT", "v"}, false, 1, ""},
		{"wt", []string{"Wt", "wt", "WT"}, false, 1, ""}, // exactly wins
		{"wt", []string{"Wt", "WT"}, false, -1, `matches "Wt" and "WT" only when case is ignored`},
		{"wt", []string{"wt", "k", "wt"}, false, -1, "two fields are named wt"},
		{`"WT"`, []string{"wt", `"WT"`}, true, 1, ""}, // a column list's quoted name, unquoted
		{`"WT"`, []string{"wt"}, true, -1, ""},        // quoted: exactly, or none
		{"ttl", []string{"k", "v"}, false, -1, ""},
	}
	for _, tc := range tests {
		got, err := fieldNamed(tc.name, tc.names, tc.idents)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("fieldNamed(%q, %q) = %d, %v; want an error with %q", tc.name, tc.names, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("fieldNamed(%q, %q) = %d, %v; want %d", tc.name, tc.names, got, err, tc.want)
		}
	}
}
