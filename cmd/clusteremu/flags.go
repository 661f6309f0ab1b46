package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// errHelp ends a command asked for its flags (-h): exit 0.
var errHelp = errors.New("help shown")

// flags is a command's flag set. Its usage, the command's synopsis and
// flags, goes to stdout when asked for with -h and to stderr after a bad
// flag.
type flags struct {
	*flag.FlagSet
	stdout, stderr io.Writer
}

func newFlags(name string, stdout, stderr io.Writer) *flags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {} // parse prints it, where it belongs
	return &flags{FlagSet: fs, stdout: stdout, stderr: stderr}
}

// parse parses flags that may stand before or after the positional
// arguments, which Go's flag package alone does not allow. After -h it
// prints the usage and returns errHelp; after a bad flag, which the flag
// set reported, the usage and the error.
func (f *flags) parse(args []string) ([]string, error) {
	var positional []string
	for {
		err := f.Parse(args)
		switch {
		case errors.Is(err, flag.ErrHelp):
			f.usage(f.stdout)
			return nil, errHelp
		case err != nil:
			f.usage(f.stderr)
			return nil, err
		}
		rest := f.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// usage prints the command's synopsis and flags to w.
func (f *flags) usage(w io.Writer) {
	c, _ := lookup(f.Name())
	fmt.Fprintf(w, "usage: clusteremu %s %s\n\n%s\n\nflags:\n", c.name, c.args, c.desc)
	f.SetOutput(w)
	f.PrintDefaults()
	f.SetOutput(f.stderr)
}

// set reports whether the flag was given.
func (f *flags) set(name string) bool {
	found := false
	f.Visit(func(fl *flag.Flag) { found = found || fl.Name == name })
	return found
}

// exitCode is how a command whose arguments did not parse exits: 0 after
// -h, 2 after a bad flag or argument.
func exitCode(err error) int {
	if errors.Is(err, errHelp) {
		return exitOK
	}
	return exitUsage
}
