package loader

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/cqlload/cqlload/internal/redact"
)

// TestRunMasksSecrets: what Run returns to a Go program (its error and
// its summary) holds no secret, as the command's output holds none: an
// object-store endpoint's password in an input's URL reached the error
// of a store that refused the connection.
func TestRunMasksSecrets(t *testing.T) {
	const secret = "EndpointS3cret"
	c := startCluster(t, 1, 1, "CREATE TABLE ks.t (k int PRIMARY KEY, v text);", nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDTEST")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	o := testOptions(t, c, "t", "s3://bkt/rows.csv?region=us-east-1&endpoint=http://minio:"+secret+"@"+closed)
	l, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := l.Run(ctx)
	if err == nil {
		t.Fatal("a run whose only input's store refuses connections ended without an error")
	}
	if strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), redact.Mask) {
		t.Errorf("Run's error shows the secret, or no mask: %v", err)
	}
	if strings.Contains(fmt.Sprintf("%+v", s), secret) {
		t.Errorf("Run's summary shows the secret: %+v", s)
	}
	t.Logf("Run: %v", err)
}

func TestMaskSummary(t *testing.T) {
	const secret = "Pa55"
	r := redact.New(secret)
	s := Summary{
		FirstWarning: "warn " + secret, Aborted: "stopped: http://u:" + secret + "@h",
		ErrFile: "e", ErrFiles: []string{"e", "x" + secret}, Hints: []string{secret},
		InputsLeftOut: []string{"s3://b/k?endpoint=http://u:" + secret + "@h:1"},
		Reasons:       []Reason{{Reason: "auth " + secret, First: "f:1", Rows: 3}},
	}
	orig := s.Reasons[0].Reason
	got := maskSummary(r, s)
	for _, v := range append([]string{got.FirstWarning, got.Aborted, got.Reasons[0].Reason}, append(append(got.ErrFiles, got.Hints...), got.InputsLeftOut...)...) {
		if strings.Contains(v, secret) {
			t.Errorf("%q holds the secret", v)
		}
	}
	if got.Reasons[0].Rows != 3 || got.ErrFile != "e" {
		t.Errorf("masking changed what holds no secret: %+v", got)
	}
	if s.Reasons[0].Reason != orig {
		t.Error("masking changed the summary it was given")
	}
}
