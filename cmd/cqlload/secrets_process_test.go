package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// TestSecretsNeverWritten runs the built binary on an object whose URL
// carries a password in its endpoint (s3://in/rows.csv?endpoint=
// http://minio:PASS@host), with the cluster password on the command line
// and the URL's password percent-encoded in a second spelling, and looks
// for either secret in everything the runs leave: standard output and
// error, the summary JSON, the error file and its log, and the
// checkpoint. Two runs reject rows (exit 1), one names an object that is
// not there (exit 3), which its message must name. Before, the URL was printed and stored as given.
func TestSecretsNeverWritten(t *testing.T) {
	const (
		urlSecret = "Url-S3cr3t"
		cqlSecret = "Cql-Pa55"
	)
	backend := s3mem.New()
	srv := httptest.NewServer(gofakes3.New(backend, gofakes3.WithLogger(gofakes3.DiscardLog())).Server())
	t.Cleanup(srv.Close)
	if err := backend.CreateBucket("in"); err != nil {
		t.Fatal(err)
	}
	rows := "1,one\nx2,bad key\n3,three\n"
	if _, err := backend.PutObject("in", "rows.csv", nil, strings.NewReader(rows), int64(len(rows)), nil); err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(srv.URL)
	endpoint := "http://minio:" + urlSecret + "@" + u.Host
	sim := startSimProc(t)
	dir := t.TempDir()
	env := append(os.Environ(), "AWS_ACCESS_KEY_ID=AKIDTEST", "AWS_SECRET_ACCESS_KEY=secret", "AWS_REGION=us-east-1",
		"AWS_CONFIG_FILE=/nonexistent", "AWS_SHARED_CREDENTIALS_FILE=/nonexistent", "AWS_EC2_METADATA_DISABLED=true")
	for _, tc := range []struct {
		name, input string
		code        int
	}{
		{name: "rejects", input: "s3://in/rows.csv?endpoint=" + endpoint, code: exitRejected},
		{name: "encoded", input: "s3://in/rows.csv?endpoint=" + url.QueryEscape(endpoint), code: exitRejected},
		{name: "missing", input: "s3://in/missing.csv?endpoint=" + endpoint, code: exitFatal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := filepath.Join(dir, tc.name)
			if err := os.Mkdir(run, 0o755); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := sim.Cmd(ctx, t, "-u", "cassandra", "-p", cqlSecret, "--progress", "log", "--report-frequency", "1",
				"--summary-json", "summary.json", "--err-file", "rows.err", "--resume", "ck.json",
				"--max-attempts", "1", "--table", "ks.t", tc.input)
			cmd.Dir, cmd.Env = run, env
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if code := cmd.ProcessState.ExitCode(); code != tc.code {
				t.Fatalf("exit %d (%v), want %d\n%s\n%s", code, err, tc.code, stdout.String(), stderr.String())
			}
			outputs := map[string][]byte{"standard output": stdout.Bytes(), "standard error": stderr.Bytes()}
			files, _ := os.ReadDir(run)
			for _, f := range files {
				b, err := os.ReadFile(filepath.Join(run, f.Name()))
				if err != nil {
					t.Fatal(err)
				}
				outputs[f.Name()] = b
			}
			for _, want := range []string{"summary.json", "ck.json"} {
				if _, ok := outputs[want]; !ok && tc.code == exitRejected {
					t.Errorf("no %s written: the test would see no secret in it", want)
				}
			}
			if tc.code == exitRejected && !bytes.Contains(outputs["rows.err.log"], []byte("rows.csv")) {
				t.Errorf("the error log does not name the object:\n%s", outputs["rows.err.log"])
			}
			if tc.code == exitFatal && !bytes.Contains(stderr.Bytes(), []byte("missing.csv?endpoint=http://minio:xxxxx@")) {
				t.Errorf("the message does not name the object, its password masked:\n%s", stderr.Bytes())
			}
			for name, b := range outputs {
				for _, s := range []string{urlSecret, cqlSecret, url.QueryEscape(urlSecret)} {
					if bytes.Contains(b, []byte(s)) {
						t.Errorf("%s holds the secret %q:\n%s", name, s, b)
					}
				}
			}
		})
	}
}
