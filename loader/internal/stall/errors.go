package stall

import (
	"context"
	"fmt"
	"time"
)

// TimeoutError is an attempt that got no answer within its timeout of
// running time. It is the error NewAttempts was given for that (the
// driver's ErrTimeoutNoResponse, to the loader's error handling), and a
// deadline to the context package's: errors.Is finds either.
type TimeoutError struct {
	noAnswer error
	timeout  time.Duration // what the attempt was given
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("%v (timeout: %v)", e.noAnswer, e.timeout)
}

func (e *TimeoutError) Is(target error) bool {
	return target == e.noAnswer || target == context.DeadlineExceeded
}
