package runlog

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/cqlload/cqlload/internal/wholefile"
)

// Journal records, durably and before they are sent, which counter
// updates a run sends, so that a resumed run can tell an update that was
// never sent (send it) from one that may have been applied (unknown). One
// line per request: "seq idx idx …". Senders share each fsync (group
// commit): a sender appends its line with one write, then waits until a
// sync that began after its write has finished. Acknowledged requests get
// an "a seq idx …" line, and requests the cluster refused without
// applying any of it "r seq idx …", written but not waited for: one lost
// in a crash only leaves its rows unknown.
type Journal struct {
	path string
	sync func(*os.File) error

	mu      sync.Mutex
	cond    *sync.Cond
	f       *os.File
	base    int64 // bytes a stopped run left in the file, which this one appends to
	size    int64 // bytes written
	synced  int64 // bytes known durable
	syncing bool
	err     error
}

// NewJournal returns the journal at path (the checkpoint's path plus
// ".sent"); the file is created by the first Mark.
func NewJournal(path string) *Journal {
	j := &Journal{path: path, sync: (*os.File).Sync}
	j.cond = sync.NewCond(&j.mu)
	return j
}

// Mark records that rows idx of chunk seq are about to be sent, and
// returns once that is durable.
func (j *Journal) Mark(seq int64, idx []int32) error {
	line := journalLine(nil, seq, idx)
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return j.err
	}
	if j.f == nil {
		// Never through a planted link, whose file would get the lines;
		// 0600 as the checkpoint it belongs to.
		f, err := wholefile.OpenNoFollow(j.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			j.err = fmt.Errorf("counter journal: %w", err)
			return j.err
		}
		j.f = f
	}
	n, err := j.f.Write(line)
	j.size += int64(n)
	if err != nil {
		j.err = fmt.Errorf("counter journal %s: %w", j.path, err)
		return j.err
	}
	mine := j.size
	for j.synced < mine && j.err == nil {
		if j.syncing {
			j.cond.Wait()
			continue
		}
		j.syncing = true
		target := j.size
		f := j.f
		j.mu.Unlock()
		err := j.sync(f)
		j.mu.Lock()
		j.syncing = false
		if err != nil {
			j.err = fmt.Errorf("counter journal %s: sync: %w", j.path, err)
		} else {
			j.synced = max(j.synced, target)
		}
		j.cond.Broadcast()
	}
	return j.err
}

// Path is the journal file's path.
func (j *Journal) Path() string { return j.path }

// Ack records that rows idx of chunk seq were acknowledged.
func (j *Journal) Ack(seq int64, idx []int32) { j.note("a ", seq, idx) }

// Refused records that the cluster refused rows idx of chunk seq and
// applied none of them (Unavailable, Overloaded): a resumed run may
// send them, unless a later line marks them sent again, which Mark
// makes durable before that send.
func (j *Journal) Refused(seq int64, idx []int32) { j.note("r ", seq, idx) }

// note appends a line that is not waited for: one lost in a crash only
// leaves its rows unknown, never sends one twice. A write error is kept
// for the next Mark to report.
func (j *Journal) note(prefix string, seq int64, idx []int32) {
	line := journalLine([]byte(prefix), seq, idx)
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil || j.f == nil {
		return
	}
	n, err := j.f.Write(line)
	j.size += int64(n)
	if err != nil {
		j.err = fmt.Errorf("counter journal %s: %w", j.path, err)
	}
}

// journalLine appends "seq idx idx …\n" to prefix.
func journalLine(prefix []byte, seq int64, idx []int32) []byte {
	line := strconv.AppendInt(prefix, seq, 10)
	for _, i := range idx {
		line = append(line, ' ')
		line = strconv.AppendInt(line, int64(i), 10)
	}
	return append(line, '\n')
}

// Durable is how long the file is known to be: what a stopped run left
// and what this one synced. A checkpoint records it, so that a resumed
// run can tell the file lost or cut short (HoldsRecorded).
func (j *Journal) Durable() int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.base + j.synced
}

// Close closes the file; the journal stays on disk for a resumed run.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	return err
}

// Remove deletes the journal: a fresh or completed run needs none.
func (j *Journal) Remove() error {
	if err := j.Close(); err != nil {
		return err
	}
	if err := os.Remove(j.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("counter journal: %w", err)
	}
	return nil
}

// Reopen reads what a stopped run left in the journal (readSentJournal)
// for this run to append to. A torn last line is cut off first: the
// next line appended to it would be misread as part of it, and its
// updates, though sent, would not be known to a later resume, which
// would send them again.
func (j *Journal) Reopen() (JournalState, error) {
	st, size, err := readSentJournal(j.path)
	if err != nil {
		return JournalState{}, err
	}
	if fi, err := os.Stat(j.path); err == nil && fi.Size() > size {
		if err := os.Truncate(j.path, size); err != nil {
			return JournalState{}, fmt.Errorf("resume: counter journal: cutting off a torn line: %w", err)
		}
	}
	j.mu.Lock()
	j.base = size
	j.mu.Unlock()
	return st, nil
}

// JournalState is what a journal says of the rows of each chunk, by
// sequence number.
type JournalState struct {
	// Sent: rows whose last send no refusal followed; they may have
	// been applied unless acked.
	Sent map[int64][]int
	// Acked: rows the cluster acknowledged.
	Acked map[int64][]int
	// Refused: rows whose last send the cluster refused, applying
	// none of it, and that were not sent again: never applied.
	Refused map[int64][]int
}

// readSentJournal reads a journal's lines in order: "seq idx …" (about
// to be sent), "a seq idx …" (acknowledged) and "r seq idx …" (refused,
// nothing applied). A row's last send or refusal decides whether it may
// have been applied. Only whole lines count: a line torn by a machine
// crash is dropped. That is safe both ways: a request is sent only after
// its whole line is synced, and a dropped acknowledgement or refusal
// only leaves its rows unknown (a torn one could name the wrong row).
// size is the length of its whole lines (0 when there is none).
func readSentJournal(path string) (st JournalState, size int64, err error) {
	b, err := wholefile.Read(path, "counter journal", wholefile.MaxState)
	if errors.Is(err, fs.ErrNotExist) {
		return JournalState{}, 0, nil
	}
	if err != nil {
		return JournalState{}, 0, fmt.Errorf("resume: counter journal: %w", err)
	}
	b = b[:bytes.LastIndexByte(b, '\n')+1]
	size = int64(len(b))
	type line struct {
		kind string // "", "a" or "r"
		seq  int64
		idx  []int
	}
	var lines []line
	for _, text := range strings.Split(string(b), "\n") {
		fields := strings.Fields(text)
		l := line{}
		if len(fields) > 0 && (fields[0] == "a" || fields[0] == "r") {
			l.kind, fields = fields[0], fields[1:]
		}
		if len(fields) < 2 {
			continue
		}
		if l.seq, err = strconv.ParseInt(fields[0], 10, 64); err != nil {
			continue
		}
		for _, f := range fields[1:] {
			if i, err := strconv.Atoi(f); err == nil && i >= 0 {
				l.idx = append(l.idx, i)
			}
		}
		lines = append(lines, l)
	}
	// Refusals are rare: the line of each row's last one is kept, and a
	// send is known superseded when a refusal of its row comes later.
	type row struct {
		seq int64
		i   int
	}
	lastRefusal := map[row]int{}
	for n, l := range lines {
		if l.kind == "r" {
			for _, i := range l.idx {
				lastRefusal[row{l.seq, i}] = n
			}
		}
	}
	st = JournalState{Sent: map[int64][]int{}, Acked: map[int64][]int{}, Refused: map[int64][]int{}}
	for n, l := range lines {
		switch l.kind {
		case "a":
			st.Acked[l.seq] = append(st.Acked[l.seq], l.idx...)
		case "":
			for _, i := range l.idx {
				r := row{l.seq, i}
				if at, ok := lastRefusal[r]; ok {
					if at > n {
						continue // refused after this send
					}
					delete(lastRefusal, r) // sent again after its refusal
				}
				st.Sent[l.seq] = append(st.Sent[l.seq], i)
			}
		}
	}
	for r := range lastRefusal {
		st.Refused[r.seq] = append(st.Refused[r.seq], r.i)
	}
	for _, idx := range st.Refused {
		slices.Sort(idx)
	}
	return st, size, nil
}
