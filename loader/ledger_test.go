package loader

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cqlload/cqlload/csvparse"
	"github.com/cqlload/cqlload/loader/internal/runlog"
)

// testLedger is a ledger over error files in a temporary directory, with
// a checkpoint, that records what it released.
func testLedger(t *testing.T) (*ledger, *[]int64, *[]error) {
	t.Helper()
	dir := t.TempDir()
	lg := newLedger(runlog.NewErrFiles(filepath.Join(dir, "rows.err"), csvparse.DefaultDialect()))
	var released []int64
	var failures []error
	lg.release = func(cr *chunkRecord) { released = append(released, cr.seq) }
	lg.fail = func(err error) { failures = append(failures, err) }
	lg.cp = newCheckpointer(filepath.Join(dir, "ckpt"), runlog.Checkpoint{Version: runlog.Version}, lg)
	lg.errs.FileFor("")
	return lg, &released, &failures
}

func chunkOf(seq int64, records int) *csvparse.Chunk {
	return &csvparse.Chunk{Seq: seq, File: "in.csv", Records: records}
}

// TestLedgerSettlesOnce: a chunk settles (and is released) exactly when
// its last row has an outcome and the converter has let go, whatever the
// order.
func TestLedgerSettlesOnce(t *testing.T) {
	tests := []struct {
		name    string
		records int
		steps   []string // "w" written row, "p" parse reject, "c" converter done
		settled int      // step after which it settles (1-based); 0 never
	}{
		{"no rows kept: converter last", 2, []string{"p", "p", "c"}, 3},
		{"rows still in flight", 3, []string{"c", "w"}, 0},
		{"every row resolved, converter last", 3, []string{"w", "p", "w", "c"}, 4},
		{"converter first", 3, []string{"c", "w", "w", "p"}, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lg, released, _ := testLedger(t)
			cr := lg.open(chunkOf(0, tt.records), 100, 0, false)
			for i, s := range tt.steps {
				switch s {
				case "w":
					lg.wrote(cr, []*row{{}})
				case "p":
					lg.reject(cr, rejectedParse, reject{where: "in.csv:1", reason: "bad", raw: []byte("x"), idx: i}, false)
				case "c":
					lg.converted(cr)
				}
				want := 0
				if tt.settled > 0 && i+1 >= tt.settled {
					want = 1
				}
				if len(*released) != want {
					t.Fatalf("after step %d (%s): released %d times, want %d", i+1, s, len(*released), want)
				}
			}
			if tt.settled > 0 && lg.bytesDone.Load() != 100 {
				t.Fatalf("settled chunk credited %d of its 100 bytes", lg.bytesDone.Load())
			}
		})
	}
}

// TestCheckpointNeverAheadOfErrorFile: when the error file cannot be
// synced, the chunk is not named settled in the checkpoint and the run is
// told to stop with the reason.
func TestCheckpointNeverAheadOfErrorFile(t *testing.T) {
	lg, released, failures := testLedger(t)
	// Chunk 0 settles cleanly with one rejected row.
	cr0 := lg.open(chunkOf(0, 1), 10, 0, false)
	lg.reject(cr0, rejectedParse, reject{where: "in.csv:1", reason: "bad", raw: []byte("bad,0")}, false)
	lg.converted(cr0)
	if err := lg.cp.save(false); err != nil {
		t.Fatal(err)
	}
	// Then the disk fails.
	boom := errors.New("injected fsync failure")
	lg.errs.Sync = func(*os.File) error { return boom }
	cr1 := lg.open(chunkOf(1, 1), 10, 0, false)
	lg.reject(cr1, rejectedParse, reject{where: "in.csv:2", reason: "bad", raw: []byte("bad,1")}, false)
	lg.converted(cr1)
	if len(*failures) != 1 || !errors.Is((*failures)[0], boom) {
		t.Fatalf("failures %v, want the fsync error", *failures)
	}
	if len(*released) != 2 {
		t.Fatalf("released %v", *released)
	}
	// A later chunk without rejects must not be written over it either:
	// the error file is broken, so nothing more is recorded.
	cr2 := lg.open(chunkOf(2, 1), 10, 0, false)
	lg.reject(cr2, rejectedParse, reject{where: "in.csv:3", reason: "bad", raw: []byte("bad,2")}, false)
	lg.converted(cr2)
	if err := lg.cp.save(false); err != nil {
		t.Fatal(err)
	}
	f := readCheckpointFile(t, lg.cp.path)
	if runlog.Ranges(f.Settled).Has(1) || runlog.Ranges(f.Settled).Has(2) || !runlog.Ranges(f.Settled).Has(0) {
		t.Fatalf("checkpoint names chunks %v settled; only chunk 0's rows were synced", f.Settled)
	}
	st, err := os.Stat(lg.errs.Path())
	if err != nil {
		t.Fatal(err)
	}
	if f.ErrFiles[0].Bytes > st.Size() {
		t.Fatalf("checkpoint records %d error-file bytes, the file has %d", f.ErrFiles[0].Bytes, st.Size())
	}
}

// TestSettleOrder: a chunk's error-file rows are on disk (synced) before
// any checkpoint names the chunk.
func TestSettleOrder(t *testing.T) {
	lg, _, failures := testLedger(t)
	var events []string
	lg.errs.Sync = func(f *os.File) error {
		events = append(events, "sync "+filepath.Base(f.Name()))
		return f.Sync()
	}
	lg.cp.sync = func(f *os.File) error {
		b, _ := os.ReadFile(f.Name())
		events = append(events, "checkpoint settled="+boolText(strings.Contains(string(b), `"settled": [`)))
		return f.Sync()
	}
	cr := lg.open(chunkOf(0, 2), 10, 0, false)
	lg.reject(cr, rejectedParse, reject{where: "in.csv:1", reason: "bad", raw: []byte("a")}, false)
	lg.wrote(cr, []*row{{}})
	lg.converted(cr)
	if err := lg.cp.save(false); err != nil {
		t.Fatal(err)
	}
	want := []string{"sync rows.err", "sync rows.err.log", "checkpoint settled=true"}
	if strings.Join(events, "|") != strings.Join(want, "|") || len(*failures) > 0 {
		t.Fatalf("events %q, want %q (failures %v)", events, want, *failures)
	}
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func readCheckpointFile(t *testing.T, path string) runlog.Checkpoint {
	t.Helper()
	action, f, err := decideResume(path, nil, nil)
	if err != nil || f == nil {
		t.Fatalf("read checkpoint: action %v err %v", action, err)
	}
	return *f
}

// TestIncompleteChunksGoAfterTheCheckpoint: rows of a chunk that a resumed
// run loads again (not sent) are written only by finish, after the final
// checkpoint, beyond the lengths it records.
func TestIncompleteChunksGoAfterTheCheckpoint(t *testing.T) {
	lg, _, _ := testLedger(t)
	done := lg.open(chunkOf(0, 1), 10, 0, false)
	lg.reject(done, rejectedParse, reject{where: "in.csv:1", reason: "bad", raw: []byte("bad")}, false)
	lg.converted(done)
	cut := lg.open(chunkOf(1, 2), 10, 0, false)
	lg.reject(cut, rejectedParse, reject{where: "in.csv:2", reason: "bad", raw: []byte("bad2")}, false)
	lg.reject(cut, notSent, reject{where: "in.csv:3", reason: "stopped", raw: []byte("unsent")}, true)
	lg.converted(cut)
	if err := lg.cp.save(false); err != nil {
		t.Fatal(err)
	}
	if err := lg.finish(); err != nil {
		t.Fatal(err)
	}
	f := readCheckpointFile(t, lg.cp.path)
	data, _ := os.ReadFile(lg.errs.Path())
	if string(data) != "bad\nbad2\nunsent\n" {
		t.Fatalf("error file %q", data)
	}
	if f.ErrFiles[0].Bytes != int64(len("bad\n")) || runlog.Ranges(f.Settled).Has(1) {
		t.Fatalf("checkpoint records %d bytes and settled %v; want only chunk 0's 4 bytes", f.ErrFiles[0].Bytes, f.Settled)
	}
	// A resumed run cuts the file back to what the checkpoint says.
	lg2 := newLedger(runlog.NewErrFiles(lg.errs.Path(), csvparse.DefaultDialect()))
	if err := lg2.resumeFrom(&f); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(lg.errs.Path())
	if string(data) != "bad\n" || !lg2.settledBefore(0) || lg2.settledBefore(1) {
		t.Fatalf("after resume: error file %q, settled 0: %v, 1: %v", data, lg2.settledBefore(0), lg2.settledBefore(1))
	}
}

// TestPriorDoubtKeptUntilSettled: an earlier run's in-doubt counter chunk
// stays in every checkpoint of the resumed run until it settles, even if
// the resumed run sends none of its updates; otherwise a third run would
// apply them all again.
func TestPriorDoubtKeptUntilSettled(t *testing.T) {
	lg, _, _ := testLedger(t)
	acked := make(runlog.Bitmap, 1)
	acked.Set(0)
	if err := lg.resumeFrom(&runlog.Checkpoint{InDoubt: []runlog.InDoubt{{Seq: 3, Acked: acked.String()}}}); err != nil {
		t.Fatal(err)
	}
	lg.errs.FileFor("")
	f := lg.snapshot(runlog.Checkpoint{}, false)
	if len(f.InDoubt) != 1 || f.InDoubt[0].Seq != 3 || f.InDoubt[0].Acked != acked.String() {
		t.Fatalf("in doubt before it settles: %+v", f.InDoubt)
	}
	cr := lg.open(chunkOf(3, 2), 10, 0, true)
	lg.skipDone(cr, 1)
	lg.reject(cr, unknown, reject{where: "in.csv:2", reason: "may have been applied", raw: []byte("k,1")}, false)
	lg.converted(cr)
	f = lg.snapshot(runlog.Checkpoint{}, false)
	if len(f.InDoubt) != 0 || !runlog.Ranges(f.Settled).Has(3) {
		t.Fatalf("after it settles: in doubt %+v, settled %v", f.InDoubt, f.Settled)
	}
}

func TestSettledChunks(t *testing.T) {
	s := settledChunks{ahead: map[int64]struct{}{}}
	steps := []struct {
		add      int64
		wantNext int64
		want     string
	}{
		{1, 0, "[[1 2]]"}, {3, 0, "[[1 2] [3 4]]"}, {0, 2, "[[0 2] [3 4]]"},
		{2, 4, "[[0 4]]"}, {6, 4, "[[0 4] [6 7]]"}, {2, 4, "[[0 4] [6 7]]"},
	}
	for _, st := range steps {
		s.add(st.add)
		if s.next != st.wantNext || fmt.Sprint(s.ranges()) != st.want {
			t.Fatalf("after %d: prefix %d, ranges %v; want %d, %s", st.add, s.next, s.ranges(), st.wantNext, st.want)
		}
	}
	if !s.has(3) || s.has(4) || !s.has(6) || s.has(7) {
		t.Fatal("has disagrees with the ranges")
	}
}

// TestResumeKeepsInputOrder: of two rows with one key, the later in the
// input wins after a resume as in one run, whichever run sent each. A
// stopped run had written the later row (its chunk settled) but not the
// earlier one; the resumed run sends the earlier row stamped as the
// stopped run would have stamped it. Before, it stamped it with its own
// later start, and the earlier row overwrote the later.
func TestResumeKeepsInputOrder(t *testing.T) {
	c := startCluster(t, 1, 1, `CREATE TABLE ks.ord (k int PRIMARY KEY, v text);`, nil)
	path := writeCSV(t, "in.csv", 30, func(i int) string {
		switch i {
		case 0:
			return "1,early\n"
		case 24:
			return "1,late\n"
		}
		return fmt.Sprintf("%d,v\n", i+100)
	})
	o := testOptions(t, c, "ord", path)
	o.ChunkSize = 10 // chunks 0, 1, 2: the rows with key 1 are in 0 and 2
	o.Resume = filepath.Join(t.TempDir(), "ck.json")
	if s, err := runLoad(t, o); err != nil || s.RowsWritten != 30 {
		t.Fatalf("first run: %v, %d written", err, s.RowsWritten)
	}
	// As if it had stopped with chunks 1 and 2 settled and chunk 0 not:
	// the table holds what those wrote, and chunk 0 is to be sent.
	raw, err := os.ReadFile(o.Resume)
	if err != nil {
		t.Fatal(err)
	}
	var cp map[string]any
	if err := json.Unmarshal(raw, &cp); err != nil {
		t.Fatal(err)
	}
	cp["complete"], cp["settled"], cp["rows_done"] = false, [][2]int64{{1, 3}}, 20
	if raw, err = json.Marshal(cp); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(o.Resume, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond) // a later start, by more than the input's 30 µs
	s, err := runLoad(t, o)
	if err != nil || s.RowsWritten != 10 || s.RowsResumed != 20 {
		t.Fatalf("resumed run: %v, %d written, %d resumed; want chunk 0 alone", err, s.RowsWritten, s.RowsResumed)
	}
	var v string
	if err := session(t, c).Query(`SELECT v FROM ks.ord WHERE k = 1`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	if v != "late" {
		t.Errorf("key 1 holds %q after the resume, want the input's later row, %q", v, "late")
	}
}

// TestRejectsInChunkOrder: a settled chunk's rows go to the error file,
// and their lines to the log, in the chunk's order, whatever order their
// outcomes came in (parse errors while converting, insert errors as
// batches finish).
func TestRejectsInChunkOrder(t *testing.T) {
	lg, _, _ := testLedger(t)
	lg.cp = nil // without a checkpoint, a chunk with an unknown row is written as it settles
	cr := lg.open(chunkOf(0, 4), 100, 0, false)
	for _, o := range []struct {
		idx  int
		kind outcome
	}{{3, rejectedParse}, {0, rejectedParse}, {2, rejectedInsert}, {1, unknown}} {
		lg.reject(cr, o.kind, reject{where: fmt.Sprintf("in.csv:%d", o.idx+1), reason: "r", raw: fmt.Appendf(nil, "row%d", o.idx), idx: o.idx}, false)
	}
	lg.converted(cr)
	data, err := os.ReadFile(lg.errs.Path())
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != "row0\nrow1\nrow2\nrow3\n" {
		t.Fatalf("error file holds %q, want rows 0 to 3 in order", data)
	}
	log, err := os.ReadFile(lg.errs.Path() + ".log")
	if err != nil {
		t.Fatal(err)
	}
	for i, ln := range strings.Split(strings.TrimSpace(string(log)), "\n") {
		if !strings.HasPrefix(ln, fmt.Sprintf("in.csv:%d:", i+1)) {
			t.Fatalf("log line %d is %q, want in.csv:%d's", i+1, ln, i+1)
		}
	}
}

// TestSentFrontier: a run records, before it sends rows of a chunk, that
// chunks up to frontierStep past it may have been sent, writing the
// checkpoint only when it moves the mark; a resumed run takes chunks
// below the stopped run's mark (any chunk, for a checkpoint without one)
// as possibly sent, counter chunks aside (their journal knows).
func TestSentFrontier(t *testing.T) {
	lg, _, _ := testLedger(t)
	saves := 0
	lg.cp.sync = func(f *os.File) error { saves++; return f.Sync() }
	for _, seq := range []int64{0, 5, frontierStep - 1, frontierStep, frontierStep + 1} {
		if err := lg.sendingInsert(seq); err != nil {
			t.Fatal(err)
		}
	}
	f := readCheckpointFile(t, lg.cp.path)
	if saves != 2 || f.SentBelow == nil || *f.SentBelow != 2*frontierStep {
		t.Errorf("%d checkpoint writes, sent_below %v; want 2 writes and %d", saves, f.SentBelow, 2*frontierStep)
	}

	below := int64(3)
	for _, tc := range []struct {
		name      string
		sentBelow *int64
		seq       int64
		counter   bool
		want      bool
	}{
		{"below the mark", &below, 2, false, true},
		{"at the mark", &below, 3, false, false},
		{"a counter chunk", &below, 2, true, false},
		{"an older checkpoint", nil, 1 << 40, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lg, _, _ := testLedger(t)
			if err := lg.resumeFrom(&runlog.Checkpoint{Version: runlog.Version, SentBelow: tc.sentBelow}); err != nil {
				t.Fatal(err)
			}
			cr := lg.open(chunkOf(tc.seq, 1), 10, 0, tc.counter)
			if cr.priorSent != tc.want {
				t.Errorf("priorSent %v, want %v", cr.priorSent, tc.want)
			}
			// A row this run stops before sending says so, and that the
			// run it resumed may have written it.
			lg.reject(cr, notSent, reject{reason: "the run stopped before this row was sent", idx: 0}, true)
			const note = "the run this one resumed may have written it"
			if got := strings.Contains(cr.rejects[0].reason, note); got != tc.want {
				t.Errorf("not-sent reason %q: says the resumed run may have written it %v, want %v", cr.rejects[0].reason, got, tc.want)
			}
		})
	}
}
