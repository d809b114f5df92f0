package runlog

import "fmt"

// RefusedError is a run's files on disk that forbid resuming it as asked:
// a checkpoint of other input or options, another program's file, an
// error file or journal gone or changed since the checkpoint recorded it,
// an input that cannot be read twice. Nothing was loaded. The loader
// reports it as its *ResumeError, whose message it shares.
type RefusedError struct{ Reason string }

func (e *RefusedError) Error() string { return "resume: " + e.Reason }

// LockedError is a checkpoint or error file another run holds. The
// loader reports it as its *LockedError, whose message it shares.
type LockedError struct {
	Path   string // the checkpoint or error file
	Holder string // what the holder wrote in the lock file: pid, host, start
}

func (e *LockedError) Error() string {
	holder := ""
	if e.Holder != "" {
		holder = " (" + e.Holder + ")"
	}
	return fmt.Sprintf("%s is in use by another cqlload run%s: two runs must not share a checkpoint or an error file; wait for that run to end, or give this one its own --resume and ERRFILE", e.Path, holder)
}
