package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cqlload/cqlload/loader"
)

// freePort asks the kernel for a port that is free on 127.0.0.1; cqlsim's
// other nodes (127.0.0.2, …) share it, which on loopback is almost always
// free too.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// sim is a cqlsim process.
type sim struct {
	cmd       *exec.Cmd
	port      int
	store     bool // not blackhole: rows are kept
	statsAddr string
	out       *syncBuffer
	done      chan struct{}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startSim starts a 3-node cqlsim with the benchmark schema and waits for
// its "ready" line.
func startSim(ctx context.Context, bin, dir string, blackhole bool, shards int, extra ...string) (*sim, error) {
	schemaFile := filepath.Join(dir, "bench.cql")
	if err := os.WriteFile(schemaFile, []byte(schemaCQL()), 0o644); err != nil {
		return nil, fmt.Errorf("schema file: %w", err)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	sport, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &sim{port: port, store: !blackhole, statsAddr: net.JoinHostPort("127.0.0.1", strconv.Itoa(sport)), out: &syncBuffer{}, done: make(chan struct{})}
	args := []string{"--nodes", "3", "--port", strconv.Itoa(port), "--schema", schemaFile, "--stats-addr", s.statsAddr}
	if blackhole {
		args = append(args, "--blackhole")
	}
	if shards > 0 {
		args = append(args, "--shards", strconv.Itoa(shards))
	}
	args = append(args, extra...)
	s.cmd = exec.Command(filepath.Join(bin, "cqlsim"), args...)
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	s.cmd.Stderr = s.out
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start cqlsim: %w", err)
	}
	ready := make(chan struct{})
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(stdout)
		signalled := false
		for sc.Scan() {
			fmt.Fprintln(s.out, sc.Text())
			if !signalled && strings.HasPrefix(sc.Text(), "ready") {
				close(ready)
				signalled = true
			}
		}
		_ = s.cmd.Wait()
	}()
	select {
	case <-ready:
	case <-s.done:
		return nil, fmt.Errorf("cqlsim exited before it was ready:\n%s", s.out.String())
	case <-time.After(30 * time.Second):
		s.close()
		return nil, fmt.Errorf("cqlsim not ready after 30s:\n%s", s.out.String())
	case <-ctx.Done():
		s.close()
		return nil, ctx.Err()
	}
	// The stats endpoint may come up just after the nodes.
	for i := 0; ; i++ {
		if _, err := s.counters(); err == nil {
			break
		} else if i == 50 {
			s.close()
			return nil, fmt.Errorf("cqlsim stats at %s: %w", s.statsAddr, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return s, nil
}

// empty truncates table on a store-mode cluster, so that each program
// loads into an empty table: overwriting rows that an earlier run stored
// costs cqlsim less than adding them, which on shared cores would favour
// whichever program runs second.
func (s *sim) empty(table string) error {
	if !s.store {
		return nil
	}
	o := loader.DefaultOptions()
	o.Hosts, o.Port = []string{"127.0.0.1"}, s.port
	sess, err := loader.Connect(o)
	if err != nil {
		return fmt.Errorf("truncate %s: %w", table, err)
	}
	defer sess.Close()
	if err := sess.Query("TRUNCATE " + table).Exec(); err != nil {
		return fmt.Errorf("truncate %s: %w", table, err)
	}
	return nil
}

// exited reports whether the cqlsim process has ended.
func (s *sim) exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// close interrupts cqlsim and waits for it (killing it after 5s).
func (s *sim) close() {
	if s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// simCounters are the cqlsim totals the benchmark reads; runs are measured
// by the difference of two snapshots.
type simCounters struct {
	Rows        int64   // row mutations coordinated
	ReplicaRows int64   // of which by a replica of the row's token
	ShardRows   int64   // of which on the connection of their shard (with -shards)
	Requests    int64   // EXECUTE and BATCH frames
	NodeRows    []int64 // row mutations coordinated, per node
	Overloaded  int64   // Overloaded and write timeouts the capacity caused
}

func (c simCounters) sub(o simCounters) simCounters {
	d := simCounters{c.Rows - o.Rows, c.ReplicaRows - o.ReplicaRows, c.ShardRows - o.ShardRows, c.Requests - o.Requests, nil, c.Overloaded - o.Overloaded}
	for i, n := range c.NodeRows {
		if i < len(o.NodeRows) {
			n -= o.NodeRows[i]
		}
		d.NodeRows = append(d.NodeRows, n)
	}
	return d
}

func (s *sim) counters() (simCounters, error) {
	cl := http.Client{Timeout: 5 * time.Second}
	resp, err := cl.Get("http://" + s.statsAddr + "/stats")
	if err != nil {
		select {
		case <-s.done:
			return simCounters{}, fmt.Errorf("cqlsim exited (%v):\n%s", s.cmd.ProcessState, s.out.String())
		default:
		}
		return simCounters{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return simCounters{}, fmt.Errorf("GET /stats: %s", resp.Status)
	}
	var st struct {
		Nodes []struct {
			Requests    map[string]int64 `json:"requests"`
			Rows        int64            `json:"rows_written"`
			ReplicaRows int64            `json:"rows_written_as_replica"`
			ShardRows   int64            `json:"rows_written_on_shard"`
			Capacity    struct {
				Errors map[string]int64 `json:"errors"`
			} `json:"capacity"`
		} `json:"nodes"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		return simCounters{}, fmt.Errorf("GET /stats: %w", err)
	}
	var c simCounters
	for _, n := range st.Nodes {
		c.Rows += n.Rows
		c.ReplicaRows += n.ReplicaRows
		c.ShardRows += n.ShardRows
		c.Requests += n.Requests["EXECUTE"] + n.Requests["BATCH"]
		c.NodeRows = append(c.NodeRows, n.Rows)
		c.Overloaded += n.Capacity.Errors["overloaded"] + n.Capacity.Errors["write_timeout"]
	}
	return c, nil
}

// sample is one progress line of cqlload: rows written by time t after
// the loader started.
type sample struct {
	t    time.Duration
	rows int64
	// The interval's rows/s and the in-flight limit at its end, from the
	// line's interval figures.
	rate  float64
	limit int
}

var (
	processedRE = regexp.MustCompile(`^Processed: (\d+) rows; Rate: (\d+) rows/s;.* Elapsed: ([0-9.]+)s`)
	intervalRE  = regexp.MustCompile(`interval [0-9.]+s: (\d+) rows/s,.* in-flight limit (\d+)`)
)

// logLine is a line of cqlload's log that is not progress, with the
// number of progress lines before it: where in the run it was said.
type logLine struct {
	text  string
	after int // samples before it
}

// readSamples collects cqlload's progress lines. Each line's time comes
// from the line itself, not from when it was read: a busy machine delays
// the reading, and lines then arrive in bursts. Rows ÷ rate recovers the
// elapsed time cqlload printed to a tenth of a second, with the rate's
// precision. Lines that are not progress are kept for error messages,
// and returned with their place among the samples.
func readSamples(r io.Reader, other *bytes.Buffer) ([]sample, []logLine) {
	var out []sample
	var lines []logLine
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		m := processedRE.FindStringSubmatch(line)
		if m == nil {
			other.WriteString(line + "\n")
			lines = append(lines, logLine{text: line, after: len(out)})
			continue
		}
		n, _ := strconv.ParseInt(m[1], 10, 64)
		rate, _ := strconv.ParseFloat(m[2], 64)
		secs, _ := strconv.ParseFloat(m[3], 64)
		if rate > 0 {
			secs = float64(n) / rate
		}
		smp := sample{t: time.Duration(secs * float64(time.Second)), rows: n}
		if iv := intervalRE.FindStringSubmatch(line); iv != nil {
			smp.rate, _ = strconv.ParseFloat(iv[1], 64)
			smp.limit, _ = strconv.Atoi(iv[2])
		}
		out = append(out, smp)
	}
	return out, lines
}

// steadyRate is the write rate once the run is under way: from the first
// sample at least warmup after rows started arriving to the last sample
// before the final count (the drain at the end is excluded too). With too
// few samples for a window it returns 0.
func steadyRate(samples []sample, warmup time.Duration) float64 {
	first := -1
	for i, s := range samples {
		if s.rows > 0 {
			first = i
			break
		}
	}
	if first < 0 {
		return 0
	}
	from := -1
	for i := first; i < len(samples); i++ {
		if samples[i].t-samples[first].t >= warmup {
			from = i
			break
		}
	}
	if from < 0 {
		return 0
	}
	final := samples[len(samples)-1].rows
	to := -1
	for i := len(samples) - 1; i > from; i-- {
		if samples[i].rows < final {
			to = i
			break
		}
	}
	if to < 0 {
		return 0
	}
	dt := (samples[to].t - samples[from].t).Seconds()
	if dt <= 0 {
		return 0
	}
	return float64(samples[to].rows-samples[from].rows) / dt
}

// procStats are measured from a child's rusage, except its peak RSS.
type procStats struct {
	WallS      float64
	CPUS       float64 // user + system
	MaxRSSKiB  int64
	ExitStatus int
}

func statsOf(ps *os.ProcessState, wall time.Duration, peakKiB int64) procStats {
	return procStats{
		WallS:      wall.Seconds(),
		CPUS:       (ps.UserTime() + ps.SystemTime()).Seconds(),
		MaxRSSKiB:  peakKiB,
		ExitStatus: ps.ExitCode(),
	}
}

// rssWatcher follows a child's peak RSS through /proc/PID/status VmHWM.
// rusage's ru_maxrss cannot be used: Go starts children with vfork-like
// clone, and Linux carries the parent's high-water mark into the child's
// ru_maxrss at exec, so every child would report at least this program's
// size. VmHWM belongs to the child's own address space; polling it misses
// at most the growth of the last interval before exit.
type rssWatcher struct {
	stop chan struct{}
	done chan struct{}
	peak atomic.Int64
}

const rssPollInterval = 20 * time.Millisecond

func watchRSS(pid int) *rssWatcher {
	w := &rssWatcher{stop: make(chan struct{}), done: make(chan struct{})}
	path := fmt.Sprintf("/proc/%d/status", pid)
	go func() {
		defer close(w.done)
		t := time.NewTicker(rssPollInterval)
		defer t.Stop()
		for {
			if kib, ok := readHWM(path); ok && kib > w.peak.Load() {
				w.peak.Store(kib)
			}
			select {
			case <-w.stop:
				return
			case <-t.C:
			}
		}
	}()
	return w
}

// finish stops polling and returns the peak in KiB.
func (w *rssWatcher) finish() int64 {
	close(w.stop)
	<-w.done
	return w.peak.Load()
}

func readHWM(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	return parseHWM(b)
}

// parseHWM finds "VmHWM:   1234 kB" in a /proc status file.
func parseHWM(status []byte) (int64, bool) {
	for _, line := range strings.Split(string(status), "\n") {
		rest, ok := strings.CutPrefix(line, "VmHWM:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, false
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		return n, err == nil
	}
	return 0, false
}

// loaderRun is one cqlload process.
type loaderRun struct {
	procStats
	Samples []sample
	Log     []logLine // the lines that are not progress
	Summary loader.Summary
}

// runLoader runs bin/cqlload on file with default options, progress as
// log lines every half second.
func runLoader(ctx context.Context, bin string, s *sim, table, file, dir string, extra ...string) (loaderRun, error) {
	return runLoaderEnv(ctx, bin, s, nil, table, file, dir, extra...)
}

// runLoaderEnv is runLoader with env added to the process's environment.
func runLoaderEnv(ctx context.Context, bin string, s *sim, env []string, table, file, dir string, extra ...string) (loaderRun, error) {
	var lr loaderRun
	sumFile := filepath.Join(dir, "summary.json")
	errFile := filepath.Join(dir, "rejected.err")
	_ = os.Remove(sumFile)
	args := []string{"--hosts", "127.0.0.1", "--port", strconv.Itoa(s.port), "--table", table, "--header", "true",
		"--progress", "log", "--report-frequency", "0.5", "--err-file", errFile, "--summary-json", sumFile}
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "cqlload"), append(append(args, extra...), file)...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return lr, err
	}
	var stdout, other bytes.Buffer
	cmd.Stdout = &stdout
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return lr, fmt.Errorf("start cqlload: %w", err)
	}
	rss := watchRSS(cmd.Process.Pid)
	lr.Samples, lr.Log = readSamples(stderr, &other)
	werr := cmd.Wait()
	lr.procStats = statsOf(cmd.ProcessState, time.Since(start), rss.finish())
	if werr != nil {
		return lr, fmt.Errorf("cqlload %s: %w\n%s%s", table, werr, stdout.String(), other.String())
	}
	b, err := os.ReadFile(sumFile)
	if err != nil {
		return lr, fmt.Errorf("cqlload summary: %w", err)
	}
	if err := json.Unmarshal(b, &lr.Summary); err != nil {
		return lr, fmt.Errorf("cqlload summary: %w", err)
	}
	return lr, nil
}

var errNoRows = errors.New("no rows written")
