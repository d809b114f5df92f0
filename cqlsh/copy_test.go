package cqlsh

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/cqlload/cqlload/loader"
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

func TestApplyConfigFile(t *testing.T) {
	path := t.TempDir() + "/cqlshrc"
	content := "[copy]\nheader = true\n[copy-from]\nchunksize = 10\n[copy-from:ks.t]\nchunksize = 20\n[copy:other.t]\nmaxrows = 3\n"
	if err := writeFile(path, content); err != nil {
		t.Fatal(err)
	}
	o := loader.DefaultOptions()
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
		o := loader.DefaultOptions()
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
	o = loader.DefaultOptions()
	if err := ApplyConfigFile(&o, "cqlshrc", path, "ks", "t"); err == nil || !strings.HasPrefix(err.Error(), "cqlshrc "+path+" [copy]: unknown COPY FROM option FOO") {
		t.Errorf("unknown option: %v", err)
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
		var o loader.Options
		if err := cs.Apply(&o, ""); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(o.Files, []string{tc.want}) {
			t.Errorf("%s: files %q, want %q", tc.stmt, o.Files, tc.want)
		}
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

func writeFile(path, content string) error { return os.WriteFile(path, []byte(content), 0o644) }

// TestWithTab: a WITH clause's '\t', as typed at cqlsh's prompt, is a tab.
func TestWithTab(t *testing.T) {
	cs, err := ParseCopy(`COPY ks.t FROM 'x.tsv' WITH DELIMITER = '\t' AND HEADER = true`)
	if err != nil {
		t.Fatal(err)
	}
	o := loader.DefaultOptions()
	if err := cs.Apply(&o, ""); err != nil || o.Dialect.Delimiter != '\t' {
		t.Errorf("WITH DELIMITER = '\\t': err %v, delimiter %q", err, o.Dialect.Delimiter)
	}
}
