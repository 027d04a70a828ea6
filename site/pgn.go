package site

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"vesper/match"
	"vesper/match/chessjs"
	"vesper/nostr"
	"vesper/pgn"
)

// A chess match's export PGN is written here once, by matchPGN. A build
// writes it to m/<id>.pgn; an Exporter writes the same bytes for callers
// that hold no build: `vesper pgn MATCH` and the daemon's NIP-64 game
// record (nostr.NewGameRecord). Both gather matchPGN's arguments as
// matchView does: the players as the build names them, their ratings at
// this game once its result is final, the SAN of the replay (sanMoves).

// Exporter renders match PGNs and NIP-64 game records exactly as a build
// of its Input renders m/<id>.pgn: the same names (from Input.Profiles)
// and the same ratings (Input.Ratings, else Input.RatingGames, with
// Input.Params). Input.States and Input.SeenAt are not read, nor
// Input.Now, since a PGN does not depend on them. An Exporter may be used
// from several goroutines.
type Exporter struct {
	b *builder
}

// NewExporter prepares the names and rating tables of in. A caller with
// many matches makes one Exporter: the tables are computed here, once.
func NewExporter(in Input) (*Exporter, error) {
	in.States, in.SeenAt = nil, nil
	b, err := newBuilder(in)
	if err != nil {
		return nil, err
	}
	b.index()
	return &Exporter{b: b}, nil
}

// PGN returns the export PGN of the chess match s: byte for byte the
// m/<id>.pgn of a build of the Exporter's Input that holds s. s needs no
// events (a Lean or Compact state will do); it must be a chess match
// whose id is 64 lowercase hex.
func (e *Exporter) PGN(s *match.State) (string, error) {
	if err := exportable(s); err != nil {
		return "", err
	}
	b := e.b
	white, black := b.player(s.First), b.player(s.Second)
	var whiteElo, blackElo gameRating
	if s.Final {
		whiteElo = b.ratingAt(s.Kind, s.First, s.Match)
		blackElo = b.ratingAt(s.Kind, s.Second, s.Match)
	}
	return matchPGN(s, sanMoves(s.Moves), white, black, whiteElo, blackElo, openingOf(b.openings, s.Moves)), nil
}

// sanMoves is replayChess's Moves without its boards (most of its cost):
// the SAN of each move, up to the first that does not replay.
func sanMoves(moves []string) []string {
	g := chessjs.NewGame()
	sans := make([]string, 0, len(moves))
	for _, mv := range moves {
		m, err := g.Move(mv)
		if err != nil {
			break
		}
		sans = append(sans, m.SAN)
	}
	return sans
}

// GameRecord returns the NIP-64 record of the final chess match s,
// unsigned (sign it with nostr.SecretKey.Sign): kind 64, its content the
// PGN of e.PGN, an alt tag saying in words who played whom and how it
// ended (NIP-31), the match as an e tag and the players as p tags (see
// nostr.NewGameRecord). A match whose result is not final has no record:
// its result could still change. A record is signed once: a name or a
// rating that changes later is in the site's PGN, not in the record.
func (e *Exporter) GameRecord(s *match.State, createdAt int64) (*nostr.Event, error) {
	if err := exportable(s); err != nil {
		return nil, err
	}
	if !s.Final || !s.Accepted {
		return nil, fmt.Errorf("site: match %s: the result is not final, so it has no game record", s.Match)
	}
	text, err := e.PGN(s)
	if err != nil {
		return nil, err
	}
	rec := nostr.GameRecord{
		Match: s.Match, First: s.First, Second: s.Second, PGN: text,
		Alt: recordAlt(s, e.b.player(s.First), e.b.player(s.Second)),
	}
	return nostr.NewGameRecord(rec, createdAt), nil
}

// PGN is NewExporter(in) and its PGN(s), for a single match.
func PGN(in Input, s *match.State) (string, error) {
	e, err := NewExporter(in)
	if err != nil {
		return "", err
	}
	return e.PGN(s)
}

// exportable says why s has no PGN.
func exportable(s *match.State) error {
	switch {
	case s == nil:
		return errors.New("site: no match state")
	case !nostr.IsLowerHex(s.Match, 64):
		return fmt.Errorf("site: match id %q is not 64 lowercase hex", s.Match)
	case s.Kind != nostr.GameChess:
		return fmt.Errorf("site: match %s is %s: only chess has a PGN", s.Match, s.Kind)
	}
	return nil
}

// recordAlt is the record's alt text (NIP-31), for clients that cannot
// show a chess game: "Chess game (PGN): Alice (White) vs Bob (Black), 0-1:
// Black won by checkmate. A vesper match on nostr, started 2026-05-28."
// The names are the PGN's White and Black, without pgn.Quote's
// replacements (an event tag takes any text).
func recordAlt(s *match.State, white, black player) string {
	outcome := "a draw by " + reasonText(s.Reason)
	switch s.Result {
	case match.First:
		outcome = "White won by " + reasonText(s.Reason)
	case match.Second:
		outcome = "Black won by " + reasonText(s.Reason)
	}
	return "Chess game (PGN): " + cleanLine(white.pgnName(), maxName*2) + " (White) vs " +
		cleanLine(black.pgnName(), maxName*2) + " (Black), " + pgn.Result(s.Over, s.Result) + ": " +
		outcome + ". A vesper match on nostr, started " + time.Unix(s.CreatedAt, 0).UTC().Format("2006-01-02") + "."
}

func pgnDate(s *match.State) string {
	return time.Unix(s.CreatedAt, 0).UTC().Format("2006.01.02")
}

// pgnTermination maps a reason to the PGN standard's Termination values.
func pgnTermination(s *match.State) string {
	switch {
	case !s.Over:
		return "unterminated"
	case s.Reason == match.ReasonTimeout:
		return "time forfeit"
	}
	return "normal"
}

// pgnElo is a WhiteElo/BlackElo value: the rating before a rated game,
// "-" (unknown) for a game that was not rated.
func pgnElo(r gameRating) string {
	if !r.Rated {
		return "-"
	}
	return strconv.Itoa(r.Before)
}

// matchPGN renders the game with the Seven Tag Roster first (Event, Site,
// Date, Round, White, Black, Result), then the match id, the players'
// npubs and ratings, the opening when the table names it (ECO, Opening), the result's reason, the PGN Termination and how the
// result became final, then the movetext in SAN wrapped at 79 columns.
// Every tag name is letters only, as chess.js reads them, and every line
// is ASCII and under 80 columns (pgn.Write).
func matchPGN(s *match.State, sans []string, white, black player, whiteElo, blackElo gameRating, op *openingView) string {
	var tags []pgn.Tag
	tag := func(name, value string) {
		// Names come from profiles: cleaned to one short line first.
		tags = append(tags, pgn.Tag{Name: name, Value: cleanLine(value, maxName*2)})
	}
	result := pgn.Result(s.Over, s.Result)
	tag("Event", "vesper "+s.Kind+" match")
	// Where the game was played, as a NIP-21 URI of its challenge: a
	// clickable place in clients that know it, and 78 columns as a tag line
	// (the Match tag has the id in hex).
	tag("Site", "nostr:"+nostr.Note(s.Match))
	tag("Date", pgnDate(s))
	tag("Round", "-")
	tag("White", white.pgnName())
	tag("Black", black.pgnName())
	tag("Result", result)
	tag("Match", s.Match)
	if white.Pubkey != "" {
		tag("WhiteNpub", white.Npub)
	}
	if black.Pubkey != "" {
		tag("BlackNpub", black.Npub)
	}
	tag("WhiteElo", pgnElo(whiteElo))
	tag("BlackElo", pgnElo(blackElo))
	if whiteElo.Rated && blackElo.Rated {
		tag("WhiteRatingDiff", strconv.Itoa(whiteElo.After-whiteElo.Before))
		tag("BlackRatingDiff", strconv.Itoa(blackElo.After-blackElo.Before))
	}
	if op != nil { // as Lichess writes them, from the table site/opening names
		tag("ECO", op.ECO)
		tag("Opening", op.Name)
	}
	if s.Over {
		tag("Reason", string(s.Reason))
	}
	tag("Termination", pgnTermination(s))
	if s.Final {
		tag("Final", string(s.FinalBy))
		tag("FinalEvent", s.FinalEvent)
	} else {
		tag("Final", "no")
	}
	tag("PlyCount", strconv.Itoa(len(sans)))
	return pgn.Write(tags, sans, result)
}
