package main

import (
	"strings"
	"testing"
)

// TestWholeFilesBounded: every file cqlload reads whole stops at its
// bound with a usage error naming the file, the bound and what the file
// was for. Read without one, /dev/zero ended the process out of memory.
func TestWholeFilesBounded(t *testing.T) {
	const zero = "/dev/zero"
	copyArgs := []string{"-e", "COPY ks.t FROM 'x.csv'"}
	for _, tc := range []struct {
		name string
		args []string
		want []string // in stderr
	}{
		{"-f script", []string{"-f", zero}, []string{"-f: ", zero, "1 MiB", "-f script"}},
		{"password file", append([]string{"-u", "u", "--password-file", zero}, copyArgs...), []string{"password file: ", zero, "first line", "4 KiB"}},
		{"--ssl-ca", append([]string{"--ssl-ca", zero}, copyArgs...), []string{"--ssl-ca: ", zero, "4 MiB", "--ssl-ca file"}},
		{"--ssl-cert", append([]string{"--ssl-cert", zero, "--ssl-key", zero}, copyArgs...), []string{"--ssl-cert: ", zero, "4 MiB", "--ssl-cert file"}},
		{"cqlshrc", append([]string{"--cqlshrc", zero}, copyArgs...), []string{"cqlshrc: ", zero, "1 MiB"}},
		{"CONFIGFILE", []string{"-e", "COPY ks.t FROM 'x.csv' WITH CONFIGFILE = '" + zero + "'"}, []string{"CONFIGFILE: ", zero, "1 MiB"}},
		{"summarize", []string{"summarize", zero}, []string{zero, "64 MiB", "summary"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, "", tc.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, exitUsage, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr does not say %q:\n%s", w, stderr)
				}
			}
		})
	}
}
