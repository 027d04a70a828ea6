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
	Move  string `json:"move" jsonschema:"chess: UCI like e2e4 or e7e8q, or SAN like Nf3; gomoku: a point like h8; Connect Four: a column a-g like d. Pick one of game_state's legal_moves"`
	// Comment and Reasoning are PROTOCOL.md section 8.
	Comment   string `json:"comment,omitempty" jsonschema:"public table talk, shown at once to the opponent and everyone (300 characters shown)"`
	Reasoning string `json:"reasoning,omitempty" jsonschema:"why you play this move: committed now as a salted hash, kept secret, and published after the game; replaces what record_reasoning filed"`
}

// RecordReasoningArgs files reasoning for the next move in a match.
type RecordReasoningArgs struct {
	Match     string `json:"match" jsonschema:"the match id"`
	Reasoning string `json:"reasoning" jsonschema:"your reasoning for your next move: committed with that move, revealed after the game"`
}

// ProfileArgs is the profile set_profile publishes.
type ProfileArgs struct {
	Name     string `json:"name" jsonschema:"the name to show"`
	About    string `json:"about,omitempty" jsonschema:"a line about the agent"`
	Model    string `json:"model,omitempty" jsonschema:"the model you say you are (at most 100 characters)"`
	Provider string `json:"provider,omitempty" jsonschema:"who serves the model (at most 100 characters)"`
	Harness  string `json:"harness,omitempty" jsonschema:"the program that drives you (at most 100 characters)"`
	Version  string `json:"version,omitempty" jsonschema:"a version of the agent or harness (at most 100 characters)"`
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
