package loader

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/gocql/gocql"
)

// codeErr stands in for a driver error frame.
type codeErr int

func (c codeErr) Error() string { return fmt.Sprintf("code %#x", int(c)) }
func (c codeErr) GetCode() int  { return int(c) }

func TestClassify(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("exec: %w", err) }
	tests := []struct {
		name                             string
		err                              error
		retryable, mayBeApplied, invalid bool
	}{
		{"overloaded", codeErr(gocql.ErrCodeOverloaded), true, false, false},
		{"unavailable wrapped", wrap(codeErr(gocql.ErrCodeUnavailable)), true, false, false},
		{"write timeout", codeErr(gocql.ErrCodeWriteTimeout), true, true, false},
		{"server error", codeErr(gocql.ErrCodeServer), true, true, false},
		{"invalid", wrap(codeErr(gocql.ErrCodeInvalid)), false, false, true},
		{"no response", gocql.ErrTimeoutNoResponse, true, true, false},
		{"deadline", context.DeadlineExceeded, true, true, false},
		{"no connections", gocql.ErrNoConnections, true, true, false},
		{"unknown", errors.New("boom"), false, false, false},
	}
	for _, tt := range tests {
		we := classify(tt.err)
		if we.Retryable != tt.retryable || we.MayBeApplied != tt.mayBeApplied || we.Invalid != tt.invalid {
			t.Errorf("%s: classify = %+v, want retryable %v mayBeApplied %v invalid %v", tt.name, we, tt.retryable, tt.mayBeApplied, tt.invalid)
		}
	}
}
