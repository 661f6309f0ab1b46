package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// exitInterrupted is the exit code of a command stopped by SIGINT or
// SIGTERM, as a shell reports a process killed by SIGINT.
const exitInterrupted = 130

// interrupts is where commands take their interrupts from: SIGINT and
// SIGTERM, or in tests a channel the test fills. release stops the
// delivery.
var interrupts = func() (sigs <-chan os.Signal, release func()) {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	return ch, func() { signal.Stop(ch) }
}

// onInterrupt calls stop at the first interrupt, so the command ends its
// work at the next step and keeps what it found, and exits at once at the
// second. An interrupt already pending (one that came while the command
// was setting up) is taken before onInterrupt returns. The returned func
// ends the watch.
func onInterrupt(stderr io.Writer, stop func()) (end func()) {
	sigs, release := interrupts()
	first := func() {
		fmt.Fprintln(stderr, "\nclusteremu: interrupted: stopping and keeping what was done (interrupt again to quit at once)")
		stop()
	}
	select {
	case <-sigs:
		first()
		return release
	default:
	}
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		select {
		case <-sigs:
			first()
		case <-done:
			return
		}
		select {
		case <-sigs:
			os.Exit(exitInterrupted)
		case <-done:
		}
	}()
	return func() {
		close(done)
		<-finished
		release()
	}
}
