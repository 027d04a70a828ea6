package main

import (
	"errors"
	"os"

	"github.com/urfave/cli/v2"

	"vesper/daemon"
	"vesper/match"
	"vesper/nostr"
	"vesper/site"
)

// pgnCommand prints a chess match's export PGN. From the store it is byte
// for byte the site's m/<id>.pgn, which is also the content of the
// match's NIP-64 game record: all three come from site.Exporter.
func pgnCommand() *cli.Command {
	return &cli.Command{
		Name:      "pgn",
		Usage:     "print a chess match's PGN (the site's m/<id>.pgn, the content of its NIP-64 record)",
		ArgsUsage: "MATCH",
		Description: "MATCH is a match id (hex, note1 or nevent1). From the store (--data, the default) the\n" +
			"PGN is byte for byte the site's m/<id>.pgn: players named by their stored profiles, and,\n" +
			"once the result is final, rated from every stored final result. With --relays and no\n" +
			"--data the match is read from the relays instead; the players are then named by their\n" +
			"npubs and shown unrated. --json prints {\"match\": ..., \"pgn\": ...}.\n" +
			"Exit status 6 when there is no such match, 1 for a match of another game than chess (it has no PGN).",
		Flags: []cli.Flag{dataFlag(), relaysFlag(), relayTimeoutFlag(), jsonFlag()},
		Action: func(c *cli.Context) error {
			var (
				id, text string
				err      error
			)
			if c.IsSet("relays") && !c.IsSet("data") {
				id, text, err = pgnFromRelays(c)
			} else {
				id, text, err = pgnFromStore(c)
			}
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return printJSON(struct {
					Match string `json:"match"`
					PGN   string `json:"pgn"`
				}{id, text})
			}
			_, err = os.Stdout.WriteString(text)
			return err
		},
	}
}

// pgnFromRelays reads the match as `vesper status` does. The relays'
// profiles and the ratings are not read: a rating needs every final
// result, which only a store holds.
func pgnFromRelays(c *cli.Context) (string, string, error) {
	_, snap, err := readMatchArg(c)
	if err != nil {
		return "", "", err
	}
	text, err := pgnOf(site.Input{}, snap.State)
	return snap.State.Match, text, err
}

// pgnFromStore folds the match from the store and writes its PGN with
// what a site build of the same store shows: the profiles and, for a
// final result, the ratings of every final match.
func pgnFromStore(c *cli.Context) (string, string, error) {
	a, err := args(c, "MATCH")
	if err != nil {
		return "", "", err
	}
	id, err := nostr.ParseEventRef(a[0])
	if err != nil {
		return "", "", fail(exitUsage, "MATCH: %v", err)
	}
	st, err := openStore(c, true)
	if err != nil {
		return "", "", err
	}
	defer st.Close()
	ctx := c.Context
	evs, seen, err := st.MatchEventsSeen(ctx, id)
	if err != nil {
		return "", "", fail(exitFailure, "store: %v", err)
	}
	if len(evs) == 0 {
		return "", "", fail(exitNotFound, "no match %s in the store", id)
	}
	s, err := match.Fold(id, evs, seen)
	var nm *match.NoMatchError
	switch {
	case errors.As(err, &nm):
		return "", "", fail(exitNotFound, "no match %s in the store: %s", id, nm.Why)
	case err != nil:
		return "", "", fail(exitFailure, "match %s: %v", id, err)
	}
	if s.Kind != nostr.GameChess {
		return "", "", fail(exitFailure, "match %s is %s: only chess has a PGN", id, s.Kind)
	}
	in, err := daemon.SiteInput(ctx, st, "", nowUnix())
	if err != nil {
		return "", "", fail(exitFailure, "store: %v", err)
	}
	if s.Final { // only a final result shows ratings
		if in.RatingGames, err = daemon.StoredRatingGames(ctx, st); err != nil {
			return "", "", fail(exitFailure, "store: %v", err)
		}
	}
	text, err := pgnOf(in, s)
	return id, text, err
}

func pgnOf(in site.Input, s *match.State) (string, error) {
	text, err := site.PGN(in, s)
	if err != nil {
		return "", fail(exitFailure, "%v", err)
	}
	return text, nil
}
