package loader

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cqlload/cqlload/cqlsim"
	"github.com/cqlload/cqlload/loader/internal/runlog"
)

// TestResumedRefusalsOfSentRows: a resumed run sends again the rows of
// the chunks the stopped run had not settled, some of which it wrote.
// When the cluster then refuses such a row for good, the table may hold
// it from the stopped run: it is unknown, never an insert error, since
// the summary must never call a stored row failed. A fresh run's
// refusals stay insert errors.
func TestResumedRefusalsOfSentRows(t *testing.T) {
	const rows = 3000
	c := startCluster(t, 1, 1, `CREATE TABLE ks.t (k int PRIMARY KEY, v text);`, nil)
	path := writeCSV(t, "in.csv", rows, func(k int) string { return fmt.Sprintf("%d,v%d\n", k, k) })
	dir := filepath.Dir(path)
	node := c.Node(0)
	o := testOptions(t, c, "t", path)
	o.ChunkSize = 100
	o.MinBatchSize, o.MaxBatchSize = 1, 10
	o.IngestRate = 5000
	o.RetryWindow = 10 * time.Second
	o.Resume = filepath.Join(dir, "ckpt")

	// The stopped run: half its requests refused and retried, so that
	// chunks it leaves unsettled hold rows it wrote.
	if err := node.SetFault(cqlsim.Fault{Rate: 0.5, Kind: "unavailable"}); err != nil {
		t.Fatal(err)
	}
	runInterrupted(t, o, 600)
	var ck runlog.Checkpoint
	if err := json.Unmarshal([]byte(readFile(t, o.Resume)), &ck); err != nil {
		t.Fatal(err)
	}
	written := tableKeys(t, c)
	if len(written) <= int(ck.RowsDone) || len(written) == rows {
		t.Fatalf("the stopped run wrote %d rows, %d of them in settled chunks: want rows of unsettled chunks written", len(written), ck.RowsDone)
	}

	// The resumed run: every request refused, once.
	if err := node.SetFault(cqlsim.Fault{Rate: 1, Kind: "unavailable"}); err != nil {
		t.Fatal(err)
	}
	o.MaxAttempts, o.MaxInsertErrors, o.IngestRate = 1, -1, 0
	s, _ := runLoad(t, o)
	failed := loggedKeys(t, o.ErrFile+".log", "insert error")
	for k := range failed {
		if written[k] {
			t.Errorf("row %d is in the table and logged as an insert error", k)
			break
		}
	}
	if s.RowsUnknown == 0 || !strings.Contains(readFile(t, o.ErrFile+".log"), "the run this one resumed may have written it") {
		t.Errorf("resumed run: %d unknown rows, %d insert errors; want the refused rows the stopped run may have sent unknown", s.RowsUnknown, s.RowsFailedInsert)
	}

	// A fresh run's refusals are insert errors.
	o.Resume = ""
	o.ErrFile = filepath.Join(dir, "fresh.err")
	s, _ = runLoad(t, o)
	if s.RowsFailedInsert != rows || s.RowsUnknown != 0 {
		t.Errorf("fresh run: %d insert errors, %d unknown; want %d and 0", s.RowsFailedInsert, s.RowsUnknown, rows)
	}
}

// tableKeys returns the keys ks.t holds.
func tableKeys(t *testing.T, c *cqlsim.Cluster) map[int]bool {
	t.Helper()
	got, err := c.Query(`SELECT k FROM ks.t`)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[int]bool{}
	for _, r := range got {
		k, err := strconv.Atoi(r["k"])
		if err != nil {
			t.Fatal(err)
		}
		keys[k] = true
	}
	return keys
}

// loggedKeys returns the keys of in.csv's rows (key = line - 1) that the
// error log gives the outcome kind.
func loggedKeys(t *testing.T, log, kind string) map[int]bool {
	t.Helper()
	f, err := os.Open(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	keys := map[int]bool{}
	re := regexp.MustCompile(`in\.csv:(\d+): ` + regexp.QuoteMeta(kind) + `:`)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			line, _ := strconv.Atoi(m[1])
			keys[line-1] = true
		}
	}
	return keys
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
