package loader

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
)

// sentJournal records, durably and before they are sent, which counter
// updates a run sends, so that a resumed run can tell an update that was
// never sent (send it) from one that may have been applied (unknown). One
// line per request: "seq idx idx …". Senders share each fsync (group
// commit): a sender appends its line with one write, then waits until a
// sync that began after its write has finished. Acknowledged requests get
// an "a seq idx …" line, written but not waited for: one lost in a crash
// only leaves its rows unknown.
type sentJournal struct {
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

func newSentJournal(path string) *sentJournal {
	j := &sentJournal{path: path, sync: (*os.File).Sync}
	j.cond = sync.NewCond(&j.mu)
	return j
}

// mark records that rows idx of chunk seq are about to be sent, and
// returns once that is durable.
func (j *sentJournal) mark(seq int64, idx []int32) error {
	line := journalLine(nil, seq, idx)
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return j.err
	}
	if j.f == nil {
		f, err := os.OpenFile(j.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
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

// ack records that rows idx of chunk seq were acknowledged. A write error
// is kept for the next mark to report.
func (j *sentJournal) ack(seq int64, idx []int32) {
	line := journalLine([]byte("a "), seq, idx)
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

// durable is how long the file is known to be: what a stopped run left
// and what this one synced. A checkpoint records it, so that a resumed
// run can tell the file lost or cut short (resumeFrom).
func (j *sentJournal) durable() int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.base + j.synced
}

func (j *sentJournal) close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	return err
}

// remove deletes the journal: a fresh or completed run needs none.
func (j *sentJournal) remove() error {
	if err := j.close(); err != nil {
		return err
	}
	if err := os.Remove(j.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("counter journal: %w", err)
	}
	return nil
}

// reopen reads what a stopped run left in the journal (readSentJournal)
// for this run to append to. A torn last line is cut off first: the
// next line appended to it would be misread as part of it, and its
// updates, though sent, would not be known to a later resume, which
// would send them again.
func (j *sentJournal) reopen() (sent, acked map[int64][]int, err error) {
	sent, acked, size, err := readSentJournal(j.path)
	if err != nil {
		return nil, nil, err
	}
	if st, err := os.Stat(j.path); err == nil && st.Size() > size {
		if err := os.Truncate(j.path, size); err != nil {
			return nil, nil, fmt.Errorf("resume: counter journal: cutting off a torn line: %w", err)
		}
	}
	j.mu.Lock()
	j.base = size
	j.mu.Unlock()
	return sent, acked, nil
}

// readSentJournal returns, per chunk, the records a stopped run sent and
// those it saw acknowledged. Only whole lines count: a line torn by a
// machine crash is dropped. That is safe both ways: a request is sent
// only after its whole line is synced, and a dropped acknowledgement only
// leaves its rows unknown (a torn one could name the wrong row).
// size is the length of its whole lines (0 when there is none).
func readSentJournal(path string) (sent, acked map[int64][]int, size int64, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, 0, nil
	}
	if err != nil {
		return nil, nil, 0, fmt.Errorf("resume: counter journal: %w", err)
	}
	b = b[:bytes.LastIndexByte(b, '\n')+1]
	size = int64(len(b))
	sent, acked = map[int64][]int{}, map[int64][]int{}
	for _, line := range strings.Split(string(b), "\n") {
		fields := strings.Fields(line)
		out := sent
		if len(fields) > 0 && fields[0] == "a" {
			out, fields = acked, fields[1:]
		}
		if len(fields) < 2 {
			continue
		}
		seq, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			continue
		}
		for _, f := range fields[1:] {
			i, err := strconv.Atoi(f)
			if err != nil || i < 0 {
				continue
			}
			out[seq] = append(out[seq], i)
		}
	}
	return sent, acked, size, nil
}
