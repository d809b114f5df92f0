package chaos

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlload/cqlload/internal/proctest"
	"github.com/cqlload/cqlload/loader"
)

// loadTimeout bounds every load: far beyond what any scenario needs, so
// that a hung cqlload fails the test with its output instead of hanging it.
const loadTimeout = 3 * time.Minute

var seedFlag = flag.Int64("chaos.seed", 0, "seed of the fault times, fault positions and data (0: from the clock)")

var runSeed = sync.OnceValue(func() int64 {
	if *seedFlag != 0 {
		return *seedFlag
	}
	return time.Now().UnixNano()
})

// newRand returns the test's random source, drawn from the run's seed and
// the test's name, and logs the seed so that a failure can be replayed.
func newRand(t *testing.T) *rand.Rand {
	t.Helper()
	s := runSeed()
	h := fnv.New64a()
	h.Write([]byte(t.Name()))
	t.Logf("seed %d (replay with -chaos.seed=%d)", s, s)
	return rand.New(rand.NewPCG(uint64(s), h.Sum64()))
}

// schema is a keyspace ks at replication factor rf with one narrow table
// (k int PRIMARY KEY, v text) per name.
func schema(rf int, tables ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': %d};\n", rf)
	for _, t := range tables {
		fmt.Fprintf(&b, "CREATE TABLE ks.%s (k int PRIMARY KEY, v text);\n", t)
	}
	return b.String()
}

// dataset is an input of narrow rows: row i has key i and value vals[i],
// and is line i+1 of the file, unless the test says otherwise.
type dataset struct {
	path string
	vals []string
}

// rowValues draws n values of 8 to 24 characters.
func rowValues(r *rand.Rand, n int) []string {
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_"
	vals := make([]string, n)
	buf := make([]byte, 24)
	for i := range vals {
		b := buf[:8+r.IntN(17)]
		for j := range b {
			b[j] = letters[r.IntN(len(letters))]
		}
		vals[i] = string(b)
	}
	return vals
}

// csvOf is the file content of vals: one "k,v" line per row.
func csvOf(vals []string) []byte {
	var b bytes.Buffer
	for i, v := range vals {
		b.WriteString(strconv.Itoa(i))
		b.WriteByte(',')
		b.WriteString(v)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// writeRows writes n rows to dir/name.
func writeRows(t *testing.T, dir, name string, n int, r *rand.Rand) dataset {
	t.Helper()
	ds := dataset{path: filepath.Join(dir, name), vals: rowValues(r, n)}
	if err := os.WriteFile(ds.path, csvOf(ds.vals), 0o644); err != nil {
		t.Fatal(err)
	}
	return ds
}

// summary is cqlload's --summary-json. The names of its JSON keys, as
// docs/usage.md documents them, are checked by cmd/cqlload's tests.
type summary struct{ loader.Summary }

func (s summary) rejected() int64 { return s.RowsFailedParse + s.RowsFailedInsert }

func (s summary) String() string {
	return fmt.Sprintf("read %d, written %d, skipped %d, failed parse %d, failed insert %d, unknown %d, not sent %d; %d requests, %d retries, %.2f s, %.0f rows/s, latency ms p50 %.1f p99 %.1f max %.1f",
		s.RowsRead, s.RowsWritten, s.RowsSkipped, s.RowsFailedParse, s.RowsFailedInsert, s.RowsUnknown, s.RowsNotSent,
		s.Requests, s.Retries, s.ElapsedS, s.RowsPerSec, s.Latency.P50, s.Latency.P99, s.Latency.Max)
}

// checkAccounting asserts the summary's invariant: every row read has
// exactly one outcome.
func checkAccounting(t *testing.T, s summary) {
	t.Helper()
	if n := s.RowsInFlight(); n != 0 {
		t.Errorf("rows_read %d != written + skipped + failed_parse + failed_insert + unknown + not_sent: %d rows without an outcome (%v)", s.RowsRead, n, s)
	}
}

// load is one cqlload process.
type load struct {
	cmd                  *exec.Cmd
	stdout, stderr       bytes.Buffer
	summaryPath, errFile string
	start, end           time.Time
	exit                 int
	done                 chan struct{}
	waitErr              error
	killedAfterDeadline  bool
	table                string
	args                 []string
	sim                  *proctest.Sim
	rowsBefore           int64            // cqlsim's rows_written when the load started
	errorsBefore         map[string]int64 // and its error responses by kind
}

// startLoad starts cqlload on the table ks.table with the given files and
// flags, writing its summary and error files in a directory of its own.
func startLoad(t *testing.T, sim *proctest.Sim, table string, args ...string) *load {
	t.Helper()
	dir := t.TempDir()
	l := &load{
		summaryPath: filepath.Join(dir, "summary.json"),
		errFile:     filepath.Join(dir, "rejected.err"),
		table:       table,
		sim:         sim,
		done:        make(chan struct{}),
	}
	st, err := sim.ReadStats()
	if err != nil {
		t.Fatal(err)
	}
	l.rowsBefore, l.errorsBefore = st.Total().RowsWritten, st.Total().Errors
	l.args = append([]string{"--table", "ks." + table, "--progress", "log", "--report-frequency", "1",
		"--summary-json", l.summaryPath, "--err-file", l.errFile}, args...)
	l.cmd = sim.Cmd(context.Background(), t, l.args...)
	l.cmd.Dir = dir
	l.cmd.Stdout, l.cmd.Stderr = &l.stdout, &l.stderr
	l.start = time.Now()
	if err := l.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		l.waitErr = l.cmd.Wait()
		l.end = time.Now()
		l.exit = l.cmd.ProcessState.ExitCode()
		close(l.done)
	}()
	t.Cleanup(func() {
		select {
		case <-l.done:
		default:
			_ = l.cmd.Process.Kill()
			<-l.done
		}
	})
	return l
}

// running reports whether the process has not exited yet.
func (l *load) running() bool {
	select {
	case <-l.done:
		return false
	default:
		return true
	}
}

// wait waits for the process for at most d, killing it after that.
func (l *load) wait(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case <-l.done:
	case <-time.After(d):
		l.killedAfterDeadline = true
		_ = l.cmd.Process.Kill()
		<-l.done
		t.Errorf("cqlload did not exit within %s; killed\n%s", d, l.output())
	}
}

// output is the process's output, for failure messages: stdout whole,
// and stderr's last 40 lines. A process still running is killed first,
// so that its output is complete and no longer written to.
func (l *load) output() string {
	if l.running() {
		_ = l.cmd.Process.Kill()
		<-l.done
	}
	lines := strings.Split(strings.TrimRight(l.stderr.String(), "\n"), "\n")
	if len(lines) > 40 {
		lines = append([]string{fmt.Sprintf("[%d lines]", len(lines)-40)}, lines[len(lines)-40:]...)
	}
	return fmt.Sprintf("cqlload %s\nexit %d (%v)\n--- stdout\n%s--- stderr\n%s", strings.Join(l.args, " "), l.exit, l.waitErr,
		l.stdout.String(), strings.Join(lines, "\n"))
}

// errorLine is cqlload's last "cqlload: ..." line on standard error.
func (l *load) errorLine() string {
	lines := strings.Split(l.stderr.String(), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "cqlload: ") {
			return lines[i]
		}
	}
	return ""
}

// summary reads the process's --summary-json and checks the accounting.
func (l *load) summary(t *testing.T) summary {
	t.Helper()
	b, err := os.ReadFile(l.summaryPath)
	if err != nil {
		t.Fatalf("no summary: %v\n%s", err, l.output())
	}
	var s summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("summary: %v\n%s", err, b)
	}
	checkAccounting(t, s)
	return s
}

// rowsSoFar is how many rows cqlsim stored since the load started.
func (l *load) rowsSoFar() (int64, error) {
	st, err := l.sim.ReadStats()
	if err != nil {
		return 0, err
	}
	return st.Total().RowsWritten - l.rowsBefore, nil
}

// awaitRows waits until cqlsim stored n rows of this load, and fails the
// test if the load ends first: the fault would not land mid-load.
func (l *load) awaitRows(t *testing.T, n int64) {
	t.Helper()
	for {
		got, err := l.rowsSoFar()
		if err != nil {
			t.Fatal(err)
		}
		if got >= n {
			return
		}
		if !l.running() {
			t.Fatalf("the load ended with %d rows stored before the fault point (%d rows)\n%s", got, n, l.output())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// control posts control requests to cqlsim, failing the test on an error.
func control(t *testing.T, sim *proctest.Sim, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := sim.Post(p); err != nil {
			t.Fatal(err)
		}
	}
}

// readTable reads SELECT k, v of ks.table, page by page.
func readTable(t *testing.T, sess *gocql.Session, table string) map[int]string {
	t.Helper()
	got := map[int]string{}
	iter := sess.Query("SELECT k, v FROM ks." + table).PageSize(5000).Iter()
	var k int
	var v string
	dups := 0
	for iter.Scan(&k, &v) {
		if _, ok := got[k]; ok {
			dups++
		}
		got[k] = v
	}
	if err := iter.Close(); err != nil {
		t.Fatalf("SELECT k, v FROM ks.%s: %v", table, err)
	}
	if dups > 0 {
		t.Errorf("ks.%s: %d keys came back more than once", table, dups)
	}
	return got
}

// want says what the table must hold of an input row.
type want int

const (
	mustHold    want = iota // the row, with its value
	mustNotHold             // not the row, under any value
	mayHold                 // the row with its value, or nothing
)

// compare checks the table against the input: for row i, what says
// whether it must be there; whatever is there must be the input's value;
// and no key outside the input may be there. It returns how many of the
// input's rows the table holds.
func compare(t *testing.T, got map[int]string, vals []string, what func(i int) want) int {
	t.Helper()
	var missing, wrong, unwanted, extra []string
	held := 0
	note := func(list *[]string, format string, a ...any) {
		if len(*list) < 5 {
			*list = append(*list, fmt.Sprintf(format, a...))
		} else if len(*list) == 5 {
			*list = append(*list, "…")
		}
	}
	var nMissing, nWrong, nUnwanted, nExtra int
	for i, v := range vals {
		g, ok := got[i]
		w := what(i)
		switch {
		case ok && g != v:
			nWrong++
			note(&wrong, "k=%d: %q, input %q", i, g, v)
		case ok && w == mustNotHold:
			nUnwanted++
			note(&unwanted, "k=%d", i)
		case !ok && w == mustHold:
			nMissing++
			note(&missing, "k=%d", i)
		}
		if ok {
			held++
		}
	}
	for k := range got {
		if k < 0 || k >= len(vals) {
			nExtra++
			note(&extra, "k=%d", k)
		}
	}
	if nMissing+nWrong+nUnwanted+nExtra > 0 {
		t.Errorf("table vs input (%d rows in the table, %d in the input): %d missing %v; %d with another value %v; %d that must not be there %v; %d keys not in the input %v",
			len(got), len(vals), nMissing, missing, nWrong, wrong, nUnwanted, unwanted, nExtra, extra)
	}
	return held
}

// all is compare's what for a table that must hold every row.
func all(int) want { return mustHold }

// logLine is a line of the error log about one row:
// FILE:LINE[:COLUMN]: OUTCOME: REASON; suspectLine one about the rows
// written from a compressed member that then failed its check:
// FILE:FIRST-LAST: suspect: REASON.
var (
	logLine     = regexp.MustCompile(`^(.+?):([0-9]+)(?::[0-9]+)?: (parse error|insert error|unknown|not sent): (.*)$`)
	suspectLine = regexp.MustCompile(`^(.+?):([0-9]+)-([0-9]+): suspect: (.*)$`)
)

// outcomes reads the error log: each row's outcome by line number, and
// their counts by outcome; a suspect line counts as "suspect".
func outcomes(t *testing.T, logPath string) (byLine map[int64]string, counts map[string]int64) {
	t.Helper()
	byLine, counts = map[int64]string{}, map[string]int64{}
	f, err := os.Open(logPath)
	if errors.Is(err, os.ErrNotExist) {
		return byLine, counts
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if suspectLine.MatchString(sc.Text()) {
			counts["suspect"]++
			continue
		}
		m := logLine.FindStringSubmatch(sc.Text())
		if m == nil {
			t.Errorf("error log line not understood: %q", sc.Text())
			continue
		}
		n, _ := strconv.ParseInt(m[2], 10, 64)
		if prev, ok := byLine[n]; ok {
			t.Errorf("error log: line %d has two outcomes: %s and %s", n, prev, m[3])
		}
		byLine[n] = m[3]
		counts[m[3]]++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return byLine, counts
}

// checkLogCounts asserts that the error log holds one line per row the
// summary did not call written or skipped.
func checkLogCounts(t *testing.T, s summary, counts map[string]int64) {
	t.Helper()
	want := map[string]int64{"parse error": s.RowsFailedParse, "insert error": s.RowsFailedInsert, "unknown": s.RowsUnknown, "not sent": s.RowsNotSent}
	for k, n := range want {
		if counts[k] != n {
			t.Errorf("error log has %d %q rows, the summary %d", counts[k], k, n)
		}
	}
}

// clusterErrors is the ERROR responses cqlsim sent since the load
// started, by kind.
func (l *load) clusterErrors(t *testing.T) map[string]int64 {
	t.Helper()
	st, err := l.sim.ReadStats()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for k, n := range st.Total().Errors {
		if d := n - l.errorsBefore[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}
