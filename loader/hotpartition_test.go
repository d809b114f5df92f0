package loader

import (
	"fmt"
	"strings"
	"testing"
)

// TestHotPartition loads rows that all share one partition key: they go
// to one replica set, in batches of their own partition, which must stay
// within the batch limits in rows (--max-batch-size) and bytes
// (--max-batch-bytes) however many rows the partition has, so that the
// cluster never sees an oversized batch and no request times out or is
// retried. Narrow rows meet the row limit first, 1 KB rows the byte
// limit.
func TestHotPartition(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rows  int
		value int // bytes of v
	}{
		{"narrow", 50000, 10},
		{"1kb", 5000, 1000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := startCluster(t, 3, 1, `CREATE TABLE ks.hot (p int, c int, v text, PRIMARY KEY (p, c));`, nil)
			pad := strings.Repeat("v", tc.value-6)
			path := writeCSV(t, "hot.csv", tc.rows, func(i int) string { return fmt.Sprintf("7,%d,%06d%s\n", i, i, pad) })
			o := testOptions(t, c, "hot", path)
			s, err := runLoad(t, o)
			if err != nil {
				t.Fatal(err)
			}
			if s.RowsWritten != int64(tc.rows) || s.RowsRead != int64(tc.rows) {
				t.Fatalf("read %d, written %d; want %d of each", s.RowsRead, s.RowsWritten, tc.rows)
			}
			if s.BatchRowsMax > o.MaxBatchSize || s.BatchBytesMax > o.MaxBatchBytes {
				t.Errorf("largest request %d rows, %d bytes: over --max-batch-size %d or --max-batch-bytes %d",
					s.BatchRowsMax, s.BatchBytesMax, o.MaxBatchSize, o.MaxBatchBytes)
			}
			// The rows a request may hold: the row limit, or as many
			// of these rows (each of the same size) as fit the bytes.
			rowBytes := s.BatchBytesMax / s.BatchRowsMax
			perRequest := min(o.MaxBatchSize, o.MaxBatchBytes/rowBytes)
			if min := int64((tc.rows + perRequest - 1) / perRequest); s.Requests < min {
				t.Errorf("%d requests for %d rows: fewer than %d, so some held more than %d rows", s.Requests, tc.rows, min, perRequest)
			}
			if s.Retries != 0 {
				t.Errorf("%d retries: a hot partition's batches should need none", s.Retries)
			}
			total := c.Stats().Total()
			for _, kind := range []string{"write_timeout", "overloaded", "invalid", "server_error"} {
				if n := total.Errors[kind]; n != 0 {
					t.Errorf("the cluster answered %d %s errors", n, kind)
				}
			}
			if total.BatchesRejected != 0 || total.BatchWarnings != 0 {
				t.Errorf("the cluster rejected %d batches, warned of %d", total.BatchesRejected, total.BatchWarnings)
			}
			if total.RowsWritten != int64(tc.rows) {
				t.Errorf("the cluster wrote %d rows for %d", total.RowsWritten, tc.rows)
			}
			var n int
			if err := session(t, c).Query(`SELECT count(*) FROM ks.hot WHERE p = 7`).Scan(&n); err != nil || n != tc.rows {
				t.Fatalf("the partition holds %d rows (%v), want %d", n, err, tc.rows)
			}
		})
	}
}
