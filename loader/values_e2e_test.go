package loader

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gocql/gocql"
)

// valuesSchema has a column of every kind whose empty field cqlsh and
// cqlload read differently from text.
const valuesSchema = `CREATE TYPE ks.addr (street text, zip int);
CREATE TABLE ks.v (k int PRIMARY KEY, i int, bi bigint, fl float, db double, de decimal, vi varint,
  bo boolean, ts timestamp, da date, tm time, uu uuid, tu timeuuid, ip inet, du duration,
  li list<int>, st set<text>, mp map<text, int>, ad frozen<addr>, tp tuple<int, text>, bl blob,
  tx text, vc varchar, a ascii);
CREATE TABLE ks.c (k text PRIMARY KEY, hits counter, misses counter);`

var valuesColumns = strings.Split("k,i,bi,fl,db,de,vi,bo,ts,da,tm,uu,tu,ip,du,li,st,mp,ad,tp,bl,tx,vc,a", ",")

var valuesNonText = strings.Split("i,bi,fl,db,de,vi,bo,ts,da,tm,uu,tu,ip,du,li,st,mp,ad,tp,bl", ",")

// valueCase is one row of ks.v: the field of one column as the file
// holds it (every other field is the NULL marker), and either the value
// read back (as rawValue.render prints it) or a part of the reason the
// row was rejected for.
type valueCase struct {
	col, field string
	want       string
	reject     string
}

// nullOf is what a null column reads back as (readValue tells a null
// tuple from a tuple of nulls).
func nullOf(string) string { return "null" }

// cellIsNull reports whether column col of row k of table holds no value:
// the driver scans a null tuple and a tuple of nulls alike, element by
// element, but only a written value has a write time.
func cellIsNull(sess *gocql.Session, table, col string, k int) (bool, error) {
	var wt *int64
	err := sess.Query(fmt.Sprintf(`SELECT writetime(%s) FROM %s WHERE k = ?`, col, table), k).Scan(&wt)
	return wt == nil, err
}

// loadValueCases writes the cases as one file, loads it with the NULL
// marker null and checks every row: each stored value, and each rejected
// row's reason in the error log.
func loadValueCases(t *testing.T, null string, cases []valueCase) {
	t.Helper()
	c := startCluster(t, 3, 1, valuesSchema, nil)
	var b strings.Builder
	for j, tc := range cases {
		for i, col := range valuesColumns {
			if i > 0 {
				b.WriteByte(',')
			}
			switch col {
			case tc.col:
				b.WriteString(tc.field)
			case "k":
				fmt.Fprint(&b, j+1)
			default:
				b.WriteString(null)
			}
		}
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "values.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	o := testOptions(t, c, "v", path)
	o.Columns = valuesColumns
	o.Null = null
	s, err := runLoad(t, o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	rejects := 0
	for _, tc := range cases {
		if tc.reject != "" {
			rejects++
		}
	}
	logData, _ := os.ReadFile(o.ErrFile + ".log")
	if s.RowsWritten != int64(len(cases)-rejects) || s.RowsFailedParse != int64(rejects) {
		t.Fatalf("written %d, rejected %d; want %d and %d\n%s", s.RowsWritten, s.RowsFailedParse, len(cases)-rejects, rejects, logData)
	}
	sess := session(t, c)
	for j, tc := range cases {
		k := j + 1
		if tc.reject != "" {
			want := fmt.Sprintf("%s:%d:", path, k)
			found := false
			for _, line := range strings.Split(string(logData), "\n") {
				if strings.HasPrefix(line, want) && strings.Contains(line, tc.reject) {
					found = true
				}
			}
			if !found {
				t.Errorf("%s %s: error log has no line %s… %q:\n%s", tc.col, tc.field, want, tc.reject, logData)
			}
			var n int
			if err := sess.Query(`SELECT k FROM ks.v WHERE k = ?`, k).Scan(&n); !errors.Is(err, gocql.ErrNotFound) {
				t.Errorf("%s %s: rejected row k=%d was stored (%v)", tc.col, tc.field, k, err)
			}
			continue
		}
		got, err := readValue(sess, tc.col, k)
		if err != nil {
			t.Errorf("%s %s: %v", tc.col, tc.field, err)
			continue
		}
		if got != tc.want {
			t.Errorf("%s %s: stored %q, want %q", tc.col, tc.field, got, tc.want)
		}
	}
}

// readValue reads one column of row k of ks.v as rawValue.render prints
// it; the driver scans a tuple into one destination per element.
func readValue(sess *gocql.Session, col string, k int) (string, error) {
	n := 1
	if col == "tp" {
		n = 2
	}
	raws := make([]rawValue, n)
	dest := make([]any, n)
	for i := range raws {
		dest[i] = &raws[i]
	}
	if err := sess.Query(fmt.Sprintf(`SELECT %s FROM ks.v WHERE k = ?`, col), k).Scan(dest...); err != nil {
		return "", err
	}
	if col == "tp" {
		if null, err := cellIsNull(sess, "ks.v", col, k); null || err != nil {
			return "null", err
		}
		return "(" + raws[0].render() + ", " + raws[1].render() + ")", nil
	}
	return raws[0].render(), nil
}

// TestQuotedEmptyIsNull: with the default NULL (empty), an empty field,
// quoted or not, is null in every column, text, varchar and ascii
// included, as in cqlsh (its CSV reader drops the quotes before the
// field is compared with NULL). In a primary key column it is an error.
func TestQuotedEmptyIsNull(t *testing.T) {
	var cases []valueCase
	for _, col := range valuesNonText {
		cases = append(cases, valueCase{col: col, field: `""`, want: nullOf(col)})
	}
	cases = append(cases,
		valueCase{col: "tx", field: `""`, want: "null"},
		valueCase{col: "vc", field: `""`, want: "null"},
		valueCase{col: "a", field: `""`, want: "null"},
		valueCase{col: "tx", field: ``, want: "null"},
		valueCase{col: "i", field: `"7"`, want: "7"},
		valueCase{col: "k", field: `""`, reject: "column k: null value for a primary key column"},
	)
	loadValueCases(t, "", cases)
}

// TestEmptyWithNullMarker: with NULL = 'NULL', an empty field, quoted
// or not, is null in every column but text, varchar and ascii, where it
// is the empty string; the marker is null quoted or not, as in cqlsh.
// cqlsh stores null for an empty field too, except for boolean (false)
// and blob (an empty blob), where cqlload stores null as well.
func TestEmptyWithNullMarker(t *testing.T) {
	var cases []valueCase
	for _, col := range valuesNonText {
		cases = append(cases,
			valueCase{col: col, field: ``, want: nullOf(col)},
			valueCase{col: col, field: `""`, want: nullOf(col)},
			valueCase{col: col, field: `NULL`, want: nullOf(col)},
			valueCase{col: col, field: `"NULL"`, want: nullOf(col)},
		)
	}
	for _, col := range []string{"tx", "vc", "a"} {
		cases = append(cases,
			valueCase{col: col, field: ``, want: ""},
			valueCase{col: col, field: `""`, want: ""},
			valueCase{col: col, field: `NULL`, want: "null"},
			valueCase{col: col, field: `"NULL"`, want: "null"},
			valueCase{col: col, field: `"NULL "`, want: "NULL "},
		)
	}
	cases = append(cases,
		valueCase{col: "bo", field: `true`, want: "true"},
		valueCase{col: "k", field: ``, reject: "column k: null value for a primary key column"},
		valueCase{col: "k", field: `NULL`, reject: "column k: null value for a primary key column"},
	)
	loadValueCases(t, "NULL", cases)
}

// TestEmptyTupleIsNull: an empty top-level tuple, in any brackets, is a
// null tuple, as cqlsh sends it (an empty value); a tuple with its
// components left out is a tuple of nulls.
func TestEmptyTupleIsNull(t *testing.T) {
	loadValueCases(t, "", []valueCase{
		{col: "tp", field: "()", want: "null"},
		{col: "tp", field: "( )", want: "null"},
		{col: "tp", field: "[]", want: "null"},
		{col: "tp", field: "(1)", want: "(1, null)"},
		{col: "tp", field: `"(,)"`, want: "(null, null)"},
	})
}

// TestDatesAndTimestampsAsCassandraReads: integer dates are Cassandra's
// unsigned day numbers, a yyyymmdd integer is refused with a hint, and
// timestamps with the unpadded years cqlsh COPY TO writes before 1000
// load.
func TestDatesAndTimestampsAsCassandraReads(t *testing.T) {
	loadValueCases(t, "", []valueCase{
		{col: "da", field: "2147483648", want: "1970-01-01T00:00:00Z"},
		{col: "da", field: "2147501910", want: "2020-01-01T00:00:00Z"},
		{col: "da", field: "2020-01-02", want: "2020-01-02T00:00:00Z"},
		{col: "da", field: "20200102", reject: "reads as 2020-01-02 without dashes: write dates as yyyy-mm-dd"},
		{col: "da", field: "-1", reject: "date -1 out of range [0, 4294967295]"},
		{col: "ts", field: "999-12-31 23:59:59.999+0000", want: "0999-12-31T23:59:59.999Z"},
		{col: "ts", field: "1-01-01 00:00:00.000+0000", want: "0001-01-01T00:00:00Z"},
		{col: "ts", field: "999-12-31 23:59:59+0000", want: "0999-12-31T23:59:59Z"},
		{col: "ts", field: "2024-01-02 03:04:05.678+0000", want: "2024-01-02T03:04:05.678Z"},
	})
}

// TestEmptyCounterRejected: an empty counter field is a rejected row with
// its reason, not a row counted as written with nothing written.
func TestEmptyCounterRejected(t *testing.T) {
	c := startCluster(t, 3, 1, valuesSchema, nil)
	path := filepath.Join(t.TempDir(), "counts.csv")
	content := "a,1,2\nb,,2\nc,3,\"\"\nd,4,\ne,5,6\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, null := range []string{"", "NULL"} {
		t.Run("NULL="+null, func(t *testing.T) {
			o := testOptions(t, c, "c", path)
			o.Columns = []string{"k", "hits", "misses"}
			o.Null = null
			s, err := runLoad(t, o)
			if err != nil {
				t.Fatal(err)
			}
			logData, _ := os.ReadFile(o.ErrFile + ".log")
			if s.RowsWritten != 2 || s.RowsFailedParse != 3 {
				t.Fatalf("written %d, rejected %d; want 2 and 3\n%s", s.RowsWritten, s.RowsFailedParse, logData)
			}
			for _, want := range []string{
				path + ":2:3: parse error: column hits: no value for a counter column",
				path + ":3:5: parse error: column misses: no value for a counter column",
				path + ":4:5: parse error: column misses: no value for a counter column",
			} {
				if !strings.Contains(string(logData), want) {
					t.Errorf("error log lacks %q:\n%s", want, logData)
				}
			}
			errData, _ := os.ReadFile(o.ErrFile)
			if string(errData) != "b,,2\nc,3,\"\"\nd,4,\n" {
				t.Errorf("error file = %q", errData)
			}
		})
	}
	sess := session(t, c)
	for k, want := range map[string][2]int64{"a": {2, 4}, "e": {10, 12}} {
		var hits, misses int64
		if err := sess.Query(`SELECT hits, misses FROM ks.c WHERE k = ?`, k).Scan(&hits, &misses); err != nil {
			t.Fatal(err)
		}
		if hits != want[0] || misses != want[1] {
			t.Errorf("%s: hits %d misses %d, want %v", k, hits, misses, want)
		}
	}
	for _, k := range []string{"b", "c", "d"} {
		var hits int64
		if err := sess.Query(`SELECT hits FROM ks.c WHERE k = ?`, k).Scan(&hits); !errors.Is(err, gocql.ErrNotFound) {
			t.Errorf("%s: rejected row has a counter row (%d, %v)", k, hits, err)
		}
	}
}

// TestFirstMistakeHints: a file with another delimiter, and a header line
// loaded as data, get a hint saying so, once each.
func TestFirstMistakeHints(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.h (k int PRIMARY KEY, a text, n int);`, nil)
	dir := t.TempDir()
	tests := []struct {
		name, body, want string
		header           bool
	}{
		{"semicolons", "1;x;2\n2;y;3\n", `DELIMITER = ';'`, false},
		{"tabs", "1\tx\t2\n", `DELIMITER = '\t'`, false},
		{"a header line", "k,a,n\n1,x,2\n", "HEADER = true", false},
		{"no hint with HEADER", "k,a,n\n1,x,2\n", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".csv")
			os.WriteFile(path, []byte(tt.body), 0o644)
			o := testOptions(t, c, "h", path)
			o.Columns = []string{"k", "a", "n"}
			o.Dialect.Header = tt.header
			s, _ := runLoad(t, o)
			got := strings.Join(s.Hints, " | ")
			if tt.want == "" {
				if got != "" {
					t.Fatalf("hints %q, want none", got)
				}
				return
			}
			if len(s.Hints) != 1 || !strings.Contains(got, tt.want) {
				t.Fatalf("hints %q, want one saying %s", got, tt.want)
			}
			log, _ := os.ReadFile(o.ErrFile + ".log")
			if strings.Count(string(log), "hint:") != 1 {
				t.Fatalf("the error log should carry the hint once:\n%s", log)
			}
		})
	}
}

// TestLaterDuplicateWins: of rows with one primary key, the later in the
// file is what the table holds, in one batch or across chunks, whatever
// the values: with equal write timestamps Cassandra keeps the greater
// value, and the file's rows for a key here grow smaller.
func TestLaterDuplicateWins(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.d (k int, c int, v text, n int, PRIMARY KEY (k, c));`, nil)
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, "%d,0,v%03d,%d\n", i%100, 999-i, 1000-i)
	}
	path := filepath.Join(t.TempDir(), "dups.csv")
	os.WriteFile(path, []byte(b.String()), 0o644)
	for _, chunk := range []int{5000, 7} {
		o := testOptions(t, c, "d", path)
		o.Columns = []string{"k", "c", "v", "n"}
		o.ChunkSize = chunk
		if s, err := runLoad(t, o); err != nil || s.RowsWritten != 300 {
			t.Fatalf("chunk %d: written %d, err %v", chunk, s.RowsWritten, err)
		}
		iter := session(t, c).Query(`SELECT k, v, n FROM ks.d`).Iter()
		var k, n int
		var v string
		seen := 0
		for iter.Scan(&k, &v, &n) {
			seen++
			last := 200 + k // the key's last row in the file
			if want := fmt.Sprintf("v%03d", 999-last); v != want || n != 1000-last {
				t.Fatalf("chunk %d: key %d holds %q, %d; want the file's last row: %q, %d", chunk, k, v, n, want, 1000-last)
			}
		}
		if err := iter.Close(); err != nil || seen != 100 {
			t.Fatalf("chunk %d: %d keys (err %v)", chunk, seen, err)
		}
	}
}
