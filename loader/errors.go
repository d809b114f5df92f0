package loader

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/cqlload/cqlload/internal/limit"
	"github.com/cqlload/cqlload/loader/internal/runlog"
	"github.com/gocql/gocql"
)

// Class is what the outcome of a run means to whoever started it: a
// scheduler retries an interrupted run, mends the command line of a
// refused one, and reads the error file of one that rejected rows.
// Classify decides it; cqlload's exit statuses are its numbers.
type Class int

const (
	// ClassOK: every row was written, or skipped by an option.
	ClassOK Class = iota
	// ClassRejected: the run finished, but some rows were rejected, not
	// sent or may not have been applied (they are in the error files),
	// or a resumed run's error files hold rows of the runs before it.
	ClassRejected
	// ClassAborted: MAXPARSEERRORS or MAXINSERTERRORS was crossed.
	ClassAborted
	// ClassFatal: the run could not go on: cluster unreachable or
	// silent, schema mismatch, damaged input, outputs held by another run.
	ClassFatal
	// ClassInterrupted: the run's context was canceled (a signal, a
	// closed output); --resume loads the rest.
	ClassInterrupted
	// ClassUsage: the run was refused before it loaded anything, and a
	// retry fails the same way until the command changes: a --resume that
	// cannot be honoured, a split plan that does not fit, an output that
	// is an input.
	ClassUsage
)

var classNames = [...]string{"ok", "rejected", "aborted", "fatal", "interrupted", "usage"}

// errCounterUsing refuses --writetime-field and --ttl-field on a counter
// table, before anything is read.
var errCounterUsing = errors.New("a counter table's updates take no write time or TTL of their own (Cassandra refuses USING TIMESTAMP and TTL on counters): leave out --writetime-field and --ttl-field")

func (c Class) String() string {
	if c < 0 || int(c) >= len(classNames) {
		return fmt.Sprintf("Class(%d)", int(c))
	}
	return classNames[c]
}

// classed is an error that knows its class. An error type of the loader
// that is not ClassFatal says so beside its declaration.
type classed interface{ class() Class }

// Classify is the class of a run's outcome: the summary and error that
// Run (or WriteSplitPlan) returned. It is the one place that decides it.
// A refusal (ClassUsage) anywhere in err's tree wins over an
// interruption, which wins over the other errors.
func Classify(sum Summary, err error) Class {
	switch {
	case hasClass(err, ClassUsage):
		return ClassUsage
	case errors.Is(err, context.Canceled):
		return ClassInterrupted
	case err != nil:
		var c classed
		if errors.As(err, &c) {
			return c.class()
		}
		return ClassFatal
	case sum.RowsFailedParse+sum.RowsFailedInsert+sum.RowsUnknown+sum.RowsNotSent > 0,
		len(sum.ErrFiles) > 0:
		// The second case: a resumed run that finished cleanly, or
		// found nothing to do, while the error files hold rows of the
		// runs before it.
		return ClassRejected
	}
	return ClassOK
}

// hasClass reports whether an error of class want is anywhere in err's
// tree (errors.Is's walk, for a class instead of a value).
func hasClass(err error, want Class) bool {
	if err == nil {
		return false
	}
	if c, ok := err.(classed); ok && c.class() == want {
		return true
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return hasClass(u.Unwrap(), want)
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if hasClass(e, want) {
				return true
			}
		}
	}
	return false
}

// AbortError says why a run stopped before loading all its input.
type AbortError struct {
	Reason string
	// Fatal: the run could not go on (the cluster stopped answering, the
	// input is damaged, an error file could not be written), as opposed
	// to a limit (MAXPARSEERRORS, MAXINSERTERRORS) that was crossed.
	Fatal bool
}

func (e *AbortError) Error() string { return "aborted: " + e.Reason }

// ResumeError is a --resume that cannot be honoured; nothing was loaded.
// The CLI reports it as a usage error: the command line must change.
type ResumeError struct{ Reason string }

func (e *ResumeError) Error() string { return (&runlog.RefusedError{Reason: e.Reason}).Error() }

// SplitPlanError is a split plan (--split-plan) that does not fit the
// run: missing, unreadable as a plan, made for other splits, options or
// inputs, or with a start the file's bytes contradict. Nothing was
// loaded; a retry fails the same way until the plan is written again.
// The CLI reports it as a usage error.
type SplitPlanError struct {
	Path   string
	Reason string
}

func (e *SplitPlanError) Error() string { return "--split-plan " + e.Path + ": " + e.Reason }

// SplitError is a --split the inputs cannot be split by: a stream.
// (An input given twice is an InputTwiceError, for every run.) Nothing was loaded; a retry fails the same way, so
// the CLI reports it as a usage error.
type SplitError struct{ Reason string }

func (e *SplitError) Error() string { return "--split: " + e.Reason }

// InputClashError is a file the run would write or remove that is one of
// its inputs. Nothing was read, written or removed.
type InputClashError struct {
	What   string // the option naming the output: ERRFILE, --resume, …
	Output string // the file the run would write or remove
	Input  string // the input it is
}

func (e *InputClashError) Error() string {
	return fmt.Sprintf("%s would write or remove %s, which is the input %s: give the %s another path", e.What, e.Output, e.Input, e.What)
}

// OutputKindError is an output path that is not a regular file (a
// device, a directory, a pipe) where the run removes or replaces files.
type OutputKindError struct {
	What, Path string
	Mode       os.FileMode
	// Descriptor: Path names one of the process's descriptors
	// (/dev/stdout), whatever file it leads to.
	Descriptor bool
}

func (e *OutputKindError) Error() string {
	kind := "not a regular file"
	switch {
	case e.Descriptor:
		kind = "a descriptor of this process"
	case e.Mode.IsDir():
		kind = "a directory"
	case e.Mode&os.ModeDevice != 0:
		kind = "a device"
	case e.Mode&os.ModeNamedPipe != 0:
		kind = "a named pipe"
	}
	return fmt.Sprintf("%s %s is %s: cqlload removes, truncates and replaces such files, so it must name a file (or nothing yet)", e.What, e.Path, kind)
}

// InputTwiceError is a file among the inputs twice: named twice, under
// two names (a link, another spelling), or listed by two globs (counts.csv
// *.csv). cqlsh loads such a file twice, which for a counter table
// applies its increments twice; nothing was loaded.
type InputTwiceError struct{ First, Second string }

func (e *InputTwiceError) Error() string {
	if e.First == e.Second {
		return fmt.Sprintf("%s is given twice: each input is loaded once, so name it once (--repeat reads the input again on purpose)", e.First)
	}
	return fmt.Sprintf("%s and %s are the same file: each input is loaded once, so name it once (--repeat reads the input again on purpose)", e.First, e.Second)
}

// StampsError is an error file whose rows do not match the timestamps its
// log records; nothing was loaded. The CLI reports it as a usage error.
type StampsError struct{ File, Log, Reason string }

func (e *StampsError) Error() string {
	return fmt.Sprintf("%s: %s; its log %s gives each row's write timestamp by position, so it must list exactly the file's rows: remove the log lines of rows removed from the file, or move the log away to stamp every row from this run's start", e.File, e.Reason, e.Log)
}

// LockedError is a checkpoint or error file another run holds. Nothing
// was loaded; the same command succeeds once that run has ended.
type LockedError struct {
	Path   string // the checkpoint or error file
	Holder string // what the holder wrote in the lock file: pid, host, start
}

// Error is runlog's message, which a lock refused below the loader gives.
func (e *LockedError) Error() string {
	return (&runlog.LockedError{Path: e.Path, Holder: e.Holder}).Error()
}

// OutputClashError is two outputs of a run that are one file: the one
// written last would replace or interleave with the other (a summary
// given ERRFILE's path took the rejected rows' place). Nothing was
// written.
type OutputClashError struct {
	What, Path           string
	OtherWhat, OtherPath string
}

func (e *OutputClashError) Error() string {
	return fmt.Sprintf("%s %s and %s %s are the same file, which each would write over the other: give them different paths", e.What, e.Path, e.OtherWhat, e.OtherPath)
}

// HeaderError is a file whose header does not fit the table: a name it
// does not have, a name twice, a key column missing. The file's rows are
// rejected; the other files load.
type HeaderError struct {
	File string
	Err  error
}

func (e *HeaderError) Error() string {
	return "the file's header does not fit the table: " + e.Err.Error()
}

func (e *HeaderError) Unwrap() error { return e.Err }

// The classes of the error types above that are not ClassFatal. A
// WriteError (below) is a row's outcome, never a run's.
func (e *AbortError) class() Class {
	if e.Fatal {
		return ClassFatal
	}
	return ClassAborted
}

func (*ResumeError) class() Class     { return ClassUsage }
func (*SplitPlanError) class() Class  { return ClassUsage }
func (*SplitError) class() Class      { return ClassUsage }
func (*InputClashError) class() Class { return ClassUsage }
func (*OutputKindError) class() Class { return ClassUsage }
func (*InputTwiceError) class() Class { return ClassUsage }
func (*StampsError) class() Class     { return ClassUsage }

// Connect's errors: each says what to change, and unwraps to the
// network's, TLS's or the server's error behind it.

// connectError is why Connect failed, said so that a user knows what to
// change. It unwraps to the network's, TLS's or the server's error behind
// it and to the driver's, for errors.Is and errors.As.
type connectError struct {
	msg   string
	cause error
	err   error
}

func (e *connectError) Error() string { return e.msg }

func (e *connectError) Unwrap() []error {
	var errs []error
	for _, err := range []error{e.cause, e.err} {
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// authRequiredError: the cluster wants credentials and Options has none.
type authRequiredError struct{ class string }

func (e *authRequiredError) Error() string {
	return fmt.Sprintf("authentication required (%s)", e.class)
}

// handshakeTimeoutError: the node accepted the connection and did not
// finish a TLS handshake within the connect timeout.
type handshakeTimeoutError struct {
	host    string
	timeout time.Duration
}

func (e *handshakeTimeoutError) Error() string {
	return fmt.Sprintf("%s accepted the connection but did not finish a TLS handshake within %v (the connect timeout)", e.host, e.timeout)
}

func (e *handshakeTimeoutError) Timeout() bool { return true }

// nameMismatchError is a certificate that failed verification against
// name; explain says whether the name is what is wrong.
type nameMismatchError struct {
	host string
	name string
	err  *tls.CertificateVerificationError
}

func (e *nameMismatchError) Error() string { return e.err.Error() }

func (e *nameMismatchError) Unwrap() error { return e.err }

// explain is the message for a certificate that failed verification:
// for a name that is not the certificate's, both the names it holds and
// the one checked, and how to check another.
func (e *nameMismatchError) explain() string {
	var hostErr x509.HostnameError
	if !errors.As(e.err, &hostErr) || hostErr.Certificate == nil {
		return fmt.Sprintf("%s: %v (give the CA that signed its certificate with --ssl-ca, or skip the check with --ssl-no-verify)", e.host, e.err)
	}
	return fmt.Sprintf("%s: its certificate is for %s, not %s (connect by a name the certificate holds, or check another with --ssl-server-name)",
		e.host, certNames(hostErr.Certificate), e.name)
}

// A request's errors: WriteError is what the write path (decide) and the
// in-flight limit read of a failed attempt.

// WriteError is a failed write, with what the loader may do about it.
type WriteError struct {
	Err error
	// Retryable: the same request may succeed if sent again (timeouts,
	// overload, unavailable replicas, lost connections).
	Retryable bool
	// MayBeApplied: the cluster may have applied the write although it
	// reported a failure (timeouts). Harmless for idempotent inserts;
	// for counters a retry could count twice, so they are not retried.
	MayBeApplied bool
	// Invalid: the request itself was refused (a bad value, a batch too
	// large); splitting it finds the rows at fault.
	Invalid bool
	// Saturated: the node had no room for the request (Overloaded, a
	// write timeout, no answer in time): the in-flight limit learns it.
	Saturated bool
	// Answered: a node answered with this error (an error frame), as
	// opposed to a timeout or a lost connection.
	Answered bool
}

func (e *WriteError) Error() string { return e.Err.Error() }

func (e *WriteError) Unwrap() error { return e.Err }

// classify turns a driver error into a WriteError.
func classify(err error) *WriteError {
	we := &WriteError{Err: err}
	// The scylladb driver's error frames expose GetCode; upstream gocql's
	// expose Code (gocql.RequestError). Accept both.
	var reqErr interface{ GetCode() int }
	var upstream gocql.RequestError
	if !errors.As(err, &reqErr) && errors.As(err, &upstream) {
		reqErr = codeOf{upstream}
	}
	switch {
	case errors.Is(err, gocql.ErrNoConnections), errors.Is(err, gocql.ErrHostDown), errors.Is(err, gocql.ErrUnavailable):
		// Refused by the driver before anything was sent.
		we.Retryable = true
	case reqErr != nil:
		we.Answered = true
		switch reqErr.GetCode() {
		case gocql.ErrCodeUnavailable, gocql.ErrCodeBootstrapping, gocql.ErrCodeTruncate:
			we.Retryable = true // refused before anything was written
		case gocql.ErrCodeOverloaded:
			we.Retryable, we.Saturated = true, true
		case gocql.ErrCodeWriteTimeout, gocql.ErrCodeReadTimeout:
			we.Retryable, we.MayBeApplied, we.Saturated = true, true, true
		case gocql.ErrCodeServer, gocql.ErrCodeWriteFailure:
			we.Retryable, we.MayBeApplied = true, true
		case gocql.ErrCodeInvalid, gocql.ErrCodeSyntax, gocql.ErrCodeProtocol:
			we.Invalid = true
		}
	default:
		// Anything else happened on the way: a timeout, a connection
		// closed or reset after the request left, a failed heartbeat,
		// a cancelled context. The request may have been applied, and
		// may succeed if sent again.
		we.Retryable, we.MayBeApplied = true, true
		we.Saturated = errors.Is(err, gocql.ErrTimeoutNoResponse) || errors.Is(err, context.DeadlineExceeded)
	}
	return we
}

type codeOf struct{ gocql.RequestError }

func (c codeOf) GetCode() int { return c.Code() }

// outcome is what a failed attempt tells the in-flight limit: a node
// without room (Dropped), or nothing to learn from (Ignore).
func (e *WriteError) outcome() limit.Outcome {
	if e.Saturated {
		return limit.Dropped
	}
	return limit.Ignore
}
