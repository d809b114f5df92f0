// Package proctest runs the real cqlload and cqlsim binaries for tests
// that must survive what a scheduler does to a process: kill -9, SIGINT,
// a node stopped from outside. Tests build the binaries once per test
// binary (Build), start a cqlsim process (StartSim) and run cqlload
// against it (Cmd), then read the table back with gocql (Session).
package proctest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlload/cqlload/cqlsim"
)

// Bins holds the paths of the built binaries.
type Bins struct{ CQLLoad, CQLSim string }

var (
	buildOnce sync.Once
	bins      Bins
	buildErr  error
	built     string // the directory Build made, "" when it made none
)

// Build compiles cmd/cqlload and cmd/cqlsim (with the race detector when
// the test binary has it) into a directory that lives as long as the
// test process; later calls return the same binaries. When
// CQLLOAD_TEST_BIN names a directory, the binaries there are used
// instead: make test builds them once for every test binary (TESTBIN).
func Build(t testing.TB) Bins {
	t.Helper()
	buildOnce.Do(func() {
		if dir := os.Getenv("CQLLOAD_TEST_BIN"); dir != "" {
			bins = Bins{CQLLoad: filepath.Join(dir, "cqlload"), CQLSim: filepath.Join(dir, "cqlsim")}
			for _, b := range []string{bins.CQLLoad, bins.CQLSim} {
				if _, err := os.Stat(b); err != nil {
					buildErr = fmt.Errorf("CQLLOAD_TEST_BIN: %w", err)
				}
			}
			return
		}
		dir, err := os.MkdirTemp("", "cqlload-bin-")
		if err != nil {
			buildErr = err
			return
		}
		root, err := moduleRoot()
		if err != nil {
			buildErr = err
			return
		}
		// Without profile-guided optimisation, as make test builds the
		// tests: the packages compiled for them serve the binaries too.
		args := []string{"build", "-pgo=off", "-o", dir + string(os.PathSeparator)}
		if raceEnabled {
			args = append(args, "-race")
		}
		args = append(args, "./cmd/cqlload", "./cmd/cqlsim")
		cmd := exec.Command("go", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		bins = Bins{CQLLoad: filepath.Join(dir, "cqlload"), CQLSim: filepath.Join(dir, "cqlsim")}
		built = dir
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return bins
}

func moduleRoot() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", fmt.Errorf("proctest: cannot locate the module")
	}
	return filepath.Abs(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Sim is a running cqlsim process.
type Sim struct {
	cmd   *exec.Cmd
	Hosts []string // node addresses, host:port
	Port  string
	Stats string // base URL of the stats and control server
}

// StartSim starts cqlsim with the given flags (--port 0 and --stats-addr
// are added) and the schema (CQL), and waits until it is ready. It is
// killed when the test ends.
func StartSim(t testing.TB, schema string, flags ...string) *Sim {
	t.Helper()
	b := Build(t)
	dir := t.TempDir()
	sf := filepath.Join(dir, "schema.cql")
	if err := os.WriteFile(sf, []byte(schema), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"--port", "0", "--stats-addr", "127.0.0.1:0", "--schema", sf}, flags...)
	cmd := exec.Command(b.CQLSim, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if testing.Verbose() {
		cmd.Stderr = os.Stderr
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &Sim{cmd: cmd}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	ready := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			if u, ok := strings.CutPrefix(line, "stats on "); ok {
				s.Stats = strings.TrimSuffix(u, "/stats")
			}
			if _, addr, ok := strings.Cut(line, " listening on "); ok {
				s.Hosts = append(s.Hosts, addr)
				if i := strings.LastIndexByte(addr, ':'); i > 0 {
					s.Port = addr[i+1:]
				}
			}
			if line == "ready" {
				ready <- nil
				_, _ = io.Copy(io.Discard, out)
				return
			}
		}
		ready <- fmt.Errorf("cqlsim exited before it was ready: %v", sc.Err())
	}()
	select {
	case err := <-ready:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("cqlsim was not ready after 30 s")
	}
	return s
}

// Control POSTs a control request (such as "/nodes/1/stop") to cqlsim.
func (s *Sim) Control(t testing.TB, path string) {
	t.Helper()
	resp, err := http.Post(s.Stats+path, "text/plain", nil)
	if err != nil {
		t.Fatalf("cqlsim %s: %v", path, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("cqlsim %s: %s: %s", path, resp.Status, body)
	}
}

// Session connects gocql to the simulator; it is closed when the test ends.
func (s *Sim) Session(t testing.TB) *gocql.Session {
	t.Helper()
	c := gocql.NewCluster(s.Hosts...)
	c.Timeout = 20 * time.Second
	c.ConnectTimeout = 10 * time.Second
	c.Consistency = gocql.One
	sess, err := c.CreateSession()
	if err != nil {
		t.Fatalf("connect to cqlsim: %v", err)
	}
	t.Cleanup(sess.Close)
	return sess
}

// Cmd returns an exec.Cmd of cqlload against the simulator (--hosts and
// --port are set), with args after them.
func (s *Sim) Cmd(ctx context.Context, t testing.TB, args ...string) *exec.Cmd {
	t.Helper()
	b := Build(t)
	all := append([]string{"--hosts", strings.Join(s.Hosts[:1], ","), "--port", s.Port}, args...)
	return exec.CommandContext(ctx, b.CQLLoad, all...)
}

// Post sends a control request as Control does, but returns what went
// wrong instead of failing the test, so that goroutines other than the
// test's may drive faults.
func (s *Sim) Post(path string) error {
	resp, err := http.Post(s.Stats+path, "text/plain", nil)
	if err != nil {
		return fmt.Errorf("cqlsim %s: %w", path, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("cqlsim %s: %s: %s", path, resp.Status, body)
	}
	return nil
}

// ReadStats returns what GET /stats says of the nodes.
func (s *Sim) ReadStats() (cqlsim.Stats, error) {
	var st cqlsim.Stats
	resp, err := http.Get(s.Stats + "/stats")
	if err != nil {
		return st, fmt.Errorf("cqlsim /stats: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		return st, fmt.Errorf("cqlsim /stats: %s: %s", resp.Status, body)
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		return st, fmt.Errorf("cqlsim /stats: %w", err)
	}
	return st, nil
}

// RemoveBuild deletes the binaries Build made, if it made any. A test
// binary's TestMain calls it after m.Run; Build must not be called after.
func RemoveBuild() {
	if built != "" {
		_ = os.RemoveAll(built)
	}
}
