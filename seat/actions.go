package seat

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
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
