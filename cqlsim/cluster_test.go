package cqlsim

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"gopkg.in/inf.v0"
)

func startCluster(t testing.TB, cfg Config) *Cluster {
	t.Helper()
	cl, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { cl.Close() })
	return cl
}

func connect(t testing.TB, cl *Cluster, tweak func(*gocql.ClusterConfig)) *gocql.Session {
	t.Helper()
	cc := gocql.NewCluster(cl.Hosts()...)
	cc.Port = cl.Port()
	cc.Timeout = 10 * time.Second
	cc.ConnectTimeout = 10 * time.Second
	if tweak != nil {
		tweak(cc)
	}
	s, err := cc.CreateSession()
	if err != nil {
		t.Fatalf("CreateSession: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

func mustExec(t testing.TB, s *gocql.Session, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if err := s.Query(q).Exec(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// ks3 is for clusters of three nodes (RF 2), ks1 for single nodes: the
// simulator, like Cassandra, cannot reach QUORUM with RF 2 on one node.
const (
	ks3 = "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 2}"
	ks1 = "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"
)

func TestDiscoverHostsAndTokens(t *testing.T) {
	cl := startCluster(t, Config{DCs: "dc1:2,dc2:1", Seed: 7})
	s := connect(t, cl, nil)
	hosts := s.GetHosts()
	if len(hosts) != 3 {
		t.Fatalf("driver sees %d hosts, want 3", len(hosts))
	}
	byAddr := map[string]*gocql.HostInfo{}
	for _, h := range hosts {
		byAddr[h.ConnectAddress().String()] = h
	}
	for i := 0; i < cl.NumNodes(); i++ {
		n := cl.Node(i)
		h := byAddr[strings.Split(n.Addr(), ":")[0]]
		if h == nil {
			t.Fatalf("node %d (%s) not discovered; hosts %v", i+1, n.Addr(), hosts)
		}
		want := cl.Tokens(i)
		got := h.Tokens()
		if len(got) != len(want) {
			t.Fatalf("node %d: %d tokens, want %d", i+1, len(got), len(want))
		}
		gotSet := map[string]bool{}
		for _, tok := range got {
			gotSet[tok] = true
		}
		for _, tok := range want {
			if !gotSet[fmt.Sprint(tok)] {
				t.Errorf("node %d: token %d missing from driver's view", i+1, tok)
			}
		}
		if h.DataCenter() != n.DC() || h.Rack() != n.Rack() || h.HostID() != n.HostID() {
			t.Errorf("node %d: driver sees %s/%s/%s, want %s/%s/%s", i+1, h.DataCenter(), h.Rack(), h.HostID(), n.DC(), n.Rack(), n.HostID())
		}
		// gocql reads the partitioner from system.local only (the control host).
		if p := h.Partitioner(); p != "" && p != partitioner {
			t.Errorf("node %d: partitioner %q", i+1, p)
		}
	}
}

// rawValue sends its bytes as they are, whatever the column type, so tests
// can send values a driver would refuse to marshal.
type rawValue []byte

func (r rawValue) MarshalCQL(gocql.TypeInfo) ([]byte, error) { return r, nil }

// codeOf returns the protocol error code of a driver error, or -1.
func codeOf(err error) int {
	var re interface{ GetCode() int }
	if errors.As(err, &re) {
		return re.GetCode()
	}
	return -1
}

func TestRoundTripEveryType(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 3})
	s := connect(t, cl, nil)
	mustExec(t, s, ks3,
		"CREATE TYPE ks.addr (street text, zip int)",
		`CREATE TABLE ks.every (k int PRIMARY KEY, a ascii, b bigint, bl blob, bo boolean, d date, de decimal,
		  db double, du duration, f float, i inet, si smallint, t text, tm time, ts timestamp, tu timeuuid,
		  ti tinyint, u uuid, vc varchar, vi varint, l list<int>, s set<text>, m map<text, int>,
		  fl frozen<list<text>>, tp tuple<int, text>, ud frozen<addr>, nested map<text, frozen<list<int>>>,
		  vec vector<float, 3>)`)
	day := time.Date(2023, 12, 31, 0, 0, 0, 0, time.UTC)
	ts := time.Date(2024, 5, 6, 7, 8, 9, 123e6, time.UTC)
	vi, _ := new(big.Int).SetString("1267650600228229401496703205376", 10)
	cols := []struct {
		name string
		val  any
		dst  any
	}{
		{"a", "ascii", new(string)},
		{"b", int64(-1 << 62), new(int64)},
		{"bl", []byte{0, 0xff, 'x'}, new([]byte)},
		{"bo", true, new(bool)},
		{"d", day, new(time.Time)},
		{"de", inf.NewDec(-1234500, 4), new(*inf.Dec)},
		{"db", 2.5, new(float64)},
		{"du", gocql.Duration{Months: 1, Days: 2, Nanoseconds: 3e9}, new(gocql.Duration)},
		{"f", float32(1.5), new(float32)},
		{"i", net.ParseIP("10.1.2.3").To4(), new(net.IP)},
		{"si", int16(-32768), new(int16)},
		{"t", "tëxt ✓", new(string)},
		{"tm", 13*time.Hour + 14*time.Minute + 15*time.Second + 16, new(time.Duration)},
		{"ts", ts, new(time.Time)},
		{"tu", gocql.TimeUUID(), new(gocql.UUID)},
		{"ti", int8(127), new(int8)},
		{"u", gocql.MustRandomUUID(), new(gocql.UUID)},
		{"vc", "varchar", new(string)},
		{"vi", vi, new(*big.Int)},
		{"l", []int{3, 1, 2}, new([]int)},
		{"s", []string{"a", "b"}, new([]string)},
		{"m", map[string]int{"x": 1, "y": 2}, new(map[string]int)},
		{"fl", []string{"p", "q"}, new([]string)},
		{"ud", map[string]any{"street": "main st", "zip": 12345}, new(map[string]any)},
		{"nested", map[string][]int{"n": {1, 2, 3}}, new(map[string][]int)},
		{"vec", []float32{1, 2.5, -3}, new([]float32)},
	}
	names := []string{"k"}
	vals := []any{1}
	dsts := []any{new(int)}
	for _, c := range cols {
		names = append(names, c.name)
		vals = append(vals, c.val)
		dsts = append(dsts, c.dst)
	}
	ins := fmt.Sprintf("INSERT INTO ks.every (%s) VALUES (?%s)", strings.Join(names, ", "), strings.Repeat(", ?", len(names)-1))
	if err := s.Query(ins, vals...).Exec(); err != nil {
		t.Fatalf("insert: %v", err)
	}
	sel := fmt.Sprintf("SELECT %s FROM ks.every WHERE k = ?", strings.Join(names, ", "))
	if err := s.Query(sel, 1).Scan(dsts...); err != nil {
		t.Fatalf("select: %v", err)
	}
	for i, c := range cols {
		got := reflect.ValueOf(dsts[i+1]).Elem().Interface()
		ok := reflect.DeepEqual(got, c.val)
		switch want := c.val.(type) {
		case *inf.Dec:
			ok = got.(*inf.Dec).Cmp(want) == 0
		case *big.Int:
			ok = got.(*big.Int).Cmp(want) == 0
		case time.Time:
			ok = got.(time.Time).Equal(want)
		case net.IP:
			ok = got.(net.IP).Equal(want)
		case map[string]any:
			g := got.(map[string]any)
			ok = g["street"] == want["street"] && g["zip"] == want["zip"]
		}
		if !ok {
			t.Errorf("column %s: got %#v, want %#v", c.name, got, c.val)
		}
	}
	// gocql counts a tuple column's elements as separate bind variables, so
	// the tuple is bound element by element and scanned into one pointer per element.
	if err := s.Query("UPDATE ks.every SET tp = (?, ?) WHERE k = ?", 7, "seven", 1).Exec(); err != nil {
		t.Fatal(err)
	}
	var ta int
	var tb string
	if err := s.Query("SELECT tp FROM ks.every WHERE k = 1").Scan(&ta, &tb); err != nil || ta != 7 || tb != "seven" {
		t.Errorf("tuple: got (%d, %q), %v; want (7, \"seven\")", ta, tb, err)
	}
	// A row with only the key reads back nulls, and null is distinct from unset.
	mustExec(t, s, "INSERT INTO ks.every (k, t, b) VALUES (2, 'two', 22)")
	if err := s.Query("INSERT INTO ks.every (k, t, b) VALUES (?, ?, ?)", 2, gocql.UnsetValue, nil).Exec(); err != nil {
		t.Fatal(err)
	}
	var text *string
	var b *int64
	if err := s.Query("SELECT t, b FROM ks.every WHERE k = 2").Scan(&text, &b); err != nil {
		t.Fatal(err)
	}
	if text == nil || *text != "two" || b != nil {
		t.Errorf("after unset t and null b: t=%v b=%v, want t=two b=nil", text, b)
	}
}

func TestBindMarkersInsideLiterals(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 1})
	s := connect(t, cl, nil)
	mustExec(t, s, ks1, "CREATE TYPE ks.pt (x int, y int)",
		"CREATE TABLE ks.lit (k int PRIMARY KEY, tp tuple<int, text>, l list<int>, st set<int>, m map<text, int>, u frozen<pt>)")
	tests := []struct {
		stmt string
		args []any
		sel  string
		want string
	}{
		{"UPDATE ks.lit SET tp = (?, ?) WHERE k = 1", []any{7, "seven"}, "tp", "(7, 'seven')"},
		{"UPDATE ks.lit SET tp = (?, ?) WHERE k = 1", []any{nil, "half"}, "tp", "(null, 'half')"},
		{"UPDATE ks.lit SET l = [?, ?, 1] WHERE k = 1", []any{3, 2}, "l", "[3, 2, 1]"},
		{"UPDATE ks.lit SET st = {?, ?, ?} WHERE k = 1", []any{3, 1, 3}, "st", "{1, 3}"},
		{"UPDATE ks.lit SET m = {?: ?, 'a': ?} WHERE k = 1", []any{"b", 2, 1}, "m", "{'a': 1, 'b': 2}"},
		{"UPDATE ks.lit SET u = {y: ?, x: ?} WHERE k = 1", []any{2, 1}, "u", "{x: 1, y: 2}"},
	}
	for _, tc := range tests {
		if err := s.Query(tc.stmt, tc.args...).Exec(); err != nil {
			t.Fatalf("%s: %v", tc.stmt, err)
		}
		rows, err := cl.Query("SELECT " + tc.sel + " FROM ks.lit WHERE k = 1")
		if err != nil || len(rows) != 1 || rows[0][tc.sel] != tc.want {
			t.Errorf("%s %v: got %v, %v; want %s", tc.stmt, tc.args, rows, err, tc.want)
		}
	}
	if err := s.Query("UPDATE ks.lit SET l = [?] WHERE k = 1", nil).Exec(); codeOf(err) != gocql.ErrCodeInvalid {
		t.Errorf("null inside a list: %v, want InvalidRequest", err)
	}
}

func TestCollectionsStoredAsCassandraDoes(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 1})
	s := connect(t, cl, nil)
	mustExec(t, s, ks1, `CREATE TABLE ks.coll (k int PRIMARY KEY, st set<text>, m map<int, text>, l list<int>,
		fs frozen<set<int>>, nested list<frozen<set<int>>>)`)
	tests := []struct {
		col  string
		val  any
		want string
	}{
		{"st", []string{"b", "a", "b"}, "{'a', 'b'}"},
		{"st", []string{}, "null"},
		{"m", map[int]string{2: "two", 1: "one"}, "{1: 'one', 2: 'two'}"},
		{"l", []int{}, "null"},
		{"l", []int{3, 3, 1}, "[3, 3, 1]"},
		{"fs", []int{}, "{}"},
		{"fs", []int{5, 4}, "{4, 5}"},
		{"nested", [][]int{{2, 1}, {1}}, "[{1, 2}, {1}]"},
	}
	for _, tc := range tests {
		if err := s.Query("INSERT INTO ks.coll (k, "+tc.col+") VALUES (1, ?)", tc.val).Exec(); err != nil {
			t.Fatal(err)
		}
		rows, err := cl.Query("SELECT " + tc.col + " FROM ks.coll WHERE k = 1")
		if err != nil || len(rows) != 1 || rows[0][tc.col] != tc.want {
			t.Errorf("%s = %v: stored %v, %v; want %s", tc.col, tc.val, rows, err, tc.want)
		}
	}
}

func TestInvalidValuesNameTheColumn(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 1})
	s := connect(t, cl, nil)
	mustExec(t, s, ks1, "CREATE TABLE ks.v (k int PRIMARY KEY, i int, a ascii, t text, tu timeuuid)")
	tests := []struct {
		col string
		val any
	}{
		{"i", rawValue{1, 2, 3, 4, 5, 6, 7, 8}},
		{"a", rawValue("caf\xc3\xa9")},
		{"t", rawValue{0xff, 0xfe}},
		{"tu", rawValue(gocql.MustRandomUUID().Bytes())},
	}
	for _, tc := range tests {
		t.Run(tc.col, func(t *testing.T) {
			err := s.Query("INSERT INTO ks.v (k, "+tc.col+") VALUES (1, ?)", tc.val).Exec()
			if codeOf(err) != gocql.ErrCodeInvalid {
				t.Fatalf("got %v (%T), want an InvalidRequest error", err, err)
			}
			if !strings.Contains(err.Error(), tc.col) {
				t.Errorf("error %q does not name column %s", err, tc.col)
			}
		})
	}
}
