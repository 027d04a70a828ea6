package play

import (
	"context"
	"fmt"
	"strings"

	"vesper/match"
	"vesper/nostr"
	"vesper/seat"
)

// The ply cap of LLM play (the arenas' rule, not the protocol's): a game
// that reaches PlyCap plies is ended by an agreed result (PROTOCOL.md
// section 2: each player signs the same result on the same position),
// chess adjudicated by material, every other game a draw. Each runner
// signs only the result its own computation gives, so a runner with
// another cap or another table never makes a result final.
const (
	DefaultPlyCap = 200 // the cap of `vesper play --model`
	// MaterialLead is the material lead that wins at the cap.
	MaterialLead = 2
	// ActionPlyCap is the journal action of a ply-cap signature, and
	// PlyCapTermination what the PGN and the record say.
	ActionPlyCap      = "ply_cap"
	PlyCapTermination = "ply cap"
)

// pieceValues are the material values of the adjudication (the king
// counts nothing).
var pieceValues = map[rune]int{'q': 9, 'r': 5, 'b': 3, 'n': 3, 'p': 1}

// Material counts the material of a FEN's placement, white and black.
func Material(fen string) (white, black int) {
	placement, _, _ := strings.Cut(fen, " ")
	for _, r := range placement {
		if v, ok := pieceValues[r]; ok {
			black += v
		} else if v, ok := pieceValues[r+'a'-'A']; ok && r >= 'A' && r <= 'Z' {
			white += v
		}
	}
	return white, black
}

// Adjudicate is the result at the cap (first, second or draw) and why.
func Adjudicate(game, fen string) (result, why string) {
	if game != nostr.GameChess {
		return match.Draw, fmt.Sprintf("%s: %s reached, a draw", PlyCapTermination, game)
	}
	w, b := Material(fen)
	why = fmt.Sprintf("%s: material %d-%d (Q %d, R %d, B %d, N %d, P %d; a lead of %d wins)", PlyCapTermination, w, b,
		pieceValues['q'], pieceValues['r'], pieceValues['b'], pieceValues['n'], pieceValues['p'], MaterialLead)
	switch {
	case w-b >= MaterialLead:
		return match.First, why
	case b-w >= MaterialLead:
		return match.Second, why
	}
	return match.Draw, why
}

// atCap reports whether the game in progress has reached the cap.
func (w *worker) atCap(stt *seat.Status) bool {
	return w.r.cfg.PlyCap > 0 && stt != nil && stt.MyRole != "" && stt.Status == match.StatusActive &&
		len(stt.Moves) >= w.r.cfg.PlyCap
}

// adjudicate signs the cap's result on the current position, once: the
// side to move signs on its turn, the other when it sees that signature
// (an offer), each computing the result itself.
func (w *worker) adjudicate(ctx context.Context, stt *seat.Status) error {
	res, why := Adjudicate(stt.Game, stt.FEN)
	for _, s := range stt.Signatures {
		if s.Role == stt.MyRole && s.Result.Result == res && s.Result.Plies == len(stt.Moves) {
			return nil
		}
	}
	if stt.Offer != nil && stt.Offer.Result.Result != res {
		why += fmt.Sprintf("; the opponent signed %s, which this runner does not compute", stt.Offer.Result.Result)
	}
	rep, err := w.r.cfg.Seat.Agree(ctx, stt.Match, res)
	if err != nil {
		return refusalIsNews(err)
	}
	w.r.out(Line{Type: ActionPlyCap, Match: w.id, Ply: len(stt.Moves), Result: res, Note: why})
	return w.log(Entry{Type: EntryAction, Action: ActionPlyCap, Ply: len(stt.Moves), Event: rep.Event, Result: res, Note: why})
}

// cappedAt is the journal's ply-cap note for a game that ended after plies
// plies, "" when the cap did not end it.
func (w *worker) cappedAt(plies int) string {
	if w.journal == nil {
		return ""
	}
	es, err := w.journal.Entries()
	if err != nil {
		return ""
	}
	note := ""
	for _, e := range es {
		if e.Type == EntryAction && e.Action == ActionPlyCap && e.Ply == plies {
			note = e.Note
		}
	}
	return note
}

// withTermination adds the PGN's Termination tag to a game the cap ended.
func withTermination(pgn string) string {
	head, rest, ok := strings.Cut(pgn, "\n\n")
	if !ok {
		return pgn
	}
	return head + "\n[Termination \"" + PlyCapTermination + "\"]\n\n" + rest
}
