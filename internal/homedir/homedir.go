// Package homedir expands a leading ~ in a path as cqlsh does: cqlsh
// passes its file names (COPY's files, ERRFILE, RATEFILE) through
// Python's os.path.expanduser, so a statement written for it may say
// '~/data.csv' or '~alice/errors'.
package homedir

import (
	"os"
	"os/user"
	"path/filepath"
	"strings"
)

// Expand replaces a leading "~" (the current user's home directory) or
// "~name" (that user's) in path. A path without one, or whose user or
// home directory cannot be found, is returned as it is, as
// expanduser does.
func Expand(path string) string {
	if !strings.HasPrefix(path, "~") {
		return path
	}
	name, rest := path[1:], ""
	if i := strings.IndexFunc(name, isSeparator); i >= 0 {
		name, rest = name[:i], name[i+1:]
	}
	var home string
	if name == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return path
		}
		home = h
	} else {
		u, err := user.Lookup(name)
		if err != nil || u.HomeDir == "" {
			return path
		}
		home = u.HomeDir
	}
	if rest == "" {
		return home
	}
	return filepath.Join(home, rest)
}

func isSeparator(r rune) bool { return r < 0x80 && os.IsPathSeparator(uint8(r)) }
