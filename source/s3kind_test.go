package source

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// TestS3ErrorKinds: how a failed S3 request is judged, which decides
// whether a read retries it. A failed credential lookup is its own kind,
// retried like a dropped connection, even when the metadata service's
// answer was a 403: that status is not the bucket's.
func TestS3ErrorKinds(t *testing.T) {
	status := func(code int) error {
		return &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: &http.Response{StatusCode: code}}, Err: errors.New(http.StatusText(code))}
	}
	coded := func(code int, name string) error {
		return &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: &http.Response{StatusCode: code}}, Err: &smithy.GenericAPIError{Code: name}}
	}
	s3op := func(err error) error {
		return &smithy.OperationError{ServiceID: "S3", OperationName: "GetObject", Err: err}
	}
	tests := []struct {
		name      string
		err       error
		kind      errKind
		permanent bool
		says      string
	}{
		{"credentials: the metadata service refused", s3op(&smithy.OperationError{ServiceID: "ec2imds", OperationName: "GetToken", Err: status(403)}), errCredentials, false, "no credentials"},
		{"credentials: STS failed", s3op(&smithy.OperationError{ServiceID: "STS", OperationName: "AssumeRoleWithWebIdentity", Err: status(500)}), errCredentials, false, "no credentials"},
		{"the bucket's 403", s3op(status(403)), errDenied, true, "access denied"},
		{"the object's 404", s3op(status(404)), errNotFound, true, "not found"},
		{"a 503", s3op(status(503)), errOther, false, ""},
		// S3 answers a socket too slow with 400 RequestTimeout, which its
		// documentation (and the SDK's retryer) calls retryable.
		{"S3's 400 RequestTimeout", s3op(coded(400, "RequestTimeout")), errOther, false, ""},
		{"another 400", s3op(coded(400, "InvalidArgument")), errInvalid, true, ""},
		{"a reset connection", s3op(errors.New("read: connection reset by peer")), errOther, false, ""},
	}
	b := &s3Bucket{}
	for _, tc := range tests {
		k := b.kind(tc.err)
		if k != tc.kind || k.permanent() != tc.permanent {
			t.Errorf("%s: kind %d (permanent %v), want %d (permanent %v)", tc.name, k, k.permanent(), tc.kind, tc.permanent)
		}
		if msg := describe(tc.err, k).Error(); tc.says != "" && !strings.Contains(msg, tc.says) {
			t.Errorf("%s: %q does not say %q", tc.name, msg, tc.says)
		}
	}
}
