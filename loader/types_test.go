package loader

import (
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlload/cqlload/cqlsim"
)

// rawValue captures a column as the cluster returned it, so a null is
// told apart from a zero value.
type rawValue struct {
	info gocql.TypeInfo
	data []byte
}

func (r *rawValue) UnmarshalCQL(info gocql.TypeInfo, data []byte) error {
	r.info = info
	if data != nil {
		r.data = append([]byte{}, data...)
	}
	return nil
}

// render decodes a value with the driver into its natural Go type and
// prints it in a stable form.
func (r *rawValue) render() string {
	if r.data == nil {
		return "null"
	}
	dest, err := r.info.NewWithError()
	if err != nil {
		return "undecodable: " + err.Error()
	}
	if err := gocql.Unmarshal(r.info, r.data, dest); err != nil {
		return "undecodable: " + err.Error()
	}
	return renderGo(reflect.ValueOf(dest).Elem().Interface())
}

func renderGo(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case []byte:
		return "0x" + hex.EncodeToString(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = renderGo(e)
		}
		return "(" + strings.Join(parts, ", ") + ")"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ": " + renderGo(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case *string:
		if x == nil {
			return "null"
		}
		return *x
	case *int:
		if x == nil {
			return "null"
		}
		return fmt.Sprint(*x)
	}
	return fmt.Sprint(v)
}

var everyColumns = strings.Split("k,a,bi,bl,bo,da,de,db,du,fl,ip,i,si,tx,tm,ts,tu,ti,uu,vc,vi,li,st,mp,nest,tp,ad,ve", ",")

// everyExpected holds, per key, the value of every column as the driver
// reads it back. Row 11 is row 1 in cqlsh COPY TO's format, so it must
// match row 1 but for tx.
var everyExpected = map[int]map[string]string{
	1: {
		"a": "hello", "bi": "-9223372036854775808", "bl": "0xcafebabe", "bo": "true",
		"da": "2024-02-29T00:00:00Z", "de": "123.4500", "db": "3.141592653589793",
		"du": "{0 0 5400000000000}", "fl": "1.5", "ip": "192.168.0.1", "i": "-2147483648",
		"si": "32767", "tx": "héllo wörld", "tm": "12h34m56.789012345s",
		"ts": "2024-01-02T01:04:05.678Z", "tu": "50554d6e-29bb-11e5-b345-feff819cdc9f",
		"ti": "-128", "uu": "9b2c7f3e-6a1d-4c2b-8f3e-1a2b3c4d5e6f", "vc": "varchar",
		"vi": "123456789012345678901234567890", "li": "[1 2 3]", "st": "[a b]",
		"mp": "map[x:1 y:2]", "nest": "[map[a:1] map[b:2]]", "tp": "(7, seven)",
		"ad": "{street: Main St, tags: [home], zip: 12345}", "ve": "[1 2.5 -3]",
	},
	2: {
		"a": "x", "bi": "9223372036854775807", "bl": "0x", "bo": "false",
		"da": "2022-01-08T00:00:00Z", "de": "-0.001", "db": "NaN",
		"du": "{0 1 7200000000000}", "fl": "-Inf", "ip": "::1", "i": "2147483647",
		"si": "-32768", "tx": "null", "tm": "1h0m0s",
		"ts": "2023-11-14T22:13:20Z", "tu": "50554d6e-29bb-11e5-b345-feff819cdc9f",
		"ti": "127", "uu": "9b2c7f3e-6a1d-4c2b-8f3e-1a2b3c4d5e6f", "vc": "null", // "" equals NULL, as in cqlsh
		"vi": "-1", "li": "null", "st": "null", "mp": "null", "nest": "[]", "tp": "(1, null)",
		"ad": "{street: it's, tags: [], zip: 0}", "ve": "[0 0 0]", // the driver decodes a null UDT field as its zero value
	},
	4: {
		"a": "y", "bi": "1", "bl": "0x00", "bo": "true",
		"da": "1970-01-01T00:00:00Z", "de": "1000", "db": "-1.5e-10",
		"du": "{0 14 0}", "fl": "3.4028235e+38", "ip": "2001:db8::1", "i": "0",
		"si": "0", "tx": `say "hi", twice`, "tm": "0s",
		"ts": "2024-06-30T23:59:59Z", "tu": "50554d6e-29bb-11e5-b345-feff819cdc9f",
		"ti": "0", "uu": "00000000-0000-0000-0000-000000000000", "vc": "v",
		"vi": "0", "li": "[-1]", "st": "[json style]", "mp": "map[k:5]", "nest": "[map[q:0]]", "tp": "(0, )",
		"ad": "{street: x, tags: [], zip: 0}", "ve": "[1 2 3]",
	},
}

func init() {
	null := map[string]string{}
	for _, c := range everyColumns[1:] {
		null[c] = "null"
	}
	everyExpected[3] = null
	r11 := map[string]string{}
	for k, v := range everyExpected[1] {
		r11[k] = v
	}
	r11["tx"] = `say "hi" \ back`
	everyExpected[11] = r11
	everyExpected[21] = map[string]string{"tx": `say "hi"`, "a": "plain"}
	everyExpected[22] = map[string]string{"tx": "two\r\nlines", "a": "x"}
	everyExpected[23] = map[string]string{"tx": `C:\path\file`, "a": `back\slash`}
}

// TestEveryType loads testdata/types into cqlsim, in cqlload's literal
// forms, in cqlsh COPY TO's output format and as an RFC 4180 file, and
// compares every value the cluster returns.
func TestEveryType(t *testing.T) {
	schema, err := os.ReadFile("../testdata/types/types.cql")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := cqlsim.Start(ctx, cqlsim.Config{Nodes: 3, Schema: []string{string(schema)}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	load := func(file string, tweak func(*Options)) {
		t.Helper()
		o := testOptions(t, c, "every", filepath.Join("../testdata/types", file))
		tweak(&o)
		s, err := runLoad(t, o)
		if err != nil || s.RowsFailedParse+s.RowsFailedInsert != 0 {
			log, _ := os.ReadFile(o.ErrFile + ".log")
			t.Fatalf("%s: %+v, err %v\n%s", file, s.Progress, err, log)
		}
	}
	load("every.csv", func(o *Options) { o.Dialect.Header = true })
	load("every_cqlsh.csv", func(o *Options) { o.Columns = everyColumns })
	load("rfc4180.csv", func(o *Options) { o.Dialect.Header = true; o.Dialect.Escape = 0 })

	sess := session(t, c)
	for k, want := range everyExpected {
		cols := make([]string, 0, len(want))
		for col := range want {
			cols = append(cols, col)
		}
		sort.Strings(cols)
		// The driver scans a tuple column into one destination per
		// element.
		var vals []any
		raws := make([][]rawValue, len(cols))
		for i, col := range cols {
			n := 1
			if col == "tp" {
				n = 2
			}
			raws[i] = make([]rawValue, n)
			for j := range raws[i] {
				vals = append(vals, &raws[i][j])
			}
		}
		q := fmt.Sprintf("SELECT %s FROM ks.every WHERE k = ?", strings.Join(cols, ", "))
		if err := sess.Query(q, k).Scan(vals...); err != nil {
			t.Errorf("k=%d: %v", k, err)
			continue
		}
		for i, col := range cols {
			got := raws[i][0].render()
			if col == "tp" {
				got = "(" + got + ", " + raws[i][1].render() + ")"
				if null, err := cellIsNull(sess, "ks.every", col, k); err != nil {
					t.Errorf("k=%d: writetime(tp): %v", k, err)
				} else if null {
					got = "null"
				}
			}
			if got != want[col] {
				t.Errorf("k=%d %s = %q, want %q", k, col, got, want[col])
			}
		}
	}
}
