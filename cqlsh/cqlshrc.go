package cqlsh

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cqlload/cqlload/internal/wholefile"
)

// Cqlshrc is what a cqlsh user's configuration file says about reaching
// the cluster: its [connection], [authentication] and [ssl] sections, as
// cqlsh reads them, and [ui] time_format. Its [copy] sections are COPY options, which
// ApplyConfigFile applies. Zero fields were not set.
type Cqlshrc struct {
	Path string

	Hostname       string
	Port           int
	SSL            bool
	ConnectTimeout time.Duration
	RequestTimeout time.Duration

	Username, Password, Keyspace string
	// Credentials is [authentication] credentials: the credentials
	// file's path, "" for the default.
	Credentials string

	CertFile, UserKey, UserCert string
	// Validate is [ssl] validate: verify the nodes' certificates; nil
	// when not set (cqlsh's default is to verify).
	Validate *bool

	// TimeFormat is [ui] time_format, cqlsh's format for showing
	// timestamps, which its COPY takes as DATETIMEFORMAT's default.
	TimeFormat string

	// Warnings are what cqlsh would print about the file, such as a
	// password in a file that other users can read.
	Warnings []string
}

// DefaultCqlshrcPath is where cqlsh looks: ~/.cassandra/cqlshrc.
func DefaultCqlshrcPath() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".cassandra", "cqlshrc")
}

// ReadCqlshrc reads the file at path. A missing file at the default path
// is no error (cqlsh starts without one): ok is false then.
func ReadCqlshrc(path string) (rc *Cqlshrc, ok bool, err error) {
	b, err := wholefile.Read(path, "cqlshrc", wholefile.MaxConfig)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("cqlshrc: %w", err)
	}
	sections, err := readINI(bytes.NewReader(b))
	if err != nil {
		return nil, false, fmt.Errorf("cqlshrc %s: %w", path, err)
	}
	rc = &Cqlshrc{Path: path}
	var errs []error
	get := func(section, key string) (string, bool) {
		for _, kv := range sections[section] {
			if strings.EqualFold(kv[0], key) {
				return kv[1], true
			}
		}
		return "", false
	}
	boolOf := func(section, key string) (bool, bool) {
		v, ok := get(section, key)
		if !ok {
			return false, false
		}
		b, err := parseBool(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("[%s] %s: %w", section, key, err))
		}
		return b, true
	}
	seconds := func(section, key string) time.Duration {
		v, ok := get(section, key)
		if !ok {
			return 0
		}
		s, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || s <= 0 {
			errs = append(errs, fmt.Errorf("[%s] %s: want seconds, got %q", section, key, v))
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	rc.Hostname, _ = get("connection", "hostname")
	if v, ok := get("connection", "port"); ok {
		p, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || p <= 0 || p > 65535 {
			errs = append(errs, fmt.Errorf("[connection] port: %q is not a port", v))
		}
		rc.Port = p
	}
	rc.SSL, _ = boolOf("connection", "ssl")
	rc.ConnectTimeout = seconds("connection", "connect_timeout")
	rc.RequestTimeout = seconds("connection", "request_timeout")
	rc.Username, _ = get("authentication", "username")
	rc.Password, _ = get("authentication", "password")
	rc.Keyspace, _ = get("authentication", "keyspace")
	rc.Credentials, _ = get("authentication", "credentials")
	rc.CertFile, _ = get("ssl", "certfile")
	rc.UserKey, _ = get("ssl", "userkey")
	rc.UserCert, _ = get("ssl", "usercert")
	rc.TimeFormat, _ = get("ui", "time_format")
	if v, ok := boolOf("ssl", "validate"); ok {
		rc.Validate = &v
	}
	if rc.Password != "" {
		if st, err := os.Stat(path); err == nil && exposed(st, groupOrOthers) {
			rc.Warnings = append(rc.Warnings, fmt.Sprintf("%s holds a password and other users can read it (mode %v): chmod 600 it", path, st.Mode().Perm()))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, false, fmt.Errorf("cqlshrc %s: %w", path, err)
	}
	return rc, true, nil
}

// parseBool reads a boolean of cqlshrc's own sections, which cqlsh reads
// with Python's ConfigParser.getboolean: yes, on and 1 are true there.
func parseBool(v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "yes", "on", "1":
		return true, nil
	case "false", "no", "off", "0":
		return false, nil
	}
	return false, fmt.Errorf("want true or false, got %q", v)
}
