package loader

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/cqlload/cqlload/schema"
)

func TestParseCopy(t *testing.T) {
	tests := []struct {
		in   string
		want CopyStatement
	}{
		{`COPY ks.t FROM 'data.csv'`, CopyStatement{Keyspace: "ks", Table: "t", Files: []string{"data.csv"}, literal: true}},
		{`copy T (A, "Bc") from 'a.csv, dir/*.csv' with header = true and DELIMITER='|';`, CopyStatement{
			Table: "t", Columns: []string{"a", `"Bc"`}, Files: []string{"a.csv, dir/*.csv"}, literal: true,
			Options: [][2]string{{"header", "true"}, {"DELIMITER", "|"}},
		}},
		{`COPY "MyKs"."My""T" ("Key", "a""b", c) FROM 'x.csv'`, CopyStatement{
			Keyspace: "MyKs", Table: `My"T`, Columns: []string{`"Key"`, `"a""b"`, "c"}, Files: []string{"x.csv"}, literal: true,
		}},
		{`COPY ks.t FROM STDIN WITH NULL = 'N/A' AND ESCAPE = '' AND QUOTE = ''''`, CopyStatement{
			Keyspace: "ks", Table: "t", Files: []string{"STDIN"},
			Options: [][2]string{{"NULL", "N/A"}, {"ESCAPE", ""}, {"QUOTE", "'"}},
		}},
		{`COPY ks.t FROM 'x.csv' WITH CHUNKSIZE = 5000 AND INGESTRATE=100 AND BOOLSTYLE = 'yes,no' AND REPORTFREQUENCY = 0.5`, CopyStatement{
			Keyspace: "ks", Table: "t", Files: []string{"x.csv"}, literal: true,
			Options: [][2]string{{"CHUNKSIZE", "5000"}, {"INGESTRATE", "100"}, {"BOOLSTYLE", "yes,no"}, {"REPORTFREQUENCY", "0.5"}},
		}},
		// Comments, as cqlsh's lexer drops them, and empty statements.
		{"/* load */ COPY ks.t -- the table\n FROM 'x.csv' // the file\n WITH HEADER = true /* first line */;;", CopyStatement{
			Keyspace: "ks", Table: "t", Files: []string{"x.csv"}, literal: true, Options: [][2]string{{"HEADER", "true"}},
		}},
		// USE gives the keyspace of a table named without one (the last
		// USE); a table named with one keeps it.
		{"use other;\nUSE \"MyKs\" ;; COPY t FROM 'x.csv';", CopyStatement{
			Keyspace: "MyKs", Table: "t", Files: []string{"x.csv"}, literal: true,
		}},
		{`USE other; COPY ks.t FROM 'x.csv'`, CopyStatement{Keyspace: "ks", Table: "t", Files: []string{"x.csv"}, literal: true}},
		// cqlsh's COPY writes at the shell's CONSISTENCY (a shell command:
		// ; or the line's end ends it), which WITH CONSISTENCY overrides;
		// a script may end with EXIT.
		{"CONSISTENCY QUORUM\nUSE ks;\nCOPY t FROM 'x.csv' WITH CONSISTENCY = ONE;\nexit\n", CopyStatement{
			Keyspace: "ks", Table: "t", Files: []string{"x.csv"}, literal: true,
			Options: [][2]string{{"CONSISTENCY", "QUORUM"}, {"CONSISTENCY", "ONE"}},
		}},
		{`consistency local_quorum; COPY ks.t FROM 'x.csv'; QUIT;`, CopyStatement{
			Keyspace: "ks", Table: "t", Files: []string{"x.csv"}, literal: true, Options: [][2]string{{"CONSISTENCY", "local_quorum"}},
		}},
		{`COPY ks.t FROM 'a--b.csv' WITH NULL = '--'`, CopyStatement{
			Keyspace: "ks", Table: "t", Files: []string{"a--b.csv"}, literal: true, Options: [][2]string{{"NULL", "--"}},
		}},
	}
	for _, tt := range tests {
		got, err := ParseCopy(tt.in)
		if err != nil {
			t.Errorf("ParseCopy(%q): %v", tt.in, err)
			continue
		}
		if !reflect.DeepEqual(*got, tt.want) {
			t.Errorf("ParseCopy(%q) = %+v, want %+v", tt.in, *got, tt.want)
		}
	}
}

// TestParseTable: --table names a table as COPY does.
func TestParseTable(t *testing.T) {
	tests := []struct{ in, ks, table, err string }{
		{in: "ks.t", ks: "ks", table: "t"},
		{in: "Ks.MyTable", ks: "ks", table: "mytable"},
		{in: `"Ks"."MyTable"`, ks: "Ks", table: "MyTable"},
		{in: ` ks . "a.b" `, ks: "ks", table: "a.b"},
		{in: "t", err: "no keyspace"},
		{in: `"Ks".`, err: "expected an identifier"},
		{in: "ks.t x", err: `unexpected "x"`},
		{in: `"Ks.t`, err: "unterminated quoted identifier"},
	}
	for _, tt := range tests {
		ks, table, err := ParseTable(tt.in)
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("ParseTable(%q): error %v, want one saying %q", tt.in, err, tt.err)
		case tt.err == "" && (err != nil || ks != tt.ks || table != tt.table):
			t.Errorf("ParseTable(%q) = %q, %q, %v; want %q, %q", tt.in, ks, table, err, tt.ks, tt.table)
		}
	}
}

func TestParseCopyErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{`SELECT * FROM t`, "expected COPY"},
		{`COPY ks.t TO 'x.csv'`, "COPY TO is not supported"},
		{`COPY ks.t FROM x.csv`, "expected a quoted file name or STDIN"},
		{`COPY ks.t FROM 'x.csv' WITH header`, "expected = after header"},
		{`COPY ks.t (a, b FROM 'x'`, "expected , or )"},
		{`COPY ks.t FROM 'x.csv' junk`, "unexpected"},
		{`COPY ks.t FROM 'x.csv`, "unterminated string"},
		{`COPY "ks.t FROM 'x.csv'`, "unterminated quoted identifier"},
		{`COPY ks.t FROM 'a.csv'; COPY ks.u FROM 'b.csv';`, "one COPY statement at a time"},
		{`USE ks COPY t FROM 'a.csv'`, "expected ; after USE ks"},
		{`USE ks; SELECT * FROM t`, "expected COPY"},
		{`CONSISTENCY QUORUM COPY ks.t FROM 'a.csv'`, "expected ; after CONSISTENCY QUORUM"},
		{`CONSISTENCY; COPY ks.t FROM 'a.csv'`, "expected a consistency level"},
		{`COPY ks.t FROM 'a.csv'; EXIT; COPY ks.u FROM 'b.csv'`, "one COPY statement at a time"},
		{`COPY ks.t FROM 'a.csv'; USE ks;`, "unexpected"},
	}
	for _, tt := range tests {
		_, err := ParseCopy(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseCopy(%q) error = %v, want it to contain %q", tt.in, err, tt.want)
		}
	}
}

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

func TestApplyConfigFile(t *testing.T) {
	path := t.TempDir() + "/cqlshrc"
	content := "[copy]\nheader = true\n[copy-from]\nchunksize = 10\n[copy-from:ks.t]\nchunksize = 20\n[copy:other.t]\nmaxrows = 3\n"
	if err := writeFile(path, content); err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	if err := ApplyConfigFile(&o, "CONFIGFILE", path, "ks", "t"); err != nil {
		t.Fatal(err)
	}
	if !o.Dialect.Header || o.ChunkSize != 20 || o.Dialect.MaxRows != -1 {
		t.Fatalf("config not applied as cqlsh does: header=%v chunksize=%d maxrows=%d", o.Dialect.Header, o.ChunkSize, o.Dialect.MaxRows)
	}

	// Sections [copy] and [copy:ks.t] serve COPY TO too: what only an
	// export uses is skipped, ENCODING among them (cqlsh ignores it when
	// loading); an import section's ENCODING can only be meant for
	// loading. cqlsh's worker-process tuning is accepted and ignored.
	for _, tc := range []struct {
		content, encoding string
		ignored           []string
	}{
		{"[copy]\nencoding = latin1\npagesize = 10\n[copy:ks.t]\nencoding = cp1252\n", "utf-8", nil},
		{"[copy]\nencoding = latin1\n[copy-from]\nencoding = cp1252\n", "cp1252", nil},
		{"[copy]\nrequesttimeout = 120\n[copy-from:ks.t]\nmaxinflightmessages = 10\n", "utf-8", []string{"REQUESTTIMEOUT", "MAXINFLIGHTMESSAGES"}},
	} {
		if err := writeFile(path, tc.content); err != nil {
			t.Fatal(err)
		}
		o := DefaultOptions()
		if err := ApplyConfigFile(&o, "cqlshrc", path, "ks", "t"); err != nil {
			t.Errorf("%q: %v", tc.content, err)
			continue
		}
		if o.Dialect.Encoding != tc.encoding || !reflect.DeepEqual(o.Ignored(), tc.ignored) {
			t.Errorf("%q: encoding %q, ignored %q; want %q, %q", tc.content, o.Dialect.Encoding, o.Ignored(), tc.encoding, tc.ignored)
		}
	}
	if err := writeFile(path, "[copy]\nfoo = 1\n"); err != nil {
		t.Fatal(err)
	}
	o = DefaultOptions()
	if err := ApplyConfigFile(&o, "cqlshrc", path, "ks", "t"); err == nil || !strings.HasPrefix(err.Error(), "cqlshrc "+path+" [copy]: unknown COPY FROM option FOO") {
		t.Errorf("unknown option: %v", err)
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
	stmt, err := ParseCopy(`COPY "Ks"."MixedCase" (key, "Key") FROM '` + path + `'`)
	if err != nil {
		t.Fatal(err)
	}
	o := testOptions(t, c, "")
	if err := stmt.Apply(&o, ""); err != nil {
		t.Fatal(err)
	}
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
		cols, err := l.fileColumns(tc.header != nil, tc.header)
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

// TestFromStdinLiteral: cqlsh reads FROM 'stdin' (a quoted name) as a
// path, and only the bare keyword as standard input; where no such file
// exists the name still means standard input, as on the command line.
func TestFromStdinLiteral(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := writeFile("stdin", "1,a\n"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ stmt, want string }{
		{`COPY ks.t FROM 'stdin'`, "./stdin"},
		{`COPY ks.t FROM STDIN`, "STDIN"},
		{`COPY ks.t FROM '-'`, "-"}, // no file "-" here
	} {
		cs, err := ParseCopy(tc.stmt)
		if err != nil {
			t.Fatal(err)
		}
		var o Options
		if err := cs.Apply(&o, ""); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(o.Files, []string{tc.want}) {
			t.Errorf("%s: files %q, want %q", tc.stmt, o.Files, tc.want)
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
				if o.Columns, err = ParseColumns(tc.columns); err != nil {
					t.Fatal(err)
				}
			}
			if err := o.SetOption("SKIPCOLS", tc.skip); err != nil {
				t.Fatal(err)
			}
			l := &Loader{table: tbl, opts: o}
			cols, err := l.fileColumns(tc.header != nil, tc.header)
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
			if _, err := newPlan(tbl, cols, &o); err != nil {
				t.Errorf("plan: %v", err)
			}
		})
	}
}

// TestParseColumns: --columns and COPY's column list are one parser; a
// quoted name may hold commas, quotes, blanks and any letter.
func TestParseColumns(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  string
	}{
		{"a,b", []string{"a", "b"}, ""},
		{" A , b_1 ", []string{"a", "b_1"}, ""},
		{`"My Col", "x,y", "q""q"`, []string{`"My Col"`, `"x,y"`, `"q""q"`}, ""},
		{`"[timestamp]","t[0]"`, []string{`"[timestamp]"`, `"t[0]"`}, ""},
		{"Ünïcode", []string{"ünïcode"}, ""},
		{`"Ünï"`, []string{`"Ünï"`}, ""},
		{"a--b", nil, "expected , after a"},
		{"my col", nil, `expected , after my (a name of other characters than letters, digits and _ is written in double quotes`},
		{"t[0]", nil, "expected , after t"},
		{"a,", nil, "expected an identifier"},
		{`"open`, nil, "unterminated quoted identifier"},
		{"", nil, "expected an identifier"},
	}
	for _, tc := range tests {
		got, err := ParseColumns(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseColumns(%q) = %q, %v; want an error with %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseColumns(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
		// The COPY statement's list is read by the same parser.
		stmt, err := ParseCopy("COPY ks.t (" + tc.in + ") FROM 'x.csv'")
		if err != nil || !reflect.DeepEqual(stmt.Columns, tc.want) {
			t.Errorf("COPY (%s): %v, %v; want %q", tc.in, stmt, err, tc.want)
		}
	}
}

// TestParseSkipCols: SKIPCOLS splits on commas outside double quotes;
// bare names stay as written, quoted ones in their quotes.
func TestParseSkipCols(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  string
	}{
		{"a, B ,,c", []string{"a", "B", "c"}, ""},
		{`"x,y", Val`, []string{`"x,y"`, "Val"}, ""},
		{` "q""q" ,t[0], [timestamp], my col`, []string{`"q""q"`, "t[0]", "[timestamp]", "my col"}, ""},
		{`a"b, c`, []string{`a"b`, "c"}, ""},
		{"", nil, ""},
		{`"x" y`, nil, `expected , after the quoted name "x"`},
		{`"x`, nil, "unterminated quoted name"},
	}
	for _, tc := range tests {
		got, err := parseNames(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseNames(%q) = %q, %v; want an error with %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseNames(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}
