package play

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"vesper/match"
	"vesper/seat"
)

// Fallbacks, taken when every attempt of a decision was refused.
const (
	FallbackRandom = "random" // a random legal move, flagged in the record
	FallbackResign = "resign"
	FallbackNone   = "none" // do nothing: the clock decides
)

// Config is a runner's setup.
type Config struct {
	Seat *seat.Seat
	// Dir holds games/MATCH.jsonl (journal and records), games/MATCH.pgn
	// and the series' file (SeriesFile).
	Dir string
	// NewMover makes the decider of one game.
	NewMover func(game string) Mover
	Policy   Policy
	Series   *SeriesConfig
	// PostOpen keeps that many open challenges of the key posted (game
	// OpenGame) while fewer than MaxGames are in progress.
	PostOpen int
	OpenGame string
	// Challenge lists players (hex pubkeys) to invite once each, to a game
	// of OpenGame; challenged.jsonl remembers who was, across restarts.
	Challenge []string
	// Retries is how often a refused answer is asked again [3].
	Retries  int
	Fallback string
	// Out receives progress lines (what the CLI prints); nil: none.
	Out func(Line)
	// Rand picks the random fallback move [a random source].
	Rand *rand.Rand
	// Backoff is the first wait before an action that failed on the relays
	// is tried again [1s].
	Backoff time.Duration
	// PlyCap ends a game at that many plies by an agreed result (plycap.go);
	// 0: no cap.
	PlyCap int
	// Budget, when set, says why no new game may be taken ("" while one
	// may): the run's spending reached --max-cost-usd (budget.go).
	Budget func() string
}

// SeriesConfig is a series of Games games against Opponent, sides swapped
// each game: the runner invites the opponent for its White (first) games
// and takes the opponent's invitations for the others. NoSwap keeps the
// first game's side throughout: the daemon's house never challenges, so
// against it the runner is first in every game.
type SeriesConfig struct {
	Opponent   string
	Games      int
	Game       string
	FirstWhite bool
	NoSwap     bool
}

// Line is one progress line of the runner.
type Line struct {
	Type   string `json:"type"`
	Match  string `json:"match,omitempty"`
	Ply    int    `json:"ply,omitempty"`
	Move   string `json:"move,omitempty"`
	Result string `json:"result,omitempty"`
	Reason string `json:"reason,omitempty"`
	Note   string `json:"note,omitempty"`
	Error  string `json:"error,omitempty"`
	// Series, on a series line: the W-D-L line and the score.
	Series string `json:"series,omitempty"`
	Score  *Score `json:"score,omitempty"`
	At     int64  `json:"at"`
}

// checkGames refuses a game that is not one of match.Games wherever cfg
// names one, and a series of a game the policy does not play: its games
// would be declined one by one and the series would never end.
func checkGames(cfg Config) error {
	known := func(what, kind string) error {
		if _, err := match.LookupGame(kind); err != nil {
			return fmt.Errorf("play: %s %q is not a game: the games are %s", what, kind, match.KindList())
		}
		return nil
	}
	for _, g := range cfg.Policy.Games {
		if err := known("game", g); err != nil {
			return err
		}
	}
	if err := known("the open challenges' game", cfg.OpenGame); err != nil {
		return err
	}
	if cfg.Series == nil {
		return nil
	}
	if err := known("the series' game", cfg.Series.Game); err != nil {
		return err
	}
	if g := cfg.Policy.Games; len(g) > 0 && !slices.Contains(g, cfg.Series.Game) {
		return fmt.Errorf("play: the series' game %q is not one this player plays (%s)", cfg.Series.Game, strings.Join(g, ", "))
	}
	return nil
}
