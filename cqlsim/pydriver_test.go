package cqlsim

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// findPython returns a python3 that can import the DataStax driver. PATH
// comes first; Debian's interpreter is the fallback because a version
// manager's python3 on PATH often lacks the apt-installed module.
func findPython() (string, bool) {
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		path, err := exec.LookPath(p)
		if err != nil {
			continue
		}
		if exec.Command(path, "-c", "import cassandra.cluster, cassandra.murmur3").Run() == nil {
			return path, true
		}
	}
	return "", false
}

func TestPythonDriver(t *testing.T) {
	py, ok := findPython()
	if !ok {
		const msg = "no python3 with the DataStax driver (Debian: apt-get install python3-cassandra)"
		if os.Getenv("CI") != "" {
			// CI installs the driver (.ci/run), so there a missing one is a failure.
			t.Fatal(msg)
		}
		// make test must pass on a machine with only Go; say what was not checked.
		t.Skip(msg + ": the cross-check with cqlsh's driver did not run here; CI runs it")
	}
	cl := startCluster(t, Config{Nodes: 3, Seed: 2})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, py, "testdata/pydriver_check.py", "127.0.0.1", strconv.Itoa(cl.Port()), "3").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "OK") {
		t.Fatalf("pydriver_check.py: %v\n%s", err, out)
	}
	if w := cl.Stats().Total().RowsWritten; w < 1002 {
		t.Errorf("the Python driver wrote %d rows, want at least 1002", w)
	}
	// The writes of migrations: USING binds, conditional writes, functions.
	out, err = exec.CommandContext(ctx, py, "testdata/pydriver_writes.py", "127.0.0.1", strconv.Itoa(cl.Port())).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "OK") {
		t.Fatalf("pydriver_writes.py: %v\n%s", err, out)
	}
}
