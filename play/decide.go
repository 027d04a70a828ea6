package play

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"vesper/match"
	"vesper/nostr"
	"vesper/seat"
)

// Request kinds (Request.Request): a move is wanted, or only an answer to
// the opponent's offer.
const (
	RequestMove  = "move"
	RequestOffer = "offer"
)

func (w *worker) getMover(game string) Mover {
	if w.mover == nil {
		w.mover = w.r.cfg.NewMover(game)
	}
	return w.mover
}

// request builds what a mover is asked: a move (kind RequestMove, with the
// legal moves), or only whether to take the opponent's offer (RequestOffer,
// without them: no move is wanted).
func (w *worker) request(kind string, stt *seat.Status, attempt int, refusal *Refusal) Request {
	req := Request{Request: kind, Match: stt.Match, Game: stt.Game, Color: stt.MyColor, Role: stt.MyRole, Ply: stt.Ply,
		FEN: stt.FEN, PGN: stt.PGN, Board: stt.Board, Moves: stt.Moves, SANMoves: stt.SANMoves,
		InCheck: stt.InCheck, Deadline: stt.Deadline, PreviousReasoning: w.reasoning, OpponentComment: seat.OpponentWords(w.comment), Attempt: attempt, Refusal: refusal}
	if kind == RequestMove {
		req.Legal = stt.LegalMoves
	}
	if req.Moves == nil {
		req.Moves = []string{}
	}
	if stt.MyRole == match.First && stt.Second != nil {
		req.Opponent = *stt.Second
	} else if stt.MyRole == match.Second {
		req.Opponent = stt.First
	}
	if stt.Offer != nil {
		req.Offer = stt.Offer.Result.Result
	}
	return req
}

// offer asks the mover about the opponent's pending offer, once per offer.
func (w *worker) offer(ctx context.Context, stt *seat.Status) error {
	if stt.Offer == nil || w.offers[stt.Offer.Event] {
		return nil
	}
	if w.offers == nil {
		w.offers = map[string]bool{}
	}
	w.offers[stt.Offer.Event] = true
	ch := w.getMover(stt.Game).Choose(ctx, w.request(RequestOffer, stt, 1, nil))
	if ch.Kind != "" || !ch.Answer.AcceptOffer {
		return w.log(Entry{Type: EntryDecision, Ply: stt.Ply, Offer: stt.Offer.Result.Result, Note: "offer declined", EvalCP: ch.EvalCP})
	}
	return w.agree(ctx, stt, ch.Answer.Reasoning)
}

// agree signs the opponent's offer, committing the agent's reasoning
// (section 8.2: a result that agrees a game may). It reports the signature
// only: the game is final when a fresh read says so (the final event).
func (w *worker) agree(ctx context.Context, stt *seat.Status, reasoning string) error {
	rep, err := w.r.cfg.Seat.AgreeWith(ctx, stt.Match, stt.Offer.Result.Result, seat.Talk{Reasoning: reasoning})
	if err != nil {
		return refusalIsNews(err)
	}
	w.r.out(Line{Type: "offer_accepted", Match: stt.Match, Result: stt.Offer.Result.Result, Note: "signed; final once the relays' match says so"})
	return w.log(Entry{Type: EntryAction, Action: "accept_offer", Event: rep.Event, Result: stt.Offer.Result.Result})
}

// move decides and plays the key's move: the journaled event when a crash
// left one unsettled, else the mover's answer, asked again only when the
// agent can fix what was refused.
func (w *worker) move(ctx context.Context, stt *seat.Status) error {
	entries, err := w.entries()
	if err != nil {
		return err
	}
	if playedAt(entries, stt.Ply) {
		// A wake for a ply the journal says was played: stale (the stream
		// had not yet folded the move), or the move did not count (an
		// event of the opponent in the same second took its place). Only
		// a fresh read tells; the agent is not asked twice for a counted
		// ply.
		snap, err := w.r.cfg.Seat.Read(ctx, w.id)
		if err != nil {
			return err
		}
		if snap.State.Plies() >= stt.Ply {
			return nil
		}
	}
	if done, err := w.resumeIntent(ctx, stt, entries); done || err != nil {
		return err
	}
	t := &moveTry{mover: w.getMover(stt.Game), start: time.Now()}
	for n := 1; n <= w.r.cfg.Retries+1; n++ {
		t0 := time.Now()
		ch := t.mover.Choose(ctx, w.request(RequestMove, stt, n, t.refusal))
		ms := time.Since(t0).Milliseconds()
		t.engineMS += ms
		t.addUsage(ch.Answer.Usage)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if done, err := w.tryChoice(ctx, stt, t, ch, Attempt{N: n, Answer: ch.Answer.Move, Form: ch.Answer.Form, MS: ms}); done || err != nil {
			return err
		}
	}
	return w.fallback(ctx, stt, t)
}

func (w *worker) entries() ([]Entry, error) {
	if err := w.openJournal(); err != nil {
		return nil, err
	}
	return w.journal.Entries()
}

// playedAt reports whether the journal settled ply with a published event.
func playedAt(entries []Entry, ply int) bool {
	return slices.ContainsFunc(entries, func(e Entry) bool { return e.Type == EntryDecision && e.Ply == ply && e.Event != "" })
}

// resumeIntent reads the journal after a restart: the agent's previous
// reasoning, and an event signed but not settled at this ply, which it
// sends again, unchanged. done says the move is played; a refusal of the
// journaled event (the position moved on) leaves the move to decide.
func (w *worker) resumeIntent(ctx context.Context, stt *seat.Status, entries []Entry) (done bool, err error) {
	if w.reasoning == "" {
		w.reasoning = w.lastReasoning(entries)
	}
	ev, mv, ok := PendingSigned(entries, stt.Ply)
	if !ok {
		return false, nil
	}
	var rep *seat.Reply
	if ev != nil {
		rep, err = w.r.cfg.Seat.Resend(ctx, w.id, ev)
	} else {
		// A journal of an older runner: the move only.
		rep, err = w.play(ctx, mv, seat.Talk{})
	}
	var rf *seat.Refusal
	switch {
	case err == nil:
		w.r.out(Line{Type: "move", Match: w.id, Ply: stt.Ply, Move: mv, Note: "journaled move sent again"})
		return true, w.log(Entry{Type: EntryDecision, Ply: stt.Ply, Move: mv, Event: rep.Event, Note: "the journaled event, sent again after a restart"})
	case !errors.As(err, &rf):
		return false, err
	}
	return false, nil
}

// lastReasoning is the agent's latest reasoning in the game: the seat's
// journal holds every committed text (a move published just before a
// crash has no decision record), the runner's records the others.
func (w *worker) lastReasoning(entries []Entry) string {
	last := ""
	for _, e := range entries {
		if e.Type == EntryDecision && e.Reasoning != "" {
			last = e.Reasoning
		}
	}
	if cs, err := w.r.cfg.Seat.Journal(w.id); err == nil && len(cs) > 0 {
		last = cs[len(cs)-1].Text
	}
	return last
}

// tryChoice acts on the mover's answer: agrees to the pending offer, or
// plays the move and then, when asked, offers a draw on the position the
// opponent must answer. done says the ply is settled, or ended (with err
// when it failed); a refused answer the agent can fix is recorded in t for
// the next attempt.
func (w *worker) tryChoice(ctx context.Context, stt *seat.Status, t *moveTry, ch Choice, at Attempt) (done bool, err error) {
	if ch.Kind != "" {
		at.Kind, at.Reason = ch.Kind, ch.Why
		t.refused(at, &Refusal{Rule: ch.Kind, Reason: ch.Why})
		return false, nil
	}
	if ch.Answer.AcceptOffer && stt.Offer != nil {
		t.attempts = append(t.attempts, at)
		if err := w.log(Entry{Type: EntryDecision, Ply: stt.Ply, Mover: Describe(t.mover), Attempts: t.attempts, AcceptOffer: true,
			Comment: ch.Answer.Comment, Reasoning: ch.Answer.Reasoning, Usage: t.usageJSON()}); err != nil {
			return true, err
		}
		return true, w.agree(ctx, stt, ch.Answer.Reasoning)
	}
	if ch.Answer.Move == "" {
		at.Kind, at.Reason = KindEmpty, "no move (and no offer to accept)"
		t.refused(at, &Refusal{Rule: KindEmpty, Reason: at.Reason})
		return false, nil
	}
	if ost := w.offerMeanwhile(stt); ost != nil {
		// The opponent offered while the agent thought: it sees the offer
		// before its move goes out, as a player at the board would.
		och := t.mover.Choose(ctx, w.request(RequestOffer, ost, 1, nil))
		t.addUsage(och.Answer.Usage)
		if och.Kind == "" && och.Answer.AcceptOffer {
			t.attempts = append(t.attempts, at)
			if err := w.log(Entry{Type: EntryDecision, Ply: stt.Ply, Mover: Describe(t.mover), Attempts: t.attempts, AcceptOffer: true,
				Reasoning: och.Answer.Reasoning, Usage: t.usageJSON(), Note: "the offer came while the agent chose a move"}); err != nil {
				return true, err
			}
			return true, w.agree(ctx, ost, och.Answer.Reasoning)
		}
	}
	talk := seat.Talk{Comment: ch.Answer.Comment, Reasoning: ch.Answer.Reasoning, Attempts: intp(len(t.attempts)), Usage: t.usage}
	rep, err := w.play(ctx, ch.Answer.Move, talk)
	var rf *seat.Refusal
	if errors.As(err, &rf) {
		at.Kind, at.Rule, at.Reason = KindIllegal, rf.Rule, rf.Reason
		if !agentFixable(rf.Rule) {
			t.attempts = append(t.attempts, at)
			w.r.out(Line{Type: "refused", Match: w.id, Ply: stt.Ply, Move: ch.Answer.Move, Reason: rf.Rule, Note: "not the agent's to fix: the decision ends"})
			return true, w.log(Entry{Type: EntryDecision, Ply: stt.Ply, Mover: Describe(t.mover), Attempts: t.attempts,
				Note: "refused (" + rf.Rule + "): no answer can change that", Usage: t.usageJSON()})
		}
		t.refused(at, &Refusal{Rule: rf.Rule, Reason: rf.Reason, Answer: ch.Answer.Move})
		return false, nil
	}
	if err != nil {
		// The signed event, if any, is journaled: the retry sends it.
		return true, err
	}
	t.attempts = append(t.attempts, at)
	w.reasoning = ch.Answer.Reasoning
	w.r.out(Line{Type: "move", Match: w.id, Ply: rep.Ply, Move: rep.Move})
	if err := w.log(Entry{Type: EntryDecision, Ply: stt.Ply, Move: rep.Move, Event: rep.Event, Mover: Describe(t.mover),
		Attempts: t.attempts, Comment: ch.Answer.Comment, Reasoning: ch.Answer.Reasoning, Offer: ch.Answer.Offer,
		EvalCP: ch.EvalCP, SpentMS: time.Since(t.start).Milliseconds(), EngineMS: t.engineMS, Usage: t.usageJSON()}); err != nil {
		return true, err
	}
	if ch.Answer.Offer == match.Draw && rep.Move != nostr.ResignContent {
		w.offerDraw(ctx, rep.Ply)
	}
	return true, nil
}

// offerMeanwhile is the status of a newer stream event that shows an
// offer of the opponent at the ply being decided, which the request did
// not carry and which was not asked about yet; nil when none.
func (w *worker) offerMeanwhile(stt *seat.Status) *seat.Status {
	if stt.Offer != nil {
		return nil
	}
	w.mu.Lock()
	ev := w.latest
	w.mu.Unlock()
	if ev == nil || ev.Status == nil || ev.Status.Offer == nil || ev.Status.Ply != stt.Ply || w.offers[ev.Status.Offer.Event] {
		return nil
	}
	if w.offers == nil {
		w.offers = map[string]bool{}
	}
	w.offers[ev.Status.Offer.Event] = true
	return ev.Status
}

// offerDraw posts the agent's draw offer after its move, on the position
// the opponent must answer (as Lichess does): an acceptance then agrees
// to that very position, whatever the order the relays deliver them in.
func (w *worker) offerDraw(ctx context.Context, ply int) {
	rep, err := w.r.cfg.Seat.Agree(ctx, w.id, match.Draw)
	if err != nil {
		w.r.out(Line{Type: "offer", Match: w.id, Ply: ply, Error: err.Error(), Note: "draw offer not posted"})
		_ = w.log(Entry{Type: EntryAction, Action: "offer", Ply: ply, Note: "draw offer not posted: " + err.Error()})
		return
	}
	w.r.out(Line{Type: "offer", Match: w.id, Ply: ply, Result: match.Draw})
	_ = w.log(Entry{Type: EntryAction, Action: "offer", Ply: ply, Event: rep.Event, Result: match.Draw})
}

// play posts a move, or a resignation, with its talk.
func (w *worker) play(ctx context.Context, mv string, talk seat.Talk) (*seat.Reply, error) {
	if mv == nostr.ResignContent {
		return w.r.cfg.Seat.ResignWith(ctx, w.id, talk)
	}
	return w.r.cfg.Seat.MoveWith(ctx, w.id, mv, talk)
}

// fallback is the configured way out of a decision every attempt of which
// was refused. A random move is flagged on the event itself (section 8.3,
// revision 3.1), so that no record credits the agent with it.
func (w *worker) fallback(ctx context.Context, stt *seat.Status, t *moveTry) error {
	e := Entry{Type: EntryDecision, Ply: stt.Ply, Mover: Describe(t.mover), Attempts: t.attempts, Fallback: w.r.cfg.Fallback,
		EngineMS: t.engineMS, Usage: t.usageJSON()}
	talk := seat.Talk{Attempts: intp(len(t.attempts)), Usage: t.usage}
	mv := ""
	switch w.r.cfg.Fallback {
	case FallbackNone:
		e.SpentMS = time.Since(t.start).Milliseconds()
		w.r.out(Line{Type: "fallback", Match: w.id, Ply: stt.Ply, Note: "no move: the clock decides"})
		return w.log(e)
	case FallbackResign:
		mv = nostr.ResignContent
	default:
		if len(stt.LegalMoves) == 0 {
			return errors.New("play: no legal move to fall back on")
		}
		l := stt.LegalMoves[w.r.cfg.Rand.IntN(len(stt.LegalMoves))]
		mv = l.Move()
		talk.Fallback = nostr.FallbackRandom
	}
	rep, err := w.play(ctx, mv, talk)
	if err != nil {
		return refusalIsNews(err)
	}
	e.Move, e.Event, e.SpentMS = rep.Move, rep.Event, time.Since(t.start).Milliseconds()
	w.r.out(Line{Type: "move", Match: w.id, Ply: rep.Ply, Move: rep.Move, Note: "fallback " + w.r.cfg.Fallback})
	return w.log(e)
}

// journalSigned is the seat's BeforePublish: a move event of the key,
// signed and about to be sent, is journaled whole (content, comment,
// reasoning hash, attempts, usage, fallback; the salt and text are in the
// seat's journal, written just before) and synced, so that after a crash
// the runner sends that very event again.
func (r *Runner) journalSigned(ev *nostr.Event) error {
	if ev.Kind != nostr.KindMove {
		return nil
	}
	refs := nostr.MatchRefs(ev)
	ply, err := nostr.Ply(ev)
	if len(refs) != 1 || err != nil || !nostr.IsLowerHex(refs[0], 64) {
		return fmt.Errorf("play: journal: a move event without one match and ply")
	}
	return appendEntry(filepath.Join(r.games, refs[0]+".jsonl"), Entry{Type: EntryIntent, Match: refs[0], At: r.now(), Ply: ply,
		Move: ev.Content, Signed: nostr.MarshalEvent(ev)})
}

func intp(n int) *int { return &n }
