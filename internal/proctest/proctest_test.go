package proctest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadThroughProcesses: the built cqlload loads a file into a cqlsim
// process, and the rows are read back.
func TestLoadThroughProcesses(t *testing.T) {
	sim := StartSim(t, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\nCREATE TABLE ks.t (k int PRIMARY KEY, v text);\n", "--nodes", "2")
	in := filepath.Join(t.TempDir(), "in.csv")
	if err := os.WriteFile(in, []byte("1,a\n2,b\n3,c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := sim.Cmd(context.Background(), t, "--progress", "none", "--table", "ks.t", in).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "3 rows imported") {
		t.Fatalf("cqlload: %v\n%s", err, out)
	}
	var n int
	if err := sim.Session(t).Query("SELECT count(*) FROM ks.t").Scan(&n); err != nil || n != 3 {
		t.Fatalf("table holds %d rows (err %v)", n, err)
	}
}
