package seat

import (
	"time"

	"vesper/match"
	"vesper/nostr"
)

// Why Wait returned. Each is something the key can act on now, or says
// there is nothing left to do in the match (final, expired, lost_on_time):
// a loop on Wait stops there instead of spinning.
const (
	WakeMyTurn   = "my_turn"   // the key is to move, and a move stamped now would be on time
	WakeGameOver = "game_over" // the game ended and the seat's key has yet to sign the result
	WakeFinal    = "final"     // the result is final: nothing left to do
	WakeOffer    = "offer"     // the other player offers a result on the current position that the key has not signed (and it is not in Seen)
	WakeRequest  = "request"   // a new valid arbitration request
	WakeExpired  = "expired"   // the challenge expired unaccepted: nothing left to do
	WakeTimeout  = "timeout"   // nothing of the above before the timeout
	// WakeClaimTimeout: the other player's clock has run out and the key's
	// timeout claim would count now (ClaimTimeout).
	WakeClaimTimeout = "claim_timeout"
	// WakeArbitrate: the game is over, the key has signed, and the other
	// player has let the deadline pass without signing the same: a request
	// for arbitration would count now (RequestArbitration), and an arbiter
	// can then make the result final.
	WakeArbitrate = "arbitrate"
	// WakeLostOnTime: it is the key's move but its own clock has run out,
	// so no move of its would count: nothing left to do (the other player
	// may claim the win).
	WakeLostOnTime = "lost_on_time"
)

// Terminal reports whether a wake reason leaves the key nothing to do in
// the match, however long it waits.
func Terminal(reason string) bool {
	return reason == WakeFinal || reason == WakeExpired || reason == WakeLostOnTime
}

// wakeReason is why Wait wakes at now, or "" and when the clock alone may
// change that (zero: only a new event can). Every answer is the fold's:
// whether a move, a claim or the acceptance of an offer would count now is
// asked of match.State (Check, through the Status fields); the clock only
// says when to ask again.
func (s *Seat) wakeReason(st *match.State, stt *Status, seen map[string]bool, now time.Time) (string, time.Time) {
	n := now.Unix()
	switch {
	case st.Final:
		return WakeFinal, time.Time{}
	case st.Status(n) == match.StatusExpired:
		return WakeExpired, time.Time{}
	case !st.Accepted:
		return "", time.Unix(stt.Expires.Unix+1, 0)
	}
	// Whatever the key does next is an event after the match's latest; while
	// that would be stamped further ahead of this clock than the seat signs
	// (stamp_ahead), there is nothing to do yet.
	if at := time.Unix(st.Stamp(n), 0).Add(-s.maxAhead()); now.Before(at) {
		return "", at
	}
	me := s.Me()
	switch {
	case stt.MustSign:
		return WakeGameOver, time.Time{}
	case stt.MyTurn && moveLate(st, me, n):
		return WakeLostOnTime, time.Time{}
	case stt.MyTurn:
		return WakeMyTurn, time.Time{}
	case stt.Offer != nil && !seen[stt.Offer.Event]:
		return WakeOffer, time.Time{}
	case stt.CanClaimTimeout:
		return WakeClaimTimeout, time.Time{}
	}
	for _, r := range stt.Requests {
		if r.Author != me && !seen[r.Event] {
			return WakeRequest, time.Time{}
		}
	}
	if stt.MyRole == "" {
		return "", time.Time{}
	}
	// A request counts as soon as the signatures disagree, but the other
	// player has a day to sign: wake for it once that day is over.
	if st.Over && st.Clock().DeadlinePassed(n) && requestCounts(st, me, n) {
		return WakeArbitrate, time.Time{}
	}
	// In progress, the claim counts from the second after the other
	// player's clock's last; over, a request from the second after the
	// deadline to sign.
	return "", time.Unix(st.Deadline()+1, 0)
}

// requestCounts asks the fold whether an arbitration request by me,
// stamped as the seat would stamp it now, would count, when me has none
// pending already (one is enough: the arbiter answers it).
func requestCounts(st *match.State, me string, now int64) bool {
	for _, r := range st.Requests {
		if r.Author == me {
			return false
		}
	}
	ev := nostr.NewRequest(st.Match, "", st.Stamp(now))
	ev.PubKey = me
	return st.Check(ev, now) == nil
}

// moveLate asks the fold whether a move by me, stamped as the seat would
// stamp it now, would be ignored because the pending clock has run out. A
// resign stands for any move: the clock rule is the same for both, and it
// needs no legal move.
func moveLate(st *match.State, me string, now int64) bool {
	ev := nostr.NewMove(st.Match, st.Plies()+1, nostr.ResignContent, st.Stamp(now))
	ev.PubKey = me
	ig := st.Check(ev, now)
	return ig != nil && ig.Token == match.IgnLate
}
