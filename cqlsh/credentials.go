package cqlsh

import (
	"bytes"
	"errors"
	"fmt"

	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cqlload/cqlload/internal/wholefile"
)

// Credentials are what cqlsh's credentials file gives (cqlsh 4.1 on; the
// cqlshrc's [authentication] password is deprecated there):
//
//	[PlainTextAuthProvider]
//	username = loader
//	password = secret
//
// Cassandra 4.0's cqlsh named the section [plain_text_auth], which is read
// too. As cqlsh, a file that another user owns or that group or others
// may read is not used, with a warning.
type Credentials struct {
	Path               string
	Username, Password string
	// Warning says why a file that exists was not used.
	Warning string
}

// DefaultCredentialsPath is where cqlsh looks: ~/.cassandra/credentials.
func DefaultCredentialsPath() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".cassandra", "credentials")
}

// ReadCredentials reads the credentials file at path; nil when there is
// none.
func ReadCredentials(path string) (*Credentials, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("credentials file: %w", err)
	}
	c := &Credentials{Path: path}
	if ownedByOther(st) || exposed(st, groupOrOthers) {
		c.Warning = fmt.Sprintf("credentials file %s is not used: another user owns it, or group or others may read it (mode %v); chmod 600 it", path, st.Mode().Perm())
		return c, nil
	}
	b, err := wholefile.Read(path, "credentials file", wholefile.MaxConfig)
	if err != nil {
		return nil, fmt.Errorf("credentials file: %w", err)
	}
	sections, err := readINI(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("credentials file %s: %w", path, err)
	}
	for _, name := range []string{"plain_text_auth", "PlainTextAuthProvider"} {
		for _, kv := range sections[name] {
			switch strings.ToLower(kv[0]) {
			case "username":
				c.Username = kv[1]
			case "password":
				c.Password = kv[1]
			}
		}
	}
	return c, nil
}

// Who, besides its owner, may have a file that holds a password: the
// mode bits exposed checks.
const (
	groupOrOthers fs.FileMode = 0o077 // cqlsh's rule for its cqlshrc and credentials
	others        fs.FileMode = 0o007
)

// exposed reports whether the file st describes grants any of the mode
// bits who: the one check of every file that holds a password (the
// cqlshrc, the credentials file, --password-file).
func exposed(st fs.FileInfo, who fs.FileMode) bool {
	return st.Mode().Perm()&who != 0
}

// ReadPasswordFile returns the first line of the file at path (without
// its line break) as a password, and a warning, as cqlsh gives for its
// cqlshrc, when every user may read the file. It is used all the same:
// the user named it.
func ReadPasswordFile(path string) (password, warning string, err error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", "", fmt.Errorf("password file: %w", err)
	}
	// Others, not the group: a Kubernetes Secret is mounted 0440 for
	// the pod's own group (fsGroup), which is no one else.
	if exposed(st, others) {
		warning = fmt.Sprintf("password file %s can be read by every user (mode %v): chmod 600 it", path, st.Mode().Perm())
	}
	// Only the first line is the password (a trailing line break is no
	// part of it), so only the first line is read: a device or a huge
	// file named by mistake is never read whole.
	first, err := wholefile.ReadLine(path, "password file", wholefile.MaxPasswordLine)
	if err != nil {
		return "", "", fmt.Errorf("password file: %w", err)
	}
	return first, warning, nil
}
