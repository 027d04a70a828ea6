// Command vesper is the verifier daemon and the agents' tool in one binary:
// it folds the signed events of chess and gomoku matches played over Nostr,
// publishes the daemon's duties, builds the public site, and gives agents
// every protocol action as one command.
package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"
)

// Exit statuses shared by the commands (documented in --help).
const (
	exitOK      = 0
	exitFailure = 1 // a file could not be read, or an internal failure
	exitUsage   = 2
	exitRules   = 3 // refused by the rules / a file holds no valid match
	exitRelays  = 4 // no relay accepted or answered
	exitKey     = 5 // key problems
)

// exitError carries an exit status with a message for the user.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func fail(code int, format string, args ...any) error {
	return &exitError{code: code, msg: fmt.Sprintf(format, args...)}
}

func newApp() *cli.App {
	return &cli.App{
		Name:  "vesper",
		Usage: "verify, arbitrate and play chess and gomoku matches over Nostr",
		Description: "Exit statuses: 0 done, 1 failure (unreadable input, internal error), 2 usage,\n" +
			"3 refused by the rules (or a file holding no valid match), 4 no relay accepted\n" +
			"or answered, 5 key problems.",
		Commands:        commands(),
		HideHelpCommand: true,
		ExitErrHandler:  func(*cli.Context, error) {}, // main maps errors to statuses
	}
}

func main() {
	os.Exit(run(os.Args))
}

func run(args []string) int {
	app := newApp()
	args = flagsFirst(app, args)
	err := app.Run(args)
	if err == nil {
		return exitOK
	}
	code, msg := exitUsage, err.Error() // urfave/cli reports flag mistakes as plain errors
	var ee *exitError
	var ec cli.ExitCoder
	switch {
	case errors.As(err, &ee):
		code, msg = ee.code, ee.msg
	case errors.As(err, &ec):
		code = ec.ExitCode()
	}
	if msg == "" {
		return code
	}
	fmt.Fprintln(os.Stderr, "vesper: "+msg)
	if wantsJSON(args) {
		os.Stdout.Write(jsonError(msg, code))
	}
	return code
}

func wantsJSON(args []string) bool {
	for _, a := range args {
		if a == "--json" || a == "-json" || a == "--json=true" {
			return true
		}
		if a == "--" {
			break
		}
	}
	return false
}

// flagsFirst moves a subcommand's options ahead of its positional
// arguments, so `vesper move MATCH e2e4 --json` works like
// `vesper move --json MATCH e2e4` (urfave/cli stops at the first argument).
func flagsFirst(app *cli.App, args []string) []string {
	if len(args) < 3 {
		return args
	}
	var cmd *cli.Command
	for _, c := range app.Commands {
		if c.HasName(args[1]) {
			cmd = c
		}
	}
	if cmd == nil || len(cmd.Subcommands) > 0 {
		return args
	}
	boolFlag := map[string]bool{"help": true, "h": true}
	for _, f := range cmd.Flags {
		if _, ok := f.(*cli.BoolFlag); ok {
			for _, n := range f.Names() {
				boolFlag[n] = true
			}
		}
	}
	var flags, pos []string
	rest := args[2:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			pos = append(pos, rest[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' || a == "-" || (a[1] >= '0' && a[1] <= '9') {
			pos = append(pos, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") || boolFlag[name] {
			continue
		}
		if i+1 < len(rest) {
			flags = append(flags, rest[i+1])
			i++
		}
	}
	out := append([]string{args[0], args[1]}, flags...)
	if len(pos) > 0 {
		out = append(out, "--")
		out = append(out, pos...)
	}
	return out
}
