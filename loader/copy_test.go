package loader

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/cqlload/cqlload/internal/cqlscan"
	"github.com/cqlload/cqlload/schema"
)

func TestSetOption(t *testing.T) {
	o := DefaultOptions()
	set := [][2]string{
		{"HEADER", "TRUE"}, {"delimiter", "|"}, {"quote", "'"}, {"escape", ""}, {"null", "NULL"},
		{"maxattempts", "7"}, {"chunksize", "100"}, {"ingestrate", "2000"}, {"minbatchsize", "2"},
		{"maxbatchsize", "30"}, {"maxrows", "10"}, {"skiprows", "1"}, {"skipcols", "a, b"},
		{"maxparseerrors", "5"}, {"maxinserterrors", "6"}, {"errfile", "e.err"}, {"ttl", "3600"},
		{"numprocesses", "3"}, {"reportfrequency", "2"}, {"boolstyle", "Y,N"}, {"decimalsep", ","},
		{"thousandssep", "."}, {"datetimeformat", "%d/%m/%Y"}, {"preparedstatements", "true"},
		{"encoding", "latin-1"}, {"ratefile", "r.txt"},
	}
	for _, kv := range set {
		if err := o.SetOption(kv[0], kv[1]); err != nil {
			t.Fatalf("SetOption(%s, %q): %v", kv[0], kv[1], err)
		}
	}
	if !o.Dialect.Header || o.Dialect.Delimiter != '|' || o.Dialect.Quote != '\'' || o.Dialect.Escape != 0 ||
		o.Null != "NULL" || o.MaxAttempts != 7 || o.ChunkSize != 100 || o.IngestRate != 2000 ||
		o.MinBatchSize != 2 || o.MaxBatchSize != 30 || o.Dialect.MaxRows != 10 || o.Dialect.SkipRows != 1 ||
		!reflect.DeepEqual(o.SkipCols, []string{"a", "b"}) || o.MaxParseErrors != 5 || o.MaxInsertErrors != 6 ||
		o.ErrFile != "e.err" || o.TTL != 3600 || o.Workers != 3 || o.ReportFrequency.Seconds() != 2 ||
		o.Formats.BoolStyle != [2]string{"Y", "N"} || o.Formats.DecimalSep != "," || o.Formats.ThousandsSep != "." ||
		o.Formats.DateTimeFormat != "%d/%m/%Y" || o.Dialect.Encoding != "latin-1" || o.RateFile != "r.txt" {
		t.Fatalf("options not applied: %+v", o)
	}
	bad := []struct{ name, value, want string }{
		{"NOSUCH", "1", "unknown COPY FROM option NOSUCH"},
		{"PAGESIZE", "10", "applies to COPY TO only"},
		{"chunksize", "x", "not an integer"},
		{"delimiter", "ab", "single ASCII character"},
		{"preparedstatements", "false", "not supported"},
		{"header", "maybe", "want true or false"},
		// cqlsh reads every word but true as false: HEADER = 'yes'
		// would load the header line as data there.
		{"header", "yes", "cqlsh reads any word but true as false"},
		{"header", "1", "want true or false"},
		{"preparedstatements", "on", "want true or false"},
		{"boolstyle", "yes", "two words"},
		{"boolstyle", "yes,no,maybe", "two words"}, // as cqlsh's check_options
		{"requesttimeout", "soon", "want an integer"},
	}
	for _, b := range bad {
		err := o.SetOption(b.name, b.value)
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("SetOption(%s, %q) error = %v, want %q", b.name, b.value, err, b.want)
		}
	}
}

// TestCaseSensitiveNames: a COPY of "Ks"."MixedCase" loads that table and
// its columns by their exact names, where ks.mixedcase exists too and
// the table has both key and "Key". Before, the rows went to ks.mixedcase.
func TestCaseSensitiveNames(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.mixedcase (key int PRIMARY KEY, "Key" text);
CREATE KEYSPACE "Ks" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE TABLE "Ks"."MixedCase" (key int PRIMARY KEY, "Key" text);`, nil)
	sess := session(t, c)
	path := writeCSV(t, "in.csv", 10, func(i int) string { return fmt.Sprintf("%d,v%d\n", i, i) })
	// As COPY "Ks"."MixedCase" (key, "Key") FROM 'in.csv' sets them
	// (cqlsh.TestParseCopy).
	o := testOptions(t, c, "")
	o.Keyspace, o.Table, o.Columns, o.Files = "Ks", "MixedCase", []string{"key", `"Key"`}, []string{path}
	if s, err := runLoad(t, o); err != nil || s.RowsWritten != 10 {
		t.Fatalf("load: %v, %d written", err, s.RowsWritten)
	}
	count := func(table string) int {
		t.Helper()
		var n int
		if err := sess.Query(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n, other := count(`"Ks"."MixedCase"`), count("ks.mixedcase"); n != 10 || other != 0 {
		t.Fatalf(`"Ks"."MixedCase" holds %d rows and ks.mixedcase %d, want 10 and 0`, n, other)
	}
	var v string
	if err := sess.Query(`SELECT "Key" FROM "Ks"."MixedCase" WHERE key = 3`).Scan(&v); err != nil || v != "v3" {
		t.Fatalf(`"Key" of row 3: %q, %v; want v3`, v, err)
	}
}

// TestSkipColsNames: SKIPCOLS names a column as cqlsh compares them, the
// column list's names unquoted: 'Val' skips a quoted "Val" of the list.
func TestSkipColsNames(t *testing.T) {
	tbl := &schema.Table{Keyspace: "ks", Name: "m", Columns: []*schema.Column{{Name: "k"}, {Name: "Val"}, {Name: "lower"}}}
	tests := []struct {
		name    string
		columns []string // the column list; empty: the table's
		header  []string // with HEADER, mapping by name
		skip    []string
		want    []string // the column of each field, "" where skipped
	}{
		{"quoted list, bare skip", []string{"k", `"Val"`, "lower"}, nil, []string{"Val"}, []string{"k", "", "lower"}},
		{"quoted list, quoted skip", []string{"k", `"Val"`, "lower"}, nil, []string{`"Val"`}, []string{"k", "", "lower"}},
		{"no list", nil, nil, []string{"Val"}, []string{"k", "", "lower"}},
		{"unquoted list in other case", []string{"k", `"Val"`, "LOWER"}, nil, []string{"lower"}, []string{"k", "Val", ""}},
		{"header column not in the table", nil, []string{"k", "junk", "lower"}, []string{"junk"}, []string{"k", "", "lower"}},
	}
	for _, tc := range tests {
		l := &Loader{table: tbl, opts: Options{Columns: tc.columns, SkipCols: tc.skip}}
		cols, _, err := l.fileColumns(tc.header != nil, tc.header)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		var got []string
		for _, c := range cols {
			if c == nil {
				got = append(got, "")
			} else {
				got = append(got, c.Name)
			}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: columns %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestFileColumnsExactFirst: in a table with "Val" beside val, a header's
// or a list's name finds the column of exactly that name, a name only
// case folding matches to both is an error naming both (not a guess, nor
// every row rejected as "listed twice"), and SKIPCOLS follows the same
// rule.
func TestFileColumnsExactFirst(t *testing.T) {
	tbl, err := schema.NewTable("ks", "m", []*schema.Column{
		{Name: "k", Type: &schema.Type{Kind: schema.KindInt}, Kind: schema.PartitionKey},
		{Name: "Val", Type: &schema.Type{Kind: schema.KindInt}},
		{Name: "val", Type: &schema.Type{Kind: schema.KindInt}},
		{Name: "a,b", Type: &schema.Type{Kind: schema.KindInt}},
		{Name: `q"q`, Type: &schema.Type{Kind: schema.KindInt}},
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		columns string   // the column list as --columns takes it; "": none
		header  []string // with HEADER, mapping by name
		skip    string   // SKIPCOLS
		want    []string // the column of each field, "" where skipped
		err     []string // fragments of the error
	}{
		{"header exact", "", []string{"k", "Val", "val"}, "", []string{"k", "Val", "val"}, nil},
		{"header one exact", "", []string{"k", "Val"}, "", []string{"k", "Val"}, nil},
		{"header lower exact", "", []string{"k", "val"}, "", []string{"k", "val"}, nil},
		{"header folds to two", "", []string{"k", "VAL"}, "", nil, []string{`the header's name VAL matches columns "Val" and val only when case is ignored`}},
		{"header folds to one", "", []string{"K", "A,B", `Q"Q`}, "", []string{"k", "a,b", `q"q`}, nil},
		{"header comma and quote", "", []string{"k", "a,b", `q"q`}, "", []string{"k", "a,b", `q"q`}, nil},
		{"header ambiguous but skipped", "", []string{"k", "VAL", "val"}, "VAL", []string{"k", "", "val"}, nil},
		{"header unknown and ambiguous", "", []string{"k", "VAL", "junk"}, "", nil, []string{"does not have: junk", `matches columns "Val" and val`}},
		{"list bare is lower case", `k, Val`, nil, "", []string{"k", "val"}, nil},
		{"list quoted", `k, "Val", val`, nil, "", []string{"k", "Val", "val"}, nil},
		{"list comma and quote", `k, "a,b", "q""q"`, nil, "", []string{"k", "a,b", `q"q`}, nil},
		{"skip exact over fold", "", []string{"k", "Val", "val"}, "Val", []string{"k", "", "val"}, nil},
		{"skip lower exact", "", []string{"k", "Val", "val"}, "val", []string{"k", "Val", ""}, nil},
		{"skip folds to two", "", []string{"k", "Val", "val"}, "VAL", nil, []string{`SKIPCOLS name VAL matches "Val" and val only when case is ignored`}},
		{"skip quoted exact", "", []string{"k", "Val", "val"}, `"VAL"`, []string{"k", "Val", "val"}, nil},
		{"skip quoted with comma", "", []string{"k", "a,b", "val"}, `"a,b", val`, []string{"k", "", ""}, nil},
		{"skip list name", `k, "Val", val`, nil, "Val", []string{"k", "", "val"}, nil},
		{"skip table column by case", `k, "Val", "a,b"`, nil, "A,B", []string{"k", "Val", "a,b"}, nil},
		{"skip quoted table column", `k, "Val", "a,b"`, nil, `"a,b"`, []string{"k", "Val", ""}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := DefaultOptions()
			if tc.columns != "" {
				if o.Columns, err = cqlscan.Columns(tc.columns); err != nil {
					t.Fatal(err)
				}
			}
			if err := o.SetOption("SKIPCOLS", tc.skip); err != nil {
				t.Fatal(err)
			}
			l := &Loader{table: tbl, opts: o}
			cols, _, err := l.fileColumns(tc.header != nil, tc.header)
			if tc.err != nil {
				if err == nil {
					t.Fatalf("columns %v, want an error", cols)
				}
				for _, f := range tc.err {
					if !strings.Contains(err.Error(), f) {
						t.Errorf("error %q lacks %q", err, f)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range cols {
				if c == nil {
					got = append(got, "")
				} else {
					got = append(got, c.Name)
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("columns %q, want %q", got, tc.want)
			}
			if _, err := newPlan(tbl, cols, noUsing, &o); err != nil {
				t.Errorf("plan: %v", err)
			}
		})
	}
}
