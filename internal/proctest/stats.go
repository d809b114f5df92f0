package proctest

import (
	"encoding/json"
	"net/http"
	"testing"
)

// RowsWritten is the number of row mutations the simulator's nodes have
// coordinated since it started: the sum of rows_written over the nodes of
// GET /stats. A test reads it before and after a run to see what the run
// sent, or polls it to act once a run has begun writing.
func (s *Sim) RowsWritten(t testing.TB) int64 {
	t.Helper()
	resp, err := http.Get(s.Stats + "/stats")
	if err != nil {
		t.Fatalf("cqlsim /stats: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("cqlsim /stats: %s", resp.Status)
	}
	var st struct {
		Nodes []struct {
			RowsWritten int64 `json:"rows_written"`
		} `json:"nodes"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatalf("cqlsim /stats: %v", err)
	}
	var n int64
	for _, node := range st.Nodes {
		n += node.RowsWritten
	}
	return n
}
