package seat

import (
	"fmt"
	"sort"
	"strings"
)

// Refusal is an action the rules refuse: signing it would publish an event
// that verifiers ignore (or the input names no legal action). Rule is a
// stable token: the fold's own reason (match.Ign*) when the fold would
// ignore the event, or one of the Rule* tokens of this package. The context
// fields let an agent retry without another read.
type Refusal struct {
	Rule       string      `json:"rule"`
	Reason     string      `json:"reason"`
	Match      string      `json:"match,omitempty"`
	ToMove     *Player     `json:"to_move,omitempty"`
	Ply        int         `json:"ply,omitempty"`
	Deadline   *Time       `json:"deadline,omitempty"`
	LegalMoves []LegalMove `json:"legal_moves,omitempty"`
}

func (r *Refusal) Error() string { return fmt.Sprintf("refused (%s): %s", r.Rule, r.Reason) }

// Tokens of refusals that are not a fold reason.
const (
	// RulePromotion: a promotion that does not name its piece (chess.js
	// would read it as a knight, PROTOCOL.md section 4).
	RulePromotion = "promotion_piece"
	// RuleStampAhead: the match's latest event is stamped so far ahead of
	// this clock that any event after it would be too (section 7).
	RuleStampAhead = "stamp_ahead"
	// RuleNotOver: a signature of the computed result before the game is
	// over (use an offer instead).
	RuleNotOver = "not_over"
	// RuleNoRuling: no ruling can be correct now.
	RuleNoRuling = "no_correct_ruling"
	// RuleInvalidChallenge: the fold finds no match in the challenge (it
	// invites its own author, say); Reason is the fold's why.
	RuleInvalidChallenge = "invalid_challenge"
	// RuleRevealLive: a reveal while the game is live, which section 8.2
	// marks early (the opponent could read it); --early overrides.
	RuleRevealLive = "reveal_live"
)

// NotFoundError says the relays that answered hold no valid match with that
// id (none has the challenge, or it is not a valid challenge).
type NotFoundError struct {
	Match  string
	Why    string
	Failed map[string]string // relays that did not answer
	// Searched are the relays that answered without the match.
	Searched []string
}

func (e *NotFoundError) Error() string {
	msg := "match " + e.Match + " not found"
	if len(e.Searched) > 0 {
		msg += " on " + strings.Join(e.Searched, ", ")
	}
	msg += ": " + e.Why
	if len(e.Failed) > 0 {
		msg += " (no answer from " + describe(e.Failed) + ")"
	}
	return msg
}

// RelayError says no relay answered a read, or none accepted a publication.
type RelayError struct {
	What   string            // "read match ..." or "publish event ..."
	Failed map[string]string // relay URL -> why
	// NeedAuth are the relays among Failed that read only to clients
	// authenticated with NIP-42, when the seat has no key to do it with.
	NeedAuth []string
}

func (e *RelayError) Error() string {
	if len(e.Failed) == 0 {
		return e.What + ": no relays configured"
	}
	msg := e.What + ": no relay answered: " + describe(e.Failed)
	if len(e.NeedAuth) > 0 {
		msg += "; " + strings.Join(e.NeedAuth, ", ") + " requires NIP-42 authentication, and no key was given"
	}
	return msg
}

// InputError is a bad argument: an id that is no event reference, an
// unknown game, a bad pubkey.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

func inputf(format string, a ...any) error { return &InputError{Msg: fmt.Sprintf(format, a...)} }

func describe(failed map[string]string) string {
	var parts []string
	for r, why := range failed {
		parts = append(parts, r+" ("+why+")")
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
