package runlog

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/cqlload/cqlload/internal/fsutil"
	"github.com/cqlload/cqlload/internal/wholefile"
)

// Two runs must never share a checkpoint or an error file: a second run
// started while the first still loads (a cron job that overran its
// interval, a Kubernetes pod replaced while the old one terminates) would
// truncate the first's error files and checkpoint, load the rows the
// first is loading a second time — counters twice — and leave neither
// summary true. So a run holds an exclusive lock on PATH.lock for its
// error files and its checkpoint from before it reads or renames them
// until they are closed, and a second run fails at once, before it loads
// anything, naming the holder.
//
// The locks are the operating system's (flock on Unix, LockFileEx on
// Windows): a process killed with kill -9 loses them with its files, so
// a stale lock file never blocks the next run. A run removes its lock
// files when it ends.

// Locks are the locks a run holds.
type Locks []*os.File

// Lock locks the paths (empty ones are skipped) in order, or none of
// them. A path another run holds is a *LockedError.
func Lock(paths ...string) (Locks, error) {
	var held Locks
	for _, p := range paths {
		if p == "" {
			continue
		}
		f, err := lockPath(p)
		if err != nil {
			held.Release()
			return nil, err
		}
		held = append(held, f)
	}
	return held, nil
}

// lockPath takes the lock of path, at path+".lock".
func lockPath(path string) (*os.File, error) {
	name := path + ".lock"
	for {
		// Not through a link: one planted at the name would have the
		// run truncate the file it names (the holder text below).
		f, err := wholefile.OpenNoFollow(name, os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		ok, err := fsutil.TryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", name, err)
		}
		if !ok {
			holder, _ := io.ReadAll(io.LimitReader(f, 256))
			f.Close()
			return nil, &LockedError{Path: path, Holder: strings.TrimSpace(string(holder))}
		}
		// The run before may have removed the file between our open and
		// our lock (it removes it while holding the lock, see fsutil.Unlock):
		// a lock on a file no longer at name locks nothing. Try again.
		here, err1 := os.Stat(name)
		mine, err2 := f.Stat()
		if err := errors.Join(err1, err2); err != nil || !os.SameFile(here, mine) {
			f.Close()
			continue
		}
		host, _ := os.Hostname()
		info := fmt.Sprintf("pid %d on %s since %s\n", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))
		if err := f.Truncate(0); err == nil {
			_, _ = f.WriteAt([]byte(info), 0) // for the message of a run it stops; the lock holds without it
		}
		return f, nil
	}
}

// Release unlocks and removes the lock files, last taken first.
func (ls Locks) Release() {
	for i := len(ls) - 1; i >= 0; i-- {
		fsutil.Unlock(ls[i])
	}
}
