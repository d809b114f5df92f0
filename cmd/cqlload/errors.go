package main

// How a run's errors end it: the exit statuses, the class of each
// outcome, and the errors of the command itself.

import (
	"context"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/cqlload/cqlload/loader"
)

// Exit statuses, as documented in the README.
const (
	exitOK          = 0
	exitRejected    = 1  // finished, but some rows were rejected or their outcome is unknown
	exitAborted     = 2  // MAXPARSEERRORS or MAXINSERTERRORS was crossed
	exitFatal       = 3  // the run could not go on: cluster unreachable or silent, schema mismatch, damaged input, outputs held by another run
	exitInterrupted = 4  // SIGINT, SIGTERM or SIGHUP, or standard output or error closed
	exitUsage       = 64 // bad command line, a --resume that cannot be honoured, or a --split-plan that does not fit
)

// usageError prints a refused command line's error and returns
// exitUsage.
func usageError(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "cqlload: %v\nRun cqlload --help for usage.\n", err)
	return exitUsage
}

// exitStatus is what a scheduler learns from the run (see the README's
// exit status table): the number of the loader's class of its outcome.
func exitStatus(sum loader.Summary, runErr error) int {
	return exitCodes[loader.Classify(sum, runErr)]
}

// exitCodes are the exit statuses of the loader's classes.
var exitCodes = map[loader.Class]int{
	loader.ClassOK:          exitOK,
	loader.ClassRejected:    exitRejected,
	loader.ClassAborted:     exitAborted,
	loader.ClassFatal:       exitFatal,
	loader.ClassInterrupted: exitInterrupted,
	loader.ClassUsage:       exitUsage,
}

// interruptError is the cause of a run stopped by a signal or by its
// output closing: what the summary and the last line say instead of
// "context canceled". It is a context.Canceled, which exitStatus maps to
// exitInterrupted.
type interruptError struct {
	sig    os.Signal
	closed string // the stream whose reader went away
}

func (e *interruptError) Error() string {
	if e.closed != "" {
		return "interrupted: " + e.closed + " was closed (broken pipe)"
	}
	name := map[os.Signal]string{os.Interrupt: "SIGINT", syscall.SIGTERM: "SIGTERM", syscall.SIGHUP: "SIGHUP"}[e.sig]
	return "interrupted by " + name
}

func (e *interruptError) Unwrap() error { return context.Canceled }
