package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestDryRun: --dry-run connects, reads and converts everything, writes
// the error file and summary, sends nothing, and exits as a real run
// would.
func TestDryRun(t *testing.T) {
	c := startSim(t)
	port := strconv.Itoa(c.Port())
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	os.WriteFile(in, []byte("1,a,1\n2,b,x\n3,c,3\n4,d,4\n"), 0o644)
	errFile := filepath.Join(dir, "e.err")
	before := c.Stats().Total().RowsWritten

	code, out, stderr := runCLI(t, "", "--hosts", "127.0.0.1", "--port", port, "--progress", "none", "--dry-run",
		"--err-file", errFile, "--summary-json", filepath.Join(dir, "s.json"), "--columns", "k,v,n", "--table", "ks.t", in)
	if code != exitRejected || !strings.Contains(out, "Dry run: 3 rows would be imported") {
		t.Fatalf("exit %d, want %d (one bad row)\n%s\n%s", code, exitRejected, out, stderr)
	}
	if w := c.Stats().Total().RowsWritten - before; w != 0 {
		t.Fatalf("a dry run wrote %d rows", w)
	}
	// Nothing was sent: no request figures or in-flight limits.
	if !strings.Contains(out, "4 rows read.\n") || strings.Contains(out, "latency") || strings.Contains(out, "In-flight limits") {
		t.Errorf("a dry run's summary reports requests:\n%s", out)
	}
	if b, _ := os.ReadFile(errFile); string(b) != "2,b,x\n" {
		t.Fatalf("error file %q", b)
	}
	var s map[string]any
	b, _ := os.ReadFile(filepath.Join(dir, "s.json"))
	if err := json.Unmarshal(b, &s); err != nil || s["dry_run"] != true || s["rows_dry_run"].(float64) != 3 || s["rows_written"].(float64) != 0 {
		t.Fatalf("summary %s (err %v)", b, err)
	}

	// --dry-run-rows reads only the first records.
	code, out, _ = runCLI(t, "", "--hosts", "127.0.0.1", "--port", port, "--progress", "none", "--dry-run", "--dry-run-rows", "1",
		"--err-file", errFile, "--columns", "k,v,n", "--table", "ks.t", in)
	if code != exitOK || !strings.Contains(out, "Dry run: 1 rows would be imported") {
		t.Fatalf("--dry-run-rows 1: exit %d\n%s", code, out)
	}

	// A dry run cannot be resumed.
	code, _, stderr = runCLI(t, "", "--dry-run", "--resume", filepath.Join(dir, "ck"), "--columns", "k,v,n", "--table", "ks.t", in)
	if code != exitUsage || !strings.Contains(stderr, "dry run cannot be resumed") {
		t.Fatalf("--dry-run --resume: exit %d\n%s", code, stderr)
	}
}
