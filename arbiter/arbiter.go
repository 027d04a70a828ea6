// Package arbiter decides the daemon's duties of PROTOCOL.md section 3 as a
// pure function: given match states, the daemon's pubkey, its configuration
// and now, Decide returns what is due (results to sign, timeout claims,
// rulings, challenges to accept, moves to play). It does no I/O; the daemon
// records each intent in its outbox under the intent's duty key before
// signing, so a duty is never signed twice.
package arbiter

import (
	"fmt"
	"sort"

	"vesper/match"
	"vesper/nostr"
)

// Kind is what an intent asks the daemon to publish.
type Kind string

// The intents the daemon executes.
const (
	SignResult   Kind = "sign"   // a result signature in its own game
	ClaimTimeout Kind = "claim"  // a timeout claim in its own game
	Rule         Kind = "ruling" // a fallback ruling
	Accept       Kind = "accept" // accept a challenge and play it
	PlayMove     Kind = "move"   // play its move in its own game
)

// Intent is one duty that is due now.
type Intent struct {
	Kind   Kind
	Duty   string // unique key: the outbox holds at most one event per duty
	Match  string
	Result nostr.Result // for SignResult, ClaimTimeout and Rule
	Ply    int          // for PlayMove: the ply to post
	// Challenger is the first player, named by an accept's p tag.
	Challenger string
}

// Config holds the daemon's policies; the zero value does nothing.
type Config struct {
	Play        bool  // accept challenges and play its own games
	Arbitrate   bool  // act as fallback arbiter in every match
	MaxGames    int   // games in progress at once (section 3: 5)
	AcceptAfter int64 // seconds an open challenge waits (section 3: match.HouseWait)
	RulingAfter int64 // seconds a valid request waits for a ruling (match.FallbackRuling)
	// MaxSkew is how far past now a challenge may be stamped and still be
	// accepted; one stamped later waits until now catches up [120]. An
	// accept must be stamped at or after its challenge, so accepting one
	// stamped a month ahead would sign a month-ahead accept and hold a game
	// slot until then. Zero or less means the default.
	MaxSkew int64
}

// defaultMaxSkew is MaxSkew's default, in seconds.
const defaultMaxSkew = 120

func (c Config) maxSkew() int64 {
	if c.MaxSkew <= 0 {
		return defaultMaxSkew
	}
	return c.MaxSkew
}

// DefaultConfig is section 3's policy.
func DefaultConfig() Config {
	return Config{Play: true, Arbitrate: true, MaxGames: 5, AcceptAfter: match.HouseWait, RulingAfter: match.FallbackRuling, MaxSkew: defaultMaxSkew}
}

// Decide returns the intents due at now, in a deterministic order (by
// match id within each pass). self may be "" for a verifier without a key,
// which then has no duties.
func Decide(states []*match.State, self string, cfg Config, now int64) []Intent {
	if self == "" {
		return nil
	}
	sorted := append([]*match.State(nil), states...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Match < sorted[j].Match })
	var out []Intent
	for _, s := range sorted {
		if cfg.Play && s.Accepted && s.Role(self) != "" {
			out = append(out, ownGame(s, self, now)...)
		}
		if cfg.Arbitrate {
			if in, ok := ruling(s, cfg, now); ok {
				out = append(out, in)
			}
		}
	}
	if cfg.Play {
		out = append(out, accepts(sorted, self, cfg, now)...)
	}
	return out
}

// ownGame: sign a result ended by rule or resignation (and agree to nothing
// else), claim a timeout once the opponent's clock ran out, play our move.
func ownGame(s *match.State, self string, now int64) []Intent {
	role := s.Role(self)
	switch {
	case s.Final:
		return nil
	case s.Over:
		if s.Reason == match.ReasonTimeout || s.Reason == match.ReasonAgreement {
			return nil // ended by a claim or ruling (final on its own) or agreement
		}
		want := s.Computed()
		if sig, ok := s.Sigs[role]; ok && sig.Result.Same(want) {
			return nil
		}
		return []Intent{{Kind: SignResult, Duty: fmt.Sprintf("sign:%s:%d", s.Match, s.Plies()), Match: s.Match, Result: want}}
	case s.ToMove() != role:
		if s.Clock().RanOut(now) {
			return []Intent{{Kind: ClaimTimeout, Duty: fmt.Sprintf("claim:%s:%d", s.Match, s.Plies()), Match: s.Match, Result: s.TimeoutWin()}}
		}
		return nil
	case !s.Clock().RanOut(now):
		ply := s.Plies() + 1
		return []Intent{{Kind: PlayMove, Duty: fmt.Sprintf("move:%s:%d", s.Match, ply), Match: s.Match, Ply: ply}}
	}
	return nil
}

// ruling: a valid request that has waited RulingAfter seconds with no
// correct ruling gets one, when one can be correct now.
func ruling(s *match.State, cfg Config, now int64) (Intent, bool) {
	if s.Final || len(s.Requests) == 0 {
		return Intent{}, false
	}
	due := false
	for _, r := range s.Requests {
		// Differences, not sums: a duration set huge to mean "never" must
		// not wrap a due time into the past (issue 30, item 11).
		if now-r.CreatedAt >= cfg.RulingAfter {
			due = true
		}
	}
	if !due {
		return Intent{}, false
	}
	r, ok := s.CorrectRuling(now)
	if !ok {
		return Intent{}, false
	}
	return Intent{Kind: Rule, Duty: fmt.Sprintf("ruling:%s:%d", s.Match, s.Plies()), Match: s.Match, Result: r}, true
}

// accepts: the challenges HousePlan says the house accepts now.
func accepts(states []*match.State, self string, cfg Config, now int64) []Intent {
	var out []Intent
	for _, p := range plan(states, self, cfg, now) {
		if p.v.Accept {
			out = append(out, Intent{Kind: Accept, Duty: "accept:" + p.s.Match, Match: p.s.Match, Challenger: p.s.First})
		}
	}
	return out
}

// Event builds the unsigned event of an intent stamped at now; PlayMove
// needs the move chosen by the engine.
func (in Intent) Event(now int64, move string) *nostr.Event {
	switch in.Kind {
	case SignResult, ClaimTimeout:
		return nostr.NewResult(in.Match, in.Result, now)
	case Rule:
		return nostr.NewRuling(in.Match, in.Result, now)
	case Accept:
		return nostr.NewAccept(in.Match, in.Challenger, now)
	case PlayMove:
		return nostr.NewMove(in.Match, in.Ply, move, now)
	}
	return nil
}
