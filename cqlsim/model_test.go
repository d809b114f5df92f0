package cqlsim

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// mcell is the reference model of one cell: a value or a tombstone (val < 0)
// with its write timestamp.
type mcell struct {
	set bool
	ts  int64
	val int
}

// reconcile is Cassandra's rule: newer timestamp wins; on a tie a tombstone
// beats a value and the greater value (byte order, here numeric) wins.
func reconcile(old, n mcell) mcell {
	switch {
	case !old.set, n.ts > old.ts:
		return n
	case n.ts < old.ts:
		return old
	case n.val < 0 || old.val < 0:
		return mcell{true, n.ts, -1}
	case n.val > old.val:
		return n
	}
	return old
}

type mrow struct {
	marker mcell
	del    int64
	cols   [2]mcell
}

type mpart struct {
	del    int64
	static mcell
	rows   map[int]*mrow
}

// TestStoreMatchesModel runs random writes and deletions with explicit
// timestamps (ties included) and compares every row with a reference model
// of last-write-wins, row markers, static cells and row and partition
// tombstones.
func TestStoreMatchesModel(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			cl := startCluster(t, Config{Nodes: 1})
			if err := cl.Exec(`CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
				CREATE TABLE ks.m (k int, c int, s int static, v1 int, v2 int, PRIMARY KEY (k, c))`); err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(seed, 99))
			model := map[int]*mpart{}
			part := func(k int) *mpart {
				if model[k] == nil {
					model[k] = &mpart{rows: map[int]*mrow{}}
				}
				return model[k]
			}
			row := func(k, c int) *mrow {
				p := part(k)
				if p.rows[c] == nil {
					p.rows[c] = &mrow{}
				}
				return p.rows[c]
			}
			for i := 0; i < 300; i++ {
				k, c, ts := rng.IntN(4), rng.IntN(3), int64(1+rng.IntN(40))
				v1, v2 := rng.IntN(5), rng.IntN(5)
				col := rng.IntN(2)
				var stmt string
				switch op := rng.IntN(11); {
				case op < 4:
					stmt = fmt.Sprintf("INSERT INTO ks.m (k, c, v1, v2) VALUES (%d, %d, %d, %d) USING TIMESTAMP %d", k, c, v1, v2, ts)
					r := row(k, c)
					r.marker = reconcile(r.marker, mcell{true, ts, 0})
					r.cols[0] = reconcile(r.cols[0], mcell{true, ts, v1})
					r.cols[1] = reconcile(r.cols[1], mcell{true, ts, v2})
				case op < 6:
					stmt = fmt.Sprintf("UPDATE ks.m USING TIMESTAMP %d SET v%d = %d WHERE k = %d AND c = %d", ts, col+1, v1, k, c)
					r := row(k, c)
					r.cols[col] = reconcile(r.cols[col], mcell{true, ts, v1})
				case op < 7:
					stmt = fmt.Sprintf("DELETE v%d FROM ks.m USING TIMESTAMP %d WHERE k = %d AND c = %d", col+1, ts, k, c)
					r := row(k, c)
					r.cols[col] = reconcile(r.cols[col], mcell{true, ts, -1})
				case op < 9:
					stmt = fmt.Sprintf("DELETE FROM ks.m USING TIMESTAMP %d WHERE k = %d AND c = %d", ts, k, c)
					r := row(k, c)
					r.del = max(r.del, ts)
				case op < 10:
					stmt = fmt.Sprintf("DELETE FROM ks.m USING TIMESTAMP %d WHERE k = %d", ts, k)
					p := part(k)
					p.del = max(p.del, ts)
				default:
					stmt = fmt.Sprintf("UPDATE ks.m USING TIMESTAMP %d SET s = %d WHERE k = %d", ts, v1, k)
					p := part(k)
					p.static = reconcile(p.static, mcell{true, ts, v1})
				}
				if err := cl.Exec(stmt); err != nil {
					t.Fatalf("%s: %v", stmt, err)
				}
			}
			want := map[string]string{}
			for k, p := range model {
				st := "null"
				if p.static.set && p.static.val >= 0 && p.static.ts > p.del {
					st = fmt.Sprint(p.static.val)
				}
				liveRows := 0
				for c, r := range p.rows {
					shadow := max(p.del, r.del)
					vals := [2]string{"null", "null"}
					live := r.marker.set && r.marker.ts > shadow
					for i, mc := range r.cols {
						if mc.set && mc.val >= 0 && mc.ts > shadow {
							vals[i] = fmt.Sprint(mc.val)
							live = true
						}
					}
					if live {
						want[fmt.Sprintf("%d/%d", k, c)] = st + "," + vals[0] + "," + vals[1]
						liveRows++
					}
				}
				// A partition with only a static value reads as one row
				// with null clustering and regular columns.
				if liveRows == 0 && st != "null" {
					want[fmt.Sprintf("%d/null", k)] = st + ",null,null"
				}
			}
			rows, err := cl.Query("SELECT k, c, s, v1, v2 FROM ks.m")
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, r := range rows {
				got[r["k"]+"/"+r["c"]] = r["s"] + "," + r["v1"] + "," + r["v2"]
			}
			for key, w := range want {
				if got[key] != w {
					t.Errorf("row %s: got %q, want %q", key, got[key], w)
				}
			}
			for key, g := range got {
				if _, ok := want[key]; !ok {
					t.Errorf("row %s = %q should not exist", key, g)
				}
			}
		})
	}
}
