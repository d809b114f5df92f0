package loader

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"github.com/cqlload/cqlload/csvparse"
)

// checkpoint lets a scheduled job that was stopped (a limit crossed, the
// cluster gone, a signal) pick up where it left off with --resume.
//
// What is done is a prefix of chunks in read order: the chunks before
// Done had every row written, rejected into the error file, or skipped.
// Rows of an aborted or interrupted run are not done, so their chunk, and
// every chunk after it, are sent again on resume; inserts are idempotent,
// so rows written twice are harmless (counter tables excepted, which is
// why counter timeouts are never retried either). Chunk boundaries depend
// only on the input and the chunking options, which the file's Input key
// pins: a checkpoint written for other input or options is refused.
type checkpoint struct {
	path string
	key  string
	skip int64 // chunks with Seq < skip were done by an earlier run

	mu       sync.Mutex
	next     int64          // every chunk with Seq < next is done
	ahead    map[int64]bool // done chunks at or after next
	rowsDone int64
}

type checkpointFile struct {
	Version  int    `json:"version"`
	Input    string `json:"input"`       // hash of the input and chunking options
	Done     int64  `json:"chunks_done"` // chunks 0 .. Done-1 are done
	RowsDone int64  `json:"rows_done"`   // rows in those chunks, for people reading the file
	Complete bool   `json:"complete"`    // the whole input was done
}

// inputKey identifies the chunking of a run: the same key means chunk n
// holds the same records.
func inputKey(sources []csvparse.Source, d csvparse.Dialect, chunkRows, chunkBytes int) string {
	h := sha256.New()
	for _, s := range sources {
		fmt.Fprintf(h, "%q %d\n", s.Name, s.Size)
	}
	fmt.Fprintf(h, "%+v %d %d\n", d, chunkRows, chunkBytes)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// openCheckpoint reads path if it exists (a first run starts without one).
func openCheckpoint(path, key string) (*checkpoint, error) {
	cp := &checkpoint{path: path, key: key, ahead: map[int64]bool{}}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return cp, nil
	}
	if err != nil {
		return nil, fmt.Errorf("resume: %w", err)
	}
	var f checkpointFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("resume: %s is not a cqlload checkpoint: %w", path, err)
	}
	if f.Input != key {
		return nil, fmt.Errorf("resume: %s was written for other input files or chunking options (CHUNKSIZE, the CSV dialect, SKIPROWS, MAXROWS); remove it to start over", path)
	}
	cp.skip, cp.next, cp.rowsDone = f.Done, f.Done, f.RowsDone
	return cp, nil
}

// done marks chunk seq as done and advances the prefix.
func (cp *checkpoint) done(seq, rows int64) {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	cp.rowsDone += rows
	if seq != cp.next {
		cp.ahead[seq] = true
		return
	}
	cp.next++
	for cp.ahead[cp.next] {
		delete(cp.ahead, cp.next)
		cp.next++
	}
}

// save writes the checkpoint atomically (a crash mid-write leaves the
// previous one).
func (cp *checkpoint) save(complete bool) error {
	cp.mu.Lock()
	f := checkpointFile{Version: 1, Input: cp.key, Done: cp.next, RowsDone: cp.rowsDone, Complete: complete}
	cp.mu.Unlock()
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	tmp := cp.path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := os.Rename(tmp, cp.path); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}
