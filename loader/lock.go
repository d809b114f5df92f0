package loader

import (
	"errors"

	"github.com/cqlload/cqlload/loader/internal/runlog"
)

// lockOutputs locks the run's checkpoint and error files (runlog.Lock:
// two runs must never share them), or none of them. Another run's lock
// is a *LockedError.
func lockOutputs(paths ...string) (runlog.Locks, error) {
	held, err := runlog.Lock(paths...)
	var le *runlog.LockedError
	if errors.As(err, &le) {
		return nil, &LockedError{Path: le.Path, Holder: le.Holder}
	}
	return held, err
}
