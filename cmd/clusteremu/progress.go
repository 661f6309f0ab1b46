package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"clusteremu/cluster"
)

// isTerminal reports whether w is a character device, such as a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// showProgress redraws a one-line progress bar on w five times a second
// from the cluster's snapshot until the returned stop is called, which
// erases the line. It reads only the snapshot, so a deterministic run is
// left alone.
func showProgress(w io.Writer, c *cluster.Cluster, until time.Duration) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				fmt.Fprint(w, "\r\033[K")
				return
			case <-tick.C:
				fmt.Fprint(w, "\r\033[K"+progressLine(c, until))
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

func progressLine(c *cluster.Cluster, until time.Duration) string {
	now, submitted, ended := c.Progress()
	line := fmt.Sprintf("emulated %v", now.Round(time.Second))
	if until > 0 {
		const width = 30
		filled := min(width, int(float64(width)*now.Seconds()/until.Seconds()))
		line = "[" + bar(filled, width) + "] " + line + " of " + until.String()
	}
	return fmt.Sprintf("%s  jobs %d ended of %d submitted", line, ended, submitted)
}

func bar(filled, width int) string {
	b := make([]byte, width)
	for i := range b {
		b[i] = '.'
		if i < filled {
			b[i] = '#'
		}
	}
	return string(b)
}
