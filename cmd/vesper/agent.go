package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"vesper/match"
	"vesper/nostr"
	"vesper/seat"
)

// The agent commands are thin wrappers over package seat: it reads the
// match from the relays, asks the fold whether the event would count
// (match.State.Try) and only then signs and publishes. Nothing here checks
// a rule.

// netTimeout bounds one relay's part of the daemon-side commands (demo,
// arbiter --once) that do not go through a seat.
const netTimeout = 10 * time.Second

func relayTimeoutFlag() cli.Flag {
	return &cli.DurationFlag{Name: "timeout", Value: netTimeout,
		Usage: "how long one relay may take to answer a read or a publication; the others' answers are used"}
}

func agentFlags(extra ...cli.Flag) []cli.Flag {
	return append([]cli.Flag{relaysFlag(), keyFlag(), jsonFlag(), relayTimeoutFlag()}, extra...)
}

// newSeat builds the seat of a command: its relays, --timeout, and the key
// (required for actions, optional for reads).
func newSeat(c *cli.Context, needKey bool) (*seat.Seat, error) {
	key, err := loadKey(c, needKey)
	if err != nil {
		return nil, err
	}
	t := netTimeout
	if c.IsSet("timeout") && c.Command.Name != "wait" {
		t = c.Duration("timeout")
	}
	if c.IsSet("relay-timeout") {
		t = c.Duration("relay-timeout")
	}
	// The seat reads 0 as its default; a user who asked for 0 meant
	// something else, so say so instead of waiting 10 s per relay.
	if t <= 0 {
		return nil, fail(exitUsage, "%s: a relay timeout must be positive, not %s", c.Command.Name, t)
	}
	s := &seat.Seat{Relays: relayList(c), Key: key, Timeout: t, LockDir: lockDir(c), JournalDir: journalDir(c),
		AllowPrivateRelays: allowPrivate(c)}
	if os.Getenv("VESPER_TEST_HOLD_AFTER_PUBLISH") == "1" {
		// A crash test's stop: say what was published, then hang until
		// killed, between the publication and what would follow it.
		s.AfterPublish = func(ev *nostr.Event) {
			fmt.Fprintf(os.Stderr, "published %s\n", ev.ID)
			// A hang, not a wait for anything: the test kills the process.
			// (A bare select{} could be reported as a deadlock.)
			time.Sleep(24 * time.Hour)
		}
	}
	return s, nil
}

// journalDir is where the seat keeps the salts and texts of the reasoning
// it committed until it reveals them: KEYFILE.reasoning beside the key
// file, where every process using that key finds them after a crash; the
// seat's default (the user's config directory) for a key in VESPER_NSEC.
func journalDir(c *cli.Context) string {
	if path := c.String("key"); path != "" {
		return path + ".reasoning"
	}
	return ""
}

// lockDir is where a seat's lock files go (one per key and match, so that
// two processes with one key act in a match one at a time): beside the key
// file, where every process using that file finds them; the seat's default
// (the user's cache directory) for a key given in VESPER_NSEC.
func lockDir(c *cli.Context) string {
	if path := c.String("key"); path != "" {
		return filepath.Join(filepath.Dir(path), ".vesper-locks")
	}
	return ""
}

// seatError maps the seat's errors to exit statuses; a refusal keeps its
// rule and context for the --json error object.
func seatError(err error) error {
	var (
		rf *seat.Refusal
		nf *seat.NotFoundError
		re *seat.RelayError
		ie *seat.InputError
		ee *exitError
	)
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee):
		return ee
	case errors.As(err, &rf):
		return &exitError{code: exitRules, msg: rf.Error(), detail: rf}
	case errors.As(err, &nf):
		return &exitError{code: exitNotFound, msg: nf.Error()}
	case errors.As(err, &re) && len(re.NeedAuth) > 0:
		return &exitError{code: exitAuth, msg: re.Error() + " (give one with --key)"}
	case errors.As(err, &re):
		return &exitError{code: exitRelays, msg: re.Error()}
	case errors.As(err, &ie):
		return &exitError{code: exitUsage, msg: ie.Error()}
	case errors.Is(err, context.Canceled):
		return &exitError{code: exitFailure, msg: "interrupted"}
	}
	return &exitError{code: exitFailure, msg: err.Error()}
}

// reply prints an action's reply: the JSON object, or a few lines.
func reply(c *cli.Context, rep *seat.Reply, err error) error {
	if err != nil {
		return seatError(err)
	}
	if c.Bool("json") {
		return printJSON(rep)
	}
	w := os.Stdout
	if rep.Already {
		fmt.Fprintf(w, "already done: event %s (kind %d); nothing posted\n", rep.Event, rep.Kind)
	} else {
		fmt.Fprintf(w, "posted %s (kind %d) to %s\n", rep.Event, rep.Kind, strings.Join(rep.Accepted, ", "))
		for r, why := range rep.Failed {
			fmt.Fprintf(w, "  not accepted by %s: %s\n", r, why)
		}
		if len(rep.Inbox) > 0 {
			fmt.Fprintf(w, "  also sent to the read relays of the player it tags: %s\n", strings.Join(rep.Inbox, ", "))
		}
	}
	if rep.Nevent != "" {
		fmt.Fprintf(w, "match:  %s\nnevent: %s\n", rep.Match, rep.Nevent)
	}
	if rep.Move != "" {
		fmt.Fprintf(w, "ply %d: %s\n", rep.Ply, rep.Move)
	}
	if rep.Reasoning != "" {
		fmt.Fprintf(w, "reasoning committed: %s (revealed once the result is final)\n", rep.Reasoning)
	}
	if len(rep.Revealed) > 0 {
		fmt.Fprintf(w, "reasoning revealed in %s\n", strings.Join(rep.Revealed, ", "))
	}
	if rep.Note != "" {
		fmt.Fprintln(w, rep.Note)
	}
	return nil
}

func printJSON(v any) error {
	os.Stdout.Write(match.MarshalLine(v))
	return nil
}

// args returns the positional arguments or a usage error.
func args(c *cli.Context, names ...string) ([]string, error) {
	if c.NArg() != len(names) {
		return nil, fail(exitUsage, "%s: expected %s, got %d argument(s)", c.Command.Name, strings.Join(names, " "), c.NArg())
	}
	return c.Args().Slice(), nil
}

// matchAction is the shape of most actions: one MATCH argument, a key.
func matchAction(do func(ctx context.Context, s *seat.Seat, c *cli.Context, id string) (*seat.Reply, error), names ...string) cli.ActionFunc {
	return func(c *cli.Context) error {
		a, err := args(c, append([]string{"MATCH"}, names...)...)
		if err != nil {
			return err
		}
		s, err := newSeat(c, true)
		if err != nil {
			return err
		}
		rep, err := do(c.Context, s, c, a[0])
		return reply(c, rep, err)
	}
}

func challengeCommand() *cli.Command {
	return &cli.Command{
		Name:  "challenge",
		Usage: "post a challenge; prints the match id (you are first: " + match.SidesText(match.First) + ")",
		Flags: agentFlags(
			&cli.StringFlag{Name: "game", Value: nostr.GameChess, Usage: "the game: " + match.KindList()},
			&cli.StringFlag{Name: "invite", Usage: "invite one player (npub, nprofile or hex); default: open to anyone. " +
				"The invitation also goes to the invitee's read relays (its NIP-65 relay list, or the nprofile's relays)"},
		),
		Action: func(c *cli.Context) error {
			if _, err := args(c); err != nil {
				return err
			}
			if err := gameFlags(c, "game"); err != nil {
				return err
			}
			s, err := newSeat(c, true)
			if err != nil {
				return err
			}
			rep, err := s.Challenge(c.Context, c.String("game"), c.String("invite"))
			return reply(c, rep, err)
		},
	}
}

func acceptCommand() *cli.Command {
	return &cli.Command{
		Name:      "accept",
		Usage:     "accept a challenge (you are second: " + match.SidesText(match.Second) + ")",
		ArgsUsage: "MATCH",
		Flags:     agentFlags(),
		Action: matchAction(func(ctx context.Context, s *seat.Seat, _ *cli.Context, id string) (*seat.Reply, error) {
			return s.Accept(ctx, id)
		}),
	}
}

func moveCommand() *cli.Command {
	return &cli.Command{
		Name:  "move",
		Usage: "play a move (" + match.MoveHelpText() + "); posted in canonical form (UCI in chess)",
		Description: "Refused (exit 3) with the fold's reason when verifiers would not count it; under --json the\n" +
			"error carries rule, to_move, ply, deadline and legal_moves. A promotion must name its piece\n" +
			"(e7e8q). Repeating your last counted move answers ok with already: true.\n" +
			"--comment is public table talk, shown at once. --reasoning (or --reasoning-file) is committed:\n" +
			"the move carries only a salted hash; the salt and text stay in KEYFILE.reasoning/ (written\n" +
			"before the move is published) until the result is final, when vesper result, vesper wait and\n" +
			"vesper reveal publish them (PROTOCOL.md section 8).",
		ArgsUsage: "MATCH MOVE",
		Flags:     agentFlags(talkFlags(true)...),
		Action: matchAction(func(ctx context.Context, s *seat.Seat, c *cli.Context, id string) (*seat.Reply, error) {
			talk, err := readTalk(c, true)
			if err != nil {
				return nil, err
			}
			return s.MoveWith(ctx, id, c.Args().Get(1), talk)
		}, "MOVE"),
	}
}

func resignCommand() *cli.Command {
	return &cli.Command{
		Name:      "resign",
		Usage:     "resign a game (either player, at any turn)",
		ArgsUsage: "MATCH",
		Flags:     agentFlags(),
		Action: matchAction(func(ctx context.Context, s *seat.Seat, _ *cli.Context, id string) (*seat.Reply, error) {
			return s.Resign(ctx, id)
		}),
	}
}

func resultCommand() *cli.Command {
	return &cli.Command{
		Name:      "result",
		Usage:     "sign the computed result of a finished game, or propose/accept an agreed result",
		ArgsUsage: "MATCH",
		Description: "Once the result is final, the reasoning this key committed in the match (--reasoning on\n" +
			"moves) is revealed (kind 4427, PROTOCOL.md section 8.2); --reasoning here commits reasoning\n" +
			"with the result itself.",
		Flags: agentFlags(append([]cli.Flag{&cli.StringFlag{Name: "agree",
			Usage: "draw, first or second (white/black in chess): offer or accept this result on the current position"}},
			talkFlags(false)...)...),
		Action: matchAction(func(ctx context.Context, s *seat.Seat, c *cli.Context, id string) (*seat.Reply, error) {
			talk, err := readTalk(c, false)
			if err != nil {
				return nil, err
			}
			if v := c.String("agree"); v != "" {
				return s.AgreeWith(ctx, id, v, talk)
			}
			return s.SignResultWith(ctx, id, talk)
		}),
	}
}

func claimCommand() *cli.Command {
	return &cli.Command{
		Name:      "claim-timeout",
		Usage:     "claim a win on time once the opponent's " + match.SpanAdj(match.MoveClock) + " clock has run out",
		ArgsUsage: "MATCH",
		Flags:     agentFlags(),
		Action: matchAction(func(ctx context.Context, s *seat.Seat, _ *cli.Context, id string) (*seat.Reply, error) {
			return s.ClaimTimeout(ctx, id)
		}),
	}
}

func arbitrateCommand() *cli.Command {
	return &cli.Command{
		Name:      "arbitrate",
		Usage:     "ask for arbitration (valid when the signatures disagree or the deadline has passed)",
		ArgsUsage: "MATCH",
		Flags:     agentFlags(&cli.StringFlag{Name: "note", Usage: "a note for the arbiter", Value: "arbitration requested"}),
		Action: matchAction(func(ctx context.Context, s *seat.Seat, c *cli.Context, id string) (*seat.Reply, error) {
			return s.RequestArbitration(ctx, id, c.String("note"))
		}),
	}
}

func ruleCommand() *cli.Command {
	return &cli.Command{
		Name:      "rule",
		Usage:     "act as arbiter: publish a ruling, only if a correct one exists now",
		ArgsUsage: "MATCH",
		Flags:     agentFlags(),
		Action: matchAction(func(ctx context.Context, s *seat.Seat, _ *cli.Context, id string) (*seat.Reply, error) {
			return s.Rule(ctx, id)
		}),
	}
}

// readMatchArg reads the match named by the command's one argument, MATCH,
// from the relays (no key needed).
func readMatchArg(c *cli.Context) (*seat.Seat, *seat.Snapshot, error) {
	a, err := args(c, "MATCH")
	if err != nil {
		return nil, nil, err
	}
	s, err := newSeat(c, false)
	if err != nil {
		return nil, nil, err
	}
	snap, err := s.Read(c.Context, a[0])
	if err != nil {
		return nil, nil, seatError(err)
	}
	return s, snap, nil
}

// gameFlags refuses, before anything is signed or sent, a game flag whose
// value is not a game of the registry, naming the games (exit 2). An
// empty value is left to the command (a filter that is not set).
func gameFlags(c *cli.Context, names ...string) error {
	for _, name := range names {
		vals := []string{c.String(name)}
		if isSliceFlag(c, name) {
			vals = c.StringSlice(name)
		}
		for _, v := range vals {
			if _, err := match.LookupGame(v); v != "" && err != nil {
				return fail(exitUsage, "--%s %q is not a game: the games are %s", name, v, match.KindList())
			}
		}
	}
	return nil
}

// isSliceFlag reports whether the command's flag name is repeatable.
func isSliceFlag(c *cli.Context, name string) bool {
	for _, f := range c.Command.Flags {
		if _, ok := f.(*cli.StringSliceFlag); ok && slices.Contains(f.Names(), name) {
			return true
		}
	}
	return false
}
