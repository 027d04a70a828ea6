package seat

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"

	"vesper/match"
	"vesper/nostr"
)

// Reply is what an action did: the event it published (or, with Already,
// the earlier event that had already done it), the relays that took it, and
// the match's status after it.
type Reply struct {
	OK      bool   `json:"ok"`
	Already bool   `json:"already"`
	Action  string `json:"action"`
	Match   string `json:"match"`
	Nevent  string `json:"nevent,omitempty"`
	Event   string `json:"event"`
	Kind    int    `json:"kind"`
	// Ply and Move for a move: the counted ply and the canonical move.
	Ply    int           `json:"ply,omitempty"`
	Move   string        `json:"move,omitempty"`
	Result *nostr.Result `json:"result,omitempty"`
	// Note says what happens next: the game ended and both must sign, the
	// result is final, the move waits for an accept.
	Note     string            `json:"note,omitempty"`
	Accepted []string          `json:"accepted"`
	Failed   map[string]string `json:"failed"`
	// Inbox are the read relays (NIP-65 relay list) of the player the
	// event tags, which it was sent to as well as the seat's relays: the
	// challenger of an accept, the invitee of a challenge.
	Inbox []string `json:"inbox,omitempty"`
	// Status is the match after the action, as this seat now folds it.
	Status *Status `json:"status,omitempty"`
	// Reasoning is the hash the event committed to (section 8.2); the
	// salt and text stay in the key's journal until revealed.
	Reasoning string `json:"reasoning,omitempty"`
	// Revealed lists the reveal events (kind 4427) the action published
	// once the result was final.
	Revealed []string `json:"revealed,omitempty"`

	after *match.State // the fold after the action, for what follows it
}

// needKey is the start of every signing action.
func (s *Seat) needKey() error {
	if s.Key.IsZero() {
		return inputf("this action needs a key")
	}
	return nil
}

// sign checks ev against the fold, signs and publishes it, and builds the
// reply. build gets the stamp; legal says a refusal should list the legal
// moves.
func (s *Seat) sign(ctx context.Context, snap *Snapshot, action string, legal bool, build func(t int64) (*nostr.Event, error)) (*Reply, error) {
	return s.signTagging(ctx, snap, action, legal, "", Talk{}, build)
}

// signTagging is sign for an event that tags the player tagged: once the
// fold has counted it, it also goes to that player's read relays.
//
// talk's tags (section 8) are added to the event; a reasoning is committed
// with a fresh salt, and salt and text are journalled, durably, after the
// fold has agreed to the event and before it is published.
func (s *Seat) signTagging(ctx context.Context, snap *Snapshot, action string, legal bool, tagged string, talk Talk, build func(t int64) (*nostr.Event, error)) (*Reply, error) {
	st, me := snap.State, s.Me()
	ev, t, tags, commit, err := s.buildSigned(snap, legal, talk, build)
	if err != nil {
		return nil, err
	}
	// The fold is asked before the clock is waited for: a refusal is
	// answered at once, and waiting cannot change the answer (the event's
	// stamp is fixed, and a later receipt only loosens rule 5).
	now := s.now().Unix()
	after, ig := st.Try(ev, now)
	if ig != nil {
		return nil, snap.withContext(&Refusal{Rule: ig.Token, Reason: ig.Detail}, me, now, legal)
	}
	if commit != nil {
		if err := s.journal().append(st.Match, journalLine{Event: ev.ID, Match: st.Match, Salt: commit.Salt,
			Text: commit.Text, CreatedAt: int64(ev.CreatedAt)}); err != nil {
			return nil, err
		}
	}
	if err := s.waitFor(ctx, t); err != nil {
		return nil, err
	}
	if s.BeforePublish != nil {
		if err := s.BeforePublish(ev); err != nil {
			return nil, err
		}
	}
	now = s.now().Unix()
	// The match's relay hints take the event as well as the inbox: an
	// accept that only reached the seat's own relays would leave the
	// challenger, who reads the hinted ones, waiting for an accept that
	// never comes, while a second player's accept there counts instead.
	inbox := s.inbox(ctx, tagged, snap.hints)
	accepted, failed, err := s.publish(ctx, ev, withRelays(snap.hints, inbox)...)
	if err != nil {
		return nil, err
	}
	if s.AfterPublish != nil {
		s.AfterPublish(ev)
	}
	rep := &Reply{OK: true, Action: action, Match: st.Match, Event: ev.ID, Kind: ev.Kind,
		Accepted: accepted, Failed: failed, Inbox: inbox, Reasoning: tags.Reasoning, after: after}
	rep.Status = snap.afterPublish(ev, after, accepted, now).Status(me, now)
	rep.Note = note(st, after, me)
	return rep, nil
}

// buildSigned stamps the event, builds it with talk's tags and signs it.
// A refusal while stamping or building comes with the match's context.
func (s *Seat) buildSigned(snap *Snapshot, legal bool, talk Talk, build func(t int64) (*nostr.Event, error)) (ev *nostr.Event, t int64, tags nostr.Talk, commit *commitment, err error) {
	me := s.Me()
	t, err = s.stamp(snap.State)
	if err != nil {
		if r, ok := err.(*Refusal); ok {
			return nil, 0, tags, nil, snap.withContext(r, me, s.now().Unix(), legal)
		}
		return nil, 0, tags, nil, err
	}
	ev, err = build(t)
	if err != nil {
		if r, ok := err.(*Refusal); ok {
			return nil, 0, tags, nil, snap.withContext(r, me, t, legal)
		}
		return nil, 0, tags, nil, err
	}
	tags, commit = talk.commit()
	nostr.WithTalk(ev, tags)
	ev.PubKey = me
	if err := s.Key.Sign(ev); err != nil {
		return nil, 0, tags, nil, fmt.Errorf("seat: cannot sign: %w", err)
	}
	return ev, t, tags, commit, nil
}

// afterPublish is the snapshot once ev, published to the relays in
// accepted at now, has moved the match to after.
func (snap *Snapshot) afterPublish(ev *nostr.Event, after *match.State, accepted []string, now int64) *Snapshot {
	snap.SeenAt[ev.ID] = now
	heldBy := maps.Clone(snap.HeldBy)
	if heldBy == nil {
		heldBy = map[string][]string{}
	}
	heldBy[ev.ID] = accepted
	next := &Snapshot{State: after, SeenAt: snap.SeenAt, Answered: snap.Answered, Failed: snap.Failed, At: now, HeldBy: heldBy, hints: snap.hints}
	// Try's copy lists no events; the status needs them for contents.
	after.Events = append(append([]*nostr.Event(nil), snap.State.Events...), ev)
	return next
}

// note tells the agent what the action led to.
func note(before, after *match.State, me string) string {
	switch {
	case after.Final && !before.Final:
		return fmt.Sprintf("the result is final: %s (%s, by %s)", after.Result, after.Reason, after.FinalBy)
	case after.Over && !before.Over:
		return fmt.Sprintf("the game is over: %s (%s); both players must now sign the result (vesper result MATCH) for it to be final", after.Result, after.Reason)
	case after.Role(me) != "" && after.Sigs[after.Role(me)].Event != before.Sigs[after.Role(me)].Event:
		return "your signature is posted; the result becomes final when the other player signs the same"
	case !after.Accepted && after.HeldMove() != nil:
		return "the move is held until the challenge is accepted; it counts then"
	case after.Accepted && !after.Over:
		if after.Role(me) == after.ToMove() {
			return "your move"
		}
		return "the opponent's move"
	}
	return ""
}

func (s *Seat) already(snap *Snapshot, action, event string) *Reply {
	me := s.Me()
	rep := &Reply{OK: true, Already: true, Action: action, Match: snap.State.Match, Event: event,
		Accepted: []string{}, Failed: snap.Failed, Status: snap.Status(me, snap.At)}
	for _, ev := range snap.State.Events {
		if ev.ID == event {
			rep.Kind = ev.Kind
		}
	}
	if rep.Failed == nil {
		rep.Failed = map[string]string{}
	}
	return rep
}

// Challenge posts a challenge for game (one of match.GameKinds), open to
// anyone or inviting invitee (hex, npub or nprofile). Its content carries
// a random nonce, so two challenges in one second are two matches (section
// 7). An invitation also goes to the invitee's read relays (NIP-65: its
// latest relay list on the seat's relays or the nprofile's hints; the
// hints themselves when it has none). The reply's nevent names relays
// that took it.
func (s *Seat) Challenge(ctx context.Context, game, invitee string) (*Reply, error) {
	if err := s.needKey(); err != nil {
		return nil, err
	}
	spec, err := match.LookupGame(game)
	if err != nil {
		return nil, inputf("game must be %s, not %q", match.KindList(), game)
	}
	var hints []string
	if invitee != "" {
		pk, hs, err := pubkeyRef(invitee)
		if err != nil {
			return nil, inputf("invite: %v", err)
		}
		invitee, hints = pk, hs
	}
	ev := nostr.NewChallenge(game, invitee, s.now().Unix())
	var nonce [8]byte
	_, _ = rand.Read(nonce[:])
	content, _ := json.Marshal(map[string]string{"game": game, "nonce": hex.EncodeToString(nonce[:])})
	ev.Content = string(content)
	if err := s.Key.Sign(ev); err != nil {
		return nil, fmt.Errorf("seat: cannot sign: %w", err)
	}
	// The fold decides whether this is a match at all (an invitee equal to
	// the author is not, section 2).
	st, err := match.Fold(ev.ID, []*nostr.Event{ev}, nil)
	if err != nil {
		var nm *match.NoMatchError
		if errors.As(err, &nm) {
			return nil, &Refusal{Rule: RuleInvalidChallenge, Reason: nm.Why}
		}
		return nil, err
	}
	inbox := s.inbox(ctx, invitee, hints)
	accepted, failed, err := s.publish(ctx, ev, inbox...)
	if err != nil {
		return nil, err
	}
	snap := &Snapshot{State: st, SeenAt: map[string]int64{ev.ID: int64(ev.CreatedAt)}, At: int64(ev.CreatedAt),
		Answered: accepted, Failed: failed, HeldBy: map[string][]string{ev.ID: accepted}}
	return &Reply{OK: true, Action: "challenge", Match: ev.ID, Nevent: nostr.Nevent(ev.ID, ev.PubKey, neventHints(accepted)),
		Event: ev.ID, Kind: ev.Kind, Accepted: accepted, Failed: failed, Inbox: inbox, Status: snap.Status(s.Me(), snap.At),
		Note: "waiting for an accept; as the challenger you are first (" + spec.Sides[0] + " in " + spec.Noun + ")"}, nil
}

// Accept accepts the challenge ref. The accept also goes to the
// challenger's read relays (NIP-65).
func (s *Seat) Accept(ctx context.Context, ref string) (*Reply, error) {
	snap, st, unlock, err := s.readAsPlayer(ctx, ref)
	defer unlock()
	if err != nil {
		return nil, err
	}
	if st.Accepted && st.Second == s.Me() {
		return s.already(snap, "accept", st.AcceptEvent), nil
	}
	return s.signTagging(ctx, snap, "accept", false, st.First, Talk{}, func(t int64) (*nostr.Event, error) {
		return nostr.NewAccept(st.Match, st.First, t), nil
	})
}

// Move plays move (UCI or SAN in chess, a point such as h8 in gomoku;
// surrounding whitespace is trimmed) and posts it as canonical UCI or a
// lowercase point. A promotion that does not name its piece is refused
// whatever its spelling. Playing again a move that was this key's last
// counted move answers Already.
func (s *Seat) Move(ctx context.Context, ref, move string) (*Reply, error) {
	return s.MoveWith(ctx, ref, move, Talk{})
}

// MoveWith is Move carrying talk (section 8): a comment, committed
// reasoning, attempts and usage. A retried move answers Already and
// commits nothing new.
func (s *Seat) MoveWith(ctx context.Context, ref, move string, talk Talk) (*Reply, error) {
	if err := talk.check(); err != nil {
		return nil, err
	}
	snap, st, unlock, err := s.readAsPlayer(ctx, ref)
	defer unlock()
	if err != nil {
		return nil, err
	}
	move = strings.TrimSpace(move)
	if rep := s.retriedMove(snap, move); rep != nil {
		return rep, nil
	}
	ply := st.Plies() + 1
	var canon string
	rep, err := s.signTagging(ctx, snap, "move", true, "", talk, func(t int64) (*nostr.Event, error) {
		c, r := canonical(st, move)
		if r != nil {
			return nil, r
		}
		canon = c
		// An illegal move is built as typed, so that the fold itself
		// refuses it with its own reason and detail.
		return nostr.NewMove(st.Match, ply, canon, t), nil
	})
	if err != nil {
		return nil, err
	}
	rep.Ply, rep.Move = ply, canon
	return rep, nil
}

// canonical plays move on a copy of the board: its canonical form, or the
// input unchanged when it is not legal (the fold will say why). A chess
// promotion must name its piece.
func canonical(st *match.State, move string) (string, *Refusal) {
	g := st.Board()
	canon, err := g.Play(move)
	if err != nil {
		return move, nil
	}
	if st.Kind == nostr.GameChess && len(canon) == 5 && !namesPromotion(move, canon) {
		return "", &Refusal{Rule: RulePromotion, Reason: fmt.Sprintf(
			"%q promotes without naming the piece (chess.js would make it a knight); write %sq, %sr, %sb or %sn",
			move, canon[:4], canon[:4], canon[:4], canon[:4])}
	}
	return canon, nil
}

// namesPromotion reports whether the text after the last mention of the
// destination square names the piece chess.js promoted to: "e8q", "e8=Q",
// "exd8=N+" do; "e7e8", "gxh8", "g7g8k", "Pg7g8" do not.
func namesPromotion(move, canon string) bool {
	i := strings.LastIndex(strings.ToLower(move), canon[2:4])
	if i < 0 {
		return false
	}
	rest := strings.TrimPrefix(move[i+2:], "=")
	return rest != "" && strings.ToLower(rest[:1]) == canon[4:5]
}

// retriedMove answers Already when move is what this key played as the
// last counted ply: replayed on the position before it, it gives the same
// canonical move.
func (s *Seat) retriedMove(snap *Snapshot, move string) *Reply {
	st, me := snap.State, s.Me()
	if h := st.HeldMove(); h != nil && h.PubKey == me {
		// The challenger's ply-1 move, held until the accept.
		if canon, err := st.Board().Play(move); err == nil && canon == h.Content {
			rep := s.already(snap, "move", h.ID)
			rep.Ply, rep.Move = 1, canon
			return rep
		}
	}
	n := st.Plies()
	if n == 0 || st.Player(roleOfPly(n)) != me {
		return nil
	}
	g, err := match.NewGame(st.Kind)
	if err != nil {
		return nil
	}
	for _, m := range st.Moves[:n-1] {
		if _, err := g.Play(m); err != nil {
			return nil
		}
	}
	canon, err := g.Play(move)
	if err != nil || canon != st.Moves[n-1] {
		return nil
	}
	rep := s.already(snap, "move", st.MoveEvents[n-1])
	rep.Ply, rep.Move = n, canon
	return rep
}

func roleOfPly(ply int) string {
	if ply%2 == 1 {
		return match.First
	}
	return match.Second
}

// Resign resigns the game (either player, at any turn).
func (s *Seat) Resign(ctx context.Context, ref string) (*Reply, error) {
	return s.ResignWith(ctx, ref, Talk{})
}

// ResignWith is Resign carrying talk: a resignation is a move event, and
// the agent's comment and reasoning go with it (section 8).
func (s *Seat) ResignWith(ctx context.Context, ref string, talk Talk) (*Reply, error) {
	if err := talk.check(); err != nil {
		return nil, err
	}
	snap, st, unlock, err := s.readAsPlayer(ctx, ref)
	defer unlock()
	if err != nil {
		return nil, err
	}
	if st.Over && st.Reason == match.ReasonResignation && author(st, st.EndEvent) == s.Me() {
		return s.already(snap, "resign", st.EndEvent), nil
	}
	ply := st.Plies() + 1
	rep, err := s.signTagging(ctx, snap, "resign", false, "", talk, func(t int64) (*nostr.Event, error) {
		return nostr.NewMove(st.Match, ply, nostr.ResignContent, t), nil
	})
	if rep != nil {
		rep.Ply, rep.Move = ply, nostr.ResignContent
	}
	return rep, err
}

func author(st *match.State, id string) string {
	for _, ev := range st.Events {
		if ev.ID == id {
			return ev.PubKey
		}
	}
	return ""
}

// Agree proposes, or accepts, an agreed result on the current position:
// result is "draw", "first" or "second" ("white"/"black" are aliases in
// chess). Once both players' signatures match, the result is final. On a
// game already over, only the computed result is accepted by the fold.
func (s *Seat) Agree(ctx context.Context, ref, result string) (*Reply, error) {
	return s.AgreeWith(ctx, ref, result, Talk{})
}

// AgreeWith is Agree committing reasoning (section 8.2).
func (s *Seat) AgreeWith(ctx context.Context, ref, result string, talk Talk) (*Reply, error) {
	if err := talk.resultOnly(); err != nil {
		return nil, err
	}
	switch result {
	case "white":
		result = match.First
	case "black":
		result = match.Second
	case match.First, match.Second, match.Draw:
	default:
		return nil, inputf("result must be draw, first or second (white/black in chess), not %q", result)
	}
	snap, st, unlock, err := s.readAsPlayer(ctx, ref)
	defer unlock()
	if err != nil {
		return nil, err
	}
	reason := string(match.ReasonAgreement)
	if st.Over {
		reason = string(st.Reason)
	}
	r := nostr.Result{Result: result, Reason: reason, Plies: st.Plies(), FinalHash: st.FinalHash()}
	return s.signResult(ctx, snap, "agree", r, talk)
}

// SignResult signs the result the fold computed for a game over by rule or
// resignation.
func (s *Seat) SignResult(ctx context.Context, ref string) (*Reply, error) {
	return s.SignResultWith(ctx, ref, Talk{})
}

// SignResultWith is SignResult committing reasoning (section 8.2: a result
// that ends or agrees a game may). Once the result is final, the key's
// pending reveals of the match are published (RevealDue's rule).
func (s *Seat) SignResultWith(ctx context.Context, ref string, talk Talk) (*Reply, error) {
	if err := talk.resultOnly(); err != nil {
		return nil, err
	}
	snap, st, unlock, err := s.readAsPlayer(ctx, ref)
	defer unlock()
	if err != nil {
		return nil, err
	}
	if !st.Over && !st.Final {
		r := &Refusal{Rule: RuleNotOver, Reason: "the game is not over: there is no computed result to sign (offer one with --agree draw|first|second)"}
		if !st.Accepted {
			r.Rule, r.Reason = match.IgnNotAccepted, "match not accepted yet"
		}
		return nil, snap.withContext(r, s.Me(), snap.At, false)
	}
	return s.signResult(ctx, snap, "result", st.Computed(), talk)
}

func (s *Seat) signResult(ctx context.Context, snap *Snapshot, action string, r nostr.Result, talk Talk) (*Reply, error) {
	st := snap.State
	if role := st.Role(s.Me()); role != "" {
		if sig, ok := st.Sigs[role]; ok && sig.Result.Same(r) {
			rep := s.already(snap, action, sig.Event)
			rep.Result = &r
			rep.Revealed = s.revealAfter(ctx, st)
			return rep, nil
		}
	}
	rep, err := s.signTagging(ctx, snap, action, false, "", talk, func(t int64) (*nostr.Event, error) {
		return nostr.NewResult(st.Match, r, t), nil
	})
	if rep != nil {
		rep.Result = &r
		rep.Revealed = s.revealAfter(ctx, rep.after)
	}
	return rep, err
}

// ClaimTimeout claims the win once the opponent's 24-hour clock has run out.
func (s *Seat) ClaimTimeout(ctx context.Context, ref string) (*Reply, error) {
	snap, st, unlock, err := s.readAsPlayer(ctx, ref)
	defer unlock()
	if err != nil {
		return nil, err
	}
	if st.Final && st.FinalBy == match.FinalByTimeout && author(st, st.FinalEvent) == s.Me() {
		return s.already(snap, "claim-timeout", st.FinalEvent), nil
	}
	// The claim names the claimant's role; the fold checks the rest.
	r := st.TimeoutWin()
	if role := st.Role(s.Me()); role != "" {
		r.Result = role
	}
	rep, err := s.sign(ctx, snap, "claim-timeout", false, func(t int64) (*nostr.Event, error) {
		return nostr.NewResult(st.Match, r, t), nil
	})
	if rep != nil {
		rep.Result = &r
	}
	return rep, err
}

// RequestArbitration asks for a ruling: valid when the players' signatures
// disagree or the deadline has passed.
func (s *Seat) RequestArbitration(ctx context.Context, ref, note string) (*Reply, error) {
	snap, st, unlock, err := s.readAsPlayer(ctx, ref)
	defer unlock()
	if err != nil {
		return nil, err
	}
	for _, q := range st.Requests {
		if q.Author == s.Me() && !st.Final {
			return s.already(snap, "arbitrate", q.Event), nil
		}
	}
	if note == "" {
		note = "arbitration requested"
	}
	return s.sign(ctx, snap, "arbitrate", false, func(t int64) (*nostr.Event, error) {
		return nostr.NewRequest(st.Match, note, t), nil
	})
}

// Rule publishes, as arbiter, the ruling that is correct now, if one is.
func (s *Seat) Rule(ctx context.Context, ref string) (*Reply, error) {
	snap, st, unlock, err := s.readAsPlayer(ctx, ref)
	defer unlock()
	if err != nil {
		return nil, err
	}
	var r nostr.Result
	rep, err := s.sign(ctx, snap, "rule", false, func(t int64) (*nostr.Event, error) {
		want, ok := st.CorrectRuling(t)
		if !ok {
			// Nothing can be correct: post the timeout win anyway and let
			// the fold say why it would be ignored.
			want = st.TimeoutWin()
		}
		r = want
		return nostr.NewRuling(st.Match, want, t), nil
	})
	if rep != nil {
		rep.Result = &r
	}
	return rep, err
}

// readAsPlayer is the start of every action on a match: a key to sign
// with, the key's lock on the match (released by the returned func, which
// is never nil), and the match as the relays that answered hold it once
// the lock is held, so that an action that waited for another one of the
// same key answers from what that one did.
func (s *Seat) readAsPlayer(ctx context.Context, ref string) (*Snapshot, *match.State, func(), error) {
	none := func() {}
	if err := s.needKey(); err != nil {
		return nil, nil, none, err
	}
	id, _, err := matchRef(ref)
	if err != nil {
		return nil, nil, none, inputf("MATCH: %v", err)
	}
	unlock, err := s.lock(ctx, id)
	if err != nil {
		return nil, nil, none, err
	}
	snap, err := s.Read(ctx, ref)
	if err != nil {
		unlock()
		return nil, nil, none, err
	}
	return snap, snap.State, unlock, nil
}
