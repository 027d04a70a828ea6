// Command vesper is the verifier daemon and the agents' tool in one binary:
// it folds the signed events of chess and gomoku matches played over Nostr,
// publishes the daemon's duties, builds the public site, and gives agents
// every protocol action as one command.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"vesper/match"
)

// Exit statuses shared by the commands (documented in --help).
const (
	exitOK       = 0
	exitFailure  = 1 // a file could not be read, or an internal failure
	exitUsage    = 2
	exitRules    = 3 // refused by the rules / a file holds no valid match
	exitRelays   = 4 // no relay accepted or answered
	exitKey      = 5 // key problems
	exitNotFound = 6 // the relays that answered hold no such match
	exitAuth     = 7 // a relay reads only to NIP-42-authenticated clients, and no --key was given
	exitMissing  = 8 // a sync knows of events a relay listed and did not send, asked twice
)

// exitError carries an exit status with a message for the user.
type exitError struct {
	code int
	msg  string
	// detail, when set, is merged into the --json error object (a
	// refusal's rule, to_move, ply, deadline, legal_moves).
	detail any
}

func (e *exitError) Error() string { return e.msg }

func fail(code int, format string, args ...any) error {
	return &exitError{code: code, msg: fmt.Sprintf(format, args...)}
}

func newApp() *cli.App {
	app := &cli.App{
		Name:  "vesper",
		Usage: "verify, arbitrate and play " + match.NounList() + " matches over Nostr",
		Description: "Playing: one player posts `vesper challenge` (the challenger is first: " + match.SidesText(match.First) + ");\n" +
			"the other runs `vesper accept MATCH`. Then each in turn: `vesper wait MATCH`\n" +
			"(returns when it is your turn), `vesper status --json MATCH` (fen, legal_moves, to_move,\n" +
			"deadline...), `vesper move MATCH MOVE`. Each move has " + match.Span(match.MoveClock) + ". When the game ends both\n" +
			"players sign the result (`vesper result MATCH`); only a final result counts for ratings.\n" +
			"Every action is checked against the protocol's fold first: what verifiers would ignore\n" +
			"is refused, never posted.\n\n" +
			"Exit statuses: 0 done, 1 failure (unreadable input, internal error), 2 usage (unknown\n" +
			"command or flag, bad argument), 3 refused by the rules (or a file holding no valid\n" +
			"match), 4 no relay accepted or answered, 5 key problems, 6 match not found on the relays,\n" +
			"7 no relay answered and one requires NIP-42 authentication to be read: give a key with --key,\n" +
			"8 a sync knows of events a relay listed and would not send (they are named).\n" +
			"With --json, stdout holds exactly one JSON object; errors are\n" +
			"{\"error\":...,\"code\":N} plus, for a refusal, rule, to_move, ply, deadline, legal_moves.",
		Commands:        commands(),
		HideHelpCommand: true,
		ExitErrHandler:  func(*cli.Context, error) {}, // main maps errors to statuses
		OnUsageError:    usageError,
	}
	for _, c := range app.Commands {
		quietUsage(c)
	}
	app.CommandNotFound = func(c *cli.Context, name string) {
		notFound = name
	}
	return app
}

// notFound is the unknown command urfave/cli reported, if any: its hook
// cannot return an error.
var notFound string

// usageError replaces urfave/cli's answer to a flag mistake (help text on
// stdout) with a usage error: under --json, stdout must hold one object.
func usageError(_ *cli.Context, err error, _ bool) error {
	return fail(exitUsage, "%v (see --help)", err)
}

func quietUsage(c *cli.Command) {
	c.OnUsageError = usageError
	for _, sub := range c.Subcommands {
		quietUsage(sub)
	}
}

func main() {
	os.Exit(run(os.Args))
}

func run(args []string) int {
	app := newApp()
	notFound = ""
	args = helpAsFlag(args)
	args = flagsFirst(app, args)
	if wantsJSON(args) {
		// Help and usage text go to stderr: stdout is the one JSON object.
		app.Writer = os.Stderr
	}
	err := app.Run(args)
	if err == nil && notFound != "" {
		err = fail(exitUsage, "unknown command %q (vesper --help lists them)", notFound)
	}
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
		var detail any
		if ee != nil {
			detail = ee.detail
		}
		os.Stdout.Write(jsonError(msg, code, detail))
	}
	return code
}

// helpAsFlag turns `vesper help [CMD]` into `vesper [CMD] --help`.
func helpAsFlag(args []string) []string {
	if len(args) < 2 || args[1] != "help" {
		return args
	}
	out := []string{args[0]}
	out = append(out, args[2:]...)
	return append(out, "--help")
}

// jsonError is printed on stdout for --json when a command fails: the
// message and exit status, and the fields of detail (a refusal).
func jsonError(msg string, code int, detail any) []byte {
	obj := map[string]any{}
	if detail != nil {
		if b, err := json.Marshal(detail); err == nil {
			_ = json.Unmarshal(b, &obj)
		}
	}
	obj["error"], obj["code"] = msg, code
	return match.MarshalLine(obj)
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
