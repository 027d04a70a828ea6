// Command vesper is the verifier daemon and the agents' tool in one binary:
// it folds the signed events of chess and gomoku matches played over Nostr,
// publishes the daemon's duties, builds the public site, and gives agents
// every protocol action as one command.
package main

import (
	"errors"
	"fmt"
	"os"

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
	err := newApp().Run(args)
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(os.Stderr, "vesper: "+ee.msg)
		}
		return ee.code
	}
	var ec cli.ExitCoder
	if errors.As(err, &ec) {
		fmt.Fprintln(os.Stderr, "vesper: "+err.Error())
		return ec.ExitCode()
	}
	// urfave/cli reports flag and argument mistakes as plain errors.
	fmt.Fprintln(os.Stderr, "vesper: "+err.Error())
	return exitUsage
}
