package loader

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cqlload/cqlload/cqlsim"
	"github.com/cqlload/cqlload/internal/murmur3"
)

// TestTokenOrderHint: a file in token order, loaded into 3 nodes of RF 1,
// gets the hint once, naming the file and the remedy, in the summary and
// its JSON; the same rows shuffled get none. With 1 and 16 tokens a node.
func TestTokenOrderHint(t *testing.T) {
	const rows = 12_000
	keys := make([]int, rows)
	for i := range keys {
		keys[i] = i
	}
	token := func(k int) int64 {
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], uint32(int32(k)))
		return murmur3.Token(b[:])
	}
	sorted := slices.Clone(keys)
	slices.SortFunc(sorted, func(a, b int) int { return int(max(-1, min(1, token(a)-token(b)))) })
	shuffled := slices.Clone(keys)
	rand.New(rand.NewPCG(1, 2)).Shuffle(rows, func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for _, vnodes := range []int{1, 16} {
		c := startCluster(t, 3, 1, `CREATE TABLE ks.o (k int PRIMARY KEY, v text);`, func(cfg *cqlsim.Config) { cfg.VNodes = vnodes })
		for _, tc := range []struct {
			name string
			keys []int
			want bool
		}{{"token-sorted", sorted, true}, {"shuffled", shuffled, false}} {
			file := writeCSV(t, tc.name+".csv", rows, func(i int) string { return fmt.Sprintf("%d,v%d\n", tc.keys[i], tc.keys[i]) })
			o := testOptions(t, c, "o", file)
			o.ChunkSize = 250
			l, err := New(o)
			if err != nil {
				t.Fatal(err)
			}
			// Windows of 500 rows: the file holds 4,000 a node's range
			// with one token, 250 with 16.
			l.order.windowRows = 500
			if vnodes == 16 {
				l.order.windowRows = 100
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			s, err := l.Run(ctx)
			cancel()
			if err != nil {
				t.Fatalf("%d tokens a node, %s: %v", vnodes, tc.name, err)
			}
			checkAccounting(t, s)
			if s.RowsWritten != rows {
				t.Fatalf("%d tokens a node, %s: %d rows written, want %d", vnodes, tc.name, s.RowsWritten, rows)
			}
			var hints []string
			for _, h := range s.Hints {
				if strings.Contains(h, "token order") {
					hints = append(hints, h)
				}
			}
			if !tc.want {
				if len(hints) != 0 {
					t.Errorf("%d tokens a node, %s: hints %q, want no token order", vnodes, tc.name, hints)
				}
				continue
			}
			if len(hints) != 1 || !strings.Contains(hints[0], "of "+file) || !strings.Contains(hints[0], "of 3 (127.0.0.") || !strings.Contains(hints[0], "--split I/N") {
				t.Fatalf("%d tokens a node, %s: token order hints %q, want one naming the file, a node and --split", vnodes, tc.name, hints)
			}
			js, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(js), `"hints":[`) || !strings.Contains(string(js), "token order") {
				t.Errorf("%d tokens a node, %s: JSON summary without the hint: %s", vnodes, tc.name, js)
			}
			t.Logf("%d tokens a node: %s", vnodes, hints[0])
			if got := l.Hints(); !slices.Equal(got, s.Hints) {
				t.Errorf("%d tokens a node, %s: Hints() %q, summary %q", vnodes, tc.name, got, s.Hints)
			}
		}
	}
}
