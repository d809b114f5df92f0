package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestFlagErrors(t *testing.T) {
	tests := [][]string{
		{"--nodes", "0"},
		{"--bogus"},
		{"--fail-with", "gremlins"},
		{"--fail-rate", "2"},
		{"--latency", "5ms-1ms"},
		{"--auth", "nopass"},
		{"--tls-cert", "x.pem"},
		{"extra-arg"},
	}
	for _, args := range tests {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var out, errb strings.Builder
			if code := run(args, strings.NewReader(""), &out, &errb); code != exitUsage {
				t.Errorf("exit %d, want %d; stderr %q", code, exitUsage, errb.String())
			}
			if errb.Len() == 0 {
				t.Error("no message on stderr")
			}
		})
	}
}

func TestRunPrintsReadyAndServesStats(t *testing.T) {
	dir := t.TempDir()
	schema := filepath.Join(dir, "s.cql")
	if err := os.WriteFile(schema, []byte("CREATE KEYSPACE k WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\nCREATE TABLE k.t (a int PRIMARY KEY);\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- runContext(ctx, []string{"--dcs", "dc1:2,dc2:1", "--port", "0", "--schema", schema, "--stats-addr", "127.0.0.1:0", "--latency", "1ms-2ms"}, pw, io.Discard)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	var lines []string
	var statsURL string
	for sc.Scan() {
		line := sc.Text()
		lines = append(lines, line)
		if u, ok := strings.CutPrefix(line, "stats on "); ok {
			statsURL = u
		}
		if line == "ready" {
			break
		}
	}
	if len(lines) != 5 || !strings.HasPrefix(lines[1], "node 1 dc1/rack1 listening on 127.0.0.1:") ||
		!strings.HasPrefix(lines[3], "node 3 dc2/rack1 listening on 127.0.0.3:") {
		t.Fatalf("output %q", lines)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(statsURL)
	if err != nil {
		t.Fatal(err)
	}
	var stats struct {
		Nodes []struct {
			Node int    `json:"node"`
			DC   string `json:"dc"`
		} `json:"nodes"`
		Process struct {
			CPU float64 `json:"cpu_user_seconds"`
			RSS float64 `json:"max_rss_mib"`
		} `json:"process"`
	}
	err = json.NewDecoder(resp.Body).Decode(&stats)
	resp.Body.Close()
	if err != nil || len(stats.Nodes) != 3 || stats.Nodes[2].DC != "dc2" || stats.Process.RSS <= 0 {
		t.Errorf("stats %+v, %v", stats, err)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d after cancel, want 0", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return after cancel")
	}
}
