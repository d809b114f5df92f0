package source

// The package's errors, and errKind: what a store's error means for a
// read, which decides whether it is retried.

import (
	"errors"
	"fmt"
	"time"
)

// errKind is what a store's error means for the reader: whether a retry
// may help, and what to tell the user.
type errKind uint8

const (
	errOther    errKind = iota // anything else: a retry may help
	errNotFound                // no such bucket or object
	errDenied                  // access denied
	errInvalid                 // a request the store refuses as such
	errChanged                 // the object is no longer the version listed
	// The request never reached the store: getting credentials failed.
	// A retry may help (an instance role's metadata service may answer
	// again), so it is not permanent, but it is not the store's answer.
	errCredentials
	// The store's host refused the connection: nothing listens at the
	// endpoint. Retried, it hid a wrong endpoint for minutes.
	errRefused
	// The store has answered no request, and one waited out its bound
	// (a *silentError): a wrong or dead endpoint, as a refused
	// connection is.
	errSilent
)

// permanent reports whether a retry cannot help.
func (k errKind) permanent() bool { return k != errOther && k != errCredentials }

// errNoObject is a missing object in the stores of this file.
var errNoObject = errors.New("no such object")

// errStalled is a request given up by its stallGuard.
var errStalled = errors.New("no byte received")

// errClosed is a read of a rangeReader after Close.
var errClosed = errors.New("read of a closed reader")

// causeError puts a plain cause before the driver's own message.
type causeError struct {
	cause string
	err   error
}

func (e *causeError) Error() string { return e.cause + " (" + e.err.Error() + ")" }
func (e *causeError) Unwrap() error { return e.err }

// silentError is a store that answered nothing: its first requests
// waited out a bound. The option that sets the bound is named, for a
// store that is only slow.
type silentError struct {
	host   string        // host:port
	wait   string        // what did not come: a connection, a TLS handshake, a response
	limit  time.Duration // the bound waited out
	option string        // the option that sets it
	err    error
}

func (e *silentError) Error() string {
	return fmt.Sprintf("the store at %s answered nothing: no %s within %v (%s); check the endpoint (%v)",
		e.host, e.wait, e.limit, e.option, e.err)
}

func (e *silentError) Unwrap() error { return e.err }

// silent reports whether err is a store that answered nothing.
func silent(err error) bool {
	var se *silentError
	return errors.As(err, &se)
}
