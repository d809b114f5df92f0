package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cqlload/cqlload/cqlsim"
)

func TestFlagErrors(t *testing.T) {
	tests := [][]string{
		{"--nodes", "0"},
		{"--bogus"},
		{"--fail-with", "gremlins"},
		{"--fail-rate", "2"},
		{"--fail-rate", "NaN"},
		{"--latency", "5ms-1ms"},
		{"--auth", "nopass"},
		{"--tls-cert", "x.pem"},
		{"--capacity", "-1"},
		{"--capacity", "many"},
		{"--overload", "drop"},
		{"--overload", ""},
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

func TestCapacityFlagsReachConfig(t *testing.T) {
	tests := []struct {
		args []string
		rate int
		mode cqlsim.OverloadMode
	}{
		{nil, 0, cqlsim.OverloadShed},
		{[]string{"--capacity", "5000"}, 5000, cqlsim.OverloadShed},
		{[]string{"--capacity=200", "--overload=queue"}, 200, cqlsim.OverloadQueue},
		{[]string{"--capacity", "10", "--overload", "timeout"}, 10, cqlsim.OverloadTimeout},
		{[]string{"--overload", "queue"}, 0, cqlsim.OverloadQueue},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			cfg, _, err := parseFlags(tc.args, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Capacity != tc.rate || cfg.Overload != tc.mode {
				t.Errorf("Capacity %d, Overload %q; want %d, %q", cfg.Capacity, cfg.Overload, tc.rate, tc.mode)
			}
		})
	}
}

// started is a run() serving on free ports.
type started struct {
	lines    []string // the output up to "ready"
	statsURL string
	cancel   func()
	done     chan int
}

func startRun(t *testing.T, args ...string) *started {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	r := &started{cancel: cancel, done: make(chan int, 1)}
	go func() {
		r.done <- runContext(ctx, append([]string{"--port", "0", "--stats-addr", "127.0.0.1:0"}, args...), pw, io.Discard)
		pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		<-r.done
	})
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		line := sc.Text()
		r.lines = append(r.lines, line)
		if u, ok := strings.CutPrefix(line, "stats on "); ok {
			r.statsURL = u
		}
		if line == "ready" {
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	if r.statsURL == "" {
		t.Fatalf("no stats address in %q", r.lines)
	}
	return r
}

// stop cancels the run and checks it ends with status 0.
func (r *started) stop(t *testing.T) {
	t.Helper()
	r.cancel()
	select {
	case code := <-r.done:
		r.done <- code // for the cleanup
		if code != 0 {
			t.Errorf("exit %d after cancel, want 0", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return after cancel")
	}
}

func TestRunPrintsReadyAndServesStats(t *testing.T) {
	dir := t.TempDir()
	schema := filepath.Join(dir, "s.cql")
	if err := os.WriteFile(schema, []byte("CREATE KEYSPACE k WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\nCREATE TABLE k.t (a int PRIMARY KEY);\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := startRun(t, "--dcs", "dc1:2,dc2:1", "--schema", schema, "--latency", "1ms-2ms")
	lines := r.lines
	if len(lines) != 5 || !strings.HasPrefix(lines[1], "node 1 dc1/rack1 listening on 127.0.0.1:") ||
		!strings.HasPrefix(lines[3], "node 3 dc2/rack1 listening on 127.0.0.3:") {
		t.Fatalf("output %q", lines)
	}
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(r.statsURL)
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
	r.stop(t)
}

// TestRunServesControl: the binary's --stats-addr takes the control
// requests: a node stopped over HTTP refuses connections and shows down in
// /stats, and comes back when started.
func TestRunServesControl(t *testing.T) {
	r := startRun(t, "--nodes", "2")
	base := strings.TrimSuffix(r.statsURL, "/stats")
	c := &http.Client{Timeout: 5 * time.Second}
	post := func(path string, want int) string {
		t.Helper()
		resp, err := c.Post(base+path, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != want {
			t.Fatalf("POST %s: %d %s, want %d", path, resp.StatusCode, b, want)
		}
		return string(b)
	}
	type nodeStats struct {
		Address string           `json:"address"`
		Up      bool             `json:"up"`
		Paused  bool             `json:"paused"`
		Errors  map[string]int64 `json:"errors"`
	}
	stats := func() []nodeStats {
		t.Helper()
		resp, err := c.Get(r.statsURL)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var st struct {
			Nodes []nodeStats `json:"nodes"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&st); err != nil || len(st.Nodes) != 2 {
			t.Fatalf("stats %+v, %v", st, err)
		}
		return st.Nodes
	}
	addr := strings.TrimPrefix(r.lines[2], "node 2 datacenter1/rack1 listening on ")
	if !strings.HasPrefix(addr, "127.0.0.2:") {
		t.Fatalf("node 2 line %q", r.lines[2])
	}
	if st := stats(); !st[1].Up || st[1].Paused || st[1].Errors == nil {
		t.Fatalf("node 2 before stop: %+v", st[1])
	}
	if body := post("/nodes/2/stop", http.StatusOK); !strings.Contains(body, `"up": false`) {
		t.Errorf("stop answered %s", body)
	}
	if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		conn.Close()
		t.Error("node 2 accepts connections after stop")
	}
	if st := stats(); st[1].Up || !st[0].Up {
		t.Errorf("after stop: node 1 up %v, node 2 up %v", st[0].Up, st[1].Up)
	}
	post("/nodes/2/start", http.StatusOK)
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		t.Fatalf("node 2 refuses connections after start: %v", err)
	}
	conn.Close()
	post("/nodes/1/pause", http.StatusOK)
	if st := stats(); !st[1].Up || !st[0].Paused {
		t.Errorf("after start and pause: %+v", st)
	}
	post("/nodes/1/resume", http.StatusOK)
	post("/nodes/1/faults?rate=0.5&kind=write_timeout&latency=1ms-2ms", http.StatusOK)
	if body := post("/nodes/2/capacity?rows_per_sec=100&mode=timeout", http.StatusOK); !strings.Contains(body, `"rows_per_sec": 100`) ||
		!strings.Contains(body, `"mode": "timeout"`) {
		t.Errorf("capacity answered %s", body)
	}
	if body := post("/nodes/2/capacity?mode=queue", http.StatusBadRequest); !strings.Contains(body, "rows_per_sec") {
		t.Errorf("capacity without rows_per_sec answered %q", body)
	}
	if body := post("/nodes/3/stop", http.StatusNotFound); !strings.Contains(body, "no node") {
		t.Errorf("unknown node answered %q", body)
	}
	if body := post("/nodes/1/faults?kind=gremlins", http.StatusBadRequest); !strings.Contains(body, "kind") {
		t.Errorf("bad kind answered %q", body)
	}
	r.stop(t)
}

func TestHelpListsEndpoints(t *testing.T) {
	var out, errb strings.Builder
	if code := run([]string{"--help"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("--help exit %d", code)
	}
	for _, want := range []string{"GET  /stats", "/nodes/{n}/stop", "/nodes/{n}/start", "/nodes/{n}/pause",
		"/nodes/{n}/resume", "/nodes/{n}/drop-connections", "/nodes/{n}/faults?rate=R&kind=K&latency=L&fail_next=N",
		"/nodes/{n}/capacity?rows_per_sec=N&mode=M", "--capacity", "--overload", "404", "400", "405"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("--help does not mention %q", want)
		}
	}
}
