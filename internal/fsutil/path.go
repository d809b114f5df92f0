package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Abs is p made absolute, so that a checkpoint names the error file
// a resume started in another directory would cut back, not its name
// there; p itself if the working directory cannot be known.
func Abs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// ProbeDir creates and removes a file in dir.
func ProbeDir(dir string) error {
	f, err := os.CreateTemp(dir, ".cqlload-probe-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("cannot create files in %s: %w", dir, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}
