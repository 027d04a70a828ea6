package site

import (
	"fmt"
	"html/template"
	"strconv"
	"strings"

	"vesper/match"
	"vesper/nostr"
)

// reasonView is an ignored event's reason as a reader needs it: what
// happened, with times as dates, and what the signer can do. Token is the
// fold's machine token (PROTOCOL.md section 2), kept beside it for
// programs and bug reports; the fold's own text is what `vesper verify`
// prints.
type reasonView struct {
	Text  template.HTML
	Token string
}

// hdate is a date that never breaks over two lines.
func hdate(t int64) string { return `<span class="nw">` + date(t) + `</span>` }

// humanReason words one ignored entry. ev is the event, seenAt when this
// verifier first received it (seen false when unknown). Anything not
// recognised falls back to the fold's text, cleaned.
func humanReason(s *match.State, ig match.Ignored, ev *nostr.Event, seenAt int64, seen bool) reasonView {
	// text is HTML: the fixed wording, dates from numbers, and the fold's
	// detail (which may quote relay text) escaped.
	var text string
	detail := template.HTMLEscapeString(cleanLine(ig.Detail, 200))
	var created int64
	if ev != nil {
		created = int64(ev.CreatedAt)
	}
	switch ig.Token {
	case match.IgnHeld:
		text = "Held: the challenger's first move, posted before anyone accepted. It is kept aside and counts as soon as a valid accept arrives; nothing to do."
	case match.IgnFuture:
		if seen {
			text = "Stamped " + duration(created-seenAt) + " after this verifier first received it (stamped " + hdate(created) + ", first seen " + hdate(seenAt) + "). A move may be stamped at most 5 minutes after it arrives, so it never counts: check the signer's clock and post the move again with the current time."
		} else {
			text = "Stamped more than 5 minutes after this verifier first received it, so it never counts: check the signer's clock."
		}
	case match.IgnLate:
		text = "Stamped " + hdate(created) + ", after its 24-hour clock had run out"
		if start, ok := clockStartFor(s, ev); ok {
			text += " at " + hdate(start+match.MoveClock)
		}
		text += ". A late move never counts: the waiting player may claim the timeout, or either player may ask for arbitration."
	case match.IgnWrongPly:
		var want, got int
		if _, err := fmt.Sscanf(ig.Detail, "expected %d, got %d", &want, &got); err == nil {
			text = "It is marked ply " + strconv.Itoa(got) + ", but the next ply to play was " + strconv.Itoa(want) + ". Fetch the match again (vesper status) and sign the next ply."
		}
	case match.IgnWrongPlayer:
		text = "Not this author's turn (" + detail + "): odd plies are the first player's, even plies the second's."
	case match.IgnNotPlayer:
		text = "Posted by an account that is not one of the two players (" + detail + "); only they may move, sign or ask for arbitration."
	case match.IgnIllegal:
		text = "Not a legal move in the position at that point, so it does not count; post a legal move for the same ply."
	case match.IgnGameOver:
		text = "The game had already ended when this move came."
	case match.IgnNotAccepted:
		text = "Nobody had accepted the challenge yet (" + detail + ")."
	case match.IgnAcceptExtra:
		text = "The match had already been accepted; only the first valid accept counts."
	case match.IgnAcceptSelf:
		text = "The challenger cannot accept its own challenge."
	case match.IgnAcceptNotInv:
		text = "Only the invited account may accept this challenge."
	case match.IgnAcceptBadP:
		text = "An accept needs a p tag naming the challenger."
	case match.IgnAcceptWindow:
		text = "Stamped " + hdate(created) + ", outside the week the challenge was open (" + hdate(s.CreatedAt) + " to " + hdate(s.CreatedAt+match.ChallengeExpiry) + ")."
	case match.IgnAlreadyFinal:
		text = "The result was already final; nothing after that counts."
	case match.IgnClaimPremature:
		if start, ok := clockAt(s, created); ok {
			text = "Timeout claim stamped " + hdate(created) + ", before the clock ran out. A claim counts only when stamped after the clock runs out (24 hours after " + hdate(start) + ")."
		} else {
			text = "Timeout claim stamped " + hdate(created) + ", before the opponent's 24-hour clock ran out; claim again once it has."
		}
	case match.IgnClaimInvalid:
		text = "Not a valid timeout claim: " + detail + "."
	case match.IgnSigInconsistent:
		text = "This result signature does not fit the game (" + detail + "), so it is not counted; sign the computed result with vesper result."
	case match.IgnRequestInvalid:
		var deadline int64
		if i := strings.LastIndex(ig.Detail, "deadline "); i >= 0 {
			deadline, _ = strconv.ParseInt(strings.TrimSpace(ig.Detail[i+len("deadline "):]), 10, 64)
		}
		if deadline > 0 {
			text = "Arbitration asked too early: the players' signatures did not disagree and the deadline (" + hdate(deadline) + ") had not passed. Ask again after it."
		}
	case match.IgnRulingNoRequest:
		text = "A ruling counts only after a valid arbitration request, and none came before this one."
	case match.IgnRulingIncorrect:
		text = "This ruling is not correct (" + detail + "): a ruling counts only when it names what the rules compute, whoever signs it."
	case match.IgnMalformed:
		text = "The result JSON is malformed (" + detail + ")."
	case match.IgnTooLarge:
		text = "Larger than the protocol's limit of 65,536 bytes when serialized."
	case match.IgnBadG:
		text = "Its g tag is not valid (" + detail + "): an event of a match carries exactly one g tag naming it."
	case match.IgnBadPly:
		text = "Its ply tag is not valid (" + detail + "): exactly one [\"ply\",\"N\"] tag, N counting from 1."
	}
	if text == "" {
		text = template.HTMLEscapeString(cleanLine(ig.Reason(), 300))
	}
	return reasonView{Text: template.HTML(text), Token: cleanLine(ig.Token, 40)}
}

// clockStartFor is when the clock of a move's ply started: the accept for
// plies 1 and 2, the ply before's move after that (section 2, rule 6).
func clockStartFor(s *match.State, ev *nostr.Event) (int64, bool) {
	if !s.Accepted || ev == nil {
		return 0, false
	}
	ply, err := nostr.Ply(ev)
	switch {
	case err != nil || ply < 1:
		return 0, false
	case ply <= 2:
		return s.AcceptAt, true
	case ply-2 < len(s.MoveTimes):
		return s.MoveTimes[ply-2], true
	}
	return 0, false
}

// clockAt is when the pending ply's clock started at time t: the moves
// counted by then decide which ply was pending.
func clockAt(s *match.State, t int64) (int64, bool) {
	if !s.Accepted {
		return 0, false
	}
	n := 0
	for n < len(s.MoveTimes) && s.MoveTimes[n] <= t {
		n++
	}
	if n < 2 {
		return s.AcceptAt, true
	}
	return s.MoveTimes[n-1], true
}
