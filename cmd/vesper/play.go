package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"vesper/engine"
	"vesper/match"
	"vesper/nostr"
	"vesper/play"
	"vesper/play/model"
	"vesper/seat"
)

// playCommand is `vesper play`: the runner of package play, which plays
// every game of --key through the seat (the fold decides what counts).
func playCommand() *cli.Command {
	return &cli.Command{
		Name:  "play",
		Usage: "play every game of --key with an engine or an agent, many at once, until stopped (lichess-bot for Nostr)",
		Description: "Follows the key's events on one set of live subscriptions and answers them: accepts\n" +
			"challenges by policy, moves, signs results, claims timeouts, asks for arbitration.\n" +
			"The decider is the built-in engine (--engine builtin), a UCI engine (--uci CMD) or an\n" +
			"agent (--agent CMD): a command run once per decision that reads one JSON object on\n" +
			"stdin (request: move or offer, match, game, color, fen, pgn, board, legal_moves with a\n" +
			"move request, deadline, offer, attempt, and on a retry refusal {rule, reason}) and\n" +
			"answers {\"move\": \"e2e4\"} or {\"move\": \"resign\"}, with optional \"offer\": \"draw\"\n" +
			"(posted after the move), \"accept_offer\": true, \"comment\", \"reasoning\" and \"usage\";\n" +
			"the object may follow prose (the last one wins) or sit in a fenced block, and a bare\n" +
			"move is read too. An illegal, unparsable, empty or late answer is asked again up to\n" +
			"--retries times, then --fallback is taken (a random move is flagged on the event).\n" +
			"Records: DIR/games/MATCH.jsonl (0600: every decision, and each move journaled whole\n" +
			"and synced before it is sent, so a restart after a crash sends that same event) and\n" +
			"MATCH.pgn. A game is printed final, counted and revealed once the relays say final.\n" +
			"--config FILE holds flags as `name: value` lines (# comments; repeat a line for a\n" +
			"repeatable flag); the command line wins. Prints one line per event (--json: one JSON\n" +
			"object per line). With --series-opponent it plays that series and stops, printing the\n" +
			"W-D-L line and the score with its 95% Wilson interval.\n" +
			"--model PROVIDER/MODEL plays a language model through its API (openai/NAME: OPENAI_BASE_URL,\n" +
			"OPENAI_API_KEY; anthropic/NAME: ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY) under one versioned\n" +
			"prompt template, streaming its thinking, pricing each answer; see docs/MODELS.md.",
		Flags: append([]cli.Flag{relaysFlag(), keyFlag(), jsonFlag(), relayTimeoutFlag(),
			&cli.StringFlag{Name: "config", Usage: "read flags from `FILE`, one `name: value` line each"},
			&cli.StringFlag{Name: "dir", Value: "vesper-play", Usage: "directory of the journals, records and PGNs"},
			&cli.StringFlag{Name: "engine", Usage: "builtin: vesper's own engine (" + match.NounList() + ")"},
			&cli.StringFlag{Name: "uci", Usage: "a UCI engine command, e.g. /usr/games/stockfish (chess)"},
			&cli.StringSliceFlag{Name: "uci-option", Usage: "a UCI option NAME=VALUE (repeatable)"},
			&cli.StringFlag{Name: "agent", Usage: "an agent command, run once per decision (split on spaces; no shell)"},
			&cli.DurationFlag{Name: "movetime", Usage: "engine time per move"},
			&cli.Int64Flag{Name: "nodes", Usage: "engine nodes per move"},
			&cli.IntFlag{Name: "depth", Usage: "engine depth per move"},
			&cli.DurationFlag{Name: "agent-timeout", Value: 2 * time.Minute, Usage: "how long one agent answer may take; it is then killed (with --model: the answer time, retries of 429 and 5xx included)"},
			&cli.IntFlag{Name: "retries", Value: 3, Usage: "how often a refused answer is asked again"},
			&cli.StringFlag{Name: "fallback", Value: play.FallbackRandom, Usage: "when every attempt was refused: random (a random legal move, flagged), resign, or none (the clock decides)"},
			&cli.IntFlag{Name: "draw-cp", Value: -1, Usage: "an engine takes a draw offer when its score is within this many centipawns of even (-1: never)"},
			&cli.BoolFlag{Name: "no-invitations", Usage: "do not accept challenges that invite the key"},
			&cli.BoolFlag{Name: "accept-open", Usage: "accept open challenges of others"},
			&cli.DurationFlag{Name: "open-after", Usage: "accept an open challenge only once it is this old"},
			&cli.StringSliceFlag{Name: "from", Usage: "accept challenges only from this player (npub or hex; repeatable)"},
			&cli.StringSliceFlag{Name: "game", Usage: "games accepted: " + match.KindList() + " (repeatable; default what the decider plays)"},
			&cli.IntFlag{Name: "max-games", Value: 5, Usage: "games played at once"},
			&cli.IntFlag{Name: "post-open", Usage: "keep this many open challenges of the key posted"},
			&cli.StringFlag{Name: "open-game", Value: nostr.GameChess, Usage: "the game of --post-open and --challenge challenges"},
			&cli.StringSliceFlag{Name: "challenge", Usage: "invite this player once (npub or hex; repeatable; remembered across restarts)"},
			&cli.StringFlag{Name: "series-opponent", Usage: "play a series against this player (npub or hex)"},
			&cli.IntFlag{Name: "series-games", Value: 2, Usage: "games of the series, sides swapped each game"},
			&cli.StringFlag{Name: "series-game", Value: nostr.GameChess, Usage: "the series' game"},
			&cli.StringFlag{Name: "series-first", Value: "white", Usage: "the key's role in the series' first game: first or white (it invites), second or black (it waits for the opponent's invitation), in every game"},
			&cli.BoolFlag{Name: "series-no-swap", Usage: "keep the first game's side in every game (against the daemon's house, which never challenges: it only accepts)"},
		}, modelFlags()...),
		Action: runPlay,
	}
}

func runPlay(c *cli.Context) error {
	if err := applyConfig(c); err != nil {
		return err
	}
	if err := gameFlags(c, "game", "open-game", "series-game"); err != nil {
		return err
	}
	s, err := newSeat(c, true)
	if err != nil {
		return err
	}
	sctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithCancelCause(sctx)
	defer cancel(nil)
	run := &modelRun{cancel: cancel}
	cfg, err := playConfig(c, s, run)
	if err != nil {
		return err
	}
	r, err := play.New(cfg)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	if c.String("model") != "" {
		if err := publishModelProfile(ctx, c, s); err != nil {
			return seatError(err)
		}
	}
	err = r.Run(ctx)
	var auth *model.AuthError
	if errors.As(context.Cause(ctx), &auth) {
		return fail(exitKey, "play: %v", auth)
	}
	if err != nil && ctx.Err() == nil {
		return seatError(err)
	}
	return nil
}

// playConfig turns the flags into the runner's config.
func playConfig(c *cli.Context, s *seat.Seat, run *modelRun) (play.Config, error) {
	lw := &lineWriter{json: c.Bool("json")}
	newMover, games, err := playMover(c, run, lw)
	if err != nil {
		return play.Config{}, err
	}
	from, err := pubkeyFlags(c, "from")
	if err != nil {
		return play.Config{}, err
	}
	invite, err := pubkeyFlags(c, "challenge")
	if err != nil {
		return play.Config{}, err
	}
	cfg := play.Config{Seat: s, Challenge: invite, Dir: c.String("dir"), NewMover: newMover, Retries: c.Int("retries"), Fallback: c.String("fallback"),
		PostOpen: c.Int("post-open"), OpenGame: c.String("open-game"),
		Policy: play.Policy{Games: games, From: from, Invitations: !c.Bool("no-invitations"), Open: c.Bool("accept-open"),
			OpenAfter: int64(c.Duration("open-after").Seconds()), MaxGames: c.Int("max-games")}}
	if cfg.Series, err = seriesConfig(c); err != nil {
		return play.Config{}, err
	}
	cfg.Out = lw.line
	cfg.PlyCap = plyCap(c)
	cfg.Budget = modelBudget(c, run)
	return cfg, nil
}

// engineGames are the games the built-in engine plays.
func engineGames() []string {
	var out []string
	for _, k := range match.GameKinds() {
		if engine.Plays(k) {
			out = append(out, k)
		}
	}
	return out
}

// playMover reads which mover plays (exactly one of --engine, --uci and
// --agent) and the games it takes: a UCI engine plays chess only, unless
// --game says otherwise.
func playMover(c *cli.Context, run *modelRun, lw *lineWriter) (newMover func(string) play.Mover, games []string, err error) {
	lim := play.Limits{Movetime: c.Duration("movetime"), Nodes: c.Int64("nodes"), Depth: c.Int("depth")}
	chosen := 0
	for _, f := range []string{"engine", "uci", "agent", "model"} {
		if c.String(f) != "" {
			chosen++
		}
	}
	if chosen != 1 {
		return nil, nil, fail(exitUsage, "play: give one of --engine builtin, --uci CMD, --agent CMD or --model PROVIDER/MODEL")
	}
	games = c.StringSlice("game")
	switch {
	case c.String("model") != "":
		at := func(l play.Line) play.Line { l.At = time.Now().Unix(); return l }
		think := func(m string, ply int, chunk string) {
			lw.line(at(play.Line{Type: "thinking", Match: m, Ply: ply, Note: chunk}))
		}
		note := func(m string, ply int, text string) {
			lw.line(at(play.Line{Type: "note", Match: m, Ply: ply, Note: text}))
		}
		newMover, err = modelMover(c, run, think, note)
		if err != nil {
			return nil, nil, err
		}
	case c.String("engine") != "":
		if c.String("engine") != "builtin" {
			return nil, nil, fail(exitUsage, "--engine must be builtin, not %q (use --uci for another engine)", c.String("engine"))
		}
		newMover = func(string) play.Mover { return &play.Builtin{Limits: lim, DrawCP: c.Int("draw-cp")} }
		if len(games) == 0 {
			games = engineGames() // a game the engine has no search for is declined
		}
	case c.String("uci") != "":
		opts := map[string]string{}
		for _, o := range c.StringSlice("uci-option") {
			k, v, ok := strings.Cut(o, "=")
			if !ok {
				return nil, nil, fail(exitUsage, "--uci-option %q: want NAME=VALUE", o)
			}
			opts[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
		cmd := c.String("uci")
		newMover = func(string) play.Mover {
			return &play.UCI{Command: cmd, Options: opts, Limits: lim, DrawCP: c.Int("draw-cp")}
		}
		if len(games) == 0 {
			games = []string{nostr.GameChess}
		}
	default:
		argv := strings.Fields(c.String("agent"))
		t := c.Duration("agent-timeout")
		newMover = func(string) play.Mover { return &play.Agent{Cmd: play.Command{Argv: argv, Timeout: t}} }
	}
	return newMover, games, nil
}

// pubkeyFlags reads the repeatable pubkey flag name.
func pubkeyFlags(c *cli.Context, name string) ([]string, error) {
	var pks []string
	for _, f := range c.StringSlice(name) {
		pk, err := nostr.ParsePubkey(f)
		if err != nil {
			return nil, fail(exitUsage, "--%s %q: %v", name, f, err)
		}
		pks = append(pks, pk)
	}
	return pks, nil
}

// seriesConfig reads the --series-* flags: nil without --series-opponent.
func seriesConfig(c *cli.Context) (*play.SeriesConfig, error) {
	opp := c.String("series-opponent")
	if opp == "" {
		return nil, nil
	}
	pk, err := nostr.ParsePubkey(opp)
	if err != nil {
		return nil, fail(exitUsage, "--series-opponent %q: %v", opp, err)
	}
	// white and black are chess's names of the roles, kept for every game.
	first := c.String("series-first")
	if first != "white" && first != "black" && first != match.First && first != match.Second {
		return nil, fail(exitUsage, "--series-first must be first (or white) or second (or black), not %q", first)
	}
	return &play.SeriesConfig{Opponent: pk, Games: c.Int("series-games"), Game: c.String("series-game"), FirstWhite: first == "white" || first == match.First,
		NoSwap: c.Bool("series-no-swap")}, nil
}

func lineText(l play.Line) string {
	parts := []string{l.Type}
	for _, p := range []string{l.Match, plyText(l.Ply), l.Move, l.Result, l.Reason, l.Series, l.Note} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if l.Error != "" {
		parts = append(parts, "error: "+l.Error)
	}
	return strings.Join(parts, " ")
}

func plyText(p int) string {
	if p == 0 {
		return ""
	}
	return fmt.Sprintf("ply %d", p)
}

// applyConfig sets, from --config FILE, every flag the command line left
// unset: `name: value` lines, # comments, a repeated name for a
// repeatable flag.
func applyConfig(c *cli.Context) error {
	path := c.String("config")
	if path == "" {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return fail(exitUsage, "--config: %v", unwrapPath(err))
	}
	defer f.Close()
	set := map[string]bool{}
	for _, n := range c.FlagNames() {
		if c.IsSet(n) {
			set[n] = true
		}
	}
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return fail(exitUsage, "%s:%d: want `name: value`", path, n)
		}
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if name == "config" || set[name] {
			continue
		}
		if err := c.Set(name, value); err != nil {
			return fail(exitUsage, "%s:%d: %s: %v", path, n, name, err)
		}
	}
	return sc.Err()
}
