package loader

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cqlload/cqlload/internal/cqlscan"
)

// namesTable has a column of every name that looks reserved: a bind name
// ("[timestamp]", "t[0]" beside the tuple t), names differing only in
// case, and names that need quoting in CQL and in CSV.
const namesTable = `CREATE TABLE ks.names (
	k int PRIMARY KEY,
	"[timestamp]" bigint,
	"[ttl]" int,
	t tuple<int, text>,
	"t[0]" int,
	"t[1]" text,
	"Val" int,
	val int,
	"a,b" text,
	"q""q" text,
	"my col" text,
	"ünï" text,
	"USING TIMESTAMP" int
);`

// namesRow is the i-th row's values, by the CQL name of its column.
func namesRow(i int) map[string]any {
	return map[string]any{
		`"[timestamp]"`: int64(1000 + i), `"[ttl]"`: 2000 + i, "t": fmt.Sprintf("(%d, 'e%d')", 3000+i, i),
		`"t[0]"`: 4000 + i, `"t[1]"`: fmt.Sprintf("one%d", i), `"Val"`: 5000 + i, "val": 6000 + i,
		`"a,b"`: fmt.Sprintf("comma%d", i), `"q""q"`: fmt.Sprintf("quote%d", i), `"my col"`: fmt.Sprintf("space%d", i),
		`"ünï"`: fmt.Sprintf("ünï%d", i), `"USING TIMESTAMP"`: 7000 + i,
	}
}

// TestReservedLookingNamesLoad: every column of namesTable gets its own
// value, whether the file's columns come from its header, from a COPY
// column list or from --columns, read back through the driver. Before,
// "[timestamp]" and "t[0]" were written as null (the tuple t as
// (null, null)), exit 0, and a header "Val" loaded into val.
func TestReservedLookingNamesLoad(t *testing.T) {
	c := startCluster(t, 1, 1, namesTable, nil)
	sess := session(t, c)
	// The file's columns, in an order unlike the table's, as a header
	// writes them and as CQL names them.
	header := []string{"my col", "ünï", "Val", "val", "[timestamp]", "k", "t[1]", "t", "a,b", `q"q`, "[ttl]", "t[0]", "USING TIMESTAMP"}
	var idents []string
	for _, h := range header {
		if h == "k" || h == "val" || h == "t" {
			idents = append(idents, h)
		} else {
			idents = append(idents, `"`+strings.ReplaceAll(h, `"`, `""`)+`"`)
		}
	}
	csvField := func(s string) string {
		if strings.ContainsAny(s, `,"`) {
			return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
		}
		return s
	}
	const rows = 20
	// base makes each way's keys its own.
	file := func(base int, withHeader bool) string {
		var b strings.Builder
		if withHeader {
			for j, h := range header {
				if j > 0 {
					b.WriteByte(',')
				}
				b.WriteString(csvField(h))
			}
			b.WriteByte('\n')
		}
		for i := base; i < base+rows; i++ {
			vals := namesRow(i)
			for j, id := range idents {
				if j > 0 {
					b.WriteByte(',')
				}
				if id == "k" {
					fmt.Fprint(&b, i)
					continue
				}
				b.WriteString(csvField(fmt.Sprint(vals[id])))
			}
			b.WriteByte('\n')
		}
		path := filepath.Join(t.TempDir(), "names.csv")
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	ways := []struct {
		name string
		opts func(path string) Options
	}{
		{"header", func(path string) Options {
			o := testOptions(t, c, "names", path)
			o.Dialect.Header = true
			return o
		}},
		{"COPY column list", func(path string) Options {
			// As the COPY statement's parser reads its column list
			// (cqlsh.TestParseColumns: the same as --columns').
			sc := &cqlscan.Scanner{Src: strings.Join(idents, ", ")}
			cols, err := sc.IdentList()
			if err != nil || sc.Peek() != 0 {
				t.Fatal(err, sc.Src[sc.Pos:])
			}
			o := testOptions(t, c, "")
			o.Keyspace, o.Table, o.Columns, o.Files = "ks", "names", cols, []string{path}
			if err := o.SetOption("TTL", "3600"); err != nil {
				t.Fatal(err)
			}
			return o
		}},
		{"--columns", func(path string) Options {
			o := testOptions(t, c, "names", path)
			cols, err := cqlscan.Columns(strings.Join(idents, ","))
			if err != nil {
				t.Fatal(err)
			}
			o.Columns = cols
			return o
		}},
	}
	var selectList []string
	for _, id := range idents {
		if id != "k" && id != "t" {
			selectList = append(selectList, id)
		}
	}
	for w, way := range ways {
		t.Run(way.name, func(t *testing.T) {
			base := w * 1000
			s, err := runLoad(t, way.opts(file(base, way.name == "header")))
			if err != nil || s.RowsWritten != rows || s.RowsRead != rows {
				t.Fatalf("load: %v, %d of %d rows written (%d read)", err, s.RowsWritten, rows, s.RowsRead)
			}
			for i := base; i < base+rows; i++ {
				want := namesRow(i)
				got := map[string]any{}
				dest := make([]any, 0, len(selectList)+2)
				var t0 int
				var t1 string
				dest = append(dest, &t0, &t1)
				for _, id := range selectList {
					switch want[id].(type) {
					case int64:
						dest = append(dest, new(int64))
					case int:
						dest = append(dest, new(int))
					default:
						dest = append(dest, new(string))
					}
				}
				q := fmt.Sprintf("SELECT t, %s FROM ks.names WHERE k = ?", strings.Join(selectList, ", "))
				if err := sess.Query(q, i).Scan(dest...); err != nil {
					t.Fatalf("row %d: %s: %v", i, q, err)
				}
				got["t"] = fmt.Sprintf("(%d, '%s')", t0, t1)
				for j, id := range selectList {
					got[id] = reflect.ValueOf(dest[j+2]).Elem().Interface()
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("row %d read back as\n%v\nwant\n%v", i, got, want)
				}
			}
		})
	}
}

// TestNamesCounterAndAmbiguousHeader: a counter table whose counters are
// named as its tuple key's elements would be bound ("k[0]") counts each
// by its own field; and a header name that matches two columns only when
// case is ignored rejects its file's rows with a reason naming both,
// while the other file loads.
func TestNamesCounterAndAmbiguousHeader(t *testing.T) {
	c := startCluster(t, 1, 1, namesTable+`
CREATE TABLE ks.cnames (k frozen<tuple<int, int>> PRIMARY KEY, "k[0]" counter, "k[1]" counter, "[timestamp]" counter);`, nil)
	sess := session(t, c)
	dir := t.TempDir()
	in := filepath.Join(dir, "c.csv")
	if err := os.WriteFile(in, []byte("k,k[0],k[1],[timestamp]\n\"(1, 2)\",10,20,30\n\"(3, 4)\",1,2,3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for round := 1; round <= 2; round++ {
		o := testOptions(t, c, "cnames", in)
		o.Dialect.Header = true
		if s, err := runLoad(t, o); err != nil || s.RowsWritten != 2 {
			t.Fatalf("counter load %d: %v, %d written", round, err, s.RowsWritten)
		}
	}
	var a, b, ts int64
	if err := sess.Query(`SELECT "k[0]", "k[1]", "[timestamp]" FROM ks.cnames WHERE k = (1, 2)`).Scan(&a, &b, &ts); err != nil || a != 20 || b != 40 || ts != 60 {
		t.Fatalf(`counters of (1, 2) after two loads: %d, %d, %d (%v); want 20, 40, 60`, a, b, ts, err)
	}

	sub := filepath.Join(dir, "h")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	bad, good := filepath.Join(sub, "1.csv"), filepath.Join(sub, "2.csv")
	os.WriteFile(bad, []byte("k,VAL\n1,1\n2,2\n"), 0o644)
	os.WriteFile(good, []byte("k,Val,val\n3,30,31\n"), 0o644)
	o := testOptions(t, c, "names", sub)
	o.Dialect.Header = true
	s, err := runLoad(t, o)
	if err != nil || s.RowsFailedParse != 2 || s.RowsWritten != 1 {
		t.Fatalf("ambiguous header: %v, %d rejected, %d written; want 1.csv's 2 rejected, 2.csv's 1 written", err, s.RowsFailedParse, s.RowsWritten)
	}
	log, _ := os.ReadFile(s.ErrLog)
	if want := `1.csv: header: the file's header does not fit the table: the header's name VAL matches columns "Val" and val only when case is ignored`; !strings.Contains(string(log), want) {
		t.Fatalf("error log lacks %q:\n%s", want, log)
	}
	var upper, lower int
	if err := sess.Query(`SELECT "Val", val FROM ks.names WHERE k = 3`).Scan(&upper, &lower); err != nil || upper != 30 || lower != 31 {
		t.Fatalf(`k=3: "Val" %d, val %d (%v); want 30, 31`, upper, lower, err)
	}
}
