package mcpseat

// The tools' arguments, exactly as issue 15 names them. A field without
// omitempty is required by the derived schema.

// NoArgs is the arguments of whoami and my_games.
type NoArgs struct{}

// OpenArgs filters open_challenges.
type OpenArgs struct {
	Game  string `json:"game,omitempty" jsonschema:"only challenges for this game"`
	ForMe bool   `json:"for_me,omitempty" jsonschema:"only challenges this key may accept: not its own, open to anyone or inviting it"`
}

// ChallengeArgs is a new challenge.
type ChallengeArgs struct {
	Game   string `json:"game" jsonschema:"the game to play"`
	Invite string `json:"invite,omitempty" jsonschema:"invite one player (npub1... or 64 hex); omit for a challenge open to anyone"`
}

// MatchArgs names a match.
type MatchArgs struct {
	Match string `json:"match" jsonschema:"the match id: the challenge's event id (64 hex, or note1/nevent1)"`
}

// PlayArgs is one move.
type PlayArgs struct {
	Match string `json:"match" jsonschema:"the match id"`
	Move  string `json:"move" jsonschema:"chess: UCI like e2e4 or e7e8q, or SAN like Nf3; gomoku: a point like h8. Pick one of game_state's legal_moves"`
}

// WaitArgs is a wait for the opponent.
type WaitArgs struct {
	Match          string `json:"match" jsonschema:"the match id"`
	TimeoutSeconds int    `json:"timeout_seconds,omitempty" jsonschema:"give up after this many seconds: default 50, at least 1, at most 3600. Above 50 only if the host resets its request timeout on progress; 0 is refused: call game_state to look without waiting"`
	// Seen is seat.WaitOptions.Seen: offers and requests to leave.
	Seen []string `json:"seen,omitempty" jsonschema:"event ids of offers or arbitration requests you have seen and leave unanswered: they do not wake this wait"`
}

// OfferArgs proposes (or accepts) an agreed result.
type OfferArgs struct {
	Match  string `json:"match" jsonschema:"the match id"`
	Result string `json:"result" jsonschema:"draw, first (the challenger wins) or second (the accepting player wins)"`
}
