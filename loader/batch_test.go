package loader

import (
	"fmt"
	"reflect"
	"testing"
)

func TestGroupBatches(t *testing.T) {
	lim := batchLimits{minRows: 2, maxRows: 3, maxBytes: 100}
	r := func(p string, set, size int) groupRow { return groupRow{partition: p, replicas: set, size: size} }
	tests := []struct {
		name string
		rows []groupRow
		lim  batchLimits
		want [][]int
	}{
		{"empty", nil, lim, nil},
		{"one row", []groupRow{r("a", 0, 10)}, lim, [][]int{{0}}},
		{
			"big partition gets its own batches, cut at max rows",
			[]groupRow{r("a", 0, 1), r("a", 0, 1), r("a", 0, 1), r("a", 0, 1)},
			lim, [][]int{{0, 1, 2}, {3}},
		},
		{
			"small partitions pooled by replica set",
			[]groupRow{r("a", 0, 1), r("b", 1, 1), r("c", 0, 1), r("d", 1, 1)},
			lim, [][]int{{0, 2}, {1, 3}},
		},
		{
			"pool cut at max rows keeps partitions whole",
			[]groupRow{r("a", 0, 1), r("b", 0, 1), r("c", 0, 1), r("d", 0, 1)},
			batchLimits{minRows: 3, maxRows: 3, maxBytes: 100},
			[][]int{{0, 1, 2}, {3}},
		},
		{
			"byte cap",
			[]groupRow{r("a", 0, 60), r("b", 0, 60), r("c", 0, 30)},
			lim, [][]int{{0}, {1, 2}},
		},
		{
			"partition of two rows with min 2 stands alone",
			[]groupRow{r("a", 0, 1), r("b", 0, 1), r("a", 0, 1)},
			lim, [][]int{{0, 2}, {1}},
		},
		{
			"oversized single row still sent",
			[]groupRow{r("a", 0, 500), r("b", 0, 1)},
			lim, [][]int{{0}, {1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := groupBatches(tt.rows, tt.lim)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("groupBatches = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestGroupBatchesInvariants checks, over many shapes, that every row is in
// exactly one batch, batches respect the limits (a lone oversized row
// aside), and a batch never mixes replica sets.
func TestGroupBatchesInvariants(t *testing.T) {
	for seed := 0; seed < 200; seed++ {
		n := seed % 97
		rows := make([]groupRow, n)
		for i := range rows {
			rows[i] = groupRow{
				partition: fmt.Sprint((i * (seed + 7)) % (seed%13 + 1)),
				size:      (i*31+seed)%40 + 1,
			}
			rows[i].replicas = len(rows[i].partition) % 3
		}
		lim := batchLimits{minRows: seed%5 + 1, maxRows: seed%5 + 1 + seed%7, maxBytes: 60 + seed%100}
		seen := make([]int, n)
		for _, b := range groupBatches(rows, lim) {
			bytes := 0
			for _, i := range b {
				seen[i]++
				bytes += rows[i].size
				if rows[i].replicas != rows[b[0]].replicas {
					t.Fatalf("seed %d: batch %v mixes replica sets", seed, b)
				}
			}
			if len(b) > lim.maxRows || (len(b) > 1 && bytes > lim.maxBytes) {
				t.Fatalf("seed %d: batch %v (%d bytes) exceeds %+v", seed, b, bytes, lim)
			}
		}
		for i, c := range seen {
			if c != 1 {
				t.Fatalf("seed %d: row %d in %d batches", seed, i, c)
			}
		}
	}
}

// A grouper reused over chunks of every shape, larger and smaller than
// the last, must group each exactly as a fresh one does: no state may
// leak from one chunk into the next.
func TestGrouperReuseMatchesFresh(t *testing.T) {
	var reused grouper
	for seed := 0; seed < 300; seed++ {
		n := (seed * 37) % 211
		rows := make([]groupRow, n)
		for i := range rows {
			rows[i] = groupRow{
				partition: fmt.Sprint((i * (seed + 3)) % (seed%17 + 1)),
				replicas:  (i + seed) % 4,
				size:      (i*13+seed)%50 + 1,
			}
		}
		lim := batchLimits{minRows: seed%4 + 1, maxRows: seed%4 + 2 + seed%9, maxBytes: 80 + seed%120}
		want := groupBatches(rows, lim)
		got := reused.group(rows, lim)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: reused grouper gave\n%v\nfresh one\n%v", seed, got, want)
		}
	}
}
