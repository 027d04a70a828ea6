package site

import (
	"html/template"
	"strconv"

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
// verifier first received it (seen false when unknown). The times and
// plies come from the fold as values on the entry (match.Ignored), never
// read back from its English detail. Anything not recognised falls back to
// the fold's text, cleaned.
func humanReason(s *match.State, ig match.Ignored, ev *nostr.Event, seenAt int64, seen bool) reasonView {
	// text is HTML: the fixed wording, dates from numbers, and the fold's
	// detail (which may quote relay text) escaped.
	text, ok := fixedReasons[ig.Token]
	if w, wraps := detailReasons[ig.Token]; wraps {
		text, ok = w[0]+template.HTMLEscapeString(cleanLine(ig.Detail, 200))+w[1], true
	}
	if ig.Token == match.IgnWrongPlayer && ev != nil && s.Role(ev.PubKey) == "" {
		text = strangerMove // the fold checks the turn first; the author is no player at all
	}
	if !ok {
		var created int64
		if ev != nil {
			created = int64(ev.CreatedAt)
		}
		text = timedReason(s, ig, created, seenAt, seen)
	}
	if text == "" {
		text = template.HTMLEscapeString(cleanLine(ig.Reason(), 300))
	}
	return reasonView{Text: template.HTML(text), Token: cleanLine(ig.Token, 40)}
}

// fixedReasons are the reasons worded the same for every event.
var fixedReasons = map[string]string{
	match.IgnHeld:            "Held: the challenger's first move, posted before anyone accepted. It is kept aside and counts as soon as a valid accept arrives; nothing to do.",
	match.IgnIllegal:         "Not a legal move in the position at that point, so it does not count; post a legal move for the same ply.",
	match.IgnGameOver:        "The game had already ended when this move came.",
	match.IgnAcceptExtra:     "The match had already been accepted; only the first valid accept counts.",
	match.IgnAcceptSelf:      "The challenger cannot accept its own challenge.",
	match.IgnAcceptNotInv:    "Only the invited account may accept this challenge.",
	match.IgnAcceptBadP:      "An accept needs a p tag naming the challenger.",
	match.IgnAlreadyFinal:    "The result was already final; nothing after that counts.",
	match.IgnRulingNoRequest: "A ruling counts only after a valid arbitration request, and none came before this one.",
	match.IgnTooLarge:        "Larger than the protocol's limit of 65,536 bytes when serialized.",
}

// strangerMove words a move the fold ignored as out of turn (wrong_player)
// whose author holds no role in the match (issue 26, item 5).
const strangerMove = "Posted by an account that is not one of the two players; only they may move."

// detailReasons are the reasons worded around the fold's detail, shown
// escaped between the two parts.
var detailReasons = map[string][2]string{
	match.IgnWrongPlayer:     {"Not this author's turn (", "): odd plies are the first player's, even plies the second's."},
	match.IgnNotPlayer:       {"Posted by an account that is not one of the two players (", "); only they may move, sign or ask for arbitration."},
	match.IgnNotAccepted:     {"Nobody had accepted the challenge yet (", ")."},
	match.IgnClaimInvalid:    {"Not a valid timeout claim: ", "."},
	match.IgnSigInconsistent: {"This result signature does not fit the game (", "), so it is not counted; sign the computed result with vesper result."},
	match.IgnRulingIncorrect: {"This ruling is not correct (", "): a ruling counts only when it names what the rules compute, whoever signs it."},
	match.IgnMalformed:       {"The result JSON is malformed (", ")."},
	match.IgnBadG:            {"Its g tag is not valid (", "): an event of a match carries exactly one g tag naming it."},
	match.IgnBadPly:          {"Its ply tag is not valid (", "): exactly one [\"ply\",\"N\"] tag, N counting from 1."},
}

// timedReason words the reasons that quote the fold's numbers: times as
// dates, plies as numbers. created is the event's created_at. It is ""
// for a token it does not know, or when the fold gave no values.
func timedReason(s *match.State, ig match.Ignored, created, seenAt int64, seen bool) string {
	switch ig.Token {
	case match.IgnFuture:
		if !seen {
			return "Stamped more than " + match.Span(match.FutureSlack) + " after this verifier first received it, so it never counts: check the signer's clock."
		}
		return "Stamped " + duration(created-seenAt) + " after this verifier first received it (stamped " + hdate(created) + ", first seen " + hdate(seenAt) + "). A move may be stamped at most " + match.Span(match.FutureSlack) + " after it arrives, so it never counts: check the signer's clock and post the move again with the current time."
	case match.IgnLate:
		text := "Stamped " + hdate(created) + ", after its " + match.SpanAdj(match.MoveClock) + " clock had run out"
		if ig.Deadline != 0 {
			text += " at " + hdate(ig.Deadline)
		}
		return text + ". A late move never counts: the waiting player may claim the timeout, or either player may ask for arbitration."
	case match.IgnWrongPly:
		if ig.Expected > 0 {
			return "It is marked ply " + strconv.Itoa(ig.Ply) + ", but the next ply to play was " + strconv.Itoa(ig.Expected) + ". Fetch the match again (vesper status) and sign the next ply."
		}
	case match.IgnAcceptWindow:
		return "Stamped " + hdate(created) + ", outside the week the challenge was open (" + hdate(s.CreatedAt) + " to " + hdate(s.Clock().Expires()) + ")."
	case match.IgnClaimPremature:
		if ig.Deadline != 0 {
			return "Timeout claim stamped " + hdate(created) + ", before the clock ran out. A claim counts only when stamped after the clock runs out (" + match.Span(match.MoveClock) + " after " + hdate(ig.ClockStart) + ")."
		}
		return "Timeout claim stamped " + hdate(created) + ", before the opponent's " + match.SpanAdj(match.MoveClock) + " clock ran out; claim again once it has."
	case match.IgnRequestInvalid:
		if ig.Deadline > 0 {
			return "Arbitration asked too early: the players' signatures did not disagree and the deadline (" + hdate(ig.Deadline) + ") had not passed. Ask again after it."
		}
	}
	return ""
}

// moveCount says how long a game of game (its name) was as its players
// count it: chess in moves, a move being White's and Black's plies
// together ("after 4 moves", 7 plies), every other game one move a ply.
func moveCount(game string, plies int) string {
	n := plies
	if game == gameName(nostr.GameChess) {
		n = (plies + 1) / 2
	}
	if n == 1 {
		return "1 move"
	}
	return strconv.Itoa(n) + " moves"
}
