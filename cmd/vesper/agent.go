package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"vesper/match"
	"vesper/nostr"
	"vesper/nostr/relay"
)

// The agent commands: every protocol action checks the folded match before
// it signs, so nothing is signed that a verifier would ignore.

const netTimeout = 10 * time.Second

func agentFlags(extra ...cli.Flag) []cli.Flag {
	return append([]cli.Flag{relaysFlag(), keyFlag(), jsonFlag()}, extra...)
}

// published is the JSON answer of a command that posted an event.
type published struct {
	OK       bool              `json:"ok"`
	Match    string            `json:"match"`
	Nevent   string            `json:"nevent,omitempty"`
	Event    string            `json:"event"`
	Kind     int               `json:"kind"`
	Ply      int               `json:"ply,omitempty"`
	Move     string            `json:"move,omitempty"`
	Result   *nostr.Result     `json:"result,omitempty"`
	Accepted []string          `json:"accepted"`
	Failed   map[string]string `json:"failed,omitempty"`
}

// publish signs ev, sends it to every relay in parallel and reports which
// accepted; no acceptance at all is exit status 4.
func publish(c *cli.Context, key nostr.SecretKey, ev *nostr.Event, what published) error {
	if err := key.Sign(ev); err != nil {
		return fail(exitKey, "cannot sign: %v", err)
	}
	relays := relayList(c)
	res := relay.Publish(c.Context, relays, ev, netTimeout)
	what.Event, what.Kind = ev.ID, ev.Kind
	what.Accepted = relay.Accepted(res)
	what.Failed = map[string]string{}
	for _, r := range res {
		if !contains(what.Accepted, r.Relay) {
			msg := r.Message
			if r.Err != nil {
				msg = r.Err.Error()
			}
			what.Failed[r.Relay] = msg
		}
	}
	if len(what.Accepted) == 0 {
		return fail(exitRelays, "no relay accepted event %s: %s", ev.ID, describeFailures(what.Failed))
	}
	what.OK = true
	if c.Bool("json") {
		return printJSON(what)
	}
	if what.Nevent != "" {
		fmt.Printf("match:  %s\nnevent: %s\n", what.Match, what.Nevent)
	}
	fmt.Printf("posted %s (kind %d) to %s\n", ev.ID, ev.Kind, strings.Join(what.Accepted, ", "))
	for r, why := range what.Failed {
		fmt.Printf("  not accepted by %s: %s\n", r, why)
	}
	return nil
}

func describeFailures(f map[string]string) string {
	if len(f) == 0 {
		return "no relays configured"
	}
	var parts []string
	for r, why := range f {
		parts = append(parts, r+" ("+why+")")
	}
	return strings.Join(parts, ", ")
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func printJSON(v any) error {
	os.Stdout.Write(match.MarshalLine(v))
	return nil
}

// fetchState fetches a match from the relays and folds it. Events come
// without this machine's seen_at, so created_at stands in (section 6).
func fetchState(ctx context.Context, c *cli.Context, ref string) (*match.State, error) {
	id, err := nostr.ParseEventRef(ref)
	if err != nil {
		return nil, fail(exitUsage, "MATCH: %v", err)
	}
	got, err := relay.FetchMatch(ctx, relayList(c), id, netTimeout)
	if err != nil {
		return nil, fail(exitRelays, "could not fetch match %s: %v", id, err)
	}
	evs := make([]*nostr.Event, 0, len(got))
	for _, r := range got {
		evs = append(evs, r.Event)
	}
	st, err := match.Fold(id, evs, nil)
	if err != nil {
		var nm *match.NoMatchError
		if errors.As(err, &nm) {
			return nil, fail(exitRules, "match %s: %v", id, err)
		}
		return nil, fail(exitFailure, "match %s: %v", id, err)
	}
	return st, nil
}

// withMatch checks the positional arguments (the first is MATCH), loads
// the key and fetches and folds the match: the start of every action.
func withMatch(c *cli.Context, names ...string) (nostr.SecretKey, *match.State, []string, error) {
	a, err := args(c, names...)
	if err != nil {
		return nostr.SecretKey{}, nil, nil, err
	}
	key, err := loadKey(c, true)
	if err != nil {
		return key, nil, nil, err
	}
	st, err := fetchState(c.Context, c, a[0])
	return key, st, a, err
}

// args returns the positional arguments or a usage error.
func args(c *cli.Context, names ...string) ([]string, error) {
	if c.NArg() != len(names) {
		return nil, fail(exitUsage, "%s: expected %s, got %d argument(s)", c.Command.Name, strings.Join(names, " "), c.NArg())
	}
	return c.Args().Slice(), nil
}

func refuse(rule, format string, a ...any) error {
	return fail(exitRules, "refused (%s): %s", rule, fmt.Sprintf(format, a...))
}

func when(t int64) string {
	d := time.Until(time.Unix(t, 0)).Round(time.Minute)
	return fmt.Sprintf("%s (in %s)", time.Unix(t, 0).UTC().Format(time.RFC3339), d)
}

func challengeCommand() *cli.Command {
	return &cli.Command{
		Name:  "challenge",
		Usage: "post a challenge; prints the match id",
		Flags: agentFlags(
			&cli.StringFlag{Name: "game", Value: "chess", Usage: "chess or gomoku"},
			&cli.StringFlag{Name: "invite", Usage: "invite one player (npub or hex); default: open to anyone"},
		),
		Action: func(c *cli.Context) error {
			if _, err := args(c); err != nil {
				return err
			}
			game := c.String("game")
			if game != nostr.GameChess && game != nostr.GameGomoku {
				return fail(exitUsage, "--game must be chess or gomoku, not %q", game)
			}
			key, err := loadKey(c, true)
			if err != nil {
				return err
			}
			invitee := ""
			if v := c.String("invite"); v != "" {
				if invitee, err = nostr.ParsePubkey(v); err != nil {
					return fail(exitUsage, "--invite: %v", err)
				}
				if invitee == key.PublicKey() {
					return refuse("challenge", "you cannot invite yourself")
				}
			}
			ev := nostr.NewChallenge(game, invitee, nowUnix())
			if err := key.Sign(ev); err != nil {
				return fail(exitKey, "cannot sign: %v", err)
			}
			return publish(c, key, ev, published{Match: ev.ID, Nevent: nostr.Nevent(ev.ID, ev.PubKey, relayList(c))})
		},
	}
}

func acceptCommand() *cli.Command {
	return &cli.Command{
		Name:      "accept",
		Usage:     "accept a challenge",
		ArgsUsage: "MATCH",
		Flags:     agentFlags(),
		Action: func(c *cli.Context) error {
			key, st, _, err := withMatch(c, "MATCH")
			if err != nil {
				return err
			}
			me, now := key.PublicKey(), st.Stamp(nowUnix())
			switch {
			case st.Accepted:
				return refuse("accept", "match already accepted by %s", st.Second)
			case st.First == me:
				return refuse("accept", "this is your own challenge")
			case st.Invitee != "" && st.Invitee != me:
				return refuse("accept", "the challenge invites %s, not you", st.Invitee)
			case now > st.CreatedAt+match.ChallengeExpiry:
				return refuse("accept", "the challenge expired at %s", when(st.CreatedAt+match.ChallengeExpiry))
			}
			return publish(c, key, nostr.NewAccept(st.Match, st.First, st.Stamp(now)), published{Match: st.Match})
		},
	}
}

func moveCommand() *cli.Command {
	return &cli.Command{
		Name:      "move",
		Usage:     "play a move (UCI or SAN for chess, a point like h8 for gomoku)",
		ArgsUsage: "MATCH MOVE",
		Flags:     agentFlags(),
		Action: func(c *cli.Context) error {
			key, st, a, err := withMatch(c, "MATCH", "MOVE")
			if err != nil {
				return err
			}
			canon, err := checkMove(st, key.PublicKey(), a[1], st.Stamp(nowUnix()))
			if err != nil {
				return err
			}
			ply := st.Plies() + 1
			return publish(c, key, nostr.NewMove(st.Match, ply, canon, st.Stamp(nowUnix())), published{Match: st.Match, Ply: ply, Move: canon})
		},
	}
}

// checkMove applies section 2's move rules for me at now and returns the
// move in canonical form. A coordinate promotion without a piece is refused:
// the protocol would read it as a knight (chess.js's quirk).
func checkMove(st *match.State, me, move string, now int64) (string, error) {
	if err := myTurn(st, me, now); err != nil {
		return "", err
	}
	g := st.Board()
	canon, err := g.Play(move)
	if err != nil {
		return "", refuse("illegal_move", "%q is not a legal move in the current position", move)
	}
	if st.Kind == nostr.GameChess && len(canon) == 5 && strings.EqualFold(strings.TrimSpace(move), canon[:4]) {
		return "", refuse("promotion", "%q would promote to a knight under chess.js rules; name the piece, e.g. %sq", move, canon[:4])
	}
	return canon, nil
}

// asPlayer is the check every player action starts with: the match is
// accepted and me plays in it. It returns me's role.
func asPlayer(st *match.State, me string) (string, error) {
	if !st.Accepted {
		return "", refuse("not_accepted", "the match has not been accepted yet")
	}
	role := st.Role(me)
	if role == "" {
		return "", refuse("not_player", "you are not a player of this match")
	}
	return role, nil
}

func myTurn(st *match.State, me string, now int64) error {
	role, err := asPlayer(st, me)
	if err != nil {
		return err
	}
	switch {
	case st.Over:
		return refuse("game_over", "the game is over (%s, %s)", st.Result, st.Reason)
	case st.ToMove() != role:
		return refuse("wrong_player", "it is the %s player's turn (ply %d)", st.ToMove(), st.Plies()+1)
	case now > st.ClockStart()+match.MoveClock:
		return refuse("late", "your clock ran out at %s; the move would not count", when(st.ClockStart()+match.MoveClock))
	}
	return nil
}

func resignCommand() *cli.Command {
	return &cli.Command{
		Name:      "resign",
		Usage:     "resign a game (either player, at any turn)",
		ArgsUsage: "MATCH",
		Flags:     agentFlags(),
		Action: func(c *cli.Context) error {
			key, st, _, err := withMatch(c, "MATCH")
			if err != nil {
				return err
			}
			now := st.Stamp(nowUnix())
			if _, err := asPlayer(st, key.PublicKey()); err != nil {
				return err
			}
			switch {
			case st.Over:
				return refuse("game_over", "the game is over (%s, %s)", st.Result, st.Reason)
			case now > st.ClockStart()+match.MoveClock:
				return refuse("late", "the clock ran out at %s; a resign would not count", when(st.ClockStart()+match.MoveClock))
			}
			ply := st.Plies() + 1
			return publish(c, key, nostr.NewMove(st.Match, ply, nostr.ResignContent, st.Stamp(now)), published{Match: st.Match, Ply: ply, Move: nostr.ResignContent})
		},
	}
}

func resultCommand() *cli.Command {
	return &cli.Command{
		Name:      "result",
		Usage:     "sign the computed result of a finished game, or propose/accept an agreed result",
		ArgsUsage: "MATCH",
		Flags:     agentFlags(&cli.StringFlag{Name: "agree", Usage: "draw, first or second: agree this result on the current position"}),
		Action: func(c *cli.Context) error {
			key, st, _, err := withMatch(c, "MATCH")
			if err != nil {
				return err
			}
			r, err := resultToSign(st, key.PublicKey(), c.String("agree"))
			if err != nil {
				return err
			}
			return publish(c, key, nostr.NewResult(st.Match, r, st.Stamp(nowUnix())), published{Match: st.Match, Result: &r})
		},
	}
}

func resultToSign(st *match.State, me, agree string) (nostr.Result, error) {
	if _, err := asPlayer(st, me); err != nil {
		return nostr.Result{}, err
	}
	if st.Final {
		return nostr.Result{}, refuse("already_final", "the result is already final (%s by %s)", st.Result, st.FinalBy)
	}
	if agree == "" {
		if !st.Over {
			return nostr.Result{}, refuse("not_over", "the game is not over; use --agree draw|first|second to propose a result")
		}
		return st.Computed(), nil
	}
	if agree != match.Draw && agree != match.First && agree != match.Second {
		return nostr.Result{}, fail(exitUsage, "--agree must be draw, first or second, not %q", agree)
	}
	if st.Over && agree != st.Result {
		return nostr.Result{}, refuse("sig_inconsistent", "the game ended %s (%s); a signature for %s would be ignored", st.Result, st.Reason, agree)
	}
	reason := string(match.ReasonAgreement)
	if st.Over {
		reason = string(st.Reason)
	}
	return nostr.Result{Result: agree, Reason: reason, Plies: st.Plies(), FinalHash: st.FinalHash()}, nil
}

func claimCommand() *cli.Command {
	return &cli.Command{
		Name:      "claim-timeout",
		Usage:     "claim a win on time once the opponent's 24-hour clock has run out",
		ArgsUsage: "MATCH",
		Flags:     agentFlags(),
		Action: func(c *cli.Context) error {
			key, st, _, err := withMatch(c, "MATCH")
			if err != nil {
				return err
			}
			r, err := claimFor(st, key.PublicKey(), st.Stamp(nowUnix()))
			if err != nil {
				return err
			}
			return publish(c, key, nostr.NewResult(st.Match, r, st.Stamp(nowUnix())), published{Match: st.Match, Result: &r})
		},
	}
}

func claimFor(st *match.State, me string, now int64) (nostr.Result, error) {
	role, err := asPlayer(st, me)
	if err != nil {
		return nostr.Result{}, err
	}
	switch {
	case st.Over:
		return nostr.Result{}, refuse("claim_invalid", "the game is already over")
	case st.ToMove() == role:
		return nostr.Result{}, refuse("claim_invalid", "it is your turn; only the waiting player can claim")
	case now <= st.ClockStart()+match.MoveClock:
		return nostr.Result{}, refuse("claim_premature", "the opponent's clock runs until %s; a claim is due from the second after", when(st.ClockStart()+match.MoveClock))
	}
	return st.TimeoutWin(), nil
}

func arbitrateCommand() *cli.Command {
	return &cli.Command{
		Name:      "arbitrate",
		Usage:     "ask for arbitration (valid when the signatures disagree or the deadline has passed)",
		ArgsUsage: "MATCH",
		Flags:     agentFlags(&cli.StringFlag{Name: "note", Usage: "a note for the arbiter", Value: "arbitration requested"}),
		Action: func(c *cli.Context) error {
			key, st, _, err := withMatch(c, "MATCH")
			if err != nil {
				return err
			}
			now := st.Stamp(nowUnix())
			if _, err := asPlayer(st, key.PublicKey()); err != nil {
				return err
			}
			switch {
			case st.Final:
				return refuse("already_final", "the result is already final")
			case !st.SignaturesDisagree() && now <= st.Deadline():
				return refuse("request_invalid", "the signatures do not disagree and the deadline has not passed; a request is valid from %s", when(st.Deadline()+1))
			}
			return publish(c, key, nostr.NewRequest(st.Match, c.String("note"), st.Stamp(now)), published{Match: st.Match})
		},
	}
}

func ruleCommand() *cli.Command {
	return &cli.Command{
		Name:      "rule",
		Usage:     "act as arbiter: publish a ruling, only if a correct one exists now",
		ArgsUsage: "MATCH",
		Flags:     agentFlags(),
		Action: func(c *cli.Context) error {
			key, st, _, err := withMatch(c, "MATCH")
			if err != nil {
				return err
			}
			now := st.Stamp(nowUnix())
			if !st.Accepted {
				return refuse("not_accepted", "the match has not been accepted yet")
			}
			if st.Final {
				return refuse("already_final", "the result is already final")
			}
			if len(st.Requests) == 0 {
				return refuse("ruling_no_request", "no valid arbitration request yet")
			}
			r, ok := st.CorrectRuling(now)
			if !ok {
				return refuse("ruling_incorrect", "the game is in progress and the clock runs until %s", when(st.ClockStart()+match.MoveClock))
			}
			return publish(c, key, nostr.NewRuling(st.Match, r, st.Stamp(now)), published{Match: st.Match, Result: &r})
		},
	}
}

func keygenCommand() *cli.Command {
	return &cli.Command{
		Name:  "keygen",
		Usage: "make a new secret key; prints the public key",
		Flags: []cli.Flag{jsonFlag(), &cli.StringFlag{Name: "out", Usage: "write the key to FILE (mode 0600; never overwrites)"}},
		Action: func(c *cli.Context) error {
			k := nostr.GenerateKey()
			path := c.String("out")
			if path != "" {
				f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
				if err != nil {
					if os.IsExist(err) {
						return fail(exitKey, "%s already exists; refusing to overwrite a key", path)
					}
					return fail(exitKey, "cannot create %s: %v", path, unwrapPath(err))
				}
				if _, err := f.WriteString(k.Nsec() + "\n"); err != nil {
					f.Close()
					return fail(exitKey, "cannot write %s: %v", path, err)
				}
				if err := f.Close(); err != nil {
					return fail(exitKey, "cannot write %s: %v", path, err)
				}
			}
			return printIdentity(c, k, path)
		},
	}
}

func printIdentity(c *cli.Context, k nostr.SecretKey, path string) error {
	pk := k.PublicKey()
	if c.Bool("json") {
		return printJSON(map[string]string{"npub": nostr.Npub(pk), "pubkey": pk, "key_file": path})
	}
	fmt.Printf("npub:   %s\npubkey: %s\n", nostr.Npub(pk), pk)
	if path != "" {
		fmt.Printf("key written to %s (keep it secret)\n", path)
	} else if c.Command.Name == "keygen" {
		fmt.Println("no --out given: the key was not saved anywhere")
	}
	return nil
}

func whoamiCommand() *cli.Command {
	return &cli.Command{
		Name:  "whoami",
		Usage: "print the public key of the configured key",
		Flags: []cli.Flag{keyFlag(), jsonFlag()},
		Action: func(c *cli.Context) error {
			k, err := loadKey(c, true)
			if err != nil {
				return err
			}
			return printIdentity(c, k, c.String("key"))
		},
	}
}

// jsonError is printed on stdout for --json when a command fails.
func jsonError(msg string, code int) []byte {
	b, _ := json.Marshal(map[string]any{"error": msg, "code": code})
	return append(b, '\n')
}
