package cqlsim

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

// controlClient sends requests to a ControlHandler.
type controlClient struct {
	t   *testing.T
	url string
}

func newControl(t *testing.T, cl *Cluster) *controlClient {
	srv := httptest.NewServer(cl.ControlHandler())
	t.Cleanup(srv.Close)
	return &controlClient{t: t, url: srv.URL}
}

// do sends method path and returns the status and the body.
func (c *controlClient) do(method, path string) (int, string) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.url+path, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// post sends a control request that must succeed and returns the node state.
func (c *controlClient) post(path string) nodeState {
	c.t.Helper()
	code, body := c.do(http.MethodPost, path)
	if code != http.StatusOK {
		c.t.Fatalf("POST %s: %d %s", path, code, body)
	}
	var st nodeState
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		c.t.Fatalf("POST %s: %v in %s", path, err, body)
	}
	return st
}

func (c *controlClient) stats() Stats {
	c.t.Helper()
	code, body := c.do(http.MethodGet, "/stats")
	if code != http.StatusOK {
		c.t.Fatalf("GET /stats: %d %s", code, body)
	}
	var st Stats
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		c.t.Fatal(err)
	}
	return st
}

func TestControlErrors(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 3})
	c := newControl(t, cl)
	tests := []struct {
		method, path string
		code         int
		// body holds what the message must say.
		body []string
	}{
		{"POST", "/nodes/4/stop", 404, []string{`no node "4"`, "1 to 3"}},
		{"POST", "/nodes/0/start", 404, []string{`no node "0"`}},
		{"POST", "/nodes/two/pause", 404, []string{`no node "two"`}},
		{"GET", "/nodes/9", 404, []string{`no node "9"`}},
		{"POST", "/nodes/1/explode", 404, nil},
		{"GET", "/nodes/1/stop", 405, nil},
		{"PUT", "/nodes/1/faults", 405, nil},
		{"POST", "/stats", 405, nil},
		{"POST", "/nodes/1/faults?rate=2", 400, []string{"rate", `"2"`}},
		{"POST", "/nodes/1/faults?rate=NaN", 400, []string{"rate"}},
		{"POST", "/nodes/1/faults?kind=gremlins", 400, []string{"kind", "gremlins"}},
		{"POST", "/nodes/1/faults?latency=5ms-1ms", 400, []string{"latency", "MIN <= MAX"}},
		{"POST", "/nodes/1/faults?latency=soon", 400, []string{"latency", "soon"}},
		{"POST", "/nodes/1/faults?fail_next=-1", 400, []string{"fail_next"}},
		{"POST", "/nodes/1/faults?rates=0.1", 400, []string{`unknown parameter "rates"`}},
		{"POST", "/nodes/1/faults?rate=0.1&rate=0.2", 400, []string{"rate: given 2 times"}},
		{"POST", "/nodes/1/faults?rate=-1&kind=x", 400, []string{"rate", "kind"}},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			code, body := c.do(tc.method, tc.path)
			if code != tc.code {
				t.Errorf("status %d (%s), want %d", code, strings.TrimSpace(body), tc.code)
			}
			for _, want := range tc.body {
				if !strings.Contains(body, want) {
					t.Errorf("body %q does not say %q", body, want)
				}
			}
		})
	}
	// A refused fault changes nothing.
	if f := cl.Node(0).Fault(); f.Rate != 0 || f.FailNext != 0 || f.LatencyMin != 0 {
		t.Errorf("fault after bad requests: %+v", f)
	}
}

func TestControlStopStart(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 2})
	if err := cl.Exec(ks1 + "; CREATE TABLE ks.t (k int PRIMARY KEY); INSERT INTO ks.t (k) VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	c := newControl(t, cl)
	addr := cl.Node(1).Addr()
	if st := c.post("/nodes/2/stop"); st.Node != 2 || st.Up || st.Address != "127.0.0.2" {
		t.Errorf("state after stop %+v", st)
	}
	if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		conn.Close()
		t.Fatal("a stopped node accepted a connection")
	}
	if st := c.post("/nodes/2/stop"); st.Up {
		t.Error("second stop: up")
	}
	if code, body := c.do("POST", "/nodes/2/pause"); code != http.StatusConflict || !strings.Contains(body, "stopped") {
		t.Errorf("pause of a stopped node: %d %s, want 409", code, body)
	}
	if st := c.stats(); st.Nodes[1].Up || !st.Nodes[0].Up {
		t.Errorf("stats up: %v %v, want true false", st.Nodes[0].Up, st.Nodes[1].Up)
	}
	if st := c.post("/nodes/2/start"); !st.Up || st.Paused {
		t.Errorf("state after start %+v", st)
	}
	if st := c.post("/nodes/2/start"); !st.Up {
		t.Error("start of a running node: not up")
	}
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		t.Fatalf("restarted node refuses connections: %v", err)
	}
	conn.Close()
	if ks := rowKeys(t, cl, "SELECT k FROM ks.t"); len(ks) != 1 {
		t.Errorf("rows after restart %v", ks)
	}
	if st := c.post("/nodes/2/drop-connections"); !st.Up {
		t.Error("drop-connections stopped the node")
	}
	if err := cl.Close(); err != nil {
		t.Fatal(err)
	}
	cl.Node(1).Stop()
	if code, body := c.do("POST", "/nodes/2/start"); code != http.StatusServiceUnavailable {
		t.Errorf("start after Close: %d %s, want 503", code, body)
	}
}

// TestControlFaultsAndPauseWithGocql drives a node through HTTP while a
// driver uses it.
func TestControlFaultsAndPauseWithGocql(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 1})
	s := connect(t, cl, func(cc *gocql.ClusterConfig) { cc.RetryPolicy = &gocql.SimpleRetryPolicy{NumRetries: 0} })
	mustExec(t, s, ks1, "CREATE TABLE ks.h (k int PRIMARY KEY)")
	c := newControl(t, cl)
	insert := func(k int) error { return s.Query("INSERT INTO ks.h (k) VALUES (?)", k).Exec() }

	st := c.post("/nodes/1/faults?kind=write_timeout&fail_next=1")
	if st.Fault.Kind != "write_timeout" || st.Fault.FailNext != 1 || st.Fault.Rate != 0 {
		t.Errorf("fault state %+v", st.Fault)
	}
	var wt *gocql.RequestErrWriteTimeout
	if err := insert(1); !errors.As(err, &wt) {
		t.Fatalf("insert under write_timeout: %v, want WriteTimeout", err)
	}
	if ks := rowKeys(t, cl, "SELECT k FROM ks.h WHERE k = 1"); len(ks) != 1 {
		t.Error("the write that timed out is not in the table")
	}
	if err := insert(2); err != nil {
		t.Fatalf("after the one failure: %v", err)
	}

	st = c.post("/nodes/1/faults?rate=1&kind=overloaded&latency=40ms")
	if st.Fault.Rate != 1 || st.Fault.Latency != "40ms" {
		t.Errorf("fault state %+v", st.Fault)
	}
	start := time.Now()
	if err := insert(3); codeOf(err) != gocql.ErrCodeOverloaded {
		t.Errorf("insert at rate 1 overloaded: %v", err)
	}
	if d := time.Since(start); d < 40*time.Millisecond {
		t.Errorf("answer after %v, want the 40ms latency", d)
	}
	if st := c.post("/nodes/1/faults"); st.Fault.Rate != 0 || st.Fault.Latency != "" {
		t.Errorf("faults without parameters left %+v", st.Fault)
	}
	if err := insert(4); err != nil {
		t.Errorf("insert with faults cleared: %v", err)
	}
	errs := c.stats().Nodes[0].Errors
	if errs["write_timeout"] != 1 || errs["overloaded"] != 1 {
		t.Errorf("stats errors %v, want write_timeout 1 and overloaded 1", errs)
	}

	if st := c.post("/nodes/1/pause"); !st.Paused || !st.Up {
		t.Errorf("state after pause %+v", st)
	}
	if n := c.stats().Nodes[0]; !n.Paused || !n.Up {
		t.Errorf("stats while paused: up %v paused %v", n.Up, n.Paused)
	}
	done := make(chan error, 1)
	go func() { done <- insert(5) }()
	select {
	case err := <-done:
		t.Fatalf("paused node answered: %v", err)
	case <-time.After(quiet):
	}
	if ks := rowKeys(t, cl, "SELECT k FROM ks.h WHERE k = 5"); len(ks) != 0 {
		t.Fatal("a write sent during the pause was applied before resume")
	}
	if st := c.post("/nodes/1/resume"); st.Paused {
		t.Error("paused after resume")
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("queued write: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no answer after resume")
	}
	if ks := rowKeys(t, cl, "SELECT k FROM ks.h WHERE k = 5"); len(ks) != 1 {
		t.Error("the queued write is not applied after resume")
	}
	if st := c.post("/nodes/1/resume"); st.Paused {
		t.Error("second resume: paused")
	}
	if code, body := c.do("GET", "/nodes/1"); code != 200 || !strings.Contains(body, `"paused": false`) {
		t.Errorf("GET /nodes/1: %d %s", code, body)
	}
}

// TestStatsHandlerOnlyReads: StatsHandler, which programs already expose,
// takes no control requests.
func TestStatsHandlerOnlyReads(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 1})
	srv := httptest.NewServer(cl.StatsHandler())
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/nodes/1/stop", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || !cl.Node(0).Running() {
		t.Errorf("StatsHandler took a stop: %d, running %v", resp.StatusCode, cl.Node(0).Running())
	}
	resp, err = http.Get(srv.URL + "/stats")
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Nodes []struct {
			Up     bool             `json:"up"`
			Paused *bool            `json:"paused"`
			Errors map[string]int64 `json:"errors"`
		} `json:"nodes"`
		Process *ProcessStats `json:"process"`
	}
	err = json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	if err != nil || len(st.Nodes) != 1 || !st.Nodes[0].Up || st.Nodes[0].Paused == nil || st.Nodes[0].Errors == nil || st.Process == nil {
		t.Errorf("stats %+v, %v", st, err)
	}
}

// TestControlRefusesBrowserRequests: a page in a browser can POST a form
// or plain text to any address without the server's consent, and says
// where it comes from in Origin; such requests change nothing. The
// clients the control server is for (no Origin, no body, or the server's
// own origin) are served.
func TestControlRefusesBrowserRequests(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 1})
	srv := httptest.NewServer(cl.ControlHandler())
	defer srv.Close()
	self := srv.URL // http://127.0.0.1:port, the server's own origin
	for _, tc := range []struct {
		name        string
		origin      string
		contentType string
		body        string
		chunked     bool
		code        int
	}{
		{name: "no origin, no body", code: http.StatusOK},
		{name: "own origin", origin: self, code: http.StatusOK},
		{name: "text/plain without a body (the test helpers')", contentType: "text/plain", code: http.StatusOK},
		{name: "json body", contentType: "application/json", body: "{}", code: http.StatusOK},
		{name: "other origin", origin: "http://evil.example", code: http.StatusForbidden},
		{name: "null origin", origin: "null", code: http.StatusForbidden},
		{name: "same host, other port", origin: "http://127.0.0.1:1", code: http.StatusForbidden},
		{name: "other origin with json", origin: "https://evil.example", contentType: "application/json", body: "{}", code: http.StatusForbidden},
		{name: "form body", contentType: "application/x-www-form-urlencoded", body: "a=1", code: http.StatusUnsupportedMediaType},
		{name: "multipart body", contentType: "multipart/form-data; boundary=x", body: "--x--", code: http.StatusUnsupportedMediaType},
		{name: "text body", contentType: "text/plain; charset=utf-8", body: "a", code: http.StatusUnsupportedMediaType},
		{name: "text body chunked", contentType: "text/plain", body: "a", chunked: true, code: http.StatusUnsupportedMediaType},
		{name: "body without a type", body: "a", code: http.StatusUnsupportedMediaType},
		{name: "form body from own origin", origin: self, contentType: "application/x-www-form-urlencoded", body: "a=1", code: http.StatusUnsupportedMediaType},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := cl.Node(0).Start(); err != nil {
				t.Fatal(err)
			}
			var body io.Reader = http.NoBody
			if tc.body != "" {
				body = strings.NewReader(tc.body)
				if tc.chunked {
					body = io.MultiReader(body) // no length known: sent chunked
				}
			}
			req, err := http.NewRequest(http.MethodPost, srv.URL+"/nodes/1/stop", body)
			if err != nil {
				t.Fatal(err)
			}
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			if tc.contentType != "" {
				req.Header.Set("Content-Type", tc.contentType)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			msg, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.code {
				t.Fatalf("status %d (%s), want %d", resp.StatusCode, strings.TrimSpace(string(msg)), tc.code)
			}
			if stopped := !cl.Node(0).Running(); stopped != (tc.code == http.StatusOK) {
				t.Errorf("status %d, node stopped: %v", resp.StatusCode, stopped)
			}
		})
	}
}

// TestControlNodeTokens: GET /nodes/{n} gives the node's tokens, the
// ring a process outside reads to tell each node's share of its rows.
func TestControlNodeTokens(t *testing.T) {
	cl := startCluster(t, Config{Nodes: 3, VNodes: 4})
	c := newControl(t, cl)
	for i := range 3 {
		code, body := c.do(http.MethodGet, "/nodes/"+strconv.Itoa(i+1))
		if code != http.StatusOK {
			t.Fatalf("GET /nodes/%d: %d %s", i+1, code, body)
		}
		var st nodeState
		if err := json.Unmarshal([]byte(body), &st); err != nil {
			t.Fatalf("GET /nodes/%d: %v in %s", i+1, err, body)
		}
		want := cl.Tokens(i)
		if len(want) != 4 || !slices.Equal(st.Tokens, want) {
			t.Errorf("node %d: tokens %v, want %v (4, ascending)", i+1, st.Tokens, want)
		}
	}
}
