package loader

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
	if ownedByOther(st) || st.Mode().Perm()&0o077 != 0 {
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
