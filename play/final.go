package play

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"vesper/match"
	"vesper/seat"
)

// errNotFinalYet keeps the worker reading: the stream folded the game
// final, a fresh read of the relays does not (yet). Nothing is reported,
// counted or revealed until it does.
var errNotFinalYet = errors.New("play: the stream says final, a fresh read of the match does not yet")

// confirmFinal reads the match afresh: the game is final for the runner
// only when that read says so, since that read is what every verifier
// folds. The status it returns is the one reported and counted.
func (w *worker) confirmFinal(ctx context.Context) (*seat.Status, error) {
	s := w.r.cfg.Seat
	snap, err := s.Read(ctx, w.id)
	if err != nil {
		return nil, err
	}
	if !snap.State.Final {
		return nil, errNotFinalYet
	}
	return snap.Status(w.r.me, w.r.now()), nil
}

// final reports, counts and reveals a game a fresh read found final, in
// that order of evidence: the read first, then the reveal (which reads
// again and refuses while the game is live), then the lines.
func (w *worker) final(ctx context.Context) error {
	stt, err := w.confirmFinal(ctx)
	if err != nil {
		return err
	}
	// The agent's committed reasoning is published now that the result is
	// final (section 8.2); what fails stays in the seat's journal for a
	// later reveal.
	if _, err := w.r.cfg.Seat.RevealDue(ctx, w.id); err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	outcome := OutcomeDraw
	if stt.Result != nil && *stt.Result != match.Draw {
		outcome = OutcomeLoss
		if *stt.Result == stt.MyRole {
			outcome = OutcomeWin
		}
	}
	reason := ""
	if stt.Reason != nil {
		reason = string(*stt.Reason)
	}
	res := ""
	if stt.Result != nil {
		res = *stt.Result
	}
	_ = w.openJournal()
	capped := w.cappedAt(len(stt.Moves))
	if stt.PGN != "" {
		pgn := stt.PGN
		if capped != "" {
			pgn = withTermination(pgn)
		}
		if err := os.WriteFile(filepath.Join(w.r.games, w.id+".pgn"), []byte(pgn), 0o644); err != nil {
			return err
		}
	}
	if err := w.log(Entry{Type: EntryFinal, Result: res, Reason: reason, Outcome: outcome, Note: capped}); err != nil {
		return err
	}
	w.r.out(Line{Type: "final", Match: w.id, Result: outcome, Reason: reason, Note: capped})
	w.r.release(w.id, true)
	w.r.finished(w.id, outcome)
	return nil
}
