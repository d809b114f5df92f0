package cqlsh

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestReadCqlshrc(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cqlshrc")
	body := `; a cqlsh user's file
[authentication]
username = alice
password = s3cret
keyspace = ks

[connection]
hostname = 10.0.0.5
port = 9142
ssl = true
connect_timeout = 7.5
request_timeout = 30

[ssl]
certfile = /etc/ca.pem
validate = false
userkey = /etc/key.pem
usercert = /etc/cert.pem

[copy]
pagesize = 1000
`
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	rc, ok, err := ReadCqlshrc(path)
	if err != nil || !ok {
		t.Fatalf("ok %v err %v", ok, err)
	}
	if rc.Hostname != "10.0.0.5" || rc.Port != 9142 || !rc.SSL || rc.ConnectTimeout != 7500*time.Millisecond || rc.RequestTimeout != 30*time.Second {
		t.Fatalf("connection: %+v", rc)
	}
	if rc.Username != "alice" || rc.Password != "s3cret" || rc.Keyspace != "ks" {
		t.Fatalf("authentication: %+v", rc)
	}
	if rc.CertFile != "/etc/ca.pem" || rc.Validate == nil || *rc.Validate || rc.UserKey != "/etc/key.pem" || rc.UserCert != "/etc/cert.pem" {
		t.Fatalf("ssl: %+v", rc)
	}
	if len(rc.Warnings) != 1 || !strings.Contains(rc.Warnings[0], "other users can read it") {
		t.Fatalf("a password in a 0644 file: warnings %q", rc.Warnings)
	}
	os.Chmod(path, 0o600)
	if rc, _, _ := ReadCqlshrc(path); len(rc.Warnings) != 0 {
		t.Fatalf("a 0600 file: warnings %q", rc.Warnings)
	}

	if _, ok, err := ReadCqlshrc(filepath.Join(dir, "none")); ok || err != nil {
		t.Fatalf("a missing file: ok %v err %v, want neither", ok, err)
	}
	bad := filepath.Join(dir, "bad")
	os.WriteFile(bad, []byte("[connection]\nport = nine\nconnect_timeout = soon\n"), 0o600)
	_, _, err = ReadCqlshrc(bad)
	if err == nil || !strings.Contains(err.Error(), "port") || !strings.Contains(err.Error(), "connect_timeout") {
		t.Fatalf("bad values: %v, want both named", err)
	}
}
