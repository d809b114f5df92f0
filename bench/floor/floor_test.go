package floor

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cqlload/cqlload/cqlsim"
	"github.com/cqlload/cqlload/loader"
)

const testSchema = `
CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE TABLE ks.t (p int, c int, v text, PRIMARY KEY (p, c));
CREATE TABLE ks.cnt (p int, c int, n counter, PRIMARY KEY (p, c));`

// startSim starts a store-mode cluster in this process.
func startSim(t *testing.T, cfg cqlsim.Config) *cqlsim.Cluster {
	t.Helper()
	cfg.Schema = []string{testSchema}
	cl, err := cqlsim.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	return cl
}

// writeCSV writes rows rows of ks.t (or ks.cnt): partitions of one to
// five rows, so that batches pool small partitions and cut larger ones,
// and every seventh value null.
func writeCSV(t *testing.T, rows int, counter bool) string {
	t.Helper()
	var b bytes.Buffer
	if counter {
		b.WriteString("p,c,n\n")
	} else {
		b.WriteString("p,c,v\n")
	}
	for i := range rows {
		p, c := key(i)
		switch {
		case counter:
			fmt.Fprintf(&b, "%d,%d,%d\n", p, c, i+1)
		case i%7 == 0:
			fmt.Fprintf(&b, "%d,%d,\n", p, c)
		default:
			fmt.Fprintf(&b, "%d,%d,v%d\n", p, c, i)
		}
	}
	path := filepath.Join(t.TempDir(), "in.csv")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func key(i int) (p, c int) { return i / 3 * (1 + i%5), i }

func options(cl *cqlsim.Cluster, table, file string) loader.Options {
	o := loader.DefaultOptions()
	o.Hosts, o.Port, o.Keyspace, o.Table, o.Files = cl.Hosts(), cl.Port(), "ks", table, []string{file}
	o.RequestTimeout = 5 * time.Second
	return o
}

func TestRunStoresEveryRow(t *testing.T) {
	const rows = 1500
	tests := []struct {
		name      string
		sim       cqlsim.Config
		counter   bool
		chunk     int // 0: the default
		segment   int
		wantConns int
	}{
		{name: "batches on 3 nodes", sim: cqlsim.Config{Nodes: 3}, segment: 400, wantConns: 6},
		{name: "one-row EXECUTEs", sim: cqlsim.Config{Nodes: 2}, chunk: 1, wantConns: 4},
		{name: "4 shards a node", sim: cqlsim.Config{Nodes: 3, Shards: 4}, wantConns: 12},
		{name: "password", sim: cqlsim.Config{Nodes: 1, Username: "u", Password: "secret"}, wantConns: 2},
		{name: "counter batches", sim: cqlsim.Config{Nodes: 3}, counter: true, wantConns: 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl := startSim(t, tt.sim)
			table := "t"
			if tt.counter {
				table = "cnt"
			}
			o := options(cl, table, writeCSV(t, rows, tt.counter))
			o.Username, o.Password = tt.sim.Username, tt.sim.Password
			if tt.chunk > 0 {
				o.ChunkSize = tt.chunk
			}
			res, err := Run(context.Background(), Config{Options: o, SegmentRows: tt.segment})
			if err != nil {
				t.Fatal(err)
			}
			if res.Rows != rows || res.Errors != 0 || res.Connections != tt.wantConns {
				t.Errorf("result %+v, want %d rows, no errors, %d connections", res, rows, tt.wantConns)
			}
			if res.CPUS <= 0 || res.SendS <= 0 || res.Requests < 1 {
				t.Errorf("implausible timings %+v", res)
			}
			if tt.chunk == 1 && res.Requests != rows {
				t.Errorf("%d requests for %d one-row chunks", res.Requests, rows)
			}
			if tt.chunk == 0 && res.Requests*2 > rows {
				t.Errorf("%d requests for %d rows: batches expected", res.Requests, rows)
			}

			st := cl.Stats().Total()
			if st.RowsWritten != rows || st.RowsWrittenAsReplica != rows {
				t.Errorf("cluster wrote %d rows, %d as a replica; want %d", st.RowsWritten, st.RowsWrittenAsReplica, rows)
			}
			if tt.sim.Shards > 0 && st.RowsWrittenOnShard != rows {
				t.Errorf("%d of %d rows came in on their shard's connection", st.RowsWrittenOnShard, rows)
			}
			checkStored(t, cl, rows, tt.counter)
		})
	}
}

// checkStored reads the table back and compares each row with the CSV's.
func checkStored(t *testing.T, cl *cqlsim.Cluster, rows int, counter bool) {
	t.Helper()
	q, col := "SELECT p, c, v FROM ks.t", "v"
	if counter {
		q, col = "SELECT p, c, n FROM ks.cnt", "n"
	}
	got, err := cl.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]string{}
	for _, r := range got {
		stored[r["p"]+","+r["c"]] = r[col]
	}
	if len(stored) != rows {
		t.Errorf("%d rows stored, want %d", len(stored), rows)
	}
	for i := range rows {
		p, c := key(i)
		want := fmt.Sprintf("'v%d'", i)
		switch {
		case counter:
			want = fmt.Sprint(i + 1)
		case i%7 == 0:
			want = "null"
		}
		if v := stored[fmt.Sprintf("%d,%d", p, c)]; v != want {
			t.Errorf("row %d (%d, %d): stored %s, want %s", i, p, c, v, want)
		}
	}
}

// TestRunFailsOnBadRequests checks that a request the cluster does not
// answer with a RESULT fails the run instead of counting its rows.
func TestRunFailsOnBadRequests(t *testing.T) {
	// idAt is where the prepared id starts: an EXECUTE begins with it, a
	// BATCH's first child after type, count, kind and the id's length.
	idAt := func(op byte) int {
		if op == opExecute {
			return headerLen + 2
		}
		return headerLen + 1 + 2 + 1 + 2
	}
	tests := []struct {
		name     string
		chunk    int
		mangle   func(op byte, f []byte) []byte
		wantCode int // 0: any failure
	}{
		{
			name:  "unknown prepared id in EXECUTE",
			chunk: 1,
			mangle: func(op byte, f []byte) []byte {
				f[idAt(op)] ^= 0xff
				return f
			},
			wantCode: 0x2500, // UNPREPARED
		},
		{
			name: "unknown prepared id in BATCH",
			mangle: func(op byte, f []byte) []byte {
				f[idAt(op)] ^= 0xff
				return f
			},
			wantCode: 0x2500,
		},
		{
			name: "unknown opcode",
			mangle: func(_ byte, f []byte) []byte {
				f[4] = 0x42
				return f
			},
		},
		{
			// The cluster then reads the next request from the middle of
			// this one: the connection is garbage from there on.
			name: "length one byte short",
			mangle: func(_ byte, f []byte) []byte {
				binary.BigEndian.PutUint32(f[5:], binary.BigEndian.Uint32(f[5:])-1)
				return f
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl := startSim(t, cqlsim.Config{Nodes: 2})
			o := options(cl, "t", writeCSV(t, 300, false))
			o.RequestTimeout = 2 * time.Second
			if tt.chunk > 0 {
				o.ChunkSize = tt.chunk
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			res, err := Run(ctx, Config{Options: o, mangle: tt.mangle})
			if err == nil {
				t.Fatalf("run succeeded with bad requests: %+v", res)
			}
			if ctx.Err() != nil {
				t.Fatalf("the run hung until the test's deadline: %v", err)
			}
			if res.Rows == 300 {
				t.Errorf("all %d rows counted as written despite %v", res.Rows, err)
			}
			if tt.wantCode != 0 {
				var se *ServerError
				if !errors.As(err, &se) || se.Code != tt.wantCode || res.Errors == 0 {
					t.Errorf("error %v (%d errors), want a server error %#x", err, res.Errors, tt.wantCode)
				}
			}
			if !strings.HasPrefix(err.Error(), "floor: ") {
				t.Errorf("error %q does not say where it came from", err)
			}
		})
	}
}
