package match

import (
	"vesper/match/chessjs"
	"vesper/match/connect4"
	"vesper/match/gomoku"
	"vesper/nostr"
)

// Reason is why a game ended, as the protocol spells it (section 1).
type Reason string

// The reason tokens of PROTOCOL.md section 1. The rule-ending ones are
// spelled by the rules packages that detect them.
const (
	ReasonCheckmate     Reason = chessjs.ReasonCheckmate
	ReasonStalemate     Reason = chessjs.ReasonStalemate
	ReasonThreefold     Reason = chessjs.ReasonThreefoldRepetition
	ReasonFiftyMoveRule Reason = chessjs.ReasonFiftyMoveRule
	ReasonInsufficient  Reason = chessjs.ReasonInsufficientMaterial
	ReasonFiveInARow    Reason = gomoku.ReasonFive
	ReasonBoardFull     Reason = gomoku.ReasonBoardFull
	ReasonFourInARow    Reason = connect4.ReasonFour
	ReasonResignation   Reason = "resignation"
	ReasonTimeout       Reason = nostr.ReasonTimeout // what makes a 4424 a claim
	ReasonAgreement     Reason = "agreement"
)

// MarshalText lets JSON spell the token from this one place.
func (r Reason) MarshalText() ([]byte, error) { return []byte(r), nil }

// UnmarshalText accepts any token; unknown ones are kept as they are.
func (r *Reason) UnmarshalText(b []byte) error { *r = Reason(b); return nil }

// Status of a match (section 6).
type Status string

// The statuses of section 6.
const (
	StatusOpen    Status = "open"
	StatusExpired Status = "expired"
	StatusActive  Status = "active"
	StatusOver    Status = "over"
)

// FinalBy says what made a result final (section 2, "What final means").
type FinalBy string

// The three ways a result becomes final.
const (
	FinalBySignatures FinalBy = "signatures"
	FinalByTimeout    FinalBy = "timeout"
	FinalByRuling     FinalBy = "ruling"
)

// Roles, as the result JSON spells them. The challenger is the first
// player (White in chess).
const (
	First  = nostr.First
	Second = nostr.Second
	Draw   = nostr.Draw
)

// Protocol durations in seconds.
const (
	MoveClock       = 86400  // 24 hours per move
	ChallengeExpiry = 604800 // 7 days
	FutureSlack     = 300    // a move may be stamped 5 minutes ahead of seen_at
)

// Section 3's defaults for a daemon's own duties, in seconds: the fold
// never reads them, but the arbiter acts on them and the site and the
// docs state them, so they live beside the fold's durations.
const (
	HouseWait      = 1800 // an open challenge nobody accepted may be taken by the house
	FallbackRuling = 3600 // a valid request with no correct ruling is ruled by the fallback arbiter
)

// Ignore tokens: the machine part of an ignored event's reason.
const (
	IgnTooLarge        = "too_large"
	IgnBadG            = "bad_g_tag"
	IgnBadPly          = "bad_ply_tag"
	IgnNotAccepted     = "not_accepted"
	IgnAcceptExtra     = "accept_extra"
	IgnAcceptBadP      = "accept_bad_p"
	IgnAcceptSelf      = "accept_self"
	IgnAcceptNotInv    = "accept_not_invitee"
	IgnAcceptWindow    = "accept_window"
	IgnGameOver        = "game_over"
	IgnWrongPly        = "wrong_ply"
	IgnWrongPlayer     = "wrong_player"
	IgnNotPlayer       = "not_player"
	IgnIllegal         = "illegal_move"
	IgnFuture          = "future_dated"
	IgnLate            = "late"
	IgnHeld            = "held"
	IgnMalformed       = "malformed_result"
	IgnAlreadyFinal    = "already_final"
	IgnClaimInvalid    = "claim_invalid"
	IgnClaimPremature  = "claim_premature"
	IgnSigInconsistent = "sig_inconsistent"
	IgnRequestInvalid  = "request_invalid"
	IgnRulingNoRequest = "ruling_no_request"
	IgnRulingIncorrect = "ruling_incorrect"
)
