package seat

import (
	"time"

	"vesper/match"
	"vesper/nostr"
	"vesper/pgn"
)

// Status is everything a player needs to act on a match: the summary of
// PROTOCOL.md section 6 (its fields first, unchanged), then the position,
// whose turn it is, the clock, the other player's pending signatures and
// the arbitration requests. It is what `vesper status --json` prints and
// what `vesper wait` and every action's reply carry.
type Status struct {
	match.Summary

	Invitee   *string `json:"invitee"`
	CreatedAt int64   `json:"created_at"`
	// Nevent is the challenge as nevent1 (NIP-19), with its author and a
	// few of the relays that hold it as hints.
	Nevent string `json:"nevent"`
	// Expires is when an unaccepted challenge expires (null once accepted).
	Expires *Time `json:"expires"`

	// Ply is the pending ply (plies + 1) while the game is in progress, 0
	// otherwise.
	Ply int `json:"ply"`
	// ToMove is the player whose move it is, null when the game is not in
	// progress (not accepted yet: the challenger may still move first, its
	// move then waits for the accept).
	ToMove *Player `json:"to_move"`
	// MyRole, MyColor and MyTurn describe the seat's key: role "first" or
	// "second" ("" for a spectator), color the side match.Side names:
	// "white"/"black" in chess, "black"/"white" in gomoku (the first player
	// has the black stones), "red"/"yellow" in Connect Four.
	MyRole  string `json:"my_role"`
	MyColor string `json:"my_color"`
	MyTurn  bool   `json:"my_turn"`

	// FEN (chess.js fen()) and PGN for chess; the board as text for both.
	FEN      string   `json:"fen,omitempty"`
	PGN      string   `json:"pgn,omitempty"`
	Board    string   `json:"board"`
	SANMoves []string `json:"san_moves"`
	// LegalMoves are the moves of the side to move (UCI and SAN for chess,
	// the empty points for gomoku, the columns not full for Connect Four);
	// empty when the game is over.
	LegalMoves []LegalMove `json:"legal_moves"`
	InCheck    bool        `json:"in_check"`

	// Deadline is section 2's deadline: the pending move's clock while the
	// game is in progress, the end + 24 h for a game over and not final.
	Deadline     *Time `json:"deadline"`
	ClockExpired bool  `json:"clock_expired"`
	// CanClaimTimeout says the seat's key may claim the win on time now.
	CanClaimTimeout bool `json:"can_claim_timeout"`
	// MustSign says the game is over, not final, and the seat's key has not
	// signed the computed result yet.
	MustSign bool `json:"must_sign"`

	// Signatures are the players' latest counted result signatures (an
	// offer while the game is in progress); Offer is the other player's,
	// when the seat's key has not signed the same.
	Signatures []Signature `json:"signatures"`
	Offer      *Signature  `json:"offer"`
	Requests   []Request   `json:"requests"`
	// OpponentComment is the other player's latest table talk (PROTOCOL.md
	// section 8.1): the comment of its latest counted move that carries
	// one. Reasoning is never here: it is committed, not shown, while the
	// game is live.
	OpponentComment *TableTalk `json:"opponent_comment,omitempty"`

	// LastUsed is the created_at of the latest event the fold used: the
	// seat stamps its next event at least one second after it.
	LastUsed int64 `json:"last_used"`
	// Relays that answered the read and those that did not (with why).
	Relays RelayReport `json:"relays"`
	// Now is the time the status describes.
	Now int64 `json:"now"`
}

// TableTalk is a move's comment as shown: at most 300 code points, Cut
// when the comment was longer.
type TableTalk struct {
	Event string `json:"event"`
	Ply   int    `json:"ply"`
	// Text is the comment without control or bidi characters
	// (nostr.CleanTalk); Note says whose words they are (UntrustedNote).
	Text string `json:"text"`
	Cut  bool   `json:"cut,omitempty"`
	Note string `json:"note"`
}

// Player is a role and its pubkey (and color).
type Player struct {
	Role   string `json:"role"`
	Pubkey string `json:"pubkey"`
	Color  string `json:"color"`
}

// Time is a unix time with its RFC 3339 spelling.
type Time struct {
	Unix    int64  `json:"unix"`
	RFC3339 string `json:"rfc3339"`
}

// LegalMove is one legal move: UCI and SAN in chess, the point in gomoku,
// the column in Connect Four.
type LegalMove struct {
	UCI    string `json:"uci,omitempty"`
	SAN    string `json:"san,omitempty"`
	Point  string `json:"point,omitempty"`
	Column string `json:"column,omitempty"`
}

// Move is the string to post for l: its UCI, point or column.
func (l LegalMove) Move() string {
	switch {
	case l.UCI != "":
		return l.UCI
	case l.Point != "":
		return l.Point
	}
	return l.Column
}

// Signature is a counted result signature with the event carrying it.
type Signature struct {
	Role    string       `json:"role"`
	Pubkey  string       `json:"pubkey"`
	Event   string       `json:"event"`
	Result  nostr.Result `json:"result"`
	Content string       `json:"content"`
}

// Request is a valid arbitration request.
type Request struct {
	Event     string `json:"event"`
	Author    string `json:"author"`
	CreatedAt int64  `json:"created_at"`
	Content   string `json:"content"`
}

// RelayReport says which relays answered a read.
type RelayReport struct {
	Answered []string          `json:"answered"`
	Failed   map[string]string `json:"failed"`
}

func mkTime(t int64) *Time {
	return &Time{Unix: t, RFC3339: time.Unix(t, 0).UTC().Format(time.RFC3339)}
}

// Color names a role's side as a player of that game says it (the
// game's match.Spec): white/black in chess, black/white stones in gomoku,
// where the first player has black.
func Color(kind, role string) string { return match.Side(kind, role) }

// Status describes the snapshot for the seat's key at now.
func (snap *Snapshot) Status(me string, now int64) *Status {
	st := snap.State
	out := &Status{Summary: st.Summary(now), CreatedAt: st.CreatedAt, LastUsed: st.LastUsed, Now: now,
		SANMoves: []string{}, LegalMoves: []LegalMove{}, Signatures: []Signature{}, Requests: []Request{},
		Relays: RelayReport{Answered: snap.Answered, Failed: snap.Failed}}
	if out.Relays.Answered == nil {
		out.Relays.Answered = []string{}
	}
	if out.Relays.Failed == nil {
		out.Relays.Failed = map[string]string{}
	}
	if st.Invitee != "" {
		out.Invitee = &st.Invitee
	}
	out.Nevent = nostr.Nevent(st.Match, st.First, neventHints(snap.HeldBy[st.Match]))
	out.MyRole = st.Role(me)
	out.MyColor = Color(st.Kind, out.MyRole)
	playing := st.Accepted && !st.Over
	if !st.Accepted {
		out.Expires = mkTime(st.Clock().Expires())
	}
	if playing {
		out.turn(st, me, now)
	}
	if st.Accepted && !st.Final {
		out.Deadline = mkTime(st.Deadline())
	}
	out.board(st)
	byID := map[string]*nostr.Event{}
	for _, ev := range st.Events {
		byID[ev.ID] = ev
	}
	out.signatures(st, me, byID, now)
	if st.Over && !st.Final && out.MyRole != "" {
		mine, ok := st.Sigs[out.MyRole]
		out.MustSign = !ok || !mine.Result.Same(st.Computed())
	}
	if out.MyRole != "" {
		out.OpponentComment = latestComment(st, byID, st.Player(otherRole(out.MyRole)))
	}
	for _, r := range st.Requests {
		q := Request{Event: r.Event, Author: r.Author, CreatedAt: r.CreatedAt}
		if ev := byID[r.Event]; ev != nil {
			q.Content = ev.Content
		}
		out.Requests = append(out.Requests, q)
	}
	return out
}

// turn fills in whose move it is in a game being played, and whether the
// clock has run out.
func (out *Status) turn(st *match.State, me string, now int64) {
	role := st.ToMove()
	out.Ply = st.Plies() + 1
	out.ToMove = &Player{Role: role, Pubkey: st.Player(role), Color: Color(st.Kind, role)}
	out.MyTurn = out.MyRole == role
	out.ClockExpired = st.Clock().RanOut(now)
	out.CanClaimTimeout = out.MyRole != "" && claimCounts(st, me, out.MyRole, now)
}

// signatures fills in the players' result signatures, and as Offer the
// other player's when it still stands for the key to agree to.
func (out *Status) signatures(st *match.State, me string, byID map[string]*nostr.Event, now int64) {
	for _, role := range []string{match.First, match.Second} {
		sig, ok := st.Sigs[role]
		if !ok {
			continue
		}
		s := Signature{Role: role, Pubkey: st.Player(role), Event: sig.Event, Result: sig.Result}
		if ev := byID[sig.Event]; ev != nil {
			s.Content = ev.Content
		}
		out.Signatures = append(out.Signatures, s)
		if out.MyRole != "" && role != out.MyRole && offerStands(st, me, sig.Result, now) {
			out.Offer = &s
		}
	}
}

// latestComment is the table talk of from's latest counted move with a
// comment.
func latestComment(st *match.State, byID map[string]*nostr.Event, from string) *TableTalk {
	for i := len(st.MoveEvents) - 1; i >= 0; i-- {
		ev := byID[st.MoveEvents[i]]
		if ev == nil || ev.PubKey != from {
			continue
		}
		if text, cut := nostr.Comment(ev); text != "" {
			return &TableTalk{Event: ev.ID, Ply: i + 1, Text: nostr.CleanTalk(text), Cut: cut, Note: UntrustedNote}
		}
	}
	return nil
}

// claimCounts asks the fold whether a timeout claim by me, stamped now (or
// just after the last used event), would count.
func claimCounts(st *match.State, me, role string, now int64) bool {
	r := st.TimeoutWin()
	r.Result = role
	ev := nostr.NewResult(st.Match, r, max(now, st.LastUsed+1))
	ev.PubKey = me
	return st.Check(ev, now) == nil
}

// offerStands asks the fold whether the other player's signature r is an
// offer me can take now: me's signature of the same result, stamped now,
// would count and make the result final. An offer on a position the game
// has moved on from is stale (the same signature would be inconsistent),
// and so is one me has already signed the same.
func offerStands(st *match.State, me string, r nostr.Result, now int64) bool {
	if st.Final || sameSig(st, me, r) {
		return false
	}
	ev := nostr.NewResult(st.Match, r, st.Stamp(now))
	ev.PubKey = me
	after, ig := st.Try(ev, now)
	return ig == nil && after.Final
}

// sameSig reports whether me's latest signature is r already.
func sameSig(st *match.State, me string, r nostr.Result) bool {
	mine, ok := st.Sigs[st.Role(me)]
	return ok && mine.Result.Same(r)
}

// statusPGN is a short PGN of the match: the roster tags a reader needs and
// the SAN moves (the site's .pgn files carry more tags).
func statusPGN(st *match.State, san []string) string {
	result := pgn.Result(st.Over, st.Result)
	black := st.Second
	if black == "" {
		black = "?"
	}
	return pgn.Write([]pgn.Tag{
		{Name: "Event", Value: "vesper chess match"},
		{Name: "Site", Value: "nostr"},
		{Name: "Date", Value: time.Unix(st.CreatedAt, 0).UTC().Format("2006.01.02")},
		{Name: "White", Value: st.First},
		{Name: "Black", Value: black},
		{Name: "Result", Value: result},
	}, san, result)
}

// withContext fills a refusal with the retry context of this snapshot: whose
// move, which ply, the deadline and, when legal is set, the legal moves,
// but only when they are me's own: a player refused for moving out of turn
// (wrong_player, not_accepted) must not be handed the other side's moves to
// pick from.
func (snap *Snapshot) withContext(r *Refusal, me string, now int64, legal bool) *Refusal {
	st, stt := snap.State, snap.Status(me, now)
	r.Match = st.Match
	r.ToMove, r.Ply, r.Deadline = stt.ToMove, stt.Ply, stt.Deadline
	// Before the accept the listed moves are the challenger's ply-1 moves,
	// its own while none is held.
	mine := stt.MyTurn || !st.Accepted && stt.MyRole == match.First && st.HeldMove() == nil
	if legal && mine {
		r.LegalMoves = stt.LegalMoves
	}
	return r
}
