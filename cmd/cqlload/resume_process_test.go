package main

// Process-level acceptance tests of exact resume. The real cqlload binary
// runs against a cqlsim process (three nodes, store mode) and is stopped
// from outside at random points — kill -9, SIGINT, or MAXINSERTERRORS —
// then run again with the same --resume checkpoint until a run completes.
// The table and the error files must then account for every input row
// exactly once.
//
// The stop points come from a seeded RNG. Every test logs its seed and
// every stop point; go test -run TestResume -resume-seed N replays them.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math/bits"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlload/cqlload/internal/bgzf"
	"github.com/cqlload/cqlload/internal/proctest"
	"github.com/cqlload/cqlload/loader"
)

var resumeSeed = flag.Int64("resume-seed", 0, "seed of the stop points of the TestResume* tests (0: from the clock); each test logs the seed it used")

// TestMain deletes the binaries the process tests built.
func TestMain(m *testing.M) {
	// Under nohup this process starts with SIGHUP ignored, and an ignored
	// signal stays ignored across exec: every cqlload started here would
	// then keep ignoring it, as it must under nohup (TestNohup), and the
	// tests that stop it with SIGHUP would see it run on. A signal this
	// process catches is back at its default in a child, so catch it
	// (and, as nohup asked, do nothing on it).
	if signal.Ignored(syscall.SIGHUP) {
		signal.Notify(make(chan os.Signal, 1), syscall.SIGHUP)
	}
	code := m.Run()
	proctest.RemoveBuild()
	os.Exit(code)
}

func seededRNG(t *testing.T) *rand.Rand {
	seed := *resumeSeed
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("seed %d (replay with -resume-seed %d)", seed, seed)
	return rand.New(rand.NewPCG(uint64(seed), 0x7265_7375_6d65))
}

const plainSchema = `CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3};
CREATE TABLE ks.t (k int PRIMARY KEY, v text);
CREATE TABLE ks.c (k int PRIMARY KEY, n counter);
CREATE TABLE ks.ab (id int PRIMARY KEY, a text, b text);
`

func startSimProc(t *testing.T, flags ...string) *proctest.Sim {
	t.Helper()
	return proctest.StartSim(t, plainSchema, append([]string{"--nodes", "3"}, flags...)...)
}

// ---------------------------------------------------------------------
// Inputs.

// input is a CSV file the test wrote, line by line: no record spans two
// lines, so line n of the file is record n (n - 1 with a header).
type input struct {
	path   string
	header string   // "" without a header line
	lines  []string // lines[i] is line i+1 of the file, header included
	// bad holds the line numbers of the rows that must be rejected.
	bad map[int]bool
}

func (in *input) records() int {
	if in.header != "" {
		return len(in.lines) - 1
	}
	return len(in.lines)
}

func (in *input) write(t *testing.T) {
	t.Helper()
	if err := os.WriteFile(in.path, []byte(strings.Join(in.lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// kvInput is an input for ks.t (k int, v text): good rows with their
// values by key, and bad rows.
type kvInput struct {
	input
	good map[int32]string // key → value of every good row
	keys map[int]int32    // line number → key of a good row
}

const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ;:-_"

func randText(rng *rand.Rand, min, max int) string {
	b := make([]byte, min+rng.IntN(max-min+1))
	for i := range b {
		b[i] = letters[rng.IntN(len(letters))]
	}
	return strings.TrimSpace(string(b)) + "x" // never empty, never padded
}

// fixedText is n letters or digits.
func fixedText(rng *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = letters[rng.IntN(62)]
	}
	return string(b)
}

// csvField quotes a value as the input would: some values hold commas or
// quotes, so the rows' raw bytes differ from their values.
func csvField(rng *rand.Rand, v string) (field, value string) {
	switch rng.IntN(20) {
	case 0:
		v = v + ", with a comma"
		return `"` + v + `"`, v
	case 1:
		q := `say "` + v + `"`
		return `"` + strings.ReplaceAll(q, `"`, `""`) + `"`, q
	}
	return v, v
}

// badRow returns a row that no run may write, of kind i (mod the kinds):
// an unparsable or out-of-range int, a wrong field count, a null key,
// text that is not UTF-8. Rows with a numeric key use keys from 10^6 up,
// which no good row has.
func badRow(rng *rand.Rand, i int) string {
	key := 1_000_000 + i
	switch i % 7 {
	case 0:
		return fmt.Sprintf("x%d,not an int", key)
	case 1:
		return fmt.Sprintf("%d.5,a fraction", key)
	case 2:
		return fmt.Sprintf("%d0000,out of range", key)
	case 3:
		return strconv.Itoa(key) // one field
	case 4:
		return fmt.Sprintf("%d,%s,one field too many", key, randText(rng, 3, 8))
	case 5:
		return ",a null key"
	}
	return fmt.Sprintf("%d,not utf-8 \xff\xfe here", key)
}

// newKVInput writes nGood rows with distinct shuffled keys and nBad bad
// rows at random places.
func newKVInput(t *testing.T, rng *rand.Rand, path string, nGood, nBad int) *kvInput {
	t.Helper()
	in := &kvInput{input: input{path: path, bad: map[int]bool{}}, good: map[int32]string{}, keys: map[int]int32{}}
	total := nGood + nBad
	isBad := make([]bool, total)
	for _, p := range rng.Perm(total)[:nBad] {
		isBad[p] = true
	}
	keys := rng.Perm(nGood)
	g, b := 0, 0
	for i := range total {
		line := i + 1
		if isBad[i] {
			in.lines = append(in.lines, badRow(rng, b))
			in.bad[line] = true
			b++
			continue
		}
		k := int32(keys[g])
		g++
		field, value := csvField(rng, randText(rng, 6, 24))
		in.lines = append(in.lines, fmt.Sprintf("%d,%s", k, field))
		in.good[k], in.keys[line] = value, k
	}
	in.write(t)
	return in
}

// ---------------------------------------------------------------------
// Running cqlload and stopping it.

// stopAt says when a run is stopped, and how.
type stopAt struct {
	sig   syscall.Signal // 0: the run is let finish
	from  stopFrom
	delay time.Duration
}

// stopFrom is the moment a stop's delay counts from.
type stopFrom int

const (
	fromStart      stopFrom = iota // the process's start
	fromConnect                    // the simulator accepted a connection of this run
	fromFirstWrite                 // the simulator wrote a row of this run
)

func (f stopFrom) String() string {
	return [...]string{"start", "first connection", "first write"}[f]
}

func (s stopAt) String() string {
	if s.sig == 0 {
		return "no stop"
	}
	return fmt.Sprintf("%v %v after %v", sigName(s.sig), s.delay.Round(time.Millisecond), s.from)
}

func sigName(s syscall.Signal) string {
	switch s {
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return s.String()
}

// runResult is how a run of cqlload ended.
type runResult struct {
	code   int  // exit status; -1 when a signal ended the process
	killed bool // a signal ended the process
	sent   bool // the stop signal was sent while the process ran
	// exitAfter is the time from the signal to the exit.
	exitAfter      time.Duration
	stdout, stderr string
}

func (r runResult) String() string {
	switch {
	case r.killed:
		return "killed"
	case r.sent:
		return fmt.Sprintf("exit %d %v after the signal", r.code, r.exitAfter.Round(time.Millisecond))
	}
	return fmt.Sprintf("exit %d", r.code)
}

// runLoad runs cqlload with args in dir and stops it as at says.
func runLoad(t *testing.T, sim *proctest.Sim, dir string, args []string, at stopAt) runResult {
	t.Helper()
	cmd := sim.Cmd(context.Background(), t, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	var base int64
	if at.sig != 0 && at.from != fromStart {
		base = simCount(t, sim, at.from)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start cqlload: %v", err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait() // the status is read from ProcessState
		close(done)
	}()
	var res runResult
	var sentAt time.Time
	if at.sig != 0 && waitStopPoint(t, sim, at, base, done) {
		if err := cmd.Process.Signal(at.sig); err == nil {
			res.sent, sentAt = true, time.Now()
		}
	}
	<-done
	if res.sent {
		res.exitAfter = time.Since(sentAt)
	}
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	res.killed = ws.Signaled()
	res.code = cmd.ProcessState.ExitCode()
	res.stdout, res.stderr = stdout.String(), stderr.String()
	return res
}

// simCount is what the simulator has counted of the event a stop's delay
// counts from: connections accepted or rows written, since it started.
func simCount(t *testing.T, sim *proctest.Sim, from stopFrom) int64 {
	t.Helper()
	if from == fromFirstWrite {
		return sim.RowsWritten(t)
	}
	st, err := sim.ReadStats()
	if err != nil {
		t.Fatal(err)
	}
	return st.Total().Connections
}

// waitStopPoint waits until the stop point is reached (true) or the
// process exited first (false).
func waitStopPoint(t *testing.T, sim *proctest.Sim, at stopAt, base int64, done <-chan struct{}) bool {
	t.Helper()
	if at.from != fromStart {
		poll := time.NewTicker(5 * time.Millisecond)
		defer poll.Stop()
		for seen := false; !seen; {
			select {
			case <-done:
				return false
			case <-poll.C:
				seen = simCount(t, sim, at.from) > base
			}
		}
	}
	timer := time.NewTimer(at.delay)
	defer timer.Stop()
	select {
	case <-done:
		return false
	case <-timer.C:
		return true
	}
}

// stopLoop runs the same command, stopping it at random points with one
// of sigs, until stops runs were stopped; the next run is let finish. A
// run that finishes before its stop point ends the loop early. Every
// stopped run is checked: the error files must be whole up to the lengths
// the checkpoint records; a run stopped by SIGINT must exit with status 4
// within 2 s of the signal, with a summary that accounts for every row it
// read and whole error files.
type stopLoop struct {
	sigs    []syscall.Signal // taken in turn
	drawn   int              // stop points drawn so far
	stops   int
	rate    int // --ingest-rate, to size the delays to the work left
	records int // input records
	ckpt    string
	summary string // --summary-json
	files   errFileSet
	// afterStop, if set, checks more of the state a stopped run left,
	// with the checkpoint as it was then.
	afterStop func(t *testing.T, n int, cp *checkpoint)
}

// stopPoint draws the next stop point, its signal the next of l.sigs
// in turn: one in five during the start (the
// connection, the checkpoint read, the error files cut back), one in five
// within 50 ms of the first write (as a resumed run takes up the chunks
// the stopped one left), the others while rows are being written, early
// enough to leave work for the next. A SIGINT at the start counts from
// the run's first connection: before the Go runtime and cqlload's first
// steps have installed the handler, the signal's default action ends any
// process, and on a busy machine a binary built with -race can take more
// than 100 ms to get there. The connection comes after the handler.
func (l *stopLoop) stopPoint(rng *rand.Rand, cp *checkpoint) stopAt {
	sig := l.sigs[l.drawn%len(l.sigs)]
	l.drawn++
	left := int64(l.records)
	if cp != nil {
		left -= cp.RowsDone
	}
	// Within the first 40% of what is left at the rate: a stop later
	// than the run's end is no stop, and the test wants its stops.
	window := min(600*time.Millisecond, time.Duration(float64(left)/float64(l.rate)*0.4*float64(time.Second)))
	window = max(window, time.Millisecond)
	switch rng.IntN(5) {
	case 0:
		// At startup, or while it sends (connecting takes some 100 ms
		// before the first row goes).
		from := fromStart
		if sig != syscall.SIGKILL {
			from = fromConnect
		}
		latest := min(800*time.Millisecond, 100*time.Millisecond+window)
		return stopAt{sig: sig, from: from, delay: time.Duration(rng.Int64N(int64(latest)))}
	case 1:
		return stopAt{sig: sig, from: fromFirstWrite, delay: time.Duration(rng.Int64N(int64(min(50*time.Millisecond, window))) + 1)}
	}
	return stopAt{sig: sig, from: fromFirstWrite, delay: time.Duration(rng.Int64N(int64(window)))}
}

// run returns the result of the run that completed and the stops by
// signal.
func (l *stopLoop) run(t *testing.T, rng *rand.Rand, sim *proctest.Sim, dir string, args []string) (runResult, map[syscall.Signal]int) {
	t.Helper()
	stops := map[syscall.Signal]int{}
	for n, stopped := 1, 0; ; n++ {
		cp := readCheckpoint(t, l.ckpt)
		at := stopAt{}
		if stopped < l.stops {
			at = l.stopPoint(rng, cp)
		}
		_ = os.Remove(l.summary)
		start := time.Now()
		res := runLoad(t, sim, dir, args, at)
		after := readCheckpoint(t, l.ckpt)
		t.Logf("run %d: %v: %v in %v; checkpoint: %s", n, at, res, time.Since(start).Round(time.Millisecond), after)
		if res.code == exitUsage || res.code == exitFatal || res.code == exitAborted {
			t.Fatalf("run %d: exit %d\nstdout:\n%s\nstderr:\n%s", n, res.code, res.stdout, res.stderr)
		}
		if !res.killed && !(res.sent && res.code == exitInterrupted) {
			return res, stops
		}
		stopped++
		stops[at.sig]++
		l.files.read(t, after) // what the checkpoint names as written is whole
		if at.sig != syscall.SIGKILL {
			l.checkInterrupted(t, n, at, res)
		}
		if l.afterStop != nil {
			l.afterStop(t, n, after)
		}
		if n > l.stops+10 {
			t.Fatalf("no run completed after %d runs", n)
		}
	}
}

// checkInterrupted checks a run stopped by SIGINT, SIGTERM or SIGHUP: an
// orderly stop.
func (l *stopLoop) checkInterrupted(t *testing.T, n int, at stopAt, res runResult) {
	t.Helper()
	if res.killed {
		t.Errorf("run %d: %v killed the process instead of stopping it", n, at)
		return
	}
	if res.exitAfter > 2*time.Second {
		t.Errorf("run %d: exited %v after %s, want within 2 s", n, res.exitAfter.Round(time.Millisecond), sigName(at.sig))
	}
	// Its last line names the signal and how to go on, not the context.
	if want := "interrupted by " + sigName(at.sig); !strings.Contains(res.stderr, want) || !strings.Contains(res.stderr, "--resume "+l.ckpt+" loads the rest") {
		t.Errorf("run %d: stderr does not say it was interrupted by a signal and how to resume:\n%s", n, res.stderr)
	}
	s := readSummary(t, l.summary)
	checkCounts(t, s, l.records, false)
	// The rows not sent follow the checkpoint's lengths, whole.
	l.files.read(t, nil)
}

// ---------------------------------------------------------------------
// What a run leaves: summary, checkpoint, error files.

// summary is the --summary-json a run wrote (its keys, as docs/usage.md
// documents them, are checked by TestExitStatuses).
type summary struct{ loader.Summary }

func (s summary) rejected() int64 {
	return s.RowsFailedParse + s.RowsFailedInsert + s.RowsUnknown + s.RowsNotSent
}

func readSummary(t *testing.T, path string) summary {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("summary: %v", err)
	}
	var s summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("summary %s: %v", path, err)
	}
	return s
}

// checkCounts checks that the summary accounts for every row it read,
// and, for a run that completed, for every input record with the rows
// earlier runs settled.
func checkCounts(t *testing.T, s summary, records int, completed bool) {
	t.Helper()
	if out := s.RowsWritten + s.RowsSkipped + s.RowsFailedParse + s.RowsFailedInsert + s.RowsUnknown + s.RowsNotSent; out != s.RowsRead {
		t.Errorf("summary: rows_read %d != written %d + skipped %d + failed_parse %d + failed_insert %d + unknown %d + not_sent %d = %d",
			s.RowsRead, s.RowsWritten, s.RowsSkipped, s.RowsFailedParse, s.RowsFailedInsert, s.RowsUnknown, s.RowsNotSent, out)
	}
	switch {
	case completed && s.RowsRead+s.RowsResumed != int64(records):
		t.Errorf("summary: rows_read %d + rows_resumed %d = %d, want the %d input records", s.RowsRead, s.RowsResumed, s.RowsRead+s.RowsResumed, records)
	case !completed && s.RowsRead+s.RowsResumed > int64(records):
		t.Errorf("summary: rows_read %d + rows_resumed %d = %d, more than the %d input records", s.RowsRead, s.RowsResumed, s.RowsRead+s.RowsResumed, records)
	}
}

// wantExit is the exit status the documentation gives a finished run
// with this summary: 1 when rows are not written, this run's or, for a
// resumed run, those of the runs before it that its error files hold.
func wantExit(s summary) int {
	if s.rejected() > 0 || len(s.ErrFiles) > 0 {
		return exitRejected
	}
	return exitOK
}

// checkpoint is what the tests read of a --resume file.
type checkpoint struct {
	Complete bool       `json:"complete"`
	Settled  [][2]int64 `json:"settled"`
	RowsDone int64      `json:"rows_done"`
	InDoubt  []struct {
		Seq      int64  `json:"seq"`
		Acked    string `json:"acked"`
		Sendable string `json:"sendable"`
	} `json:"in_doubt"`
	ErrFiles []struct {
		Path   string `json:"path"`
		Header string `json:"header"`
		Bytes  int64  `json:"bytes"`
		Rows   int64  `json:"rows"`
	} `json:"error_files"`
	LogBytes int64 `json:"error_log_bytes"`
}

// readCheckpoint returns nil when there is none yet.
func readCheckpoint(t *testing.T, path string) *checkpoint {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var cp checkpoint
	if err := json.Unmarshal(b, &cp); err != nil {
		t.Fatalf("checkpoint %s: %v\n%s", path, err, b)
	}
	return &cp
}

func (cp *checkpoint) String() string {
	if cp == nil {
		return "none"
	}
	chunks := int64(0)
	for _, r := range cp.Settled {
		chunks += r[1] - r[0]
	}
	s := fmt.Sprintf("%d chunks settled (%d rows)", chunks, cp.RowsDone)
	if cp.Complete {
		s += ", complete"
	}
	if len(cp.InDoubt) > 0 {
		s += fmt.Sprintf(", %d counter chunks in doubt", len(cp.InDoubt))
	}
	for _, f := range cp.ErrFiles {
		s += fmt.Sprintf(", %s: %d rows in %d bytes", filepath.Base(f.Path), f.Rows, f.Bytes)
	}
	return s
}

// settledSeq says whether chunk seq is settled.
func (cp *checkpoint) settledSeq(seq int64) bool {
	for _, r := range cp.Settled {
		if r[0] <= seq && seq < r[1] {
			return true
		}
	}
	return false
}

// errBytes is the length the checkpoint records for error file path.
func (cp *checkpoint) errBytes(path string) int64 {
	for _, f := range cp.ErrFiles {
		if f.Path == path {
			return f.Bytes
		}
	}
	return 0
}

// inDoubtRows counts the rows of the in-doubt counter chunks whose update
// may have been applied (neither acknowledged nor proved not applied):
// the rows a resumed run reports unknown. records gives a chunk's size.
func (cp *checkpoint) inDoubtRows(t *testing.T, records func(seq int64) int) int {
	t.Helper()
	n := 0
	for _, d := range cp.InDoubt {
		acked, sendable := parseBitmap(t, d.Acked), parseBitmap(t, d.Sendable)
		known := 0
		for i := range max(len(acked), len(sendable)) {
			var a, s uint64
			if i < len(acked) {
				a = acked[i]
			}
			if i < len(sendable) {
				s = sendable[i]
			}
			known += bits.OnesCount64(a | s)
		}
		n += records(d.Seq) - known
	}
	return n
}

func parseBitmap(t *testing.T, s string) []uint64 {
	t.Helper()
	var out []uint64
	for _, f := range strings.Fields(s) {
		w, err := strconv.ParseUint(f, 16, 64)
		if err != nil {
			t.Fatalf("checkpoint bitmap %q: %v", s, err)
		}
		out = append(out, w)
	}
	return out
}

// errRow is one row of an error file with its line of the log.
type errRow struct {
	file   string // the error file holding it
	raw    string // the row as the error file holds it
	input  string // the input file, as the log names it
	line   int    // its line in the input
	kind   string // parse error, insert error, unknown, not sent
	reason string
}

var logKinds = []string{"parse error", "insert error", "unknown", "not sent", "skipped"}

// parseLogLine reads FILE:LINE[:COLUMN]: KIND: REASON[ [in ERRFILE]].
func parseLogLine(l string) (r errRow, ok bool) {
	if strings.HasSuffix(l, "]") {
		if i := strings.LastIndex(l, " [in "); i >= 0 {
			r.file, l = l[i+len(" [in "):len(l)-1], l[:i]
		}
	}
	at := -1
	for _, k := range logKinds {
		if i := strings.Index(l, ": "+k+": "); i >= 0 && (at < 0 || i < at) {
			at, r.kind = i, k
		}
	}
	if at < 0 {
		return r, false
	}
	where := l[:at]
	r.reason = l[at+len(": "+r.kind+": "):]
	// where is FILE:LINE or FILE:LINE:COLUMN.
	parts := strings.Split(where, ":")
	if len(parts) >= 3 {
		if _, err := strconv.Atoi(parts[len(parts)-1]); err == nil {
			if _, err := strconv.Atoi(parts[len(parts)-2]); err == nil {
				parts = parts[:len(parts)-1]
			}
		}
	}
	if len(parts) < 2 {
		return r, false
	}
	n, err := strconv.Atoi(parts[len(parts)-1])
	if err != nil {
		return r, false
	}
	r.input, r.line = strings.Join(parts[:len(parts)-1], ":"), n
	return r, true
}

// errFileSet is what an error file (and its numbered siblings) must hold.
type errFileSet struct {
	path string
	// headers: the header line each error file starts with, by path; a
	// file not listed has none.
	headers map[string]string
	// inputs by path, as the log names them.
	inputs map[string]*input
}

// read reads the error files and the log and pairs them: the n-th log
// line naming an error file describes that file's n-th row. With cp, only
// the lengths the checkpoint records are read (a killed run may have left
// more, which the resumed run cuts); without, the whole files, which must
// end with whole lines. It checks what must hold of any error file: a
// header line if its input has one, whole lines each byte for byte the
// input line the log names, one log line per row.
func (e errFileSet) read(t *testing.T, cp *checkpoint) []errRow {
	t.Helper()
	read := func(path string, n int64) (string, bool) {
		b, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			if n > 0 {
				t.Errorf("%s: missing, but the checkpoint records %d bytes of it", path, n)
			}
			return "", false
		}
		if err != nil {
			t.Fatal(err)
		}
		if n >= 0 {
			if int64(len(b)) < n {
				t.Errorf("%s: %d bytes, shorter than the %d the checkpoint records", path, len(b), n)
				n = int64(len(b))
			}
			b = b[:n]
		}
		if len(b) > 0 && b[len(b)-1] != '\n' {
			t.Errorf("%s: the last line is torn: %q", path, b[max(0, len(b)-80):])
		}
		return string(b), true
	}
	logN := int64(-1)
	if cp != nil {
		logN = cp.LogBytes
	}
	logText, _ := read(e.path+".log", logN)
	files := map[string][]string{}
	var rows []errRow
	next := map[string]int{}
	for _, l := range splitLines(logText) {
		r, ok := parseLogLine(l)
		if !ok {
			t.Errorf("%s.log: unexpected line %q", e.path, l)
			continue
		}
		if r.file == "" {
			r.file = e.path
		}
		if _, ok := files[r.file]; !ok {
			n := int64(-1)
			if cp != nil {
				n = cp.errBytes(r.file)
			}
			text, _ := read(r.file, n)
			lines := splitLines(text)
			if h, ok := e.headers[r.file]; ok {
				if len(lines) == 0 || lines[0] != h {
					first := ""
					if len(lines) > 0 {
						first = lines[0]
					}
					t.Errorf("%s: first line %q, want the header %q", r.file, first, h)
				} else {
					lines = lines[1:]
				}
			}
			files[r.file] = lines
		}
		i := next[r.file]
		next[r.file]++
		if i >= len(files[r.file]) {
			t.Errorf("%s.log: line %q has no row in %s (which holds %d)", e.path, l, r.file, len(files[r.file]))
			continue
		}
		r.raw = files[r.file][i]
		in := e.inputs[r.input]
		switch {
		case in == nil:
			t.Errorf("%s.log: line %q names an unknown input", e.path, l)
		case r.line < 1 || r.line > len(in.lines):
			t.Errorf("%s.log: line %q: %s has %d lines", e.path, l, r.input, len(in.lines))
		case in.lines[r.line-1] != r.raw:
			t.Errorf("%s row %d is %q, but the log says it is %s:%d, which is %q", r.file, i+1, r.raw, r.input, r.line, in.lines[r.line-1])
		}
		rows = append(rows, r)
	}
	// Rows no log line describes.
	for f := range e.headers {
		if _, ok := files[f]; !ok {
			n := int64(-1)
			if cp != nil {
				n = cp.errBytes(f)
			}
			text, _ := read(f, n)
			files[f] = splitLines(text)
			if len(files[f]) > 0 {
				files[f] = files[f][1:]
			}
		}
	}
	if _, ok := files[e.path]; !ok {
		n := int64(-1)
		if cp != nil {
			n = cp.errBytes(e.path)
		}
		text, _ := read(e.path, n)
		files[e.path] = splitLines(text)
	}
	for f, lines := range files {
		if len(lines) != next[f] {
			t.Errorf("%s holds %d rows, the log describes %d", f, len(lines), next[f])
		}
	}
	return rows
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// onceEach checks that no input line is in the error files twice, and
// returns the rows by input line.
func onceEach(t *testing.T, rows []errRow) map[string]map[int]errRow {
	t.Helper()
	out := map[string]map[int]errRow{}
	for _, r := range rows {
		if out[r.input] == nil {
			out[r.input] = map[int]errRow{}
		}
		if prev, dup := out[r.input][r.line]; dup {
			t.Errorf("%s:%d is in the error files twice: %s (%s: %s) and %s (%s: %s)", r.input, r.line, prev.file, prev.kind, prev.reason, r.file, r.kind, r.reason)
		}
		out[r.input][r.line] = r
	}
	return out
}

// ---------------------------------------------------------------------
// Reading the table back.

func readKV(t *testing.T, s *gocql.Session) map[int32]string {
	return readMap[string](t, s, "SELECT k, v FROM ks.t")
}

func readCounters(t *testing.T, s *gocql.Session) map[int32]int64 {
	return readMap[int64](t, s, "SELECT k, n FROM ks.c")
}

// readMap reads a two-column query, key then value, whole.
func readMap[V any](t *testing.T, s *gocql.Session, query string) map[int32]V {
	t.Helper()
	out := map[int32]V{}
	it := s.Query(query).PageSize(5000).Iter()
	var k int32
	var v V
	for it.Scan(&k, &v) {
		out[k] = v
	}
	if err := it.Close(); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return out
}

// checkKV checks the final state of a load of in into ks.t: the lines in
// inErr (the bad rows, and any other the test expects) are in the error
// files once each and nowhere in the table; every other row is in the
// table with its value; the table holds nothing else.
func checkKV(t *testing.T, in *kvInput, table map[int32]string, byLine map[int]errRow, inErr map[int]bool) {
	t.Helper()
	missing, wrong, extraErr := 0, 0, 0
	for line := range byLine {
		if !inErr[line] {
			extraErr++
			if extraErr <= 5 {
				r := byLine[line]
				t.Errorf("error file holds %s:%d %q (%s: %s), which should have been loaded", r.input, line, r.raw, r.kind, r.reason)
			}
		}
	}
	for line := range inErr {
		if _, ok := byLine[line]; !ok {
			t.Errorf("%s:%d %q is not in the error file", in.path, line, in.lines[line-1])
		}
	}
	want := 0
	for line, k := range in.keys {
		if inErr[line] {
			if v, ok := table[k]; ok {
				t.Errorf("key %d (line %d, in the error file) is in the table with %q", k, line, v)
			}
			continue
		}
		want++
		switch v, ok := table[k]; {
		case !ok:
			missing++
			if missing <= 5 {
				t.Errorf("key %d (line %d) is not in the table", k, line)
			}
		case v != in.good[k]:
			wrong++
			if wrong <= 5 {
				t.Errorf("key %d (line %d): table holds %q, want %q", k, line, v, in.good[k])
			}
		}
	}
	for k := range table {
		if _, ok := in.good[k]; !ok {
			t.Errorf("table holds key %d, which no good input row has", k)
		}
	}
	if len(table) != want-missing {
		t.Errorf("table holds %d rows, want %d", len(table), want)
	}
	if missing+wrong+extraErr > 0 {
		t.Errorf("%d good rows missing, %d with wrong values, %d good rows in the error file", missing, wrong, extraErr)
	}
}

// ---------------------------------------------------------------------
// 1 and 2: kill -9 and SIGINT, then --resume until a run completes.

// make test runs the first case and the stripes with 6 kills; make check
// every case, with 12.
func TestResumeAfterKill(t *testing.T) {
	// The file (about 500 KB) read as 4 stripes side by side.
	stripes := []string{"--readers", "4", "--stripe-size", "64KiB"}
	cases := []stopCase{
		{name: "chunks of 1000", rows: 18_000, bad: 50, chunk: 1000, rate: 12000, stops: 6},
		{name: "stripes", rows: 18_000, bad: 50, chunk: 1000, rate: 12000, stops: 6, args: stripes, striped: true},
	}
	if full {
		cases = []stopCase{
			{name: "chunks of 1000", rows: 36_000, bad: 50, chunk: 1000, rate: 12000, stops: 12},
			{name: "chunks of 500, 16 in flight", rows: 30_000, bad: 50, chunk: 500, rate: 12000, stops: 12, args: []string{"--max-in-flight", "16"}},
			{name: "stripes", rows: 36_000, bad: 50, chunk: 1000, rate: 12000, stops: 12, args: stripes, striped: true},
			// bgzip's blocks of 8 KB of text, 4 stripes of about 16 KiB.
			{name: "stripes of a bgzip file", rows: 36_000, bad: 50, chunk: 1000, rate: 12000, stops: 12,
				args: []string{"--readers", "4", "--stripe-size", "16KiB"}, striped: true, bgzip: true},
		}
	}
	testResumeAfterStops(t, syscall.SIGKILL, cases)
}

// Each interrupting signal: SIGINT (Ctrl-C), SIGTERM (a scheduler,
// Kubernetes), SIGHUP (the terminal closed).
func TestResumeAfterInterrupt(t *testing.T) {
	rows := 18_000 // make check: 36,000
	if full {
		rows = 36_000
	}
	testResumeAfterStops(t, syscall.SIGINT, []stopCase{
		{name: "chunks of 1000", rows: rows, bad: 50, chunk: 1000, rate: 12000, stops: 6,
			sigs: []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}},
	})
}

type stopCase struct {
	name        string
	rows, bad   int
	chunk, rate int
	stops       int
	args        []string
	// sigs, when set, are the signals stops draw from instead of the
	// test's one.
	sigs []syscall.Signal
	// striped: the file is read as stripes side by side, so its chunks
	// are not numbered in the order of its lines; what a checkpoint
	// settled is checked at the end only.
	striped bool
	// bgzip: the input is compressed with bgzip (bgzf.Compress).
	bgzip bool
}

func testResumeAfterStops(t *testing.T, sig syscall.Signal, cases []stopCase) {
	rng := seededRNG(t)
	total, ran, planned := 0, 0, 0
	for _, tc := range cases {
		planned += tc.stops
		t.Run(tc.name, func(t *testing.T) {
			ran++
			sim := startSimProc(t)
			sess := sim.Session(t)
			dir := t.TempDir()
			in := newKVInput(t, rng, filepath.Join(dir, "in.csv"), tc.rows, tc.bad)
			if tc.bgzip {
				text, err := os.ReadFile(in.path)
				if err == nil {
					text, err = bgzf.Compress(text, 8000)
				}
				if err != nil {
					t.Fatal(err)
				}
				in.path += ".gz"
				if err := os.WriteFile(in.path, text, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ckpt, errf, sum := filepath.Join(dir, "ckpt.json"), filepath.Join(dir, "rejected.err"), filepath.Join(dir, "summary.json")
			args := append([]string{"--progress", "none", "--table", "ks.t", "--resume", ckpt, "--err-file", errf, "--summary-json", sum,
				"--chunk-size", strconv.Itoa(tc.chunk), "--ingest-rate", strconv.Itoa(tc.rate)}, tc.args...)
			args = append(args, in.path)
			files := errFileSet{path: errf, inputs: map[string]*input{in.path: &in.input}}
			sigs := tc.sigs
			if sigs == nil {
				sigs = []syscall.Signal{sig}
			}
			loop := stopLoop{sigs: sigs, stops: tc.stops, rate: tc.rate, records: in.records(), ckpt: ckpt, summary: sum, files: files,
				afterStop: func(t *testing.T, n int, cp *checkpoint) {
					// A chunk the checkpoint names as settled is done:
					// its good rows are in the table, its bad rows in the
					// error file up to the recorded length.
					if cp == nil || tc.striped {
						return
					}
					table := readKV(t, sess)
					inErr := onceEach(t, files.read(t, cp))[in.path]
					for line := 1; line <= len(in.lines); line++ {
						if !cp.settledSeq(int64((line - 1) / tc.chunk)) {
							continue
						}
						if k, good := in.keys[line]; good && table[k] != in.good[k] {
							t.Errorf("run %d: line %d of a settled chunk: key %d holds %q, want %q", n, line, k, table[k], in.good[k])
						}
						if _, ok := inErr[line]; in.bad[line] && !ok {
							t.Errorf("run %d: bad line %d of a settled chunk is not in the error file the checkpoint records", n, line)
						}
					}
				}}
			res, stops := loop.run(t, rng, sim, dir, args)
			for _, s := range sigs {
				total += stops[s]
			}
			if len(sigs) > 1 {
				for _, s := range sigs {
					if stops[s] == 0 {
						t.Errorf("no stop by %s", sigName(s))
					}
				}
			}
			s := readSummary(t, sum)
			if res.code != wantExit(s) {
				t.Errorf("final run: exit %d, want %d for its summary %+v\n%s", res.code, wantExit(s), s, res.stderr)
			}
			checkCounts(t, s, in.records(), true)
			if tc.striped != (s.Stripes > 1) {
				t.Errorf("final run: read as %d stripes", s.Stripes)
			}
			if s.RowsNotSent != 0 || s.RowsUnknown != 0 {
				t.Errorf("final run: %d rows not sent, %d unknown", s.RowsNotSent, s.RowsUnknown)
			}
			if cp := readCheckpoint(t, ckpt); cp == nil || !cp.Complete {
				t.Errorf("final checkpoint is not complete: %v", cp)
			}
			rows := files.read(t, nil)
			for _, r := range rows {
				if r.kind != "parse error" {
					t.Errorf("%s:%d %q: %s: %s; want a parse error", r.input, r.line, r.raw, r.kind, r.reason)
				}
			}
			checkKV(t, in, readKV(t, sess), onceEach(t, rows)[in.path], in.bad)
			t.Logf("%v stops; final run: exit %d, %d read, %d written, %d resumed, %d rejected; the error file holds %d rows",
				stops, res.code, s.RowsRead, s.RowsWritten, s.RowsResumed, s.rejected(), len(rows))
		})
	}
	t.Logf("%d stop points in all", total)
	// Five in six of the planned kills must land (20 of 24 in make
	// check): a stop later than the run's end is no stop.
	if want := planned * 5 / 6; sig == syscall.SIGKILL && ran == len(cases) && total < want {
		t.Errorf("only %d kill points, want at least %d", total, want)
	}
}

// TestResumeAfterMaxInsertErrors: inserts fail for good (unavailable,
// one attempt; one batch in fifty) until MAXINSERTERRORS aborts the run
// with exit 2, after some chunks settled. The
// rows of chunks that settled as failed inserts are final: they stay in
// the error file, and the resumed run does not send them again. The
// chunks that did not settle (rows not sent) are loaded by the resumed
// run, and their rows leave the error file.
func TestResumeAfterMaxInsertErrors(t *testing.T) {
	sim := startSimProc(t, "--fail-rate", "0.02", "--fail-with", "unavailable")
	dir := t.TempDir()
	rng := seededRNG(t)
	in := newKVInput(t, rng, filepath.Join(dir, "in.csv"), 30_000, 50)
	ckpt, errf, sum := filepath.Join(dir, "ckpt.json"), filepath.Join(dir, "rejected.err"), filepath.Join(dir, "summary.json")
	args := []string{"--progress", "none", "--table", "ks.t", "--resume", ckpt, "--err-file", errf, "--summary-json", sum,
		"--chunk-size", "500", "--max-attempts", "1", "--max-insert-errors", "100", in.path}
	files := errFileSet{path: errf, inputs: map[string]*input{in.path: &in.input}}

	res := runLoad(t, sim, dir, args, stopAt{})
	if res.code != exitAborted {
		t.Fatalf("with faults: exit %d, want %d\n%s%s", res.code, exitAborted, res.stdout, res.stderr)
	}
	s := readSummary(t, sum)
	checkCounts(t, s, in.records(), false)
	if s.RowsFailedInsert <= 100 || !strings.Contains(s.Aborted, "MAXINSERTERRORS") {
		t.Errorf("with faults: %d failed inserts, aborted %q; want more than 100, aborted by MAXINSERTERRORS", s.RowsFailedInsert, s.Aborted)
	}
	cp := readCheckpoint(t, ckpt)
	if cp == nil || cp.Complete {
		t.Fatalf("after the abort the checkpoint is %v, want an incomplete one", cp)
	}
	// The error files as the aborted run left them: the rows of settled
	// chunks up to the checkpoint's lengths, then those of the chunks
	// the resumed run does again.
	settledRows := files.read(t, cp)
	allRows := files.read(t, nil)
	final := map[int]bool{} // rows that must stay in the error file
	for line := range in.bad {
		final[line] = true
	}
	failed := 0
	for _, r := range settledRows {
		if r.kind == "insert error" {
			final[r.line] = true
			failed++
		}
	}
	kinds := map[string]int{}
	for _, r := range allRows[len(settledRows):] {
		kinds[r.kind]++
	}
	if n := failed + kinds["insert error"]; int64(n) != s.RowsFailedInsert {
		t.Errorf("the error file holds %d rows that failed to insert, the summary says %d", n, s.RowsFailedInsert)
	}
	t.Logf("aborted run: %d failed inserts (%d in settled chunks), %d rows not sent; checkpoint: %s; after it: %v",
		s.RowsFailedInsert, failed, s.RowsNotSent, cp, kinds)
	if failed == 0 {
		t.Errorf("no failed insert is in a settled chunk: the test shows nothing")
	}
	if kinds["not sent"] == 0 || int64(kinds["not sent"]) != s.RowsNotSent {
		t.Errorf("the error file holds %d rows not sent after the checkpoint, the summary says %d", kinds["not sent"], s.RowsNotSent)
	}

	for n := 1; n <= 3; n++ {
		sim.Control(t, fmt.Sprintf("/nodes/%d/faults", n)) // no parameters: no faults
	}
	before := sim.RowsWritten(t)
	res = runLoad(t, sim, dir, args, stopAt{})
	s = readSummary(t, sum)
	if res.code != wantExit(s) {
		t.Errorf("resumed: exit %d, want %d for its summary %+v\n%s", res.code, wantExit(s), s, res.stderr)
	}
	checkCounts(t, s, in.records(), true)
	if s.RowsFailedInsert != 0 || s.RowsNotSent != 0 {
		t.Errorf("resumed: %d failed inserts, %d not sent, want none", s.RowsFailedInsert, s.RowsNotSent)
	}
	// The simulator counts every write it applied: an idempotent insert
	// sent again after a timeout counts twice, so on a busy machine it
	// may count more than the summary's rows, never fewer.
	if sent := sim.RowsWritten(t) - before; sent < s.RowsWritten {
		t.Errorf("resumed: the simulator wrote %d rows, fewer than the %d the summary says", sent, s.RowsWritten)
	}
	rows := files.read(t, nil)
	byLine := onceEach(t, rows)[in.path]
	for line := range final {
		if r, ok := byLine[line]; ok && in.bad[line] != (r.kind == "parse error") {
			t.Errorf("%s:%d: %s: %s", r.input, line, r.kind, r.reason)
		}
	}
	checkKV(t, in, readKV(t, sim.Session(t)), byLine, final)
}

// ---------------------------------------------------------------------
// 3: counters.

// TestResumeCounters: increments of 1 over 2,000 keys, stopped and
// resumed. An update sent and not acknowledged before a kill may or may
// not have been applied: the resumed run reports it unknown and never
// sends it again. So no counter ever exceeds its input sum, and each
// counter plus its unknown rows reaches it. An update the stopped run
// never sent cannot have been applied, so it must not be reported
// unknown: the increments never applied are at most what the killed runs
// can have had in flight.
func TestResumeCounters(t *testing.T) {
	cases := []struct {
		name       string
		chunk      int
		inFlight   int
		sigs       []syscall.Signal
		stops      int
		rows, keys int
	}{
		{name: "kill -9, chunks of 1000", chunk: 1000, inFlight: 32, sigs: []syscall.Signal{syscall.SIGKILL}, stops: 12, rows: 60_000, keys: 2_000},
		{name: "kill -9, chunks of 2000", chunk: 2000, inFlight: 16, sigs: []syscall.Signal{syscall.SIGKILL}, stops: 12, rows: 60_000, keys: 2_000},
		{name: "kill -9 and SIGINT", chunk: 1000, inFlight: 32, sigs: []syscall.Signal{syscall.SIGKILL, syscall.SIGINT}, stops: 12, rows: 60_000, keys: 2_000},
	}
	if !full { // make test: both signals, on a third of the rows
		cases = cases[2:]
		// Each stop lands within the first 40% of what is left, and a run
		// interrupted near the end may settle every chunk (its rows not
		// sent go to the error file, which the next run loads): 12 stops
		// over 20,000 rows left the last kills too little to land in,
		// and 3 of 6 landed on a busy machine. Eight fit.
		cases[0].rows, cases[0].stops = 20_000, 8
	}
	planned := 0 // kills
	for _, tc := range cases {
		planned += (tc.stops + len(tc.sigs) - 1) / len(tc.sigs)
	}
	const rate, maxBatch = 12000, 20
	rng := seededRNG(t)
	kills, exact, ran := 0, 0, 0
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ran++
			sim := startSimProc(t)
			sess := sim.Session(t)
			dir := t.TempDir()
			in := &input{path: filepath.Join(dir, "incr.csv"), bad: map[int]bool{}}
			want := map[int32]int64{}
			keyOf := make([]int32, tc.rows+1) // by line
			for i := range tc.rows {
				k := int32(rng.IntN(tc.keys))
				if i < tc.keys {
					k = int32(i) // every key at least once
				}
				keyOf[i+1] = k
				want[k]++
			}
			rng.Shuffle(tc.rows, func(i, j int) { keyOf[i+1], keyOf[j+1] = keyOf[j+1], keyOf[i+1] })
			for _, k := range keyOf[1:] {
				in.lines = append(in.lines, fmt.Sprintf("%d,1", k))
			}
			in.write(t)
			ckpt, errf, sum := filepath.Join(dir, "ckpt.json"), filepath.Join(dir, "unknown.err"), filepath.Join(dir, "summary.json")
			args := []string{"--progress", "none", "--table", "ks.c", "--resume", ckpt, "--err-file", errf, "--summary-json", sum,
				"--chunk-size", strconv.Itoa(tc.chunk), "--ingest-rate", strconv.Itoa(rate),
				"--max-in-flight", strconv.Itoa(tc.inFlight), "--max-batch-size", strconv.Itoa(maxBatch), in.path}
			files := errFileSet{path: errf, inputs: map[string]*input{in.path: in}}
			records := func(seq int64) int { return min(tc.chunk, tc.rows-int(seq)*tc.chunk) }
			check := func(t *testing.T, when string) map[int32]int64 {
				got := readCounters(t, sess)
				over := 0
				for k, n := range got {
					if n > want[k] {
						over++
						if over <= 5 {
							t.Errorf("%s: counter %d is %d, more than its %d increments", when, k, n, want[k])
						}
					}
				}
				if over > 0 {
					t.Errorf("%s: %d counters exceed their input sums", when, over)
				}
				return got
			}
			var doubt []int
			loop := stopLoop{sigs: tc.sigs, stops: tc.stops, rate: rate, records: tc.rows, ckpt: ckpt, summary: sum, files: files,
				afterStop: func(t *testing.T, n int, cp *checkpoint) {
					check(t, fmt.Sprintf("after run %d", n))
					if cp != nil {
						doubt = append(doubt, cp.inDoubtRows(t, records))
					}
				}}
			res, stops := loop.run(t, rng, sim, dir, args)
			kills += stops[syscall.SIGKILL]
			s := readSummary(t, sum)
			if res.code != wantExit(s) {
				t.Errorf("final run: exit %d, want %d for its summary %+v\n%s", res.code, wantExit(s), s, res.stderr)
			}
			checkCounts(t, s, tc.rows, true)
			if cp := readCheckpoint(t, ckpt); cp == nil || !cp.Complete {
				t.Errorf("final checkpoint is not complete: %v", cp)
			}
			got := check(t, "final")
			rows := files.read(t, nil)
			onceEach(t, rows)
			unknown := map[int32]int64{}
			for _, r := range rows {
				if r.kind != "unknown" {
					t.Errorf("%s:%d %q: %s: %s; want only unknown rows", r.input, r.line, r.raw, r.kind, r.reason)
					continue
				}
				if !strings.Contains(r.reason, "may have been applied") {
					t.Errorf("%s:%d: the log does not say the counter update may have been applied: %s", r.input, r.line, r.reason)
				}
				unknown[keyOf[r.line]]++
			}
			var sumGot, sumUnknown int64
			short := 0
			for k, w := range want {
				sumGot += got[k]
				sumUnknown += unknown[k]
				if got[k]+unknown[k] < w {
					short++
					if short <= 5 {
						t.Errorf("counter %d is %d with %d unknown rows, short of its %d increments", k, got[k], unknown[k], w)
					}
				}
			}
			total := int64(tc.rows)
			if sumGot > total || sumGot+sumUnknown < total {
				t.Errorf("counters sum to %d with %d unknown rows; want at most %d, and at least %d with the unknown rows", sumGot, sumUnknown, total, total)
			}
			if sumGot+sumUnknown == total {
				exact++
			}
			neverApplied := total - sumGot // all of them unknown rows
			t.Logf("%v; rows in doubt after each stop: %v; %d unknown rows in the error file: %d applied, %d never applied; counters sum to %d of %d",
				stops, doubt, sumUnknown, sumUnknown-neverApplied, neverApplied, sumGot, total)
			// Only a request in flight at a kill can be lost on its way
			// (the connection reset before the simulator read it): at
			// most max-in-flight requests of max-batch-size rows.
			if bound := int64(stops[syscall.SIGKILL] * tc.inFlight * maxBatch); neverApplied > bound {
				t.Errorf("%d unknown rows were never applied, more than the %d kills × %d requests in flight × %d rows = %d that can have been sent and lost: rows the killed runs never sent are reported unknown, and are lost to the counters",
					neverApplied, stops[syscall.SIGKILL], tc.inFlight, maxBatch, bound)
			}

			// Run again: nothing to do, nothing sent.
			before := sim.RowsWritten(t)
			again := runLoad(t, sim, dir, args, stopAt{})
			// Unknown rows in the error files: exit 1 again, as the
			// run that finished said.
			if again.code != wantExit(s) || !strings.Contains(again.stdout, "Nothing to do") {
				t.Errorf("run again: exit %d, want %d and \"Nothing to do\"\n%s%s", again.code, wantExit(s), again.stdout, again.stderr)
			}
			if !readSummary(t, sum).NothingToDo {
				t.Errorf("run again: the summary does not say nothing_to_do")
			}
			if d := sim.RowsWritten(t) - before; d != 0 {
				t.Errorf("run again: %d rows sent", d)
			}
			if after := check(t, "run again"); !mapsEqual(after, got) {
				t.Errorf("run again changed the counters")
			}
		})
	}
	t.Logf("%d kill points in all; counters + unknown rows = increments exactly in %d of %d cases", kills, exact, ran)
	// Two in three of the planned kills must land (20 of 30 in make
	// check).
	if want := planned * 2 / 3; ran == len(cases) && kills < want {
		t.Errorf("only %d kill points, want at least %d", kills, want)
	}
}

func mapsEqual[K comparable, V comparable](a, b map[K]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// ---------------------------------------------------------------------
// 4: the nightly job.

// TestResumeNightly runs docs/failures.md's nightly command: a completed run,
// then new content under the same path and size is loaded, the same
// content again is not, and a stream cannot be resumed.
func TestResumeNightly(t *testing.T) {
	sim := startSimProc(t)
	sess := sim.Session(t)
	dir := t.TempDir()
	rng := seededRNG(t)
	path, ckpt, sum := filepath.Join(dir, "nightly.csv"), filepath.Join(dir, "nightly.ckpt"), filepath.Join(dir, "summary.json")
	args := []string{"--resume", ckpt, "--table", "ks.t", "--header", "true", "--summary-json", sum, path}

	// Fixed-width rows: every night's file has the same size. The
	// input is over 128 KiB, so that the middle is outside the hashed
	// edges.
	const rows = 12_000
	night := func(base int) (string, map[int32]string) {
		var b strings.Builder
		b.WriteString("k,v\n")
		vals := map[int32]string{}
		for i := range rows {
			k := int32(base + i)
			v := fixedText(rng, 16)
			fmt.Fprintf(&b, "%07d,%s\n", k, v)
			vals[k] = v
		}
		return b.String(), vals
	}
	load := func(t *testing.T, wantLoaded map[int32]string, what string) {
		t.Helper()
		before := sim.RowsWritten(t)
		res := runLoad(t, sim, dir, args, stopAt{})
		s := readSummary(t, sum)
		if res.code != exitOK || s.NothingToDo || s.RowsWritten != rows {
			t.Fatalf("%s: exit %d, %d rows written, nothing_to_do %v; want exit 0 and %d rows\n%s%s", what, res.code, s.RowsWritten, s.NothingToDo, rows, res.stdout, res.stderr)
		}
		// Every row was sent: the simulator wrote them all, some twice
		// where an idempotent insert was sent again after a timeout
		// (the table holds each once, checked below).
		if d := sim.RowsWritten(t) - before; d < rows {
			t.Errorf("%s: the simulator wrote %d rows, want at least %d", what, d, rows)
		}
		table := readKV(t, sess)
		for k, v := range wantLoaded {
			if table[k] != v {
				t.Fatalf("%s: key %d holds %q, want %q", what, k, table[k], v)
			}
		}
	}
	write := func(content string) {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	first, firstVals := night(1_000_000)
	write(first)
	load(t, firstVals, "first night")

	// Tonight's file, same size: all new rows.
	second, secondVals := night(2_000_000)
	if len(second) != len(first) {
		t.Fatalf("the nights' files differ in size: %d, %d", len(first), len(second))
	}
	time.Sleep(20 * time.Millisecond) // a later mtime, as a night later
	write(second)
	load(t, secondVals, "new content, same size")

	// The next night's differs from it only in the middle, outside the
	// bytes the checkpoint hashes: same size, other modification time.
	third := []byte(second)
	thirdVals := map[int32]string{}
	for k, v := range secondVals {
		thirdVals[k] = v
	}
	for line := rows / 2; line < rows/2+100; line++ {
		k := int32(2_000_000 + line)
		v := strings.Repeat("M", 16)
		row := fmt.Sprintf("%07d,%s\n", k, v)
		at := len("k,v\n") + line*len(row)
		copy(third[at:], row)
		thirdVals[k] = v
	}
	time.Sleep(20 * time.Millisecond)
	write(string(third))
	load(t, thirdVals, "changed in the middle")

	// The same file again: nothing to do, nothing sent.
	before := sim.RowsWritten(t)
	res := runLoad(t, sim, dir, args, stopAt{})
	s := readSummary(t, sum)
	if res.code != exitOK || !s.NothingToDo || !strings.Contains(res.stdout, "Nothing to do") {
		t.Errorf("same file again: exit %d, nothing_to_do %v; want exit 0 and nothing to do\n%s%s", res.code, s.NothingToDo, res.stdout, res.stderr)
	}
	if s.RowsResumed != rows || s.RowsRead != 0 {
		t.Errorf("same file again: rows_resumed %d, rows_read %d; want %d and 0", s.RowsResumed, s.RowsRead, rows)
	}
	if d := sim.RowsWritten(t) - before; d != 0 {
		t.Errorf("same file again: %d rows sent", d)
	}

	// A stream cannot be resumed: a usage error, before connecting.
	cmd := sim.Cmd(context.Background(), t, "--resume", ckpt, "--table", "ks.t", "--header", "true", "-")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(first)
	out, _ := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != exitUsage || !strings.Contains(string(out), "cannot be resumed") || !strings.Contains(string(out), "standard input") {
		t.Errorf("stdin with --resume: exit %d, want %d and a message that standard input cannot be resumed:\n%s", code, exitUsage, out)
	}
	if d := sim.RowsWritten(t) - before; d != 0 {
		t.Errorf("stdin with --resume: %d rows sent", d)
	}
	if cp := readCheckpoint(t, ckpt); cp == nil || !cp.Complete {
		t.Errorf("stdin with --resume changed the checkpoint: %v", cp)
	}
}

// ---------------------------------------------------------------------
// 5: files whose headers order the same-typed columns differently.

// TestResumeSwappedColumns loads two files, headers id,a,b and id,b,a,
// killed once and resumed. Each file's bad rows go to an error file of its
// own header (E, E.2); fixed and reloaded with --header true, every row
// of the table holds exactly its a and b.
func TestResumeSwappedColumns(t *testing.T) {
	sim := startSimProc(t)
	dir := t.TempDir()
	rng := seededRNG(t)
	type ab struct{ a, b string }
	want := map[int32]ab{}
	headers := []string{"id,a,b", "id,b,a"}
	const perFile, badPerFile = 8_000, 12
	var ins []*input
	nextID := 0
	for f, h := range headers {
		in := &input{path: filepath.Join(dir, fmt.Sprintf("part%d.csv", f+1)), header: h, lines: []string{h}, bad: map[int]bool{}}
		isBad := map[int]bool{}
		for _, p := range rng.Perm(perFile)[:badPerFile] {
			isBad[p] = true
		}
		for i := range perFile {
			id := int32(nextID)
			nextID++
			a, b := fmt.Sprintf("a%d-%s", id, randText(rng, 3, 10)), fmt.Sprintf("b%d-%s", id, randText(rng, 3, 10))
			af, av := csvField(rng, a)
			bf, bv := csvField(rng, b)
			first, second := af, bf
			if h == "id,b,a" {
				first, second = bf, af
			}
			idText := strconv.Itoa(int(id))
			if isBad[i] {
				idText = []string{"id" + idText, idText + ".0", "#" + idText}[i%3]
				in.bad[len(in.lines)+1] = true
			} else {
				want[id] = ab{av, bv}
			}
			in.lines = append(in.lines, idText+","+first+","+second)
		}
		in.write(t)
		ins = append(ins, in)
	}

	ckpt, errf := filepath.Join(dir, "ckpt.json"), filepath.Join(dir, "E")
	args := []string{"--progress", "none", "--table", "ks.ab", "--header", "true", "--chunk-size", "1000", "--ingest-rate", "10000",
		"--resume", ckpt, "--err-file", errf, ins[0].path, ins[1].path}
	files := errFileSet{path: errf, headers: map[string]string{errf: headers[0], errf + ".2": headers[1]},
		inputs: map[string]*input{ins[0].path: ins[0], ins[1].path: ins[1]}}
	loop := stopLoop{sigs: []syscall.Signal{syscall.SIGKILL}, stops: 2, rate: 10000, records: 2 * perFile, ckpt: ckpt, files: files}
	res, _ := loop.run(t, rng, sim, dir, args)
	if res.code != exitRejected && res.code != exitOK {
		t.Fatalf("final run: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	rows := files.read(t, nil)
	byInput := onceEach(t, rows)
	for f, in := range ins {
		name := errf
		if f == 1 {
			name = errf + ".2"
		}
		for line := range in.bad {
			r, ok := byInput[in.path][line]
			switch {
			case !ok:
				t.Errorf("%s:%d %q is in no error file", in.path, line, in.lines[line-1])
			case r.file != name:
				t.Errorf("%s:%d is in %s, want %s (its header is %s)", in.path, line, r.file, name, in.header)
			}
		}
		if n := len(byInput[in.path]); n != len(in.bad) {
			t.Errorf("%d rows of %s in the error files, want its %d bad rows", n, in.path, len(in.bad))
		}
	}

	// Fix the ids in each error file and load it as it is.
	for f, name := range []string{errf, errf + ".2"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		lines := splitLines(string(b))
		for i := 1; i < len(lines); i++ {
			_, rest, _ := strings.Cut(lines[i], ",")
			id := int32(nextID)
			nextID++
			lines[i] = strconv.Itoa(int(id)) + "," + rest
			in := ins[f]
			// The values this row carries, read from its input line.
			for line := range in.bad {
				_, orig, _ := strings.Cut(in.lines[line-1], ",")
				if orig == rest {
					want[id] = valuesOf(t, in.header, rest)
				}
			}
		}
		if err := os.WriteFile(name, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		res := runLoad(t, sim, dir, []string{"--progress", "none", "--table", "ks.ab", "--header", "true", "--err-file", filepath.Join(dir, "reload.err"), name}, stopAt{})
		if res.code != exitOK || !strings.Contains(res.stdout, fmt.Sprintf("%d rows imported", len(lines)-1)) {
			t.Errorf("reload %s: exit %d\n%s%s", name, res.code, res.stdout, res.stderr)
		}
	}

	it := sim.Session(t).Query("SELECT id, a, b FROM ks.ab").PageSize(5000).Iter()
	var id int32
	var a, b string
	got := map[int32]ab{}
	for it.Scan(&id, &a, &b) {
		got[id] = ab{a, b}
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	bad := 0
	for id, w := range want {
		if g, ok := got[id]; !ok || g != w {
			bad++
			if bad <= 5 {
				t.Errorf("id %d: table holds %+v (present %v), want %+v", id, g, ok, w)
			}
		}
	}
	if len(got) != len(want) || bad > 0 {
		t.Errorf("table holds %d rows, want %d; %d wrong or missing", len(got), len(want), bad)
	}
}

// valuesOf reads a and b from the fields after the id, in header order.
func valuesOf(t *testing.T, header, rest string) struct{ a, b string } {
	t.Helper()
	f := splitCSV(rest)
	if len(f) != 2 {
		t.Fatalf("row %q: %d fields", rest, len(f))
	}
	if header == "id,b,a" {
		return struct{ a, b string }{f[1], f[0]}
	}
	return struct{ a, b string }{f[0], f[1]}
}

// splitCSV splits the fields csvField writes: plain, or quoted with
// doubled quotes.
func splitCSV(s string) []string {
	var out []string
	for len(s) > 0 || len(out) == 0 {
		if strings.HasPrefix(s, `"`) {
			var b strings.Builder
			i := 1
			for i < len(s) {
				if s[i] == '"' {
					if i+1 < len(s) && s[i+1] == '"' {
						b.WriteByte('"')
						i += 2
						continue
					}
					i++
					break
				}
				b.WriteByte(s[i])
				i++
			}
			out = append(out, b.String())
			s = strings.TrimPrefix(s[i:], ",")
			continue
		}
		f, rest, ok := strings.Cut(s, ",")
		out = append(out, f)
		s = rest
		if !ok {
			break
		}
	}
	return out
}
