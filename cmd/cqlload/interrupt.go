package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// interrupts stops a run in an orderly way (rows in flight settle, rows
// not sent go to the error file) when a scheduler or a user ends it:
//
//   - SIGINT, SIGTERM or SIGHUP; a second signal exits at once. SIGHUP
//     is the terminal going away, whose default action would end the
//     process as kill -9 does; under nohup, which ignores it, it stays
//     ignored (Notify would undo that).
//   - Standard output or standard error closed by its reader (`cqlload
//     … | head`, a log shipper that dies): the pipe's counterpart of a
//     closed terminal. Go's default would end the process on the first
//     write to it, as kill -9 does; instead SIGPIPE is taken (and
//     dropped: the write's EPIPE says which stream), and the write that
//     fails stops the run.
type interrupts struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	stderr io.Writer // for the one line that says a stop began
	sigs   chan os.Signal
	pipes  chan os.Signal
	done   chan struct{}
	ended  atomic.Bool // the run is over: a closed output stops nothing
}

func interruptContext(stderr io.Writer) *interrupts {
	ctx, cancel := context.WithCancelCause(context.Background())
	in := &interrupts{
		ctx: ctx, cancel: cancel, stderr: stderr,
		sigs:  make(chan os.Signal, 2),
		pipes: make(chan os.Signal, 1), // never read: Notify drops what does not fit
		done:  make(chan struct{}),
	}
	signal.Notify(in.sigs, os.Interrupt, syscall.SIGTERM)
	if !signal.Ignored(syscall.SIGHUP) {
		signal.Notify(in.sigs, syscall.SIGHUP)
	}
	signal.Notify(in.pipes, syscall.SIGPIPE)
	go in.watch()
	return in
}

func (in *interrupts) watch() {
	var sig os.Signal
	select {
	case sig = <-in.sigs:
	case <-in.done:
		return
	}
	if in.ended.Load() {
		in.afterTheLoad()
		return
	}
	fmt.Fprintln(in.stderr, "cqlload: interrupted: settling the rows in flight; interrupt again to exit at once")
	in.cancel(&interruptError{sig: sig})
	select {
	case <-in.sigs:
		fmt.Fprintln(in.stderr, "cqlload: interrupted again: exiting without settling")
		os.Exit(exitInterrupted)
	case <-in.done:
	}
}

// endGrace is how long an interrupt after the load leaves the summary
// to be written before the process exits.
const endGrace = 5 * time.Second

// afterTheLoad handles an interrupt that came once every row was
// settled. Nothing is left to stop, and the summary and --count are
// quick, but either may wait for ever (a summary's named pipe that no
// one reads, a count on a stalled cluster): they get endGrace, a second
// interrupt none.
func (in *interrupts) afterTheLoad() {
	fmt.Fprintf(in.stderr, "cqlload: interrupted after the load: every row's fate is settled; exiting once the summary is written, within %v (interrupt again to exit at once)\n", endGrace)
	select {
	case <-in.done:
		return
	case <-in.sigs:
		fmt.Fprintln(in.stderr, "cqlload: interrupted again: exiting; the summary may not have been written")
	case <-time.After(endGrace):
		fmt.Fprintf(in.stderr, "cqlload: the summary was not written within %v of the interrupt: exiting\n", endGrace)
	}
	os.Exit(exitInterrupted)
}

// runEnded says the run is over, so that an output closed while its
// summary is printed (cqlload … | head -1) is not taken for a stop, and
// a signal from then on stops nothing (afterTheLoad).
func (in *interrupts) runEnded() { in.ended.Store(true) }

// stop ends the watch; the run is over.
func (in *interrupts) stop() {
	signal.Stop(in.sigs)
	signal.Stop(in.pipes)
	close(in.done)
	in.cancel(nil)
}

// stopWhenClosed returns w, whose first write to a pipe without a reader
// stops the run as a signal does; name says which stream it is.
func (in *interrupts) stopWhenClosed(w io.Writer, name string) io.Writer {
	return &closedStops{w: w, name: name, in: in}
}

type closedStops struct {
	w    io.Writer
	name string
	in   *interrupts
	once sync.Once
}

func (c *closedStops) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	if err != nil && errors.Is(err, syscall.EPIPE) && !c.in.ended.Load() {
		c.once.Do(func() {
			if c.in.ctx.Err() == nil {
				// On the other stream, if that one still has a reader.
				fmt.Fprintf(c.in.stderr, "cqlload: %s closed: settling the rows in flight\n", c.name)
			}
			c.in.cancel(&interruptError{closed: c.name})
		})
	}
	return n, err
}

// Unwrap gives the stream itself (isTerminal looks at it).
func (c *closedStops) Unwrap() io.Writer { return c.w }
